import json
import sys
import time

import nbformat
import pytest

from cdlm_nb.support.errors import ConfigError
from cdlm_nb.tooling.runner import (
    CellProgress,
    check_parameter_type,
    count_code_cells,
    declared_parameters,
    describe_failure,
    discover_notebooks,
    kernel_config,
    parameters_per_notebook,
    parse_parameter_value,
    parse_parameters,
    run_notebooks,
    select_notebooks,
    summary_markdown,
)


def write_notebook(path, *sources, parameters='PROFILE = "cpu"\nRUN_DIR = None'):
    """A minimal tutorial-style notebook: a parameters cell, then the given code cells."""
    cells = [nbformat.v4.new_code_cell(parameters)]
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
                   'cdlm_nb.record("answer/value", 42)\n'
                   'cdlm_nb.record("answer/profile_is_smoke", float(PROFILE == "smoke"))\n'
                   'cdlm_nb.record_input("sample", "answer/sample/", None)')
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
    assert results["inputs"] == {"sample": {"metrics": "answer/sample/", "source": None, "notebook": "01_ok"}}
    assert results["metric_notebooks"] == {"01_ok": ["answer/profile_is_smoke", "answer/value"], "02_broken": []}
    assert results["cpu"]["capability"]
    assert json.loads((out / "results.json").read_text()) == results
    assert results["parameters"] == {} and ok["parameters"] == {}
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


