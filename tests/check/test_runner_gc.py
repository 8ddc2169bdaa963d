"""A run raises the garbage collector's first threshold while it checks, and puts it back."""

from __future__ import annotations

import gc

import pytest

import gradguard.check.run.pipeline as runner
from gradguard.check.config import Config
from gradguard.check.rules import all_rules
from gradguard.check.run.pipeline import GC_THRESHOLD, fewer_collections


def test_run_checks_under_raised_threshold_and_restores_it(tmp_path, monkeypatch):
    seen = []
    original = runner.process_file

    def recording(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(runner, "process_file", recording)
    (tmp_path / "a.py").write_text("import torch\nx = torch.zeros(1).data\n")
    before = gc.get_threshold()
    result = runner.run([str(tmp_path / "a.py")], Config(rules=all_rules()))
    assert seen == [max(before[0], GC_THRESHOLD)]
    assert [d.code for d in result.diagnostics] == ["GG101"]
    assert gc.get_threshold() == before


def test_threshold_restored_after_an_exception():
    before = gc.get_threshold()
    with pytest.raises(KeyError):
        with fewer_collections():
            assert gc.get_threshold()[0] >= GC_THRESHOLD
            raise KeyError("boom")
    assert gc.get_threshold() == before


def test_a_higher_threshold_set_by_the_host_is_kept():
    before = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD * 3, *before[1:])
    try:
        with fewer_collections():
            assert gc.get_threshold()[0] == GC_THRESHOLD * 3
    finally:
        gc.set_threshold(*before)
