"""The corpus check (``python -m tools.corpus``) on a deterministic sample of installed torch."""

from __future__ import annotations

import pytest

from tools.corpus import check_corpus, corpus_files, torch_source_dir

SAMPLE = 150


@pytest.fixture(scope="module")
def torch_sample() -> list:
    torch_dir = torch_source_dir()
    if torch_dir is None:
        pytest.skip("torch is not installed")
    return corpus_files([torch_dir], SAMPLE)


def test_sample_is_deterministic_and_spread(torch_sample):
    assert len(torch_sample) == SAMPLE
    assert corpus_files([torch_source_dir()], SAMPLE) == torch_sample
    assert len({path.split("/torch/")[-1].split("/")[0] for path in torch_sample}) > 10  # many subpackages


def test_no_internal_errors_and_gg001_matches_python(torch_sample):
    report = check_corpus(torch_sample, jobs=1)
    assert report.lines > 20_000
    assert report.internal_errors == []
    assert report.gg001_mismatches == []
    assert report.fix_problems == []


def test_corpus_check_catches_a_missing_gg001(tmp_path, monkeypatch):
    """The GG001 cross-check can fail: a checker that swallowed a syntax error is caught."""
    import dataclasses

    import gradguard.check.engine.run as engine

    bad = tmp_path / "bad.py"
    bad.write_text("import torch\ndef (\n")
    original = engine.parse_error_diagnostic

    def mislabelled(filename, error):
        return dataclasses.replace(original(filename, error), code="GG999")

    monkeypatch.setattr(engine, "parse_error_diagnostic", mislabelled)
    report = check_corpus([str(bad)], jobs=1)
    assert len(report.gg001_mismatches) == 1 and not report.ok
