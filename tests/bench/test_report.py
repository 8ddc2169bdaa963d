"""Renderers and `bench report`: schema-valid JSON that re-renders to the same report, CSV,
comparison against an earlier run, a real PNG; they never measure."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gradguard.bench import report
from gradguard.bench.cli import main
from gradguard.bench.modes import Mode
from gradguard.bench.results import (
    BenchResult,
    InputInfo,
    Memory,
    ModelInfo,
    Ratio,
    ResultFormatError,
    Row,
    Timing,
    compare,
    from_dict,
    to_dict,
)

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "bench-schema.json").read_text())
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _validate(doc):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_model_json_validates_against_schema(model_run):
    _validate(model_run[0])


def test_micro_json_validates_against_schema(micro_run):
    _validate(micro_run[0])


def test_schema_rejects_a_broken_document(model_run):
    jsonschema = pytest.importorskip("jsonschema")
    doc = copy.deepcopy(model_run[0])
    del doc["results"][0]["saved_bytes"]
    with pytest.raises(jsonschema.ValidationError):
        _validate(doc)


@pytest.mark.parametrize("fixture", ["model_run", "micro_run"])
def test_plot_is_a_valid_png(request, fixture):
    from matplotlib import image

    _, plot = request.getfixturevalue(fixture)
    data = plot.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    pixels = image.imread(plot)
    assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 400
    assert pixels.std() > 0  # not a blank canvas


@pytest.mark.parametrize("fixture", ["model_run", "micro_run"])
def test_saved_json_round_trips_and_re_renders(request, fixture, tmp_path, capsys):
    doc = request.getfixturevalue(fixture)[0]
    result = from_dict(doc)
    assert to_dict(result) == doc
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(doc))
    assert main(["report", str(saved), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    assert main(["report", str(saved), "--plot", str(tmp_path / "again.png")]) == 0
    assert capsys.readouterr().out == report.render_table(result)
    assert (tmp_path / "again.png").read_bytes()[:8] == PNG_SIGNATURE


def _timing(values, rounds=None):
    return Timing(
        times=tuple(values),
        rounds=tuple(rounds if rounds is not None else range(len(values))),
        number_per_run=10,
        threads=1,
        page_faults_per_call=0.0,
    )


def _memory(saved):
    return Memory(saved, 1 if saved else 0, saved // 2, 0, saved // 2, 2048, bool(saved), None)


def _synthetic(grad_times, frozen_times, saved=4096) -> BenchResult:
    grad, frozen = _timing(grad_times), _timing(frozen_times)
    env = {
        "gradguard_version": "0",
        "torch_version": "9.9",
        "python_version": "3.11",
        "platform": "test",
        "device": "cpu",
        "device_name": "test cpu",
        "cpu_count": 2,
        "threads": 1,
        "dtype": "float32",
        "autocast": False,
        "malloc": {"pinned": True, "mmap_threshold": 1, "trim_threshold": 1},
        "load_average_before": [0.5, 0.5, 0.5],
        "load_average_after": [0.6, 0.5, 0.5],
        "timestamp": "2000-01-01T00:00:00+00:00",
    }
    return BenchResult(
        kind="model",
        environment=env,
        settings={
            "quick": True,
            "min_run_time_s": 0.1,
            "rounds": len(grad_times),
            "peak_memory_method": "cpu-allocator-events",
            "modes": ["grad", "frozen"],
            "train_mode": False,
        },
        rows=[
            Row(
                "toy",
                "grad",
                Mode.GRAD,
                baseline=True,
                timing=grad,
                ratio=Ratio.between(grad, grad),
                memory=_memory(saved),
            ),
            Row("toy", "frozen", Mode.FROZEN, timing=frozen, ratio=Ratio.between(frozen, grad), memory=_memory(0)),
        ],
        models=[ModelInfo("toy", "toy model", (InputInfo("args[0]", (2, 3), "float32"),), 2, 6, 24)],
    )


def test_ratio_is_the_median_of_per_round_ratios():
    # Round 3 was slow for both modes (drift): per-round ratios cancel it.
    result = _synthetic([2.0, 2.0, 4.0, 2.0], [1.0, 1.0, 2.0, 1.1])
    frozen = result.rows[1]
    assert frozen.ratio.rounds == (0.5, 0.5, 0.5, 0.55)
    assert frozen.ratio.median == pytest.approx(0.5)
    assert (frozen.ratio.low, frozen.ratio.high) == (0.5, 0.55)
    assert not frozen.ratio.disagree
    assert result.rows[0].noisy  # grad's own rounds disagree (one took twice as long)


def test_rounds_that_disagree_flag_the_row_even_when_each_block_is_steady():
    # Few blocks, each alone "quiet", yet the per-round ratios swing: flagged.
    result = _synthetic([1.0, 1.0, 1.0, 1.0], [0.6, 1.0, 0.6, 1.0])
    frozen = result.rows[1]
    assert frozen.ratio.disagree and frozen.noisy and "rounds" in frozen.noise_reasons
    doc = to_dict(result)
    assert doc["results"][1]["time"]["noisy"] is True
    assert doc["results"][1]["ratio_range"] == [0.6, 1.0]
    _validate(doc)


def test_renderers_format_what_they_are_given():
    result = _synthetic([0.002] * 4, [0.001] * 4)
    table = report.render_table(result)
    assert "toy" in table and "2 ms" in table and "1 ms" in table
    assert "0.50" in table and "0.50-0.50" in table  # frozen / grad, with its round range
    assert "4.0 KiB" in table and "noisy" not in table
    assert "load average 0.50 before, 0.60 after" in table
    doc = json.loads(report.render_json(result))
    _validate(doc)
    assert doc["results"][1]["ratio_to_grad"] == pytest.approx(0.5)
    rows = list(csv.DictReader(io.StringIO(report.render_csv(result))))
    assert [r["mode"] for r in rows] == ["grad", "frozen"]
    assert rows[0]["torch_version"] == "9.9" and rows[0]["threads"] == "1"
    assert rows[0]["device_name"] == "test cpu" and rows[0]["inputs"] == "2x3 float32"
    assert float(rows[1]["median_s"]) == 0.001 and float(rows[1]["ratio_min"]) == 0.5


def test_compare_shows_the_change_and_fails_over_a_threshold(tmp_path, capsys):
    old = _synthetic([0.002] * 4, [0.001] * 4)
    new = _synthetic([0.002] * 4, [0.0015] * 4, saved=8192)
    comparison = compare(new, old, "old.json")
    frozen = comparison.changes[1]
    assert frozen.time_change == pytest.approx(0.5)
    assert comparison.changes[0].memory_change("saved_bytes") == pytest.approx(1.0)
    assert comparison.over(0.10) == ["toy grad: saved +100.0%", "toy frozen: time +50.0%"]
    assert comparison.over(2.0) == []
    table = report.render_table(new, comparison)
    assert "compared with old.json" in table and "+50.0%" in table
    doc = json.loads(report.render_json(new, comparison))
    _validate(doc)
    assert doc["comparison"]["rows"][1]["time_change"] == pytest.approx(0.5)
    # The same through the command line: exit 1 over the threshold, 0 under it.
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(report.render_json(old))
    new_path.write_text(report.render_json(new))
    assert main(["report", str(new_path), "--compare", str(old_path), "--fail-over", "10"]) == 1
    out, err = capsys.readouterr()
    assert "compared with" in out
    assert err.splitlines() == [
        "gradguard bench: 2 over --fail-over 10%: toy grad: saved +100.0%; toy frozen: time +50.0%"
    ]
    assert main(["report", str(new_path), "--compare", str(old_path), "--fail-over", "200"]) == 0


def test_a_noisy_row_is_not_failed_on_time():
    old = _synthetic([0.002] * 4, [0.001] * 4)
    new = _synthetic([0.002] * 4, [0.001, 0.003, 0.001, 0.003])
    assert new.rows[1].noisy
    assert compare(new, old, "old.json").over(0.10) == []


def test_reading_a_document_that_is_not_a_run(tmp_path, capsys):
    with pytest.raises(ResultFormatError, match="schema"):
        from_dict({"schema": "gradguard-bench/1", "kind": "model"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["report", str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err
    bad.write_text(json.dumps({"schema": "gradguard-bench/2", "kind": "model", "environment": {}, "settings": {}}))
    assert main(["report", str(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_byte_and_time_units():
    assert report.format_seconds(0.0015) == "1.5 ms"
    assert report.format_seconds(2.5e-7) == "250 ns"
