"""The measuring primitives against cases whose answer is known in advance."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from gradguard.bench.measure import (  # noqa: E402
    Measurement,
    cpu_peak_bytes,
    saved_for_backward,
)
from gradguard.bench.modes import forward_call, prepared  # noqa: E402

N = 256 * 1024  # float32 elements: 1 MiB per tensor
MB = N * 4
SLACK = 1024  # 0-dim tensors for Python scalars (a few bytes each)


def test_cpu_peak_of_a_chain_with_an_early_free():
    x = torch.randn(N)

    def chain():
        a = x * 2
        b = a * 3
        c = b * 4  # a, b, c live: 3 tensors
        del a
        d = c + 1  # b, c, d live: 3 tensors
        return d

    peak = cpu_peak_bytes(chain)
    assert 3 * MB <= peak < 3 * MB + SLACK


def test_cpu_peak_counts_memory_freed_before_return():
    def transient():
        big = torch.empty(4 * N)
        del big
        return torch.empty(N)

    peak = cpu_peak_bytes(transient)
    assert 4 * MB <= peak < 4 * MB + SLACK


def test_cpu_peak_sees_activations_kept_for_backward():
    # exp saves its result: with grad all three results stay alive; without, the
    # intermediate of x.exp().exp().exp() is freed as soon as the next exp has run.
    x = torch.randn(N, requires_grad=True)
    with_grad = cpu_peak_bytes(lambda: x.exp().exp().exp())
    with torch.no_grad():
        without = cpu_peak_bytes(lambda: x.exp().exp().exp())
    assert 3 * MB <= with_grad < 3 * MB + SLACK
    assert 2 * MB <= without < 2 * MB + SLACK


def test_cpu_peak_excludes_memory_allocated_before():
    x = torch.randn(4 * N)
    peak = cpu_peak_bytes(lambda: x[:N])  # a view: no new storage
    assert peak < SLACK


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
        ("grad", 2, True),
        ("no_grad", 0, False),
        ("inference_mode", 0, False),
        ("detach_input", 1, True),
        ("frozen", 1, True),
    ],
)
def test_modes_on_one_mul(mode, expected_operands, requires_grad):
    n = 32
    x = torch.randn(n, n, requires_grad=True)
    w = torch.randn(n, n, requires_grad=True)
    with prepared(mode, [w]):
        saved = saved_for_backward(forward_call(mode, torch.mul, (x, w)))
    assert saved.bytes == expected_operands * n * n * 4
    assert saved.output_requires_grad is requires_grad


def test_parameter_storages_reported_apart():
    lin = torch.nn.Linear(16, 8, bias=False)
    owned = {(str(p.device), p.untyped_storage().data_ptr()) for p in lin.parameters()}
    x = torch.randn(4, 16, requires_grad=True)
    saved = saved_for_backward(lambda: lin(x), owned)
    assert saved.param_bytes == 16 * 8 * 4  # the weight, saved for the input's gradient
    assert saved.bytes == saved.param_bytes + 4 * 16 * 4  # plus the input


def test_noise_flag_threshold():
    quiet = Measurement(times=(1.0,) * 5, number_per_run=1, median=1.0, iqr=0.05, threads=1)
    noisy = Measurement(times=(1.0,) * 5, number_per_run=1, median=1.0, iqr=0.2, threads=1)
    assert not quiet.noisy and noisy.noisy
    assert Measurement((1.0,), 1, 1.0, 0.0, 1).few_runs
