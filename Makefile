# Two commands for a newcomer: `make tutorial` (run every notebook on the cpu profile) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cdlm-nb-installed
PROFILE ?= cpu

.PHONY: install tutorial test unit smoke lab clean

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (cdlm-nb)" >/dev/null
	touch $(STAMP)

tutorial: install
	$(BIN)/cdlm-nb run --profile $(PROFILE)

unit: install
	$(BIN)/python -m pytest -q

smoke: install
	$(BIN)/cdlm-nb run --profile smoke

test: unit smoke

lab: install
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf runs/ .pytest_cache
