# OrderBench: `make train` and `make test` each set up everything they need.
PYTHON     ?= python3
VENV       ?= .venv
PY         := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.13.0
EXTRAS     ?= dev,slurm,minilm
STAMP      := $(VENV)/.orderbench-setup
ARGS       ?=

.PHONY: help setup train test test-slow data lint

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

setup: $(STAMP)  ## create .venv: torch ($(TORCH_SPEC)) first, then the project with [$(EXTRAS)]

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

data: setup  ## fetch and preprocess the Brown corpus (cached under data/cache/)
	$(PY) -m benchmark.prepare_data $(ARGS)

train: setup  ## train LSTM+PtrNet on Brown and print test metrics (override with ARGS="model=... seed=...")
	$(PY) -m benchmark.train $(ARGS)

test: setup  ## run the test suite (fast checks; `make test-slow` for the slow ones)
	$(PY) -m pytest -q $(ARGS)

test-slow: setup  ## run only the slow checks
	$(PY) -m pytest -q -m slow $(ARGS)

lint: setup  ## ruff
	$(PY) -m ruff check benchmark models data tests
