import json

import nbformat
import pytest

from cdlm_nb import cli
from cdlm_nb.errors import ConfigError
from cdlm_nb.runner import describe_failure, discover_notebooks, run_notebooks, select_notebooks, summary_markdown


def write_notebook(path, *sources):
    """A minimal tutorial-style notebook: a parameters cell, then the given code cells."""
    cells = [nbformat.v4.new_code_cell('PROFILE = "cpu"\nRUN_DIR = None')]
    cells[0].metadata["tags"] = ["parameters"]
    cells += [nbformat.v4.new_code_cell(src) for src in sources]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture
def tiny_notebooks(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    setup = 'import cdlm_nb\nsession = cdlm_nb.setup(PROFILE, notebook="{name}", run_dir=RUN_DIR, verbose=False)'
    write_notebook(folder / "01_ok.ipynb", setup.format(name="01_ok"),
                   'cdlm_nb.record("answer/value", 42)\ncdlm_nb.record("answer/profile_is_smoke", float(PROFILE == "smoke"))')
    write_notebook(folder / "02_broken.ipynb", setup.format(name="02_broken"), "x = 1", "raise KeyError('boom')")
    (folder / "scratch.ipynb").write_text("{}")  # not numbered: ignored
    return folder


def test_discover_keeps_numbered_notebooks_in_order(tiny_notebooks):
    assert [p.name for p in discover_notebooks(tiny_notebooks)] == ["01_ok.ipynb", "02_broken.ipynb"]


def test_select_by_number_or_name_and_reject_unknown(tiny_notebooks):
    notebooks = discover_notebooks(tiny_notebooks)
    assert [p.stem for p in select_notebooks(notebooks, ["02"])] == ["02_broken"]
    assert [p.stem for p in select_notebooks(notebooks, ["01_ok", "02"])] == ["01_ok", "02_broken"]
    with pytest.raises(ConfigError, match="valid: 01_ok, 02_broken"):
        select_notebooks(notebooks, ["07"])


@pytest.mark.slow
def test_run_executes_gathers_metrics_and_reports_failures(tiny_notebooks, tmp_path):
    out = tmp_path / "runs"
    results = run_notebooks("smoke", output=str(out), folder=tiny_notebooks, echo=lambda *_: None)
    assert results["profile"] == "smoke"
    ok, broken = results["notebooks"]
    assert (ok["name"], ok["status"], ok["error"]) == ("01_ok", "ok", None)
    assert broken["status"] == "failed"
    assert "cell" in broken["error"] and "KeyError" in broken["error"] and "boom" in broken["error"]
    # PROFILE was injected (the notebook's own literal says "cpu") and RUN_DIR pointed at the output folder
    assert results["metrics"] == {"answer/value": 42.0, "answer/profile_is_smoke": 1.0}
    assert json.loads((out / "results.json").read_text()) == results
    assert (out / "01_ok.ipynb").exists() and (out / "02_broken.ipynb").exists()
    summary = (out / "summary.md").read_text()
    assert "| 02_broken | failed |" in summary and "answer/value" in summary


def test_summary_table_lists_every_notebook_and_metric():
    text = summary_markdown({"profile": "cpu", "metrics": {"perplexity/cdlm": 3.21},
                             "notebooks": [{"name": "01_a", "seconds": 1.5, "status": "ok", "error": None},
                                           {"name": "02_b", "seconds": 2.0, "status": "failed", "error": "a|b"}]})
    assert "| 01_a | ok | 1.5 |  |" in text
    assert "| 02_b | failed | 2.0 | a\\|b |" in text
    assert "| perplexity/cdlm | 3.21 |" in text
    assert "Total: 3.5 s" in text


def test_describe_failure_without_papermill_details():
    assert describe_failure(RuntimeError("kernel died")) == "RuntimeError: kernel died"


def test_cli_rejects_unknown_profile(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "--profile", "laptop"])
    assert exit_info.value.code == 2
    assert "smoke" in capsys.readouterr().err


def test_cli_rejects_unknown_notebook(capsys):
    assert cli.main(["run", "--profile", "smoke", "--only", "99"]) == 2
    assert "unknown notebook(s) ['99']; valid: 00_overview" in capsys.readouterr().err
