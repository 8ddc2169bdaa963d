"""``gradguard run`` on unmodified scripts (tests/runtime/scripts): findings, exit codes, output."""

import json
import os
import signal
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from gradguard.cli import main as gradguard_main  # noqa: E402

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")


def script(name):
    return os.path.join(SCRIPTS, name)


def line_of(name, text):
    with open(script(name)) as handle:
        for number, line in enumerate(handle, 1):
            if text in line:
                return f"{script(name)}:{number}"
    raise AssertionError(text)


def run_json(tmp_path, name, *args, options=()):
    """gradguard run in this process, JSON report; returns (exit code, report)."""
    out = tmp_path / "report.json"
    code = gradguard_main(
        ["run", "--format", "json", "--output", str(out), "--no-children", *options, script(name), *args]
    )
    return code, json.loads(out.read_text())


def run_subprocess(*args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "gradguard", "run", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd or SCRIPTS,
        timeout=240,
    )


@pytest.mark.parametrize(
    "name, code, marker",
    [
        ("leak_train.py", "GG301", "loss = criterion(model(x), y)"),
        ("mutation.py", "GG102", "h = torch.sigmoid(self.fc1(x))"),
        ("eval_with_grad.py", "GG201", "logits = model(x)"),
        ("no_zero_grad.py", "GG303", "loss.backward()"),
        ("inference_buffer.py", "GG503", "model.scale = model("),
        ("generator_no_grad.py", "GG210", "yield model("),
    ],
)
def test_each_bug_is_reported_with_its_code_and_the_users_line(tmp_path, capsys, name, code, marker):
    exit_code, report = run_json(tmp_path, name)
    codes = [f["code"] for f in report["findings"]]
    assert codes == [code], report
    finding = report["findings"][0]
    assert finding["where"] == line_of(name, marker)
    assert report["by_code"][code]["count"] == finding["count"] >= 1
    assert exit_code == (1 if name == "generator_no_grad.py" else 0)  # the script's own exit code


def test_leak_report_names_the_list_that_holds_the_graphs(tmp_path, capsys):
    _, report = run_json(tmp_path, "leak_train.py")
    message = report["findings"][0]["message"]
    assert f"list `history` at {line_of('leak_train.py', 'history = []')}" in message


def test_unused_graph_report_counts_calls_and_bytes(tmp_path, capsys):
    _, report = run_json(tmp_path, "eval_with_grad.py")
    finding = report["findings"][0]
    assert finding["count"] == 5 and finding["bytes"] > 0
    assert "over 5 calls that no backward used" in finding["message"]


def test_clean_script_reports_nothing_and_keeps_argv_name_output_and_exit_code(capsys):
    code = gradguard_main(["run", "--no-children", script("clean_train.py"), "--exit3", "a b"])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.out.startswith("argv=['--exit3', 'a b'] name=__main__ loss=")
    assert "no findings (6 optimizer steps, 6 backward calls watched)" in captured.err


def test_torch_func_checkpoint_and_compile_report_nothing(tmp_path, capsys):
    code, report = run_json(tmp_path, "func_checkpoint_compile.py", "--compile")
    assert code == 0 and report["findings"] == []
    assert capsys.readouterr().out.strip().endswith("ok")


def test_strict_stops_at_first_finding_with_exit_1(tmp_path, capsys):
    code, report = run_json(tmp_path, "no_zero_grad.py", options=["--strict"])
    assert code == 1
    assert [f["code"] for f in report["findings"]] == ["GG303"]
    captured = capsys.readouterr()
    assert "trained" not in captured.out  # stopped before the end
    assert "stopped at the first finding (GG303" in captured.err


def test_script_exception_prints_pythons_traceback_and_exits_1():
    result = run_subprocess("raises.py")
    plain = subprocess.run([sys.executable, "raises.py"], capture_output=True, text=True, cwd=SCRIPTS)
    assert result.returncode == plain.returncode == 1
    assert result.stdout == plain.stdout == "before\n"
    traceback = result.stderr.split("gradguard run:")[0]
    assert traceback == plain.stderr
    assert "gradguard" not in traceback


def test_keyboard_interrupt_behaves_as_python():
    result = run_subprocess("interrupted.py")
    plain = subprocess.run([sys.executable, "interrupted.py"], capture_output=True, text=True, cwd=SCRIPTS)
    assert result.returncode == plain.returncode == -signal.SIGINT
    assert result.stderr.startswith("Traceback") and "KeyboardInterrupt" in result.stderr
    assert "gradguard run: interrupted.py: no findings" in result.stderr


