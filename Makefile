# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_DISABLE_TELEMETRY := 1

.PHONY: run test check lint chromium axe demo-data bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The project itself, editable: the scripts and tests import its packages from the venv.
PIP := $(BIN)/pip install -q --disable-pip-version-check
INSTALL_PROJECT := $(PIP) --no-deps -e .

$(VENV)/.run-deps: requirements.txt pyproject.toml | $(BIN)/python
	$(PIP) -r requirements.txt
	$(INSTALL_PROJECT)
	touch $@

$(VENV)/.dev-deps: requirements.txt requirements-dev.txt pyproject.toml | $(BIN)/python
	$(PIP) -r requirements-dev.txt
	$(INSTALL_PROJECT)
	touch $@ $(VENV)/.run-deps

# olah (a Hub mirror, tests/test_olah.py) in its own venv: its pins fight gradio's.
OLAH_VENV := .venv-olah
OLAH_VERSION := 0.5.4

$(OLAH_VENV)/.olah-$(OLAH_VERSION):
	$(PYTHON) -m venv $(OLAH_VENV)
	$(OLAH_VENV)/bin/pip install -q --disable-pip-version-check olah==$(OLAH_VERSION)
	touch $@

## run: start the Space (LEADERBOARD_BENCHMARK, default egomemreason) at http://127.0.0.1:7860
run: $(VENV)/.run-deps
	$(BIN)/python app.py

## chromium: Debian's Chromium for the browser tests and curl for the README's curl example
## (installed when missing, as root)
chromium:
	@{ command -v chromium && command -v curl; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian chromium and curl for the browser and docs tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium curl >/dev/null; \
	  else echo "chromium or curl is missing and this is not root: browser or docs tests will fail"; fi; }

## axe: axe-core for tests/test_accessibility.py, as tests/axe/package-lock.json pins it
# (npm ci, again when the lock changes; Debian's nodejs and npm first when missing, as root).
AXE_JS := tests/axe/node_modules/axe-core/axe.min.js
axe: $(AXE_JS)

$(AXE_JS): tests/axe/package.json tests/axe/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian nodejs and npm for axe-core"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  else echo "npm is missing and this is not root: install nodejs and npm" >&2; exit 1; fi; }
	npm ci --prefix tests/axe --no-audit --no-fund --loglevel=error
	touch $@

## lint: ruff (rules and format) and mypy over the whole tree
lint: $(VENV)/.dev-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## check: the fast tier, to run after every edit: lint, types, and every test that runs in this
## process within a second or so: no server, no Chromium, no Python process or shell (markers
## server, browser, slow: tests/conftest.py); make test runs them all
# Its bytecode is cached (__pycache__/, git-ignored) even where PYTHONDONTWRITEBYTECODE is set:
# without it each xdist worker compiled the project and rewrote every test module's asserts
# again, 7 s of CPU each a run on these machines.
check: $(VENV)/.dev-deps lint
	PYTHONDONTWRITEBYTECODE= LEADERBOARD_TEST_TIER=fast $(BIN)/python -m pytest -q -n auto -m "not server and not browser and not slow"

## test: lint, type-check and run the whole suite
test: $(VENV)/.dev-deps $(OLAH_VENV)/.olah-$(OLAH_VERSION) chromium axe lint
	$(BIN)/python -m pytest

## demo-data: regenerate every benchmark's synthetic demo key, public file and sample submission
demo-data: $(VENV)/.run-deps
	for script in benchmarks/*/demo/make_demo_data.py; do $(BIN)/python $$script || exit 1; done

## bench: rerun the benchmarks (P1-P6) and rewrite BENCHMARKS.md (~17 min)
bench: $(VENV)/.dev-deps
	$(BIN)/python -m perf
