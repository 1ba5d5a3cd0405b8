# Two commands do all the set-up: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
# Every process of the server (daphne, its bot processes) writes its Prometheus series here; /metrics sums
# them. Emptied at each start: `make run` is the only server of this checkout.
METRICS_DIR ?= $(CURDIR)/.metrics

.PHONY: run test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime-installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime-installed

run: $(VENV)/.runtime-installed
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v0
	$(BIN)/python -m bots.think
	rm -rf $(METRICS_DIR) && mkdir -p $(METRICS_DIR)
	PROMETHEUS_MULTIPROC_DIR=$(METRICS_DIR) $(BIN)/daphne -b $(HOST) -p $(PORT) jassweb.asgi:application

# Two workers (pytest-xdist), a test file to each: live servers, browsers and bot games wait as much
# as they compute, and a module's server starts once. The files are dealt dearest first, by what
# they took (tests/durations.json; xdist would otherwise reorder them by their number of tests). Four
# workers kept both cores busy and saved under a minute, but timing-sensitive tests failed in two of six
# runs (docs/tests.md): two it stays.
test: $(VENV)/.dev-installed
	scripts/test-prerequisites.sh
	$(BIN)/python manage.py collectstatic --noinput -v0
	$(BIN)/python -m bots.think
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# The fast tier (no browser, no services, no minutes-long bot games): under a minute, for every change.
test-fast: $(VENV)/.dev-installed
	JASSWEB_HYPOTHESIS=fast $(BIN)/python -m pytest -m "not browser and not services and not slow" -n 2 -q $(PYTEST_ARGS)

# ruff, then mypy with django-stubs over the project (strict on the engine, the HSLU codec and bots/: pyproject.toml).
lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(VENV)/.dev-installed
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis staticfiles .metrics
