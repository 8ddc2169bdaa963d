"""What the model benchmark must show on CPU, read from a real command run."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from gradguard.bench.cli import main  # noqa: E402

from .conftest import FAST  # noqa: E402

BUILTINS = ("mlp", "cnn", "transformer")
MODES = ("grad", "no_grad", "inference_mode", "detach_input", "frozen")
KIB = 1024


def _rows(doc, model):
    return {r["mode"]: r for r in doc["results"] if r["model"] == model}


def test_every_builtin_model_is_measured_under_every_mode(model_run):
    doc, _ = model_run
    assert [m["name"] for m in doc["models"]] == list(BUILTINS)
    for model in BUILTINS:
        assert sorted(_rows(doc, model)) == sorted(MODES)
        assert all(r["error"] is None for r in _rows(doc, model).values())
    assert all(m["input_shape"][0] == 4 and m["batch"] == 4 for m in doc["models"])  # --batch replaced dim 0


@pytest.mark.parametrize("model", BUILTINS)
def test_no_grad_and_inference_mode_save_and_keep_nothing(model_run, model):
    rows = _rows(model_run[0], model)
    for mode in ("no_grad", "inference_mode"):
        assert rows[mode]["saved_bytes"] == 0
        assert rows[mode]["saved_storages"] == 0
        assert rows[mode]["retained_bytes"] == 0
        assert rows[mode]["output_requires_grad"] is False


def test_mlp_saved_bytes_split_known_answer(model_run):
    # Batch 4: the first linear saves the input (4x512 float32); the ReLUs' results
    # (4x1024 each) are saved; the second and third weights are saved for the gradients of
    # the ReLU results, the first weight is not (the input needs no gradient).
    grad = _rows(model_run[0], "mlp")["grad"]
    assert grad["saved_input_bytes"] == 4 * 512 * 4
    assert grad["saved_param_bytes"] == (1024 * 1024 + 10 * 1024) * 4
    assert grad["saved_activation_bytes"] == 2 * 4 * 1024 * 4
    assert grad["saved_bytes"] == grad["saved_input_bytes"] + grad["saved_param_bytes"] + grad["saved_activation_bytes"]
    assert grad["retained_bytes"] == 2 * 4 * 1024 * 4  # the two ReLU results outlive the forward


@pytest.mark.parametrize("model", BUILTINS)
def test_grad_and_detach_input_save_activations(model_run, model):
    rows = _rows(model_run[0], model)
    for mode in ("grad", "detach_input"):
        assert rows[mode]["saved_activation_bytes"] > 0
        assert rows[mode]["retained_bytes"] > 0
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


@pytest.mark.parametrize("model", BUILTINS)
def test_forward_backward_peak_only_for_grad(model_run, model):
    doc = model_run[0]
    rows = _rows(doc, model)
    info = next(m for m in doc["models"] if m["name"] == model)
    # The backward allocates a gradient for every parameter on top of the forward.
    assert rows["grad"]["peak_forward_backward_bytes"] >= info["parameter_bytes"]
    assert all(rows[m]["peak_forward_backward_bytes"] is None for m in MODES if m != "grad")


def test_kernel_path_note_for_the_transformer_fast_path(model_run):
    doc = model_run[0]
    rows = _rows(doc, "transformer")
    for mode in ("no_grad", "inference_mode", "frozen"):
        assert "aten::_transformer_encoder_layer_fwd" in rows[mode]["kernel_path"]["not_in_grad"]
    assert rows["grad"]["kernel_path"] is None and rows["detach_input"]["kernel_path"] is None
    for model in ("mlp", "cnn"):
        assert all(r["kernel_path"] is None for r in _rows(doc, model).values())


def test_results_carry_environment_protocol_and_statistics(model_run):
    doc, _ = model_run
    env = doc["environment"]
    assert env["torch_version"] == torch.__version__
    assert env["device"] == "cpu" and env["dtype"] == "float32"
    assert env["threads"] == 1  # the default
    assert len(env["load_average_before"]) == 3 and len(env["load_average_after"]) == 3
    assert isinstance(env["malloc"]["pinned"], bool)
    assert doc["settings"]["rounds"] == 3 and doc["settings"]["train_mode"] is False
    for row in doc["results"]:
        t = row["time"]
        assert t["runs"] == len(t["times_s"]) == 3 and t["rounds"] == [0, 1, 2]
        assert min(t["times_s"]) <= t["p25_s"] <= t["median_s"] <= t["p75_s"] <= max(t["times_s"])
        assert t["page_faults_per_call"] >= 0
        assert t["noisy"] == bool(t["noise"])
        if "scatter" in t["noise"]:
            assert t["iqr_over_median"] > 0.10
        low, high = row["ratio_range"]
        assert low <= row["ratio_to_grad"] <= high
        assert len(row["ratio_rounds"]) == 3
        if row["mode"] == "grad":
            assert row["ratio_to_grad"] == pytest.approx(1.0) and row["baseline"] is True


def test_train_mode_saves_more_and_takes_no_fast_path(tmp_path, capsys):
    args = ["model", "--model", "transformer", "--batch", "2", "--modes", "grad", "no_grad", "--format", "json"]
    assert main([*args, "--train", *FAST]) == 0
    train = json.loads(capsys.readouterr().out)
    assert main([*args, *FAST]) == 0
    evaluation = json.loads(capsys.readouterr().out)
    assert train["settings"]["train_mode"] is True
    train_rows, eval_rows = _rows(train, "transformer"), _rows(evaluation, "transformer")
    # Dropout masks are saved in train(); in eval() dropout is the identity.
    assert train_rows["grad"]["saved_bytes"] > eval_rows["grad"]["saved_bytes"]
    assert train_rows["no_grad"]["kernel_path"] is None  # the fast path is for eval() only
    assert eval_rows["no_grad"]["kernel_path"] is not None


def test_table_shows_the_kernel_note_and_the_split(capsys):
    assert main(["model", "--model", "transformer", "--batch", "2", "--modes", "grad,no_grad", *FAST]) == 0
    out = capsys.readouterr().out
    assert "kernel path: no_grad run aten::_transformer_encoder_layer_fwd, which grad does not" in out
    for column in ("=params", "+inputs", "+new", "kept", "peak f+b", "rounds"):
        assert column in out
    assert "load average" in out and "rotating rounds" in out
