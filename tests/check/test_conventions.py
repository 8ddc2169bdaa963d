"""The command-line conventions users know from ruff (and flake8), one test per convention,
each written from the failure it fixes."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from gradguard.cli import main

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
GOOD = "import torch\n\nwith torch.no_grad():\n    y = 1\n"
DATA = "import torch\n\nw = torch.nn.Linear(2, 2).weight\nx = w.data\n"  # GG101, an unsafe fix


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git working tree (a `.git` folder is what git and gradguard look for)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADGUARD_OUTPUT_FORMAT", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / ".git" / "info").mkdir(parents=True)
    write(tmp_path / "train.py", BAD)
    return tmp_path


# -- git's ignore files ----------------------------------------------------------------------


def test_gitignored_folders_are_neither_reported_nor_fixed(repo, capsys):
    # Before: code copies under wandb/ and outputs/ were reported, and --fix rewrote them.
    write(repo / ".gitignore", "wandb/\noutputs/\n*.log\n")
    copy = write(repo / "wandb" / "run-1" / "files" / "code" / "train.py", BAD)
    write(repo / "outputs" / "2024-01-01" / "train.py", BAD)
    code, out, _ = run_cli(capsys, "check", "--no-cache", ".")
    assert code == 1 and out.splitlines()[:-1] == [
        line for line in out.splitlines()[:-1] if line.startswith("train.py")
    ]
    assert "Found 1 error" in out
    run_cli(capsys, "check", "--no-cache", "--fix", ".")
    assert copy.read_text() == BAD  # left alone
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--no-respect-gitignore", ".")
    assert "wandb/run-1/files/code/train.py:3:6: GG204" in out and "outputs/2024-01-01/train.py" in out


def test_folders_brought_back_by_a_negated_folder_pattern_are_walked(repo, capsys):
    # `*` ignores everything, `!*/` brings back every folder and `!*.py` the code in them: git
    # tracks lib/train.py, and so is it checked.
    write(repo / ".gitignore", "*\n!*/\n!*.py\n")
    write(repo / "lib" / "train.py", BAD)
    write(repo / "lib" / "notes.txt", "x\n")
    write(repo / "runs" / ".gitignore", "*\n")
    write(repo / "runs" / "copy.py", BAD)
    code, out, _ = run_cli(capsys, "check", "--no-cache", ".")
    assert code == 1 and "lib/train.py:3:6: GG204" in out and "runs/copy.py" not in out


def test_twin_a_folder_ignored_after_the_negation_stays_ignored(repo, capsys):
    write(repo / ".gitignore", "*\n!*/\n!*.py\nlib/\n")
    write(repo / "lib" / "train.py", BAD)
    write(repo / "train.py", GOOD)
    code, out, _ = run_cli(capsys, "check", "--no-cache", ".")
    assert code == 0 and "lib/train.py" not in out


def test_dot_ignore_info_exclude_nested_files_and_negation(repo, capsys):
    write(repo / ".ignore", "scratch/\n")
    write(repo / ".git" / "info" / "exclude", "local_*.py\n")
    write(repo / "pkg" / ".gitignore", "generated/\n*.py\n!keep.py\n")
    write(repo / "scratch" / "a.py", BAD)
    write(repo / "local_notes.py", BAD)
    write(repo / "pkg" / "generated" / "b.py", BAD)
    write(repo / "pkg" / "dropped.py", BAD)
    write(repo / "pkg" / "keep.py", BAD)
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--show-files", ".")
    assert code == 0
    assert sorted(out.split()) == ["pkg/keep.py", "train.py"]


def test_parent_gitignore_applies_when_a_subfolder_is_checked(repo, capsys):
    write(repo / ".gitignore", "lightning_logs/\n")
    write(repo / "src" / "lightning_logs" / "version_0" / "model.py", BAD)
    write(repo / "src" / "model.py", BAD)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--show-files", "src")
    assert out.split() == ["src/model.py"]


def test_named_ignored_file_is_checked_unless_force_exclude(repo, capsys):
    write(repo / ".gitignore", "wandb/\n")
    copy = write(repo / "wandb" / "train.py", BAD)
    assert run_cli(capsys, "check", "--no-cache", str(copy.relative_to(repo)))[0] == 1
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--force-exclude", "wandb/train.py")
    assert code == 0 and "GG204" not in out


# -- ** in patterns ---------------------------------------------------------------------------


def test_double_star_matches_zero_folders(repo, capsys):
    # Before: "tests/**/test_*.py" missed tests/test_a.py (fnmatch needs two slashes).
    write(repo / "tests" / "test_a.py", BAD)
    write(repo / "tests" / "unit" / "test_b.py", BAD)
    write(repo / "pyproject.toml", '[tool.gradguard]\nper-file-ignores = { "tests/**/test_*.py" = ["GG204"] }\n')
    _, out, _ = run_cli(capsys, "check", "--no-cache", ".")
    assert "tests/" not in out and "train.py:3:6" in out
    write(repo / "pyproject.toml", '[tool.gradguard]\nexclude = ["**/unit/**", "tests/**/test_a.py"]\n')
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--show-files", ".")
    assert out.split() == ["train.py"]


# -- configuration per file -------------------------------------------------------------------


def test_each_file_uses_its_nearest_pyproject_whatever_the_order_of_paths(repo, capsys):
    # Before: the first path's configuration governed the whole run.
    write(repo / "pyproject.toml", "[tool.gradguard]\n")
    write(repo / "legacy" / "pyproject.toml", '[tool.gradguard]\nignore = ["GG204"]\n')
    write(repo / "legacy" / "old.py", BAD)
    one = run_cli(capsys, "check", "--no-cache", "legacy/old.py", "train.py")
    other = run_cli(capsys, "check", "--no-cache", "train.py", "legacy/old.py")
    assert one == other
    assert one[0] == 1 and "train.py:3:6: GG204" in one[1] and "legacy/old.py" not in one[1]


def test_stdin_filename_decides_the_configuration_and_alone_reads_stdin(repo, monkeypatch, capsys):
    write(repo / "legacy" / "pyproject.toml", '[tool.gradguard]\nignore = ["GG204"]\n')

    class FakeStdin:
        buffer = io.BytesIO(BAD.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin)
    # No '-' needed: --stdin-filename alone reads standard input, as in ruff.
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--stdin-filename", "legacy/new.py")
    assert code == 0 and "GG204" not in out
    FakeStdin.buffer = io.BytesIO(BAD.encode())
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--stdin-filename", "src/new.py")
    assert code == 1 and out.startswith("src/new.py:3:6: GG204")


# -- noqa ---------------------------------------------------------------------------------------

CONTINUATION = "import torch\n\nw = torch.nn.Linear(2, 2).weight\nx = w.data + \\\n    1{comment}\n"
MULTILINE = 'import torch\n\nw = torch.nn.Linear(2, 2).weight\nx = (w.data, """\ntext\n"""){comment}\n'


@pytest.mark.parametrize(
    "template",
    [
        pytest.param("import torch\n\nw = torch.nn.Linear(2, 2).weight\nx = w.data{comment}\n", id="first-line"),
        pytest.param(CONTINUATION, id="end-of-backslash-continuation"),
        pytest.param(MULTILINE, id="after-multi-line-string"),
    ],
)
def test_noqa_placement_matches_ruff_and_the_flake8_plugin(repo, capsys, template):
    # Before: only a comment on the finding's first line worked, so a finding before a
    # backslash continuation or a multi-line string could not be suppressed at all.
    path = write(repo / "m.py", template.format(comment=""))
    assert run_cli(capsys, "check", "--no-cache", "--select", "GG101", "m.py")[0] == 1
    path.write_text(template.format(comment="  # noqa: GG101"))
    assert run_cli(capsys, "check", "--no-cache", "--select", "GG101", "m.py")[0] == 0
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "GG", "m.py"], capture_output=True, text=True, cwd=repo
    )
    assert flake8.returncode == 0 and flake8.stdout == ""
    path.write_text(template.format(comment=""))
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "GG", "m.py"], capture_output=True, text=True, cwd=repo
    )
    assert "GG101" in flake8.stdout


def test_file_level_noqa(repo, capsys):
    write(repo / "m.py", "# gradguard: noqa\n" + BAD + "x = torch.nn.Linear(2, 2).weight.data\n")
    assert run_cli(capsys, "check", "--no-cache", "m.py")[0] == 0
    write(repo / "m.py", "# gradguard: noqa: GG101\n" + BAD + "x = torch.nn.Linear(2, 2).weight.data\n")
    _, out, _ = run_cli(capsys, "check", "--no-cache", "m.py")
    assert "GG204" in out and "GG101" not in out


def test_add_noqa_then_clean_and_ignore_noqa_shows_them(repo, capsys):
    path = write(repo / "m.py", CONTINUATION.format(comment="") + "with torch.no_grad:  # noqa: GG101\n    pass\n")
    code, _, err = run_cli(capsys, "check", "--no-cache", "--add-noqa", "m.py")
    assert code == 0 and err.strip() == "Added 2 noqa directives."
    text = path.read_text()
    assert "    1  # noqa: GG101\n" in text  # at the end of the continuation
    assert "with torch.no_grad:  # noqa: GG101, GG204\n" in text  # added to the existing comment
    assert run_cli(capsys, "check", "--no-cache", "m.py")[0] == 0
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--ignore-noqa", "m.py")
    assert code == 1 and "GG101" in out and "GG204" in out


# -- ruff's spellings -----------------------------------------------------------------------------


def test_output_format_spellings_and_environment(repo, capsys, monkeypatch):
    code, out, _ = run_cli(capsys, "check", "--no-cache", "--output-format", "json", "train.py")
    assert json.loads(out)[0]["code"] == "GG204"
    monkeypatch.setenv("GRADGUARD_OUTPUT_FORMAT", "json-lines")
    _, out, _ = run_cli(capsys, "check", "--no-cache", "train.py")
    assert json.loads(out.splitlines()[0])["code"] == "GG204"
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--output-format", "concise", "train.py")
    assert out.startswith("train.py:3:6: GG204 ")
    run_cli(capsys, "check", "--no-cache", "--output-format", "text", "-o", "report.txt", "train.py")
    assert (repo / "report.txt").read_text().startswith("train.py:3:6: GG204 ")


def test_junit_and_gitlab_formats(repo, capsys):
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--output-format", "junit", "train.py")
    suites = ET.fromstring(out)
    (case,) = suites.iter("testcase")
    assert case.get("name") == "org.gradguard.GG204" and case.get("line") == "3"
    assert case.find("failure").get("message").startswith("`torch.no_grad` is used without `()`")
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--output-format", "gitlab", "train.py")
    (issue,) = json.loads(out)
    assert issue["check_name"] == "GG204" and issue["severity"] == "major"
    assert issue["location"] == {"path": "train.py", "lines": {"begin": 3, "end": 3}}
    assert issue["fingerprint"]


def test_statistics_alone_and_as_json(repo, capsys):
    write(repo / "b.py", BAD)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--statistics", ".")
    assert out == "     2\tGG204\tgrad-mode-without-call [*]\n"  # the table alone
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--statistics", "--output-format", "json", ".")
    assert json.loads(out) == [{"code": "GG204", "name": "grad-mode-without-call", "count": 2, "fixable": True}]


def test_fix_only_show_fixes_and_exit_non_zero_on_fix(repo, capsys):
    write(repo / "d.py", DATA)
    code, out, err = run_cli(capsys, "check", "--no-cache", "--fix-only", "--show-fixes", ".")
    assert code == 0 and out == ""  # GG101 (unsafe, not fixed) is not reported
    assert "Fixed 1 error:\n- train.py:\n    1 × GG204 (grad-mode-without-call)\n" in err
    assert (repo / "train.py").read_text() == GOOD
    write(repo / "train.py", BAD)
    assert run_cli(capsys, "check", "--no-cache", "--fix", "--exit-non-zero-on-fix", "train.py")[0] == 1
    assert run_cli(capsys, "check", "--no-cache", "--fix", "--exit-non-zero-on-fix", "train.py")[0] == 0


def test_extend_exclude_quiet_show_settings(repo, capsys):
    write(repo / "gen" / "x.py", BAD)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--extend-exclude", "gen", "--show-files", ".")
    assert out.split() == ["train.py"]
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--quiet", "train.py")
    assert "Found" not in out and "GG204" in out
    write(repo / "pyproject.toml", '[tool.gradguard]\nignore = ["GG204"]\n')
    code, out, _ = run_cli(capsys, "check", "--show-settings", "train.py")
    assert code == 0 and f"config file: {repo / 'pyproject.toml'}" in out and "GG204" not in out.split("rules:")[1]


def test_color(repo, capsys, monkeypatch):
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--color", "always", "train.py")
    assert "\x1b[1mtrain.py:3:6\x1b[0m: \x1b[1m\x1b[31mGG204\x1b[0m" in out
    _, out, _ = run_cli(capsys, "check", "--no-cache", "train.py")  # not a terminal
    assert "\x1b[" not in out
    monkeypatch.setenv("NO_COLOR", "1")

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    main(["check", "--no-cache", "train.py"])
    assert "\x1b[" not in sys.stdout.getvalue()


# -- SARIF for code scanning ---------------------------------------------------------------------


def sarif(capsys, *paths):
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--output-format", "sarif", *paths)
    return json.loads(out)["runs"][0]


def test_sarif_fingerprints_survive_line_moves_and_use_srcroot(repo, capsys):
    before = sarif(capsys, "train.py")
    write(repo / "train.py", "# a comment\n\n" + BAD)
    after = sarif(capsys, "train.py")
    (old,), (new,) = before["results"], after["results"]
    assert old["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert new["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert old["partialFingerprints"] == new["partialFingerprints"]
    location = new["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert after["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.as_uri() + "/"
    # Two equal lines get different fingerprints.
    write(repo / "train.py", BAD + "with torch.no_grad:\n    y = 1\n")
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in sarif(capsys, "train.py")["results"]]
    assert len(set(prints)) == 2


def test_sarif_level_is_each_rules_severity(repo, capsys):
    write(repo / "d.py", DATA)
    run = sarif(capsys, ".")
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"GG101": "warning", "GG204": "error"}
    rules = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert rules["GG201"] == rules["GG301"] == "warning" and rules["GG202"] == rules["GG001"] == "error"


def test_every_rule_has_a_severity():
    from gradguard.check.model import Severity
    from gradguard.check.rules import all_rules

    for rule in all_rules():
        assert isinstance(rule.severity, Severity), rule.code
        assert "severity = Severity." in open(sys.modules[rule.__module__].__file__).read(), rule.code


def test_sarif_results_are_capped_at_25000_with_a_warning(repo, capsys, monkeypatch):
    from gradguard.check.report import sarif as sarif_report

    assert sarif_report.MAX_RESULTS == 25_000
    assert sarif_report.capped(25_001).startswith("SARIF output holds the first 25,000 of 25,001 results")
    monkeypatch.setattr(sarif_report, "MAX_RESULTS", 3)
    for i in range(5):
        write(repo / f"m{i}.py", BAD)
    code, out, err = run_cli(capsys, "check", "--no-cache", "--output-format", "sarif", ".")
    log = json.loads(out)
    assert len(log["runs"][0]["results"]) == 3
    assert "holds the first 3 of 6 results" in err and err.startswith("gradguard: warning:")
    assert log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"] == "warning"


# -- errors ----------------------------------------------------------------------------------------


def test_missing_path_is_an_error_never_followed_by_all_checks_passed(repo, capsys):
    code, out, err = run_cli(capsys, "check", "--no-cache", "nope.py")
    assert code == 2 and "nope.py: No such file or directory" in err
    assert "All checks passed!" not in out
    code, out, err = run_cli(capsys, "check", "--no-cache", "nope.py", "train.py")
    assert code == 1 and "Found 1 error" in out and "nope.py: No such file or directory" in err


@pytest.mark.parametrize(
    "args, says",
    [
        (["--select", ""], "at least one rule code"),
        (["--select", " , "], "at least one rule code"),
        (["--extend-select", ""], "at least one rule code"),
        (["--select", "GG9"], "unknown rule code or prefix: GG9"),
        (["--ignore", "XY1"], "unknown rule code or prefix: XY1"),
    ],
)
def test_empty_or_unknown_selection_is_a_usage_error(repo, capsys, args, says):
    # Before: `--select ''` selected no rule and the run passed.
    try:
        code = main(["check", "--no-cache", *args, "train.py"])
    except SystemExit as exc:  # argparse's own usage error
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and says in err and "All checks passed!" not in out


def test_unknown_code_in_pyproject_names_the_file(repo, capsys):
    write(repo / "pyproject.toml", '[tool.gradguard]\nignore = ["GG999"]\n')
    code, _, err = run_cli(capsys, "check", "--no-cache", "train.py")
    assert code == 2
    assert err == f"gradguard: error: {repo / 'pyproject.toml'}: [tool.gradguard] unknown rule code or prefix: GG999\n"


def test_explain_gg001_and_its_docs_anchor(capsys):
    from pathlib import Path

    code, out, _ = run_cli(capsys, "explain", "GG001")
    assert code == 0 and out.startswith("# GG001 (parse-error)") and "## Why is this bad?" in out
    rules_md = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    assert '<a id="gg001"></a>' in rules_md and "(#gg001)" in rules_md


def test_no_python_files_found(repo, capsys):
    (repo / "empty").mkdir()
    code, out, err = run_cli(capsys, "check", "--no-cache", "empty")
    assert code == 0 and "gradguard: warning: No Python files found under the given path(s)" in err


# -- fixes and permissions ---------------------------------------------------------------------------


def test_fix_leaves_a_read_only_file_alone_and_reports_it(repo, capsys):
    path = repo / "train.py"
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        code, out, err = run_cli(capsys, "check", "--no-cache", "--fix", "train.py")
    finally:
        path.chmod(0o644)
    assert path.read_text() == BAD
    assert "train.py: not changed: the file is read-only" in err
    assert code == 1 and "Found 1 error (0 fixed, 1 remaining)." in out


def test_a_fix_that_cannot_be_written_is_not_counted(repo, capsys, monkeypatch):
    import gradguard.check.run.pipeline as pipeline

    def refuse(path, data, durable=True):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pipeline, "write_atomic", refuse)
    code, out, err = run_cli(capsys, "check", "--no-cache", "--jobs", "1", "--fix", "train.py")
    assert "train.py: not changed: could not write it: No space left on device" in err
    assert "Found 1 error (0 fixed, 1 remaining)." in out and code == 1
    assert (repo / "train.py").read_text() == BAD


# -- positions and syntax -----------------------------------------------------------------------------


def test_gg001_column_from_the_decoded_text_of_a_latin1_file(repo, capsys):
    # Before: the parser re-read the line from disk as UTF-8 and put the column at 8.
    (repo / "m.py").write_bytes(b'# -*- coding: latin-1 -*-\nimport torch\nx = "\xe9\xe9\xe9" 1\n')
    _, out, _ = run_cli(capsys, "check", "--no-cache", "m.py")
    assert out.startswith("m.py:3:11: GG001 ")


def notebook(*sources):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s} for s in sources
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_gg001_column_in_a_notebook_cell_is_the_cells(repo, capsys):
    # Before: the column came from the notebook file's JSON line of the same number.
    write(repo / "nb.ipynb", notebook("import torch\n", 'x = "ééé" 1\n'))
    _, out, _ = run_cli(capsys, "check", "--no-cache", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 2:1:11: GG001 ")


def test_an_indented_notebook_cell_is_checked_as_jupyter_runs_it(repo, capsys):
    # Before: GG001 "unexpected indent", though IPython removes the first line's indentation.
    write(repo / "nb.ipynb", notebook("  import torch\n  with torch.no_grad:\n      y = 1\n"))
    code, out, _ = run_cli(capsys, "check", "--no-cache", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 1:2:8: GG204 ")
    assert run_cli(capsys, "check", "--no-cache", "--fix", "nb.ipynb")[0] == 0
    assert json.loads((repo / "nb.ipynb").read_text())["cells"][0]["source"] == (
        "  import torch\n  with torch.no_grad():\n      y = 1\n"
    )


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the running Python has this syntax")
@pytest.mark.parametrize(
    "source, what",
    [
        ("type Vector = list[float]\n", "`type` statements need Python 3.12"),
        ("def first[T](items: list[T]) -> T:\n    return items[0]\n", "generic functions (PEP 695) need Python 3.12"),
        ("class Box[T]:\n    pass\n", "generic classes (PEP 695) need Python 3.12"),
        ('print(f"{d["k"]:.3f}")\n', "f-strings reusing their quote inside `{...}` (PEP 701) need Python 3.12"),
        ("x = rf'{a['b']}'\n", "f-strings reusing their quote inside `{...}` (PEP 701) need Python 3.12"),
        ("print(f'loss: {\n      loss:.4f}')\n", "f-strings whose `{...}` spans lines (PEP 701) need Python 3.12"),
        ("print(f'{a} and {\n      b}')\n", "f-strings whose `{...}` spans lines (PEP 701) need Python 3.12"),
        ("print(f\"{'\\n'.join(lines)}\")\n", "backslashes inside an f-string's `{...}` (PEP 701) need Python 3.12"),
        ('print(f"{a # the count}")\n', "comments inside an f-string's `{...}` (PEP 701) need Python 3.12"),
    ],
)
def test_syntax_of_a_newer_python_says_which(repo, capsys, source, what):
    write(repo / "m.py", "import torch\n" + source)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "m.py")
    line = out.splitlines()[0]
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert (
        line
        == f"m.py:2:{line.split(':')[2]}: GG001 File could not be parsed: SyntaxError: {what}; gradguard runs on Python {running}"
    )


def test_old_pytorch_async_argument_says_what_to_write(repo, capsys):
    write(repo / "m.py", "import torch\n\n\ndef move(x):\n    return x.cuda(0, async=True)\n")
    _, out, _ = run_cli(capsys, "check", "--no-cache", "m.py")
    assert out.splitlines()[0] == (
        "m.py:5:22: GG001 File could not be parsed: SyntaxError: `async` is a keyword since "
        "Python 3.7: write `non_blocking=True` (the argument's name since PyTorch 0.4); the rest of the file was "
        "checked as if it were written so"
    )


PYTHON2_TRAINING = """import torch
from torch.autograd import Variable


