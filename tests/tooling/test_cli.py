"""The `cdlm-nb` command line: argument parsing and errors that reach the terminal (no notebook is executed)."""

import pytest

from cdlm_nb.tooling import cli


def test_cli_rejects_unknown_profile(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "--profile", "laptop"])
    assert exit_info.value.code == 2
    assert "smoke" in capsys.readouterr().err


def test_cli_rejects_unknown_notebook(capsys):
    assert cli.main(["run", "--profile", "smoke", "--only", "99"]) == 2
    assert "unknown notebook(s) ['99']; valid: 00_overview" in capsys.readouterr().err


def test_run_takes_repeatable_name_value_parameters():
    args = cli.build_parser().parse_args(["run", "-p", "EPOCHS", "2", "--parameter", "MODELS", '["cdlm"]'])
    assert args.parameters == [["EPOCHS", "2"], ["MODELS", '["cdlm"]']]
    assert cli.build_parser().parse_args(["run"]).parameters is None


def test_cli_names_an_undeclared_parameter_and_what_the_notebooks_declare(capsys):
    assert cli.main(["run", "--profile", "smoke", "--only", "01", "-p", "NO_SUCH_KNOB", "2"]) == 2
    err = capsys.readouterr().err
    assert "cdlm-nb run: error: parameter(s) NO_SUCH_KNOB not declared by any chosen notebook" in err
    assert "01_cross_document_masking: PROFILE, RUN_DIR" in err


def test_cli_refuses_a_parameter_the_runner_sets(capsys):
    assert cli.main(["run", "--profile", "smoke", "-p", "PROFILE", "gpu"]) == 2
    assert "use --profile" in capsys.readouterr().err
