"""The measuring primitives against cases whose answer is known in advance."""

from __future__ import annotations

import contextlib

import pytest

torch = pytest.importorskip("torch")

from torch.utils import benchmark  # noqa: E402

from gradguard.bench.calls import forward_call, prepared  # noqa: E402
from gradguard.bench.measure import (  # noqa: E402
    Candidate,
    kernel_difference,
    measure_memory,
    pin_malloc_thresholds,
    profile_forward,
    saved_for_backward,
    storage_ids,
    threads_warning,
    time_interleaved,
)
from gradguard.bench.modes import Mode  # noqa: E402

N = 256 * 1024  # float32 elements: 1 MiB per tensor
MB = N * 4
SLACK = 1024  # 0-dim tensors for Python scalars (a few bytes each)
CPU = torch.device("cpu")


def test_cpu_peak_of_a_chain_with_an_early_free():
    x = torch.randn(N)

    def chain():
        a = x * 2
        b = a * 3
        c = b * 4  # a, b, c live: 3 tensors
        del a
        d = c + 1  # b, c, d live: 3 tensors
        return d

    peak = profile_forward(chain).peak_bytes
    assert 3 * MB <= peak < 3 * MB + SLACK


def test_cpu_peak_counts_memory_freed_before_return():
    def transient():
        big = torch.empty(4 * N)
        del big
        return torch.empty(N)

    prof = profile_forward(transient)
    assert 4 * MB <= prof.peak_bytes < 4 * MB + SLACK
    assert MB <= prof.end_bytes < MB + SLACK  # only the output is left


def test_cpu_peak_sees_activations_kept_for_backward():
    # exp saves its result: with grad all three results stay alive; without, the
    # intermediate of x.exp().exp().exp() is freed as soon as the next exp has run.
    x = torch.randn(N, requires_grad=True)
    with_grad = profile_forward(lambda: x.exp().exp().exp()).peak_bytes
    with torch.no_grad():
        without = profile_forward(lambda: x.exp().exp().exp()).peak_bytes
    assert 3 * MB <= with_grad < 3 * MB + SLACK
    assert 2 * MB <= without < 2 * MB + SLACK


def test_cpu_peak_excludes_memory_allocated_before():
    x = torch.randn(4 * N)
    peak = profile_forward(lambda: x[:N]).peak_bytes  # a view: no new storage
    assert peak < SLACK


@pytest.mark.parametrize(("mode", "retained"), [(Mode.GRAD, 2 * MB), (Mode.NO_GRAD, 0)])
def test_retained_bytes_are_what_the_graph_keeps_beyond_the_output(mode, retained):
    # With grad, exp saves each result: the two intermediates outlive the forward.
    x = torch.randn(N, requires_grad=True)
    call = forward_call(mode, lambda t: t.exp().exp().exp(), (x,))
    memory, _ = measure_memory(call, CPU, set(), storage_ids([x]))
    assert retained <= memory.retained_bytes < retained + SLACK
    assert memory.saved_input_bytes == 0  # exp saves its result, not its input