def train(model, loader, criterion, optimizer):
    total = 0
    for x, y in loader:
        x = Variable(x.cuda(async=True))
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.data[0]
        print "loss", loss.data[0]
    print
    return total
"""


def test_old_syntax_is_reported_and_the_rest_of_the_file_checked(repo, capsys):
    # `x.cuda(async=True)` of PyTorch 0.3 and Python 2's `print x`: reported where they are, and the
    # file checked as if they were written as Python 3 writes them
    write(repo / "m.py", PYTHON2_TRAINING)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "ALL", "m.py")
    found = [line.split(" ", 2)[:2] for line in out.splitlines() if ": GG" in line]
    assert found == [
        ["m.py:8:13:", "GG104"],
        ["m.py:8:29:", "GG001"],
        ["m.py:13:18:", "GG105"],
        ["m.py:14:9:", "GG001"],
        ["m.py:14:23:", "GG105"],
        ["m.py:15:5:", "GG001"],
    ]
    assert "`print` is a function since Python 3: write `print(...)`" in out


def test_twin_other_syntax_errors_still_skip_the_file(repo, capsys):
    write(repo / "m.py", PYTHON2_TRAINING.replace("    return total", "    return total +"))
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "ALL", "m.py")
    found = [line for line in out.splitlines() if ": GG" in line]
    assert len(found) == 1 and "GG001" in found[0] and "invalid syntax" in found[0]


@pytest.mark.parametrize("line", ["async def step(x):", "ok = x.is_async == True", "f(asynchronous=True)"])
def test_twin_other_uses_of_async_get_no_hint(line):
    from gradguard.check.source import older_syntax

    assert older_syntax(line) is None


@pytest.mark.parametrize(
    "line",
    ['print(f"{d[\'k\']}" + f"{e}")', 's = f\'{a}\' + "{b""', 'x = "f{" + "a"', "x = f'{a}' + '{", 'y = "f{a"'],
)
def test_twin_a_plain_syntax_error_beside_f_strings_is_no_newer_syntax(line):
    from gradguard.check.source import newer_syntax

    assert newer_syntax(line) is None


def test_start_up_imports_no_pathspec_for_a_named_file(tmp_path):
    path = write(tmp_path / "t.py", BAD)
    probe = "import sys; from gradguard.cli import main; main(['check', '--no-cache', sys.argv[1]]); print('pathspec' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip().splitlines()[-1] == "False"


def test_walking_a_tree_without_ignore_files_imports_no_pathspec(tmp_path):
    write(tmp_path / "pkg" / "t.py", BAD)
    probe = "import sys; from gradguard.cli import main; main(['check', '--no-cache', '.']); print('pathspec' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k != "GRADGUARD_OUTPUT_FORMAT"}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.stdout.strip().splitlines()[-1] == "False"


def test_a_named_folder_inside_an_ignored_one_is_walked(repo, capsys):
    # As ripgrep: naming an ignored folder (a virtual environment's package) asks for it.
    write(repo / ".gitignore", "vendor/\n*.tmp.py\n")
    write(repo / "vendor" / "pkg" / "mod.py", BAD)
    write(repo / "vendor" / "pkg" / "sub" / "deep.py", BAD)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--show-files", "vendor/pkg")
    assert out.split() == ["vendor/pkg/mod.py", "vendor/pkg/sub/deep.py"]
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--show-files", ".")
    assert out.split() == ["train.py"]
