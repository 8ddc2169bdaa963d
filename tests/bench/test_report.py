"""Renderers: schema-valid JSON, CSV with environment, a real PNG; they never measure."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gradguard.bench import report  # noqa: E402
from gradguard.bench.measure import (  # noqa: E402
    BenchResult,
    Measurement,
    ModelInfo,
    ModeResult,
    SavedForBackward,
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
    doc = json.loads(json.dumps(model_run[0]))
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


def _synthetic() -> BenchResult:
    def row(mode, median, saved):
        t = Measurement(
            times=(median,) * 4,
            number_per_run=10,
            median=median,
            iqr=median * 0.2 if mode == "frozen" else 0.0,
            threads=2,
        )
        return ModeResult("toy", mode, t, SavedForBackward(saved, 1 if saved else 0, 0, bool(saved)), 2048)

    env = {
        "gradguard_version": "0",
        "torch_version": "9.9",
        "python_version": "3.11",
        "platform": "test",
        "device": "cpu",
        "device_name": "test cpu",
        "cpu_count": 2,
        "threads": 2,
        "dtype": "float32",
        "autocast": False,
        "timestamp": "2000-01-01T00:00:00+00:00",
    }
    return BenchResult(
        kind="model",
        environment=env,
        settings={
            "quick": True,
            "min_run_time_s": 0.1,
            "peak_memory_method": "cpu-allocator-events",
            "modes": ["grad", "frozen"],
        },
        results=[row("grad", 0.002, 4096), row("frozen", 0.001, 0)],
        models=[ModelInfo("toy", "toy model", (2, 3), 6, 24)],
    )


def test_renderers_format_what_they_are_given():
    result = _synthetic()
    table = report.render_table(result)
    assert "toy" in table and "2 ms" in table and "1 ms" in table
    assert "0.50" in table  # frozen / grad
    assert "4.0 KiB" in table and "20.0% !" in table and "noisy" in table
    doc = json.loads(report.render_json(result))
    _validate(doc)
    assert doc["results"][1]["ratio_to_grad"] == pytest.approx(0.5)
    rows = list(csv.DictReader(io.StringIO(report.render_csv(result))))
    assert [r["mode"] for r in rows] == ["grad", "frozen"]
    assert rows[0]["torch_version"] == "9.9" and rows[0]["threads"] == "2"
    assert rows[0]["device_name"] == "test cpu" and rows[0]["input_shape"] == "2x3"
    assert float(rows[1]["median_s"]) == 0.001


def test_byte_and_time_units():
    assert report.format_bytes(512) == "512 B"
    assert report.format_bytes(3 * 2**20) == "3.0 MiB"
    assert report.format_seconds(0.0015) == "1.5 ms"
    assert report.format_seconds(2.5e-7) == "250 ns"
