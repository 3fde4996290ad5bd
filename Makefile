# Two commands for a newcomer: `make tutorial` (run every notebook on the cpu profile) and `make test`.
# torch is chosen by itself (tools/choose_torch.py): on Linux without `nvidia-smi` the CPU-only build from the PyTorch
# CPU wheel index (~0.2 GB) instead of PyPI's Linux wheel (~0.5 GB), which pulls ~2 GB of CUDA libraries.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
PROFILE ?= cpu
# TORCH unset: chosen by tools/choose_torch.py (the build an existing .venv has; else cpu on Linux without nvidia-smi,
# pypi elsewhere). TORCH=pypi: torch as requirements.lock pins it, from PyPI (CUDA build on Linux, CPU-only on
# macOS). TORCH=cpu: the same version's CPU-only build (`torch==X+cpu`) from TORCH_CPU_INDEX first; Linux and Windows.
TORCH ?=
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_VERSION := $(shell sed -n 's/^torch==//p' requirements.lock)
# The stamp names the build .venv has, so an existing .venv keeps it unless TORCH asks for the other one.
STAMPS := $(wildcard $(VENV)/.cdlm-nb-installed-torch-*)
TORCH_INSTALLED := $(patsubst $(VENV)/.cdlm-nb-installed-torch-%,%,$(STAMPS))
CHOOSE_TORCH := $(PYTHON) tools/choose_torch.py --override "$(TORCH)" --installed "$(TORCH_INSTALLED)"
TORCH_BUILD := $(shell $(CHOOSE_TORCH))
ifeq ($(TORCH_BUILD),)
$(error TORCH: no build chosen (tools/choose_torch.py said why above))
endif
STAMP := $(VENV)/.cdlm-nb-installed-torch-$(TORCH_BUILD)

ifeq ($(TORCH_BUILD),cpu)
# --no-deps: only torch comes from the CPU index; its dependencies follow from PyPI with requirements.lock.
# The pin `torch==X` of requirements.lock accepts the local version `X+cpu`, so pip keeps the CPU build.
# Where the index cannot be reached (or has no such wheel), requirements.lock takes PyPI's torch instead.
TORCH_FIRST := $(PIP) --no-deps --retries 1 --index-url $(TORCH_CPU_INDEX) "torch==$(TORCH_VERSION)+cpu" \
	|| echo "torch: $(TORCH_CPU_INDEX) could not be reached or has no torch==$(TORCH_VERSION)+cpu for this machine;" \
		"installing PyPI's torch instead (on Linux with ~2 GB of CUDA libraries). Set TORCH_CPU_INDEX to a mirror," \
		"or TORCH=pypi to skip this try."
else
TORCH_FIRST :=
endif

.PHONY: install tutorial test lint unit smoke rehearse publish lab clean

install: $(STAMP)

# cdlm-nb with its `lab` extra (papermill, ipykernel, ipywidgets, jupyterlab: `cdlm-nb run` and `make lab` need it),
# all pinned in requirements.lock; Colab's install cell takes the core only (pyproject.toml says why).
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "make install: $(VENV) runs \
	$$($(BIN)/python --version 2>&1), and the project needs Python >= 3.11 (requirements.lock's numpy, pandas and \
	scipy). Install Python 3.11 or newer, then: rm -rf $(VENV) && make install PYTHON=python3.11" >&2; exit 1; }
	@$(CHOOSE_TORCH) --explain >/dev/null
	$(TORCH_FIRST)
	$(PIP) -r requirements.lock
	$(PIP) --no-deps --no-build-isolation -e ".[lab]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (cdlm-nb)" >/dev/null
	rm -f $(VENV)/.cdlm-nb-installed-torch-*
	build=$$($(BIN)/python tools/choose_torch.py --build-of-installed) && touch $(VENV)/.cdlm-nb-installed-torch-$$build

# The run's metrics next to the published ones (baselines/<profile>.json, written by `make publish`), as a short
# verdict: on another CPU the fine-tuned numbers may move within their measured seed band
# (baselines/<profile>.spread.json). Reported, never failing the tutorial; `cdlm-nb compare` prints the full table.
tutorial: install
	$(BIN)/cdlm-nb run --profile $(PROFILE)
	@if [ -f baselines/$(PROFILE).json ]; then \
		$(BIN)/cdlm-nb compare --verdict runs/$(PROFILE) baselines/$(PROFILE).json || true; \
	else echo "compare: SKIPPED, no baselines/$(PROFILE).json yet (\`make publish\` writes it)"; fi

# ruff's settings are in pyproject.toml; .pre-commit-config.yaml runs the same check before each commit.
lint: install
	$(BIN)/ruff check .

# -rs: every skipped test with its reason (e.g. no sample corpora beside a fresh clone).
unit: install
	$(BIN)/python -m pytest -q -rs

smoke: install
	$(BIN)/cdlm-nb run --profile smoke

# The gpu path, offline: stand-ins of the hub's files, the gpu profile with only its sizes shrunk. The stand-in
# datasets are filled from the sample corpora (../shared/data or $$CDLM_NB_SHARED_DATA); `make test` says so and
# skips the rehearsal where they are absent, as the unit tests that read them are skipped.
rehearse: install
	$(BIN)/cdlm-nb rehearse

# After the smoke run, its metrics against baselines/smoke.json: a drift table and failure when a number moved.
test: lint unit smoke
	$(BIN)/cdlm-nb compare runs/smoke baselines/smoke.json
	@if $(BIN)/python -c "import sys, cdlm_nb.support.paths as p; sys.exit(p.shared_data_dir() is None)"; then \
		$(MAKE) --no-print-directory rehearse; \
	else echo "rehearse: SKIPPED, no sample corpora (../shared/data or CDLM_NB_SHARED_DATA) to fill the stand-ins"; fi

# The published run: the cpu profile's executed notebooks into docs/notebooks/ (read without running anything),
# baselines/cpu.json and baselines/smoke.json from the two runs. Commit all three afterwards.
publish: install
	$(BIN)/cdlm-nb run --profile cpu --output runs/cpu
	$(BIN)/cdlm-nb run --profile smoke --output runs/smoke
	$(BIN)/cdlm-nb publish runs/cpu --smoke runs/smoke

lab: install
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf runs/ .pytest_cache
