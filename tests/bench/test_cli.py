"""Command line: bad input is one line and exit 2; Ctrl-C; output formats; progress; what is
imported; torch's import-time chatter kept off the terminal."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from gradguard.bench import cli  # noqa: E402
from gradguard.bench.cli import main  # noqa: E402

from .conftest import FAST  # noqa: E402


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
    (["model", "--model", "mlp", "--threads", "0"], "must be at least 1"),
    (["model", "--model", "mlp", "--fail-over", "5"], "--fail-over needs --compare"),
    (["model", "--model", "mlp", "--compare", "/no/such/file.json"], "cannot read"),
    (["micro", "--sizes", "8,big"], "--sizes"),
    (["micro", "--ops", "div"], "unknown 'div'"),
    (["report", "/no/such/run.json"], "cannot read"),
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


def test_ctrl_c_prints_interrupted_and_exits_130(monkeypatch, capsys):
    def interrupted(args, step):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_measure", interrupted)
    assert main(["model", "--model", "mlp", *FAST]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "gradguard: interrupted"


def test_help_exits_0(capsys):
    assert main(["model", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--inputs", "--model-arg", "--input-dtype", "--input-range", "--train", "--rounds", "--compare"):
        assert option in out


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_where_there_is_none(capsys):
    assert main(["model", "--model", "mlp", "--device", "cuda", *FAST]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no CUDA device" in err


def test_user_factory_runs(user_models, capsys):
    argv = ["model", "--model", "gg_user_models:small", "--input-shape", "3,8", "--modes", "grad", "no_grad"]
    assert main([*argv, "--format", "json", *FAST]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["mode"] for r in doc["results"]] == ["grad", "no_grad"]
    assert doc["models"][0]["input_shape"] == [3, 8]
    assert doc["models"][0]["parameters"] == 8 * 16 + 16 + 16 * 2 + 2


def test_csv_and_table_with_progress_bar(capsys):
    argv = ["model", "--model", "mlp", "--batch", "2", "--modes", "grad,frozen", *FAST[:-1]]
    assert main([*argv, "--format", "csv", "--progress"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["mode"] for r in rows] == ["grad", "frozen"]
    assert rows[0]["torch_version"] == torch.__version__
    assert rows[0]["dtype"] == "float32" and rows[0]["threads"] == "1"
    assert rows[0]["inputs"] == "2x512 float32" and rows[0]["baseline"] == "True"
    assert int(rows[0]["saved_bytes"]) == sum(
        int(rows[0][k]) for k in ("saved_param_bytes", "saved_input_bytes", "saved_activation_bytes")
    )
    assert "gradguard bench" in err and "100%" in err  # tqdm wrote its bar to stderr
    assert main([*argv, "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "model mlp" in out and "frozen" in out
    assert all(line.startswith("gradguard bench: warning: ") for line in err.splitlines())


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard.bench", "model", "--model", "nope"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    # The last line: whatever else a torch build may print is not ours to assert on.
    assert proc.stderr.strip().splitlines()[-1] == (
        "gradguard bench: error: unknown model 'nope': use one of mlp, cnn, transformer or "
        "an importable 'pkg.module:factory'"
    )


NOISY_IMPORT = textwrap.dedent(
    """
    import importlib.abc, logging, os, sys

    class Noisy(importlib.abc.MetaPathFinder):
        # Prints at import of torch.utils.cpp_extension, as some torch builds do, and
        # leaves a mark on stdout to show that it did.
        def find_spec(self, name, path, target=None):
            if name == "torch.utils.cpp_extension":
                logging.getLogger(name).warning("No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'")
                print("a line from Python", file=sys.stderr)
                os.write(2, b"a line from C++\\n")
                os.write(1, b"noisy import happened\\n")
            return None

    sys.meta_path.insert(0, Noisy())
    from gradguard.bench.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def test_torch_import_chatter_does_not_reach_the_terminal(tmp_path):
    argv = ["model", "--model", "mlp", "--batch", "1", "--modes", "grad", "-o", str(tmp_path / "out.txt"), *FAST]
    proc = subprocess.run(
        [sys.executable, "-c", NOISY_IMPORT, *argv], check=False, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    assert "noisy import happened" in proc.stdout  # the three lines were written, during the command
    assert "CUDA" not in proc.stderr and "a line from" not in proc.stderr
    assert all(line.startswith("gradguard bench: warning: ") for line in proc.stderr.splitlines())
    assert "model mlp" in (tmp_path / "out.txt").read_text()


def test_what_bench_imports():
    # Parsing, specs, results and reports need no torch; nothing in bench needs the other wings.
    code = textwrap.dedent(
        """
        import sys
        import gradguard, gradguard.bench, gradguard.bench.cli, gradguard.bench.report
        import gradguard.bench.results, gradguard.bench.spec, gradguard.bench.modes
        print(sorted(m for m in sys.modules if m == "torch" or m.startswith(("gradguard.check", "gradguard.runtime"))))
        import gradguard.bench.run
        print(sorted(m for m in sys.modules if m.startswith(("gradguard.check", "gradguard.runtime"))))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines() == ["[]", "[]"], proc.stderr


def test_report_works_without_torch(model_run, tmp_path):
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(model_run[0]))
    code = (
        "import sys; sys.modules['torch'] = None\n"  # any import of torch now fails
        "from gradguard.bench.cli import main\n"
        f"sys.exit(main(['report', {str(saved)!r}, '--format', 'csv']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1 + len(model_run[0]["results"])
