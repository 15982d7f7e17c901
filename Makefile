# svmlab developer targets. `make install` is the only setup step.
VENV   ?= .venv
PYTHON ?= python3
BIN     = $(VENV)/bin

.PHONY: install test test-fast run bench clean

install: $(BIN)/svmlab  ## create .venv and install svmlab with its dev extra (editable)

$(BIN)/svmlab: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

test: install  ## the full test suite (real-data tests run when SVMLAB_DATA_DIR is set)
	$(BIN)/python -m pytest -q

test-fast: install  ## everything but the slow end-to-end tests
	$(BIN)/python -m pytest -q -m "not slow"

run: install  ## the quick-start experiment
	$(BIN)/svmlab run

bench: install  ## runner overhead and parallel speed-up, as ratios to a plain loop
	$(BIN)/python scripts/bench/runner_overhead.py

clean:
	rm -rf build dist *.egg-info .pytest_cache
