"""Hostile input: odd files are reported clearly, never crash a run, and are never rewritten."""

from __future__ import annotations

import builtins
import codecs
import os
import stat
from pathlib import Path

import pytest

from gradguard.check.engine.run import check_bytes, check_source
from gradguard.check.rules import all_rules
from gradguard.check.source import SourceText
from gradguard.cli import main

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
RULES = [r() for r in all_rules()]


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def codes(text_or_bytes, require_torch_import=False) -> list:
    data = text_or_bytes.encode() if isinstance(text_or_bytes, str) else text_or_bytes
    result = check_bytes(data, "f.py", RULES, require_torch_import)
    assert result.internal_errors == []
    return [(d.code, d.start.row) for d in result.diagnostics]


def snapshot(root: Path) -> dict:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and ".gradguard_cache" not in path.parts:
            st = path.stat()
            out[path.relative_to(root)] = (path.read_bytes(), st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out


@pytest.mark.parametrize(
    "text",
    ["", "\n", "# only a comment\n# and another", "import torch", "import torch\n#", "\n\n\n", " ", "\t\n", "\\\n"],
)
def test_trivial_files(text):
    found = codes(text)
    assert all(code == "GG001" for code, _ in found)


def test_huge_generated_file():
    body = "".join(
        f"def f{i}(x):\n    with torch.no_grad{'' if i % 1000 else ''}():\n        return x + {i}\n"
        for i in range(16_000)
    )
    text = "import torch\n" + body + "with torch.no_grad:\n    pass\n"
    assert text.count("\n") > 48_000
    assert codes(text) == [("GG204", text.count("\n") - 1)]


@pytest.mark.parametrize(
    "expr, reason",
    [
        ("(" * 5000 + "1" + ")" * 5000, "too many nested parentheses"),
        ("[" * 5000 + "]" * 5000, "too many nested parentheses"),
        ("+".join(["a"] * 50_000), "RecursionError"),
        ("-" * 50_000 + "1", "nested too deeply for the parser"),
    ],
    ids=["parens", "lists", "binop", "unary"],
)
def test_too_deep_is_gg001(expr, reason):
    text = f"import torch\nwith torch.no_grad:\n    x = {expr}\n"
    result = check_source(SourceText(text), "f.py", RULES)
    assert result.internal_errors == []
    (finding,) = result.diagnostics
    assert finding.code == "GG001" and reason in finding.message


def test_deep_but_parseable_is_checked_not_gg001():
    # Expressions are walked without recursion, so any depth the parser accepts is checked.
    for expr in ("+".join(["a"] * 5000), "-" * 5000 + "1", "x" + "[0]" * 5000, "a." * 20_000 + "b"):
        text = "import torch\nwith torch.no_grad:\n    x = " + expr + "\n"
        assert codes(text) == [("GG204", 2)]


def test_latin1_with_cookie_is_checked_and_fixed_in_its_encoding(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = "# -*- coding: latin-1 -*-\nimport torch\n# caf\xe9\nwith torch.no_grad:\n    s = '\xe9t\xe9'\n"
    Path("a.py").write_bytes(text.encode("latin-1"))
    code, out, _ = run_cli(capsys, "check", "--no-cache")
    assert code == 1 and "a.py:4:6: GG204" in out
    run_cli(capsys, "check", "--no-cache", "--fix")
    assert Path("a.py").read_bytes() == text.replace("no_grad:", "no_grad():").encode("latin-1")


def test_non_utf8_without_cookie_is_gg001(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    data = "import torch\ns = '\xe9'\nwith torch.no_grad:\n    pass\n".encode("latin-1")
    Path("a.py").write_bytes(data)
    code, out, err = run_cli(capsys, "check", "--no-cache", "--fix")
    assert code == 1 and err == ""
    (line,) = [text for text in out.splitlines() if "GG001" in text]
    assert line.startswith("a.py:1:1: GG001 File could not be parsed: cannot decode as utf-8")
    assert Path("a.py").read_bytes() == data


def test_unknown_cookie_and_nul_bytes_are_gg001():
    assert codes(b"# coding: no-such-codec\nimport torch\n")[0][0] == "GG001"
    assert codes(b"import torch\x00\n")[0][0] == "GG001"
    assert codes(os.urandom(64) + b"\x00")[0][0] == "GG001"


def test_bom_and_crlf_are_kept_by_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    text = "import torch\r\n\r\nwith torch.no_grad:  # note\r\n    y = 1\r\n"
    Path("a.py").write_bytes(codecs.BOM_UTF8 + text.encode())
    code, out, _ = run_cli(capsys, "check", "--no-cache")
    assert "a.py:3:6: GG204" in out
    run_cli(capsys, "check", "--no-cache", "--fix")
    assert Path("a.py").read_bytes() == codecs.BOM_UTF8 + text.replace("no_grad:", "no_grad():").encode()


def test_symlink_loops(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(BAD)
    os.symlink("..", pkg / "up")  # directory loop
    os.symlink("self.py", pkg / "self.py")  # file that links to itself
    os.symlink("missing.py", pkg / "dangling.py")
    code, out, err = run_cli(capsys, "check", "--no-cache", "pkg")
    lines = out.splitlines()
    assert sum("GG204" in text for text in lines) == 1  # a.py once, not once per loop turn
    assert any(text.startswith(os.path.join("pkg", "self.py") + ":1:1: GG001 File could not be read") for text in lines)
    assert any(
        text.startswith(os.path.join("pkg", "dangling.py") + ":1:1: GG001 File could not be read") for text in lines
    )


def test_unreadable_file_is_reported(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    Path("locked.py").write_text(BAD)
    if os.geteuid() == 0:  # root reads through chmod 000: simulate the denial
        real_open = builtins.open

        def denying_open(file, *args, **kwargs):
            if os.path.basename(str(file)) == "locked.py":
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", denying_open)
    else:
        os.chmod("locked.py", 0)
    code, out, _ = run_cli(capsys, "check")
    assert code == 1
    assert "locked.py:1:1: GG001 File could not be read: Permission denied" in out.splitlines()
    assert "a.py:3:6: GG204" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_device_and_directory_named_py(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.py")  # opening it would block forever
    os.symlink("/dev/null", "null.py")
    Path("dir.py").mkdir()
    (Path("dir.py") / "inner.py").write_text(BAD)
    code, out, _ = run_cli(capsys, "check", "--no-cache", ".", "pipe.py")
    lines = out.splitlines()
    assert "pipe.py:1:1: GG001 File could not be read: it is a named pipe" in lines
    assert "null.py:1:1: GG001 File could not be read: it is a character device" in lines
    assert any(text.startswith(os.path.join("dir.py", "inner.py") + ":3:6: GG204") for text in lines)


def test_fix_rewrites_only_files_with_fixes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    files = {
        "empty.py": b"",
        "comments.py": b"# import torch\n# nothing else\n",
        "crlf.py": b"import torch\r\nwith torch.no_grad():\r\n    pass\r\n",
        "bom.py": codecs.BOM_UTF8 + b"import torch\n",
        "latin.py": "# coding: latin-1\nimport torch\n# \xe9\n".encode("latin-1"),
        "bad_encoding.py": b"import torch\nx = '\xff'\n",
        "syntax.py": b"import torch\nwith torch.no_grad:\n    def (\n",
        "deep.py": b"import torch\nwith torch.no_grad:\n    x = " + b"(" * 3000 + b")" * 3000 + b"\n",
        "nul.py": b"import torch\x00with torch.no_grad:\n",
        "fixme.py": BAD.encode(),
    }
    for name, data in files.items():
        Path(name).write_bytes(data)
    os.chmod("crlf.py", 0o640)
    before = snapshot(tmp_path)
    code, out, err = run_cli(capsys, "check", "--fix", "--unsafe-fixes", "--no-cache")
    assert err == ""
    after = snapshot(tmp_path)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {Path("fixme.py")}
    assert after[Path("fixme.py")][0] == BAD.replace("no_grad:", "no_grad():").encode()
    gg001 = {line.split(":")[0] for line in out.splitlines() if "GG001" in line}
    assert gg001 == {"bad_encoding.py", "syntax.py", "deep.py", "nul.py"}


def test_check_source_never_raises_on_rule_state_edge_cases():
    # Odd but valid constructs around grad-mode handling.
    for text in [
        "import torch\nwith torch.no_grad, torch.inference_mode:\n    pass\n",
        "import torch\nasync def f():\n    async with torch.no_grad:\n        pass\n",
        "import torch\nwith (torch.no_grad as a, torch.enable_grad as b):\n    pass\n",
        "import torch\nlambda: torch.set_grad_enabled(False)\n",
        "import torch\ntorch.set_grad_enabled(False)\ntorch.set_grad_enabled(True)\n",
        "import torch\nmatch x:\n    case torch.no_grad:\n        pass\n",
        "from torch import *\nwith no_grad:\n    pass\n",
        "import torch\nclass A(torch.no_grad):\n    @torch.no_grad\n    def f(self): ...\n",
    ]:
        result = check_source(SourceText(text), "f.py", RULES, require_torch_import=False)
        assert result.internal_errors == []


@pytest.mark.parametrize(
    "text",
    [
        "import torch\r\r\nimport torch\r\r\nwith torch.no_grad:\n    p",
        "import torch\r\r\nwith torch.no_grad:\n    pass",
        "import torch\rwith torch.no_grad:\r    pass\r",
    ],
)
def test_lone_carriage_returns_end_lines_as_for_the_parser(text):
    """Found by the long property run: a lone CR ends a line for Python, so positions and
    fix offsets must count it too."""
    from tests.check.helpers import fixed_text

    (finding,) = check_source(SourceText(text), "f.py", RULES).diagnostics
    assert finding.code == "GG204"
    assert text[SourceText(text).offset(finding.start.row, finding.start.column - 1) :].startswith("torch.no_grad:")
    fixed = fixed_text(text)
    assert fixed == text.replace("torch.no_grad:", "torch.no_grad():")
