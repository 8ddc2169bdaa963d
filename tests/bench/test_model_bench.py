"""What the model benchmark must show on CPU, read from a real command run."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

BUILTINS = ("mlp", "cnn", "transformer")
MODES = ("grad", "no_grad", "inference_mode", "detach_input", "frozen")


def _rows(doc, model):
    return {r["mode"]: r for r in doc["results"] if r["model"] == model}


def test_every_builtin_model_is_measured_under_every_mode(model_run):
    doc, _ = model_run
    assert [m["name"] for m in doc["models"]] == list(BUILTINS)
    for model in BUILTINS:
        assert sorted(_rows(doc, model)) == sorted(MODES)
    assert all(m["input_shape"][0] == 4 for m in doc["models"])  # --batch replaced dim 0


@pytest.mark.parametrize("model", BUILTINS)
def test_no_grad_and_inference_mode_save_nothing_for_backward(model_run, model):
    rows = _rows(model_run[0], model)
    for mode in ("no_grad", "inference_mode"):
        assert rows[mode]["saved_bytes"] == 0
        assert rows[mode]["saved_storages"] == 0
        assert rows[mode]["output_requires_grad"] is False


@pytest.mark.parametrize("model", BUILTINS)
def test_grad_and_detach_input_save_activations(model_run, model):
    rows = _rows(model_run[0], model)
    for mode in ("grad", "detach_input"):
        activations = rows[mode]["saved_bytes"] - rows[mode]["saved_param_bytes"]
        assert activations > 0
        assert rows[mode]["output_requires_grad"] is True
    # Detaching the input does not stop the graph: parameters still require grad.
    assert rows["detach_input"]["saved_bytes"] == rows["grad"]["saved_bytes"]


def test_frozen_mlp_saves_less_than_grad(model_run):
    rows = _rows(model_run[0], "mlp")
    assert rows["frozen"]["saved_bytes"] < rows["grad"]["saved_bytes"]
    assert rows["frozen"]["output_requires_grad"] is False


@pytest.mark.parametrize("model", BUILTINS)
def test_grad_peak_exceeds_no_grad_peak(model_run, model):
    # Saved activations stay alive until the output dies; without a graph they are freed.
    rows = _rows(model_run[0], model)
    assert rows["grad"]["peak_bytes"] > rows["no_grad"]["peak_bytes"] > 0


def test_results_carry_environment_and_statistics(model_run):
    doc, _ = model_run
    env = doc["environment"]
    assert env["torch_version"] == torch.__version__
    assert env["device"] == "cpu" and env["dtype"] == "float32"
    assert env["threads"] == torch.get_num_threads()
    for row in doc["results"]:
        t = row["time"]
        assert t["runs"] == len(t["times_s"]) >= 1
        assert min(t["times_s"]) <= t["median_s"] <= max(t["times_s"])
        assert t["noisy"] == (t["iqr_over_median"] > 0.10)
        if row["mode"] == "grad":
            assert row["ratio_to_grad"] == pytest.approx(1.0)


def test_frozen_mode_restores_requires_grad():
    from gradguard.bench.modes import model_forward, prepared

    model = torch.nn.Linear(4, 2)
    with prepared("frozen", list(model.parameters())):
        out = model_forward("frozen", model, torch.randn(3, 4))()
        assert not out.requires_grad
    assert all(p.requires_grad for p in model.parameters())
