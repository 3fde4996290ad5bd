# Two commands for a newcomer: `make tutorial` (run every notebook on the cpu profile) and `make test`.
# On a Linux machine without a GPU add TORCH=cpu (e.g. `make tutorial TORCH=cpu`): torch then comes from the
# PyTorch CPU wheel index (~0.2 GB) instead of PyPI's Linux wheel (~0.5 GB), which pulls ~2 GB of CUDA libraries.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
PROFILE ?= cpu
# TORCH=pypi (default): torch as requirements.lock pins it, from PyPI (CUDA build on Linux, CPU-only on macOS).
# TORCH=cpu: the same version's CPU-only build (`torch==X+cpu`) from TORCH_CPU_INDEX first; Linux and Windows.
TORCH ?= pypi
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_VERSION := $(shell sed -n 's/^torch==//p' requirements.lock)
STAMP := $(VENV)/.cdlm-nb-installed-torch-$(TORCH)

ifeq ($(TORCH),cpu)
# --no-deps: only torch comes from the CPU index; its dependencies follow from PyPI with requirements.lock.
# The pin `torch==X` of requirements.lock accepts the local version `X+cpu`, so pip keeps the CPU build.
TORCH_FIRST := $(PIP) --no-deps --index-url $(TORCH_CPU_INDEX) "torch==$(TORCH_VERSION)+cpu"
else ifeq ($(TORCH),pypi)
TORCH_FIRST :=
else
$(error TORCH=$(TORCH) is not a choice: use TORCH=pypi (the default) or TORCH=cpu)
endif

.PHONY: install tutorial test unit smoke rehearse lab clean

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(TORCH_FIRST)
	$(PIP) -r requirements.lock
	$(PIP) --no-deps --no-build-isolation -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (cdlm-nb)" >/dev/null
	rm -f $(VENV)/.cdlm-nb-installed-torch-*
	touch $(STAMP)

tutorial: install
	$(BIN)/cdlm-nb run --profile $(PROFILE)

unit: install
	$(BIN)/python -m pytest -q

smoke: install
	$(BIN)/cdlm-nb run --profile smoke

# The gpu path, offline: stand-ins of the hub's files, the gpu profile with only its sizes shrunk. The stand-in
# datasets are filled from the sample corpora (../shared/data or $$CDLM_NB_SHARED_DATA); `make test` says so and
# skips the rehearsal where they are absent, as the unit tests that read them are skipped.
rehearse: install
	$(BIN)/cdlm-nb rehearse

test: unit smoke
	@if $(BIN)/python -c "import sys, cdlm_nb.paths as p; sys.exit(p.shared_data_dir() is None)"; then \
		$(MAKE) --no-print-directory rehearse; \
	else echo "rehearse: SKIPPED, no sample corpora (../shared/data or CDLM_NB_SHARED_DATA) to fill the stand-ins"; fi

lab: install
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf runs/ .pytest_cache
