"""The pre-commit hooks, run end to end with ``pre-commit try-repo`` on a temporary repository.

pre-commit installs this project from a copy into a fresh virtual environment with pip (as it
does for users); try-repo always installs into a new temporary store, so the test runs it
once, with both hooks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is needed to run pre-commit", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Eval\n"]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ["import torch\n", "%matplotlib inline\n", "with torch.inference_mode:\n", "    pass\n"],
        },
    ],
    "metadata": {"kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def git(cwd, *args):
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env, timeout=60)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial", "--allow-empty")
    return path


@pytest.fixture
def hook_repo(tmp_path) -> Path:
    """This project (its working tree) as a git repository pre-commit can install from."""
    copy = tmp_path / "gradguard"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(ROOT / "src", copy / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, copy / name)
    return make_repo(copy)


def try_repo(target: Path, hook_repo: Path, *args):
    env = dict(os.environ, PRE_COMMIT_COLOR="never")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), *args, "--all-files"],
        cwd=target,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_hooks_check_and_fix_scripts_and_notebooks(tmp_path, hook_repo):
    target = tmp_path / "project"
    target.mkdir()
    (target / "train.py").write_text(BAD)
    (target / "clean.py").write_text(BAD.replace("no_grad:", "no_grad():"))
    (target / "eval.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    (target / "notes.txt").write_text("with torch.no_grad:\n")
    make_repo(target)

    proc = try_repo(target, hook_repo)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    check_part, fix_part = out.split("gradguard (fix)")
    assert "- hook id: gradguard\n" in check_part
    assert "train.py:3:6: GG204 " in check_part
    assert "eval.ipynb:cell 2:3:6: GG204 " in check_part
    assert "clean.py" not in check_part and "notes.txt" not in check_part
    assert "- hook id: gradguard-fix" in fix_part and "files were modified by this hook" in fix_part
    assert (target / "train.py").read_text() == BAD.replace("no_grad:", "no_grad():")
    fixed = json.loads((target / "eval.ipynb").read_text())
    assert fixed["cells"][1]["source"][2] == "with torch.inference_mode():\n"