@pytest.fixture
def epochs_notebooks(tmp_path):
    """01 declares EPOCHS and records it; 02 does not declare it and records whether it appeared anyway."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    setup = 'import cdlm_nb\nsession = cdlm_nb.setup(PROFILE, notebook="{name}", run_dir=RUN_DIR, verbose=False)'
    write_notebook(folder / "01_epochs.ipynb", setup.format(name="01_epochs"), 'cdlm_nb.record("epochs", EPOCHS)',
                   parameters='PROFILE = "cpu"\nRUN_DIR = None\nEPOCHS = 1  # passes over the data')
    write_notebook(folder / "02_plain.ipynb", setup.format(name="02_plain"),
                   'cdlm_nb.record("plain/saw_epochs", float("EPOCHS" in globals()))')
    return folder


@pytest.mark.parametrize("text, value", [
    ("2", 2), ("1e-4", 1e-4), ("-0.5", -0.5), ("true", True), ("null", None), ("ecbplus", "ecbplus"),
    ('["cdlm"]', ["cdlm"]), ("[cdlm, local]", ["cdlm", "local"]), ('{"lr": 0.1}', {"lr": 0.1}),
    ("runs/a b", "runs/a b"), ("", ""), ("2021-01-01", "2021-01-01"), ("[unclosed", "[unclosed"),
])
def test_parameter_values_are_literals(text, value):
    assert parse_parameter_value(text) == value
    assert type(parse_parameter_value(text)) is type(value)


def test_parse_parameters_rejects_what_it_cannot_inject():
    assert parse_parameters([("EPOCHS", "2"), ("DATA", "ecbplus")]) == {"EPOCHS": 2, "DATA": "ecbplus"}
    assert parse_parameters(None) == {}
    with pytest.raises(ConfigError, match="EPOCHS is given twice"):
        parse_parameters([("EPOCHS", "2"), ("EPOCHS", "3")])
    with pytest.raises(ConfigError, match="use --profile"):
        parse_parameters([("PROFILE", "gpu")])
    with pytest.raises(ConfigError, match="use --output"):
        parse_parameters([("RUN_DIR", "/tmp/x")])
    with pytest.raises(ConfigError, match="identifier"):
        parse_parameters([("not-a-name", "1")])


def test_parameters_go_only_into_the_notebooks_that_declare_them(epochs_notebooks):
    first, second = discover_notebooks(epochs_notebooks)
    assert declared_parameters(first) == {"PROFILE": '"cpu"', "RUN_DIR": "None", "EPOCHS": "1"}
    per_notebook = parameters_per_notebook([first, second], {"EPOCHS": 3})
    assert per_notebook == {first: {"EPOCHS": 3}, second: {}}
    assert parameters_per_notebook([first, second], {}) == {first: {}, second: {}}


def test_a_parameter_no_chosen_notebook_declares_is_an_error(epochs_notebooks):
    first, second = discover_notebooks(epochs_notebooks)
    with pytest.raises(ConfigError) as error:
        parameters_per_notebook([second], {"EPOCHS": 3, "MODELS": ["cdlm"]})
    message = str(error.value)
    assert "EPOCHS, MODELS not declared by any chosen notebook (02_plain)" in message
    assert "02_plain: PROFILE, RUN_DIR" in message
    with pytest.raises(ConfigError, match=r"MODELS not declared.*01_epochs: PROFILE, RUN_DIR, EPOCHS; 02_plain"):
        parameters_per_notebook([first, second], {"EPOCHS": 3, "MODELS": ["cdlm"]})


@pytest.mark.parametrize("value, ok", [(3, True), (2.5, False), ("three", False), (True, False), (None, True)])
def test_a_parameter_must_fit_the_type_of_its_default(epochs_notebooks, value, ok):
    first, _ = discover_notebooks(epochs_notebooks)
    if ok:
        assert parameters_per_notebook([first], {"EPOCHS": value}) == {first: {"EPOCHS": value}}
    else:
        with pytest.raises(ConfigError, match=r"01_epochs declares EPOCHS = 1 \(int\); give an int literal"):
            parameters_per_notebook([first], {"EPOCHS": value})


def test_type_check_rules():
    check_parameter_type("RATE", 1, "0.15", "nb")  # an int where a float is declared
    check_parameter_type("DIR", "/data", "None", "nb")  # None declares no type
    check_parameter_type("MODELS", ["cdlm"], '["cdlm", "local"]', "nb")
    with pytest.raises(ConfigError, match=r"give a list literal, e.g. -p MODELS '\[\"cdlm\", \"local\"\]'"):
        check_parameter_type("MODELS", "cdlm", '["cdlm", "local"]', "nb")
    with pytest.raises(ConfigError, match="give a bool"):
        check_parameter_type("RESUME", 0, "True", "nb")


def test_unknown_parameter_fails_before_anything_runs(epochs_notebooks, tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ConfigError, match="MODELS"):
        run_notebooks("smoke", output=str(out), folder=epochs_notebooks, parameters={"MODELS": ["cdlm"]},
                      echo=lambda *_: None)
    assert not out.exists()


def test_count_code_cells_counts_the_injected_parameters_cell(epochs_notebooks):
    first, _ = discover_notebooks(epochs_notebooks)
    assert count_code_cells(first) == 4  # parameters, injected parameters, setup, record


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_lines_are_throttled_and_say_cell_n_of_total():
    clock, lines = FakeClock(), []
    progress = CellProgress(total=5, echo=lines.append, every=10, clock=clock)
    hooks = progress.hooks()
    hooks["on_cell_execute"](cell=None, cell_index=0)
    clock.now = 1
    hooks["on_cell_executed"](cell=None, cell_index=0, execute_reply={})  # quick cell: silent
    hooks["on_cell_execute"](cell=None, cell_index=1)
    clock.now = 12
    hooks["on_cell_executed"](cell=None, cell_index=1, execute_reply={})  # 12 s since the start: a line
    hooks["on_cell_execute"](cell=None, cell_index=2)  # 0 s since that line: silent
    clock.now = 30
    hooks["on_cell_executed"](cell=None, cell_index=2, execute_reply={})
    hooks["on_cell_execute"](cell=None, cell_index=3)
    assert lines == ["      cell 2/5 done in 11 s, 12 s elapsed", "      cell 3/5 done in 18 s, 30 s elapsed"]
    clock.now = 45
    hooks["on_cell_execute"](cell=None, cell_index=4)  # a cell starting after a quiet spell is announced
    assert lines[-1] == "      cell 5/5 running, 45 s elapsed"


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no IPC transport")
def test_kernels_talk_over_ipc_sockets_in_the_given_folder(tmp_path):
    settings = kernel_config(str(tmp_path))["KernelManager"]
    assert settings["transport"] == "ipc" and settings["ip"] == str(tmp_path / "kernel")


@pytest.mark.slow
def test_run_injects_parameters_shows_progress_and_hides_the_tcp_warning(epochs_notebooks, tmp_path, capfd):
    out, lines = tmp_path / "runs", []
    results = run_notebooks("smoke", output=str(out), folder=epochs_notebooks, parameters={"EPOCHS": 3},
                            echo=lines.append, progress_every=0)
    assert [nb["status"] for nb in results["notebooks"]] == ["ok", "ok"]
    assert results["metrics"] == {"epochs": 3.0, "plain/saw_epochs": 0.0}
    assert results["parameters"] == {"EPOCHS": 3}
    assert [nb["parameters"] for nb in results["notebooks"]] == [{"EPOCHS": 3}, {}]
    assert json.loads((out / "results.json").read_text())["parameters"] == {"EPOCHS": 3}
    assert lines[0] == "[1/2] 01_epochs (profile smoke, EPOCHS=3) ..."
    assert any(line.startswith("      cell 4/4 done in ") for line in lines), lines
    assert "`EPOCHS = 3`" in (out / "summary.md").read_text()
    # the kernels talk over IPC sockets, so ipykernel has no unencrypted-TCP warning to print
    assert "without encryption" not in capfd.readouterr().err


def test_a_long_cell_keeps_saying_it_is_running_until_it_ends():
    lines = []
    progress = CellProgress(total=3, echo=lines.append, every=1000, heartbeat=0.05)
    progress.on_cell_execute(cell=None, cell_index=0)
    time.sleep(0.3)
    progress.on_cell_executed(cell=None, cell_index=0)
    beats = len(lines)
    time.sleep(0.2)
    assert beats >= 2 and all(line.startswith("      cell 1/3 still running (") for line in lines)
    assert len(lines) == beats  # the heartbeat stops with the cell


def test_running_without_the_lab_extra_names_the_install_command(tiny_notebooks, tmp_path, monkeypatch, capsys):
    """papermill and the kernel are in the `lab` extra, not the core: `cdlm-nb run` says how to get them, at once."""
    import importlib.util

    from cdlm_nb.tooling import cli, runner

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(runner.importlib.util, "find_spec",
                        lambda name, *args: None if name in ("papermill", "ipykernel") else find_spec(name, *args))
    out = tmp_path / "never"
    with pytest.raises(ConfigError, match=r'papermill, ipykernel are not installed: pip install -e "\.\[lab\]" in '
                                          r"the clone \(cdlm-nb is not on PyPI\)"):
        run_notebooks("smoke", output=str(out), folder=tiny_notebooks, echo=lambda *_: None)
    assert not out.exists()
    assert cli.main(["run", "--profile", "smoke", "--output", str(out)]) == 2
    assert 'cdlm-nb run: error: running the notebooks (papermill) needs the `lab` extra' in capsys.readouterr().err
