"""Command line: bad input is one line and exit 2; output formats; progress; no torch leak."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from gradguard.bench.cli import main  # noqa: E402

FAST = ["--quick", "--min-run-time", "0.02", "--no-progress"]


@pytest.fixture
def user_models(tmp_path, monkeypatch):
    (tmp_path / "gg_user_models.py").write_text(
        textwrap.dedent("""
        import torch

        def small():
            return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                       torch.nn.Linear(16, 2))

        def broken():
            raise ValueError("no weights here")

        def not_a_module():
            return 42
    """)
    )
    (tmp_path / "gg_broken_import.py").write_text("import does_not_exist_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield


BAD_INPUTS = [
    (["model", "--model", "resnet9000"], "unknown model 'resnet9000'"),
    (["model", "--model", "gg_broken_import:small", "--input-shape", "2,8"], "cannot import"),
    (["model", "--model", "no_such_pkg_zz.mod:factory", "--input-shape", "2,8"], "cannot import"),
    (["model", "--model", "gg_user_models:missing", "--input-shape", "2,8"], "no attribute"),
    (["model", "--model", "gg_user_models:broken", "--input-shape", "2,8"], "no weights here"),
    (["model", "--model", "gg_user_models:not_a_module", "--input-shape", "2,8"], "not a torch.nn.Module"),
    (["model", "--model", "gg_user_models:small"], "needs --input-shape"),
    (["model", "--model", "mlp", "--input-shape", "4,7"], "cannot run on input of shape 4,7"),
    (["model", "--model", "mlp", "--input-shape", "4,abc"], "--input-shape"),
    (["model", "--model", "mlp", "--modes", "grad,fast"], "unknown 'fast'"),
    (["model", "--model", "mlp", "--dtype", "int8"], "invalid choice"),
    (["model", "--model", "mlp", "--autocast"], "--autocast needs"),
    (["model", "--model", "mlp", "--plot", "out.jpg"], "PNG"),
    (["micro", "--sizes", "8,big"], "--sizes"),
    (["nonsense"], "invalid choice"),
    ([], "required"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(user_models, capsys, argv, message):
    assert main([*argv, *FAST] if argv and argv[0] in ("model", "micro") else argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gradguard bench: error: ")
    assert message in lines[0]


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_where_there_is_none(capsys):
    assert main(["model", "--model", "mlp", "--device", "cuda", *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no CUDA device" in err


def test_user_factory_runs(user_models, capsys):
    rc = main(
        [
            "model",
            "--model",
            "gg_user_models:small",
            "--input-shape",
            "3,8",
            "--modes",
            "grad",
            "no_grad",
            "--format",
            "json",
            *FAST,
        ]
    )
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["mode"] for r in doc["results"]] == ["grad", "no_grad"]
    assert doc["models"][0]["input_shape"] == [3, 8]
    assert doc["models"][0]["parameters"] == 8 * 16 + 16 + 16 * 2 + 2


def test_csv_and_table_with_progress_bar(capsys):
    argv = ["model", "--model", "mlp", "--batch", "2", "--modes", "grad,frozen", "--quick", "--min-run-time", "0.02"]
    assert main([*argv, "--format", "csv", "--progress"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["mode"] for r in rows] == ["grad", "frozen"]
    assert rows[0]["torch_version"] == torch.__version__
    assert rows[0]["dtype"] == "float32" and int(rows[0]["threads"]) >= 1
    assert "gradguard bench" in err and "100%" in err  # tqdm wrote its bar to stderr
    assert main([*argv, "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "model mlp" in out and "frozen" in out and err == ""


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard.bench", "model", "--model", "nope"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "gradguard bench: error: unknown model 'nope': use one of mlp, cnn, transformer or "
        "an importable 'pkg.module:factory'"
    ]


def test_importing_gradguard_and_bench_cli_does_not_import_torch():
    code = "import sys, gradguard, gradguard.bench, gradguard.bench.cli; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr
