"""``gradguard check --stdin-filename NAME -``, run as a real process the way editors call it."""

from __future__ import annotations

import json
import subprocess
import sys

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
GOOD = "import torch\n\nwith torch.no_grad():\n    y = 1\n"


def gradguard(*args, stdin: bytes, cwd):
    return subprocess.run(
        [sys.executable, "-m", "gradguard", "check", *args], input=stdin, capture_output=True, cwd=cwd, timeout=60
    )


def test_findings_reported_under_the_given_name(tmp_path):
    proc = gradguard("--stdin-filename", "pkg/mod.py", "-", stdin=BAD.encode(), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines()[0].startswith("pkg/mod.py:3:6: GG204 ")
    proc = gradguard("--format", "json", "--stdin-filename", "pkg/mod.py", "-", stdin=BAD.encode(), cwd=tmp_path)
    (item,) = json.loads(proc.stdout)
    assert item["filename"] == "pkg/mod.py" and item["location"] == {"row": 3, "column": 6}


def test_fix_writes_fixed_source_to_stdout_and_report_to_stderr(tmp_path):
    proc = gradguard("--fix", "--stdin-filename", "pkg/mod.py", "-", stdin=BAD.encode(), cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.decode() == GOOD
    assert "1 fixed" in proc.stderr.decode()
    assert not (tmp_path / "pkg").exists()  # nothing written to the named path


def test_fix_passes_unparsable_and_clean_source_through_unchanged(tmp_path):
    broken = b"import torch\ndef f(:\n"
    proc = gradguard("--fix", "--stdin-filename", "m.py", "-", stdin=broken, cwd=tmp_path)
    assert proc.stdout == broken and proc.returncode == 1
    assert b"m.py:2:7: GG001" in proc.stderr
    crlf = GOOD.replace("\n", "\r\n").encode()
    proc = gradguard("--fix", "-", stdin=crlf, cwd=tmp_path)
    assert proc.stdout == crlf and proc.returncode == 0


def test_fix_keeps_line_endings(tmp_path):
    proc = gradguard("--fix", "-", stdin=BAD.replace("\n", "\r\n").encode(), cwd=tmp_path)
    assert proc.stdout == GOOD.replace("\n", "\r\n").encode()


def test_per_file_ignores_apply_to_the_stdin_name(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gradguard.per-file-ignores]\n"legacy/*" = ["GG204"]\n')
    assert gradguard("--stdin-filename", "legacy/old.py", "-", stdin=BAD.encode(), cwd=tmp_path).returncode == 0
    assert gradguard("--stdin-filename", "new/mod.py", "-", stdin=BAD.encode(), cwd=tmp_path).returncode == 1


def test_dash_with_other_paths_is_a_usage_error(tmp_path):
    proc = gradguard("-", "x.py", stdin=b"", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.decode().count("\n") == 1
