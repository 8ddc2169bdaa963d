"""End-to-end behaviour of ``gradguard check`` and friends, run in-process."""

from __future__ import annotations

import json
import os
import stat

import pytest

import gradguard.check.cli as check_cli
from gradguard.cli import main

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
GOOD = "import torch\n\nwith torch.no_grad():\n    y = 1\n"


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "plain.py").write_text("with x.no_grad:\n    pass\n")  # never imports torch
    return tmp_path


def test_text_output_and_exit_code(tree, capsys):
    code, out, _ = run_cli(capsys, "check")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        "bad.py:3:6: GG204 `torch.no_grad` is used without `()`: this raises TypeError at the "
        "`with`; write `torch.no_grad()` [*]"
    )
    assert lines[-1] == "Found 1 error (1 fixable with --fix)."


def test_clean_tree_exits_zero(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "good.py")
    assert code == 0
    assert out.strip() == "All checks passed!"


def test_non_torch_files_skipped_unless_all_files(tree, capsys):
    assert run_cli(capsys, "check", "plain.py")[0] == 0
    # With --all-files the file is checked, but `x.no_grad` is not torch's: still clean.
    assert run_cli(capsys, "check", "--all-files", "plain.py")[0] == 0


def test_json_output_shape(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--format", "json", "bad.py")
    assert code == 1
    (item,) = json.loads(out)
    assert item["code"] == "GG204"
    assert item["filename"] == "bad.py"
    assert item["location"] == {"row": 3, "column": 6}
    assert item["end_location"] == {"row": 3, "column": 19}
    assert item["fix"]["applicability"] == "safe"
    assert item["fix"]["edits"] == [
        {"content": "()", "location": {"row": 3, "column": 19}, "end_location": {"row": 3, "column": 19}}
    ]
    assert item["url"].endswith("gg204")


def test_select_ignore_and_exit_zero(tree, capsys):
    assert run_cli(capsys, "check", "--ignore", "GG2")[0] == 0
    assert run_cli(capsys, "check", "--select", "GG001")[0] == 0
    assert run_cli(capsys, "check", "--select", "GG204")[0] == 1
    assert run_cli(capsys, "check", "--exit-zero")[0] == 0


def test_unknown_code_is_usage_error(tree, capsys):
    code, out, err = run_cli(capsys, "check", "--select", "GG999")
    assert code == 2
    assert err.strip() == "gradguard: error: unknown rule code or prefix: GG999"


def test_unknown_format_is_usage_error(tree, capsys):
    code, _, err = run_cli(capsys, "check", "--format", "xml")
    assert code == 2 and "unknown format" in err and "\n" == err[-1] and err.count("\n") == 1


def test_missing_path_reported(tree, capsys):
    code, _, err = run_cli(capsys, "check", "nope.py")
    assert code == 2
    assert "nope.py: No such file or directory" in err


def test_config_select_and_cli_override(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG204"]\n')
    assert run_cli(capsys, "check")[0] == 0
    assert run_cli(capsys, "check", "--select", "GG204")[0] == 1


def test_config_exclude_and_per_file_ignores(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.gradguard]\nexclude = ["bad.py"]\n')
    assert run_cli(capsys, "check", ".")[0] == 0
    (tree / "pyproject.toml").write_text('[tool.gradguard.per-file-ignores]\n"bad*.py" = ["GG2"]\n')
    assert run_cli(capsys, "check", ".")[0] == 0


def test_bad_config_is_one_line_error(tree, capsys):
    (tree / "pyproject.toml").write_text("[tool.gradguard\n")
    code, _, err = run_cli(capsys, "check")
    assert code == 2 and err.startswith("gradguard: error:") and err.count("\n") == 1
    (tree / "pyproject.toml").write_text('[tool.gradguard]\nselct = ["GG1"]\n')
    code, _, err = run_cli(capsys, "check")
    assert code == 2 and "unknown [tool.gradguard] key(s): selct" in err


def test_noqa(tree, capsys):
    (tree / "bad.py").write_text(BAD.replace("no_grad:", "no_grad:  # noqa: GG204"))
    assert run_cli(capsys, "check")[0] == 0
    (tree / "bad.py").write_text(BAD.replace("no_grad:", "no_grad:  # noqa"))
    assert run_cli(capsys, "check")[0] == 0
    (tree / "bad.py").write_text(BAD.replace("no_grad:", "no_grad:  # noqa: GG101"))
    assert run_cli(capsys, "check")[0] == 1


def test_fix_rewrites_and_is_idempotent(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--fix")
    assert code == 0
    assert "Found 1 error (1 fixed, 0 remaining)." in out
    assert (tree / "bad.py").read_text() == GOOD
    code, out, _ = run_cli(capsys, "check", "--fix")
    assert code == 0 and (tree / "bad.py").read_text() == GOOD


def test_fix_run_counts_what_it_could_not_fix_as_remaining(tree, capsys):
    # An unsafe fix that `--fix --unsafe-fixes` could not apply (here: none exists for GG201 at
    # module level) is left, not offered again "with --unsafe-fixes".
    (tree / "bad.py").write_text("from torch import nn\nmodel = nn.Linear(2, 2)\nmodel.eval()\ny = model(x)\n")
    code, out, _ = run_cli(capsys, "check", "--fix", "--unsafe-fixes")
    assert code == 1
    assert out.strip().endswith("Found 1 error (0 fixed, 1 remaining).")


def test_fix_summary_counts_findings_a_single_fix_clears(tree, capsys):
    # One `with torch.no_grad():` around both lines fixes both GG102 findings.
    (tree / "bad.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\ndef normal_init(m, mean, std):\n"
        "    if isinstance(m, nn.Conv2d):\n        m.weight.data.normal_(mean, std)\n        m.bias.data.zero_()\n"
    )
    code, out, err = run_cli(capsys, "check", "--fix", "--unsafe-fixes", "--show-fixes")
    assert out.strip().endswith("Found 2 errors (2 fixed, 0 remaining).")
    assert "Fixed 2 errors" in err


def test_diff_changes_nothing(tree, capsys):
    code, out, err = run_cli(capsys, "check", "--diff")
    assert code == 1
    assert "-with torch.no_grad:\n+with torch.no_grad():" in out
    assert (tree / "bad.py").read_text() == BAD


def test_diff_counts_the_findings_fix_would_clear(tree, capsys):
    # Two GG102 writes get one merged `with torch.no_grad():` edit: --diff says what --fix says.
    (tree / "init.py").write_text(
        "import torch\n\n\ndef init(m):\n    m.weight.data.fill_(1)\n    m.bias.data.zero_()\n"
    )
    code, out, err = run_cli(capsys, "check", "--select", "GG102", "--diff", "--unsafe-fixes", "init.py")
    assert code == 1
    assert "+    with torch.no_grad():" in out
    assert err.strip() == "Would fix 2 errors."
    code, out, err = run_cli(capsys, "check", "--select", "GG102", "--fix", "--unsafe-fixes", "init.py")
    assert out.strip().endswith("Found 2 errors (2 fixed, 0 remaining).")


def test_fix_keeps_encoding_line_endings_and_mode(tree, capsys):
    text = "# -*- coding: latin-1 -*-\r\nimport torch\r\n# caf\xe9\r\nwith torch.no_grad:\r\n    pass\r\n"
    path = tree / "legacy.py"
    path.write_bytes(text.encode("latin-1"))
    os.chmod(path, 0o751)
    run_cli(capsys, "check", "--fix", "legacy.py")
    assert path.read_bytes() == text.replace("no_grad:", "no_grad():").encode("latin-1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert not [p for p in os.listdir(tree) if p.startswith(".gradguard-")]


def test_fix_keeps_bom(tree, capsys):
    path = tree / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + BAD.encode())
    run_cli(capsys, "check", "--fix", "bom.py")
    assert path.read_bytes() == b"\xef\xbb\xbf" + GOOD.encode()


@pytest.mark.parametrize(
    "data,needle",
    [
        (b"import torch\nx = (\n", "SyntaxError"),
        (b"import torch\n\x00\x01", "NUL bytes"),
        ("import torch\n".encode("utf-16"), "UTF-16"),
        (b"import torch\nx = '\xff\xfe'\n", "cannot decode as utf-8"),
        (b"# coding: nonexistent\nimport torch\n", "encoding"),
    ],
)
def test_unparsable_files_reported_as_gg001(tree, capsys, data, needle):
    (tree / "broken.py").write_bytes(data)
    code, out, err = run_cli(capsys, "check", "broken.py")
    assert code == 1
    assert out.startswith("broken.py:") and " GG001 " in out and needle in out
    assert err == ""
    assert (tree / "broken.py").read_bytes() == data
    # The run goes on to the other files.
    code, out, _ = run_cli(capsys, "check", ".")
    assert "bad.py:3:6: GG204" in out and "broken.py" in out


def test_stdin(tree, capsys, monkeypatch):
    import io
    import sys

    class FakeStdin:
        buffer = io.BytesIO(BAD.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin)
    code, out, _ = run_cli(capsys, "check", "--stdin-filename", "pkg/mod.py", "-")
    assert code == 1 and out.startswith("pkg/mod.py:3:6: GG204")


def test_rules_and_explain(capsys):
    code, out, _ = run_cli(capsys, "rules")
    assert code == 0 and "GG204" in out and "grad-mode-without-call" in out
    code, out, _ = run_cli(capsys, "explain", "gg204")
    assert code == 0 and "## Why is this bad?" in out
    code, _, err = run_cli(capsys, "explain", "GG999")
    assert code == 2 and "unknown rule code" in err


def test_statistics(tree, capsys):
    code, out, _ = run_cli(capsys, "check", "--statistics")
    assert "     1\tGG204\tgrad-mode-without-call [*]" in out


def test_checker_does_not_import_torch(tmp_path):
    import subprocess
    import sys

    (tmp_path / "a.py").write_text(BAD)
    code = (
        "import sys\nfrom gradguard.cli import main\nrc = main(['check', sys.argv[1]])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "a.py")], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr


def test_force_exclude_applies_exclude_to_named_files(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.gradguard]\nexclude = ["vendored"]\n')
    (tree / "vendored").mkdir()
    (tree / "vendored" / "old.py").write_text(BAD)
    # Named explicitly, an excluded file is checked, as ruff does ...
    assert run_cli(capsys, "check", "vendored/old.py")[0] == 1
    # ... unless --force-exclude (what the pre-commit hooks pass): then the folder rule applies.
    code, out, _ = run_cli(capsys, "check", "--force-exclude", "vendored/old.py", "good.py")
    assert code == 0 and "old.py" not in out
    assert run_cli(capsys, "check", "--force-exclude", "bad.py")[0] == 1


@pytest.mark.parametrize("argv", [["check", "."], ["rules"], ["bench", "--help"]])
def test_ctrl_c_prints_one_line_and_exits_130(argv, monkeypatch, capsys):
    import gradguard.check.run.pipeline as pipeline
    import gradguard.cli as top

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "run", interrupted)
    monkeypatch.setattr(check_cli, "_rules", interrupted)
    monkeypatch.setattr(top, "_bench", interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err == "gradguard: interrupted\n"
