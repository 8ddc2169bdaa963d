import subprocess
import sys

import pytest

pytest.importorskip("torch")

pytest_plugins = ["pytester"]

MUTATING_TEST = """
import torch

def test_mutates_saved_output():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.data.mul_(0)
    y.sum().backward()
"""


def test_option_runs_tests_under_saved_tensor_guard(pytester):
    pytester.makepyfile(MUTATING_TEST)
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 0  # silently wrong without it
    result = pytester.runpytest("-p", "no:cacheprovider", "--gradguard")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*SilentMutationError*GG102*ExpBackward0*"])


def test_leak_marker_fails_test_whose_graph_survives(pytester):
    pytester.makepyfile(
        """
        import pytest
        import torch

        KEPT = []
        lin = torch.nn.Linear(4, 4)

        @pytest.mark.gradguard(leaks=True)
        def test_keeps_graph_in_module_state():
            KEPT.append(lin(torch.randn(2, 4)).tanh())

        @pytest.mark.gradguard(leaks=True)
        def test_clean():
            out = lin(torch.randn(2, 4)).tanh()
            KEPT.append(out.detach())
            out.sum().backward()
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*GraphLeakError: GG301*test_keeps_graph_in_module_state*"])
    result.stdout.fnmatch_lines(["*test_leak_marker_fails_test_whose_graph_survives.py:9*"])


def test_marker_is_registered_and_validated(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.gradguard(leakz=True)
        def test_x():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*gradguard marker takes only leaks=... and saved=...*"])
    assert "gradguard(leaks=False, saved=False)" in pytester.runpytest("--markers").stdout.str()


def test_monitor_fixture_is_strict_leak_monitor(pytester):
    pytester.makepyfile(
        """
        import torch
        import gradguard as gg

        def test_loop(gradguard_monitor):
            assert isinstance(gradguard_monitor, gg.LeakMonitor)
            lin = torch.nn.Linear(4, 1)
            total = 0
            for _ in range(6):
                total += lin(torch.randn(3, 4)).sum()
                gradguard_monitor.step()
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GraphLeakError: GG301*"])


def test_plugin_does_not_import_torch_unless_used(pytester):
    pytester.makepyfile(
        """
        import sys

        def test_no_torch():
            assert "torch" not in sys.modules
        """
    )
    # a fresh interpreter: this process has torch loaded already
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    out = subprocess.run(
        [sys.executable, "-c", "import gradguard.runtime.pytest_plugin, sys; print('torch' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


def test_leaks_option_applies_to_every_test_and_tracebacks_hide_gradguard(pytester):
    pytester.makepyfile(
        """
        import torch

        KEPT = []
        lin = torch.nn.Linear(4, 4)

        def test_keeps_one_output():
            KEPT.append(lin(torch.randn(2, 4)).tanh())

        def test_clean():
            lin(torch.randn(2, 4)).sum().backward()
        """
    )
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 0
    result = pytester.runpytest("-p", "no:cacheprovider", "--gradguard-leaks")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    # singular: one tensor (the tanh output) holds one node that saved it
    assert "GG301 graph leak: 2 graph nodes and" in out or "GG301 graph leak: 1 graph node and" in out
    assert "1 graph nodes" not in out
    assert "gradguard/runtime" not in out.replace("\\", "/").split("short test summary")[0]


def test_mutation_failure_traceback_ends_in_the_test_not_in_gradguard(pytester):
    pytester.makepyfile(MUTATING_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--gradguard")
    result.assert_outcomes(failed=1)
    out = result.stdout.str().split("short test summary")[0]
    assert "y.sum().backward()" in out
    assert "gradguard/runtime/saved.py" not in out and "gradguard/runtime/hooks.py" not in out
