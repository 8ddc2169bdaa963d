"""SARIF and GitHub annotation output, and the --output-file option."""

from __future__ import annotations

import json

import pytest

from gradguard.check.model import Diagnostic, Position
from gradguard.check.report.github import annotation
from gradguard.cli import main

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
MESSAGE = "`torch.no_grad` is used without `()`: this raises TypeError at the `with`; write `torch.no_grad()`"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bad file.py").write_text(BAD)
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    return tmp_path


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_sarif_has_what_code_scanning_requires(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--format", "sarif", ".")
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "gradguard" and driver["version"] and driver["informationUri"].startswith("https://")
    by_id = {r["id"]: r for r in driver["rules"]}
    assert len(by_id) == len(driver["rules"])
    rule = by_id["GG204"]
    assert rule["name"] == "grad-mode-without-call"
    assert rule["shortDescription"]["text"]
    assert "## Why is this bad?" in rule["help"]["markdown"]
    assert rule["helpUri"].endswith("#gg204")
    results = sorted(run["results"], key=lambda r: r["ruleId"])
    assert [r["ruleId"] for r in results] == ["GG001", "GG204"]
    for result in results:
        assert result["level"] in {"error", "warning", "note"}
        assert result["message"]["text"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        (loc,) = result["locations"]
        region = loc["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    gg204 = results[1]
    assert gg204["message"]["text"] == MESSAGE
    phys = gg204["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "pkg/bad%20file.py"
    assert phys["region"] == {"startLine": 3, "startColumn": 6, "endLine": 3, "endColumn": 19}
    (fix,) = gg204["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "pkg/bad%20file.py"
    (replacement,) = change["replacements"]
    assert replacement["insertedContent"]["text"] == "()"
    assert replacement["deletedRegion"] == {"startLine": 3, "startColumn": 19, "endLine": 3, "endColumn": 19}
    assert "fixes" not in results[0]


def test_sarif_fix_regions_reproduce_the_fixed_file(tree, capsys):
    """Applying the SARIF replacements by their line/column regions gives what --fix writes."""
    _, out, _ = run_cli(capsys, "check", "--format", "sarif", "pkg")
    lines = BAD.splitlines(keepends=True)
    for result in json.loads(out)["runs"][0]["results"]:
        for rep in result["fixes"][0]["artifactChanges"][0]["replacements"]:
            reg = rep["deletedRegion"]
            assert reg["startLine"] == reg["endLine"]
            line = lines[reg["startLine"] - 1]
            lines[reg["startLine"] - 1] = (
                line[: reg["startColumn"] - 1] + rep["insertedContent"]["text"] + line[reg["endColumn"] - 1 :]
            )
    run_cli(capsys, "check", "--fix", "pkg")
    assert "".join(lines) == (tree / "pkg" / "bad file.py").read_text()


def test_sarif_with_no_findings_is_a_valid_empty_run(tree, capsys):
    (tree / "pkg" / "bad file.py").write_text(BAD.replace("no_grad:", "no_grad():"))
    code, out, _ = run_cli(capsys, "check", "--format", "sarif", "pkg")
    assert code == 0
    assert json.loads(out)["runs"][0]["results"] == []


def test_github_annotations_one_line_per_finding(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--format", "github", ".")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("::error file=broken.py,line=2,col=")
    assert lines[0].endswith(",title=GG001::File could not be parsed: SyntaxError: invalid syntax")
    assert lines[1] == f"::error file=pkg/bad file.py,line=3,col=6,endLine=3,endColumn=19,title=GG204::{MESSAGE}"


def test_github_escapes_workflow_command_syntax():
    d = Diagnostic("GG101", "50% of\nit", "a,b:c.py", Position(1, 1), Position(2, 3))
    assert annotation(d) == "::error file=a%2Cb%3Ac.py,line=1,endLine=2,title=GG101::50%25 of%0Ait"


def test_output_file(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--format", "sarif", "--output-file", "report.sarif", "pkg")
    assert code == 1 and out == ""
    assert json.loads((tree / "report.sarif").read_text())["runs"][0]["results"][0]["ruleId"] == "GG204"
    code, _, err = run_cli(capsys, "check", "--output-file", "missing/dir/report.txt", "pkg")
    assert code == 2 and err.startswith("gradguard: error: cannot write")


def test_formats_listed_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out, _ = capsys.readouterr()
    from gradguard.check.report import FORMATS

    flat = " ".join(out.split())
    assert ", ".join(FORMATS) in flat
    assert FORMATS == ("text", "concise", "json", "json-lines", "junit", "gitlab", "sarif", "github")


def test_front_ends_do_not_import_torch():
    import subprocess
    import sys

    code = (
        "import sys, gradguard.check.integrations.flake8, gradguard.check.run.notebook, gradguard.check.report.sarif, "
        "gradguard.check.report.github\nassert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_summary_line_says_which_findings_each_fix_level_covers():
    from gradguard.check.model import Applicability, Diagnostic, Edit, Fix, Position
    from gradguard.check.report.text import summary_line

    at = Position(1, 1)
    safe = Diagnostic("GG101", "m", "f.py", at, at, Fix(Applicability.SAFE, "m", (Edit(0, 0, ""),)))
    unsafe = Diagnostic("GG102", "m", "f.py", at, at, Fix(Applicability.UNSAFE, "m", (Edit(0, 0, ""),)))
    plain = Diagnostic("GG201", "m", "f.py", at, at)
    assert summary_line([safe, unsafe, unsafe, plain]) == (
        "Found 4 errors (1 fixable with --fix, 2 more fixable with --unsafe-fixes)."
    )
    assert summary_line([]) == "All checks passed!"
