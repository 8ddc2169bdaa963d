"""The flake8 plugin, tested by running flake8 itself on files and comparing with gradguard."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("flake8")

FILES = {
    "train.py": "import torch\n\nwith torch.no_grad:\n    y = 1\n",
    # Non-ASCII text before the finding: columns count characters, not bytes.
    "eval_ü.py": "import torch\nnamé = 'ünïcode'; cm = [1]\nwith open('f') as fh, torch.inference_mode:  # é\n    pass\n",
    "crlf.py": "import torch as th\r\nasync def f():\r\n    async with th.enable_grad:\r\n        pass\r\n",
    "bom.py": "\ufeffimport torch\nfrom torch import no_grad\nwith no_grad:\n    pass\n",
    "suppressed.py": "import torch\nwith torch.no_grad:  # noqa: GG204\n    pass\n",
    "no_torch.py": "with torch.no_grad:\n    pass\n",
    "clean.py": "import torch\nwith torch.no_grad():\n    pass\n",
}


@pytest.fixture
def sources(tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    return tmp_path


def flake8(cwd, *args, prelude: str = ""):
    code = prelude + "import sys\nfrom flake8.main.cli import main\nsys.exit(main())\n"
    return subprocess.run(
        [sys.executable, "-c", code, "--isolated", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def gradguard_lines(cwd, *args):
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "-q", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
    return sorted(line.removesuffix(" [*]") for line in proc.stdout.splitlines())


def test_same_findings_as_gradguard_check(sources):
    names = sorted(FILES)
    proc = flake8(sources, "--select", "GG", *names)
    assert proc.returncode == 1, proc.stderr
    lines = sorted(proc.stdout.splitlines())
    assert lines == gradguard_lines(sources, *names)
    assert [line.split(" ")[0] for line in lines] == [
        "bom.py:3:6:",
        "crlf.py:3:16:",
        "eval_ü.py:3:23:",
        "train.py:3:6:",
    ]


def test_plugin_is_registered_and_runs_with_default_selection(sources):
    version = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "gradguard:" in version
    proc = flake8(sources, "train.py")
    assert "train.py:3:6: GG204 " in proc.stdout


def test_unparsable_file_is_flake8s_e999(sources):
    (sources / "broken.py").write_text("import torch\ndef f(:\n")
    proc = flake8(sources, "--select", "E999,GG", "broken.py")
    assert proc.returncode == 1
    assert proc.stdout.startswith("broken.py:2:") and " E999 SyntaxError" in proc.stdout
    assert "GG001" not in proc.stdout


def test_default_off_rules_stay_off_until_selected(sources):
    # Make GG204 an off-by-default rule for this run to see flake8 honour the default ignore.
    prelude = "from gradguard.check.rules import rule_by_code\nrule_by_code('GG204').default_enabled = False\n"
    assert flake8(sources, "train.py", prelude=prelude).stdout == ""
    assert flake8(sources, "--select", "GG", "train.py", prelude=prelude).stdout == ""
    proc = flake8(sources, "--extend-select", "GG204", "train.py", prelude=prelude)
    assert "train.py:3:6: GG204 " in proc.stdout
    assert "GG204" in flake8(sources, "--select", "E,GG204", "train.py", prelude=prelude).stdout
