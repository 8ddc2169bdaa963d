"""Real models: token ids, several inputs, keyword-only inputs, factory arguments, a model that
needs grad inside its forward, user code that fails; each runs or fails with one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from gradguard.bench.cli import main  # noqa: E402

from .conftest import FAST  # noqa: E402

USER_MODULE = textwrap.dedent(
    """
    import torch
    from torch import nn


    class TokenModel(nn.Module):
        # Embedding lookups fail on ids outside the vocabulary: the range is checked.
        def __init__(self, vocab=100, dim=8):
            super().__init__()
            self.vocab = vocab
            self.embed = nn.Embedding(vocab, dim)
            self.head = nn.Linear(dim, 2)

        def forward(self, ids):
            assert ids.dtype == torch.int64, ids.dtype
            assert 0 <= int(ids.min()) and int(ids.max()) < self.vocab, "id out of range"
            return self.head(self.embed(ids))


    def tokens():
        return TokenModel()


    class WithContext(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, context):
            return self.lin(x) + context.mean(dim=1, keepdim=True)


    def with_context():
        return WithContext()


    def context_inputs(batch):
        return (torch.randn(batch, 8), torch.randn(batch, 5)), {}


    class WithMask(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, *, mask):
            return self.lin(x).masked_fill(~mask, 0.0)


    def with_mask():
        return WithMask()


    def mask_inputs(batch):
        return (torch.randn(batch, 8),), {"mask": torch.rand(batch, 8) > 0.5}


    def sized(hidden, depth=1, act="relu", name=None):
        assert name in (None, "bert"), name
        layers = [nn.Linear(4, hidden), nn.ReLU() if act == "relu" else nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(hidden, 1))


    class Energy(nn.Module):
        # Forces as minus the gradient of an energy: needs grad inside the forward.
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))

        def forward(self, pos):
            pos = pos.detach().requires_grad_(True)
            energy = self.net(pos).sum()
            (grad,) = torch.autograd.grad(energy, pos, create_graph=True)
            return energy, -grad


    def energy():
        return Energy()


    def bad_inputs(batch):
        return torch.randn(batch, 8)


    def failing_inputs(batch):
        raise ValueError("no data here")
    """
)


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "gg_user_real.py").write_text(USER_MODULE)
    (tmp_path / "gg_raises_import_error.py").write_text("raise ImportError('needs a package you do not have')\n")
    (tmp_path / "gg_exits.py").write_text("import sys\nsys.exit('run me as a script')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("gg_user_real", "gg_raises_import_error", "gg_exits"):
        sys.modules.pop(name, None)


def _json_run(capsys, argv):
    rc = main(["model", *argv, "--format", "json", *FAST])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def test_token_ids_with_int64_input_and_range(user_dir, capsys):
    doc = _json_run(
        capsys,
        ["--model", "gg_user_real:tokens", "--input-shape", "2,16", "--input-dtype", "int64", "--input-range", "0,100"],
    )
    assert doc["models"][0]["inputs"] == [{"name": "args[0]", "shape": [2, 16], "dtype": "int64"}]
    rows = {r["mode"]: r for r in doc["results"]}
    assert all(r["error"] is None for r in rows.values())
    assert rows["grad"]["saved_input_bytes"] == 2 * 16 * 8  # the embedding saves the ids


def test_token_ids_outside_the_range_the_model_accepts(user_dir, capsys):
    # Every mode fails the same way: that is bad input, not a result.
    argv = ["--model", "gg_user_real:tokens", "--input-shape", "2,16", "--input-dtype", "int64"]
    assert main(["model", *argv, "--input-range", "100,200", *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot run on input of shape 2,16 (int64)" in err and "out of range" in err


def test_inputs_hook_with_two_positional_inputs(user_dir, capsys):
    doc = _json_run(
        capsys, ["--model", "gg_user_real:with_context", "--inputs", "gg_user_real:context_inputs", "--batch", "3"]
    )
    model = doc["models"][0]
    assert model["batch"] == 3
    assert [(i["name"], i["shape"]) for i in model["inputs"]] == [("args[0]", [3, 8]), ("args[1]", [3, 5])]
    assert all(r["error"] is None for r in doc["results"])


def test_inputs_hook_with_a_keyword_only_mask(user_dir, capsys):
    doc = _json_run(capsys, ["--model", "gg_user_real:with_mask", "--inputs", "gg_user_real:mask_inputs"])
    model = doc["models"][0]
    assert model["batch"] == 8  # the default batch handed to a hook
    assert model["inputs"][1] == {"name": "kwargs['mask']", "shape": [8, 8], "dtype": "bool"}
    assert all(r["error"] is None for r in doc["results"])


def test_factory_arguments_parsed_as_python_literals(user_dir, capsys):
    doc = _json_run(
        capsys,
        [
            "--model",
            "gg_user_real:sized",
            "--input-shape",
            "2,4",
            "--model-arg",
            "hidden=16",
            "--model-arg",
            "depth=2",
            "--model-arg",
            "act='tanh'",
            "--model-arg",
            "name=bert",  # not a literal: taken as the string
        ],
    )
    model = doc["models"][0]
    assert model["parameters"] == (4 * 16 + 16) + (16 * 16 + 16) + (16 + 1)
    assert model["model_args"] == {"hidden": "16", "depth": "2", "act": "'tanh'", "name": "'bert'"}


def test_a_mode_that_cannot_run_is_recorded_and_the_others_go_on(user_dir, capsys):
    argv = ["model", "--model", "gg_user_real:energy", "--input-shape", "4,3", *FAST]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["mode"]: r for r in doc["results"]}
    for mode in ("no_grad", "inference_mode"):
        assert rows[mode]["error"].startswith("RuntimeError: ")
        assert rows[mode]["time"] is None and rows[mode]["saved_bytes"] is None
        assert rows[mode]["ratio_to_grad"] is None
    for mode in ("grad", "detach_input", "frozen"):
        assert rows[mode]["error"] is None and rows[mode]["time"]["median_s"] > 0
    assert main([*argv, "--modes", "grad,no_grad"]) == 0
    table = capsys.readouterr().out
    no_grad_line = next(line for line in table.splitlines() if line.startswith("no_grad "))
    assert no_grad_line.split()[1:4] == ["cannot", "run:", "RuntimeError:"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "gg_raises_import_error:f", "--input-shape", "2,4"], "needs a package you do not have"),
        (["--model", "gg_exits:f", "--input-shape", "2,4"], "SystemExit: run me as a script"),
        (["--model", "gg_user_real:sized", "--input-shape", "2,4"], "missing 1 required positional argument"),
        (["--model", "gg_user_real:sized", "--input-shape", "2,4", "--model-arg", "size"], "expected key=value"),
        (["--model", "gg_user_real:with_mask", "--inputs", "gg_user_real:bad_inputs"], "(args tuple, kwargs dict)"),
        (["--model", "gg_user_real:with_mask", "--inputs", "gg_user_real:failing_inputs"], "no data here"),
        (["--model", "gg_user_real:with_mask", "--inputs", "gg_user_real:nope"], "no attribute 'nope'"),
        (["--model", "gg_user_real:with_mask"], "needs --input-shape"),
        (["--model", "gg_user_real:tokens", "--input-shape", "2,4", "--input-dtype", "int64"], "needs --input-range"),
        (["--model", "gg_user_real:tokens", "--input-shape", "2,4", "--input-range", "5,1"], "LOW must be below"),
        (["--model", "mlp", "--model-arg", "hidden=3"], "applies to a user factory"),
        (["--model", "mlp,cnn", "--input-shape", "2,512"], "applies to one model"),
        (["--model", "gg_user_real:with_mask", "--inputs", "m:f", "--input-shape", "2,8"], "give one or the other"),
    ],
)
def test_bad_user_input_is_one_line_and_exit_2(user_dir, capsys, argv, message):
    assert main(["model", *argv, *FAST]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("gradguard bench: error: "), err
    assert message in err


def test_import_error_through_the_gradguard_command(user_dir):
    # The top-level command, in a fresh process: one line, exit 2, no traceback.
    code = "import sys; from gradguard.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "bench", "model", "--model", "gg_raises_import_error:f", "--input-shape", "2,4"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=user_dir,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("gradguard bench: error: cannot import 'gg_raises_import_error'")


def test_the_current_folder_is_importable(tmp_path, monkeypatch, capsys):
    # As under the installed `gradguard` script, whose sys.path does not hold the folder.
    (tmp_path / "gg_local_model.py").write_text("import torch\n\ndef make():\n    return torch.nn.Linear(4, 2)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd(), str(tmp_path))])
    try:
        doc = _json_run(capsys, ["--model", "gg_local_model:make", "--input-shape", "2,4", "--modes", "grad"])
    finally:
        sys.modules.pop("gg_local_model", None)
    assert doc["models"][0]["parameters"] == 4 * 2 + 2


HF_MODULE = textwrap.dedent(
    """
    import torch
    from transformers import BertConfig, BertModel

    def tiny_bert():
        config = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=32)
        return BertModel(config)

    def bert_inputs(batch):
        ids = torch.randint(0, 64, (batch, 12))
        return (ids,), {"attention_mask": torch.ones(batch, 12, dtype=torch.int64)}
    """
)


def test_tiny_hugging_face_model_from_a_config(tmp_path, monkeypatch, capsys):
    pytest.importorskip("transformers", reason="transformers is not installed (pip install 'gradguard[bench-hf]')")
    (tmp_path / "gg_hf_models.py").write_text(HF_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        ids_doc = _json_run(
            capsys,
            ["--model", "gg_hf_models:tiny_bert", "--input-shape", "2,12", "--input-dtype", "int64",
             "--input-range", "0,64", "--modes", "grad,no_grad"],
        )  # fmt: skip
        hook_doc = _json_run(
            capsys, ["--model", "gg_hf_models:tiny_bert", "--inputs", "gg_hf_models:bert_inputs", "--batch", "2"]
        )
    finally:
        sys.modules.pop("gg_hf_models", None)
    for doc in (ids_doc, hook_doc):
        rows = {r["mode"]: r for r in doc["results"]}
        assert all(r["error"] is None for r in rows.values())
        assert rows["grad"]["saved_activation_bytes"] > 0 and rows["grad"]["output_requires_grad"] is True
        assert rows["no_grad"]["saved_bytes"] == 0
    assert [i["name"] for i in hook_doc["models"][0]["inputs"]] == ["args[0]", "kwargs['attention_mask']"]
