# Everything runs from the project's own virtualenv, created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test test-only lint format bench bench-smoke clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## run: embedded PostgreSQL + Redis (unless DATABASE_URL / REDIS_URL are set), migrations, api + worker + beat
run: install
	$(BIN)/automations dev

## test: lint, then the whole suite on real PostgreSQL, Redis and Celery
test: install lint
	$(BIN)/pytest

test-only: install
	$(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app
	$(BIN)/lint-imports

## bench: the engine microbenchmarks (template render, filter evaluation) against their raw floors
bench: install
	$(BIN)/python -m bench.bench_templating
	$(BIN)/python -m bench.bench_filters

bench-smoke: install
	$(BIN)/python -m bench.bench_templating --quick
	$(BIN)/python -m bench.bench_filters --quick

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