def test_module_mode_runs_package_main(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("VALUE = 7\n")
    (package / "train.py").write_text(
        "import sys\nimport torch\nfrom .helper import VALUE\n"
        "w = torch.ones(2, requires_grad=True)\n(w * VALUE).sum().backward()\n"
        "print(__name__, sys.argv[1:], w.grad.tolist())\nsys.exit(4)\n"
    )
    result = run_subprocess("-m", "pkg.train", "--flag", cwd=str(tmp_path))
    assert result.returncode == 4
    assert result.stdout == "__main__ ['--flag'] [7.0, 7.0]\n"
    assert "no findings (0 optimizer steps, 1 backward call watched)" in result.stderr


def test_dataloader_workers_fork_and_spawn():
    result = run_subprocess("workers.py", "fork", "spawn")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fork batches ok\nspawn batches ok\n"
    assert result.stderr.count("gradguard run") == 1  # workers found nothing and print nothing
    assert "no findings (8 optimizer steps" in result.stderr


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run"], "usage: gradguard run"),
        (["run", "missing_script.py"], "gradguard run: error: can't open file 'missing_script.py'"),
        (["run", "--format", "xml", "x.py"], "gradguard run: error: argument --format: invalid choice"),
        (["run", "-m"], "gradguard run: error: argument -m: expected a module name"),
        (["run", "--output", "/nonexistent/dir/r.json", "x.py"], "gradguard run: error:"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    try:
        code = gradguard_main(argv)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err + captured.out
    assert "Traceback" not in captured.err


def test_environment_switch_guards_a_plain_python_process(tmp_path):
    """GRADGUARD_RUN=1 with the boot folder on PYTHONPATH: what launchers use (torchrun, accelerate)."""
    import gradguard.runtime.cli as run_cli

    boot = os.path.join(os.path.dirname(run_cli.__file__), "boot")
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITECUSTOMIZE'] = 'ran'\n")
    report = tmp_path / "report-{rank}.json"
    env = {
        "GRADGUARD_RUN": "1",
        "PYTHONPATH": os.pathsep.join([boot, str(other), os.environ.get("PYTHONPATH", "")]),
        "GRADGUARD_OPTIONS": json.dumps({"format": "json"}),
        "GRADGUARD_OUTPUT": str(report),
        "RANK": "3",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os; print(os.environ.get('OTHER_SITECUSTOMIZE')); exec(open('no_zero_grad.py').read())",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=SCRIPTS,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ran", "trained"]
    data = json.loads((tmp_path / "report-3.json").read_text())
    assert [f["code"] for f in data["findings"]] == ["GG303"]
    assert data["summary"]["rank"] == "3"
    # Without torch the switch costs nothing: torch is not imported.
    quiet = subprocess.run(
        [sys.executable, "-c", "import sys; print('torch' in sys.modules)"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert quiet.stdout.strip() == "False"


def test_torchrun_workers_are_guarded_through_the_launcher(tmp_path):
    (tmp_path / "ddp.py").write_text(
        "import torch, torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for _ in range(3):\n"
        "    model(torch.randn(2, 4)).sum().backward()  # never zeroed\n"
        "    opt.step()\n"
        "dist.destroy_process_group()\n"
    )
    result = run_subprocess("torchrun", "--nproc-per-node", "1", "ddp.py", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "gradguard run rank 0: ddp.py: 1 finding" in result.stderr
    assert "GG303" in result.stderr


def test_run_without_torch_is_one_line_exit_2(tmp_path):
    target = tmp_path / "t.py"
    target.write_text("print('never')\n")
    code = (
        "import sys; sys.modules['torch'] = None; from gradguard.cli import main; sys.exit(main(['run', sys.argv[1]]))"
    )
    result = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("gradguard run: error: needs torch") and result.stderr.count("\n") == 1
    assert result.stdout == ""


@pytest.mark.parametrize(
    "argv, where",
    [(["check", "."], "gradguard.check.cli.run_command"), (["run", "x.py"], "gradguard.runtime.cli.main")],
)
def test_ctrl_c_in_any_command_prints_interrupted_and_exits_130(monkeypatch, capsys, argv, where):
    module, name = where.rsplit(".", 1)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(__import__(module, fromlist=[name]), name, interrupted)
    assert gradguard_main(argv) == 130
    assert capsys.readouterr().err == "gradguard: interrupted\n"
