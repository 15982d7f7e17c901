# svmlab developer targets. `make install` is the only setup step.
VENV   ?= .venv
PYTHON ?= python3
BIN     = $(VENV)/bin

.PHONY: install test test-fast lint format run bench clean reproduce-quick

install: $(BIN)/svmlab  ## create .venv and install svmlab with its dev extra (editable)

$(BIN)/svmlab: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps 'hydra-ray-launcher==1.2.2'  # see docs/decisions/runner.md
	@touch $@

test: install  ## the full test suite (real-data tests run when SVMLAB_DATA_DIR is set)
	$(BIN)/python -m pytest -q -n 2

lint: install  ## ruff: lint and format check (configured in pyproject.toml), as CI runs it
	$(BIN)/ruff check svmlab tests scripts
	$(BIN)/ruff format --check svmlab tests scripts

format: install  ## apply ruff's formatting and safe fixes
	$(BIN)/ruff format svmlab tests scripts
	$(BIN)/ruff check --fix svmlab tests scripts

test-fast: install  ## everything but the tests marked slow (runs, subprocesses, clusters, Weka): under 3 min
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

REPRODUCE_DIR ?= /tmp/svmlab-reproduce-quick
reproduce-quick: install  ## CI: one document's quick reproduction (svmlab reproduce mierswa2009 --quick), then check its HTML report
	rm -rf $(REPRODUCE_DIR)
	$(BIN)/svmlab reproduce mierswa2009 --quick --results-dir $(REPRODUCE_DIR)
	$(BIN)/python scripts/check_report.py $(REPRODUCE_DIR)/reproduce/mierswa2009-quick.html

run: install  ## the quick-start experiment
	$(BIN)/svmlab run

bench: install  ## svmlab's CPU per task against a plain loop doing the same work (1 and 2 workers)
	$(BIN)/python scripts/bench/overhead.py

.PHONY: weka
weka:  ## optional: Java + Weka 3.6 (Debian) for the weka_* solvers; needs root (not part of install)
	@echo "Installing the Debian packages weka and default-jre-headless (needs root: run as root or with sudo)."
	apt-get update
	apt-get install -y weka default-jre-headless
	@java -cp /usr/share/java/weka.jar weka.classifiers.mi.MISMO -h >/dev/null 2>&1 \
		&& echo "Weka OK: /usr/share/java/weka.jar (set SVMLAB_WEKA_JAR to use another jar)" \
		|| { echo "java cannot run weka.classifiers.mi.MISMO from /usr/share/java/weka.jar"; exit 1; }

clean:
	rm -rf build dist *.egg-info .pytest_cache