def test_saved_bytes_count_each_storage_once():
    n = 64
    x = torch.randn(n, n, requires_grad=True)
    w = torch.randn(n, n, requires_grad=True)
    full = n * n * 4
    assert saved_for_backward(lambda: x * w).bytes == 2 * full  # mul saves both operands
    same = saved_for_backward(lambda: x * x)
    assert (same.bytes, same.storages) == (full, 1)  # x saved twice, one storage
    view = saved_for_backward(lambda: x[:, : n // 2].exp() * x[:, n // 2 :])
    # exp's result (new) plus the storage of x (two views of it, counted once, full size)
    assert view.storages == 2 and view.bytes == full + full // 2


@pytest.mark.parametrize(
    ("mode", "expected_operands", "requires_grad"),
    [
        (Mode.GRAD, 2, True),
        (Mode.NO_GRAD, 0, False),
        (Mode.INFERENCE_MODE, 0, False),
        (Mode.DETACH_INPUT, 1, True),
        (Mode.FROZEN, 1, True),
    ],
)
def test_modes_on_one_mul(mode, expected_operands, requires_grad):
    n = 32
    x = torch.randn(n, n, requires_grad=True)
    w = torch.randn(n, n, requires_grad=True)
    with prepared(mode, [w]):
        saved = saved_for_backward(forward_call(mode, lambda a: a * w, (x,)))
    assert saved.bytes == expected_operands * n * n * 4
    assert saved.output_requires_grad is requires_grad


def test_saved_bytes_split_into_parameters_inputs_and_new_activations():
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    x = torch.randn(4, 16)
    owned = storage_ids(list(model.parameters()))
    memory, _ = measure_memory(forward_call(Mode.GRAD, model, (x,)), CPU, owned, storage_ids([x]))
    # First linear: x (for its weight's gradient); ReLU: its result; second linear: the
    # weight (for the ReLU result's gradient) and the ReLU result again (same storage).
    assert memory.saved_input_bytes == 4 * 16 * 4
    assert memory.saved_param_bytes == 32 * 8 * 4
    assert memory.saved_activation_bytes == 4 * 32 * 4
    assert memory.retained_bytes >= memory.saved_activation_bytes
    assert memory.peak_forward_backward_bytes is None  # only asked for with backward_params


def test_forward_backward_peak_includes_parameter_gradients():
    model = torch.nn.Linear(256, 256)
    x = torch.randn(8, 256)
    params = list(model.parameters())
    memory, _ = measure_memory(forward_call(Mode.GRAD, model, (x,)), CPU, storage_ids(params), set(), params)
    param_bytes = sum(p.numel() * 4 for p in params)
    assert memory.peak_forward_backward_bytes >= param_bytes + 8 * 256 * 4  # gradients and output
    assert all(p.grad is None for p in params)  # cleared again


def test_kernel_path_of_the_transformer_fast_path():
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False).eval()
    x = torch.randn(2, 4, 16)
    ops = {}
    for mode in (Mode.GRAD, Mode.NO_GRAD):
        _, ops[mode] = measure_memory(forward_call(mode, model, (x,)), CPU, set(), set())
    here, grad_only = kernel_difference(ops[Mode.NO_GRAD], ops[Mode.GRAD])
    assert "aten::_transformer_encoder_layer_fwd" in here
    assert "aten::linear" in grad_only
    assert kernel_difference(ops[Mode.GRAD], ops[Mode.GRAD]) == ((), ())
    assert kernel_difference(["aten::detach", "aten::mm"], ["aten::mm"]) == ((), ())  # header-only ops aside


def test_rounds_rotate_and_every_candidate_runs_before_timing():
    entered = []

    def around(key):
        @contextlib.contextmanager
        def context():
            entered.append(key)
            yield

        return context

    candidates = [Candidate(key, benchmark.Timer(stmt="pass", num_threads=1), around(key)) for key in ("A", "B", "C")]
    timings = time_interleaved(candidates, min_run_time=0.003, rounds=4, threads=1)
    assert entered[:3] == ["A", "B", "C"]  # calibration: each once, before any timed block
    assert entered[3:] == list("ABCBCACABABC")
    for timing in timings.values():
        assert timing.rounds == (0, 1, 2, 3)
        assert len(timing.times) == 4 and all(t > 0 for t in timing.times)


def test_malloc_thresholds_pinned_on_glibc():
    import platform

    state = pin_malloc_thresholds()
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert state.pinned and state.mmap_threshold == 32 * 2**20
    else:
        assert not state.pinned and state.reason


def test_threads_warning_names_the_load(monkeypatch):
    import os

    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 3.0, 2.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert "load average 3.50 on 2" in threads_warning(1)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert threads_warning(2) is None
    assert threads_warning(3) is not None
