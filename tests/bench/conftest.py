"""Shared fixtures: one real ``gradguard bench`` run per kind, reused by several tests."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

from gradguard.bench.cli import main

# Tiny inputs and short timing: the figures are not the point here, the behaviour is.
FAST = ["--quick", "--min-run-time", "0.02", "--rounds", "3", "--no-progress"]


@pytest.fixture(scope="session")
def model_run(tmp_path_factory):
    """All built-in models, batch 4, JSON report and PNG plot."""
    out = tmp_path_factory.mktemp("bench-model")
    report, plot = out / "models.json", out / "models.png"
    rc = main(
        ["model", "--model", "all", "--batch", "4", "--format", "json", "--output", str(report), "--plot", str(plot)]
        + FAST
    )
    assert rc == 0
    return json.loads(report.read_text()), plot


@pytest.fixture(scope="session")
def micro_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench-micro")
    report, plot = out / "micro.json", out / "micro.png"
    rc = main(["micro", "--sizes", "8,32", "--format", "json", "--output", str(report), "--plot", str(plot), *FAST])
    assert rc == 0
    return json.loads(report.read_text()), plot
