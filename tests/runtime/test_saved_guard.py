import inspect

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import gradguard as gg  # noqa: E402
from gradguard.runtime import hooks  # noqa: E402

from .helpers import SmallCNN, batches, hooks_registered, train_steps  # noqa: E402


def _line_of(func, text):
    lines, start = inspect.getsourcelines(func)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError(text)


class ScaledHidden(nn.Module):
    """An MLP that rescales its hidden activation through .data (the GG102 bug)."""

    def __init__(self, activation):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 1)
        self.activation = activation

    def forward(self, x):
        h = self.activation(self.fc1(x))  # saving op
        h.data.mul_(0.5)
        return self.fc2(h)


@pytest.mark.parametrize(
    "activation, node",
    [(torch.exp, "ExpBackward0"), (torch.sigmoid, "SigmoidBackward0"), (torch.tanh, "TanhBackward0")],
)
def test_data_inplace_on_saved_output_is_caught_in_training_loop(activation, node):
    torch.manual_seed(0)
    model = ScaledHidden(activation)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with pytest.raises(gg.SilentMutationError) as info:
        with gg.SavedTensorGuard():
            for _ in range(3):
                x, y = torch.randn(8, 4), torch.randn(8, 1)
                opt.zero_grad()
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
    message = str(info.value)
    assert "GG102" in message and node in message
    assert "(8, 16)" in message and "torch.float32" in message
    site = f"{__file__}:{_line_of(ScaledHidden.forward, '# saving op')}"
    assert site in message
    assert not hooks_registered()


def test_without_guard_the_same_loop_gives_a_silently_wrong_gradient():
    # The evidence that the guarded failure above is real: no error, wrong gradient.
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.data.mul_(0)
    y.sum().backward()
    assert torch.equal(x.grad, torch.zeros(3))


def test_detached_alias_mutation_is_still_caught_under_hooks():
    # Under saved-tensor hooks autograd skips its version check: the guard must do it.
    x = torch.randn(5, requires_grad=True)
    with gg.SavedTensorGuard():
        y = torch.sigmoid(x)
        with torch.no_grad():
            y.detach().add_(1)
        with pytest.raises(gg.SilentMutationError, match=r"version counter 0 -> 1"):
            y.sum().backward()


def test_storage_of_a_saved_input_replaced_by_other_values_is_caught():
    # torch reads a saved *input* through the tensor itself: after `.data = other`, backward
    # reads the new values, which forward never used.
    x = torch.randn(4, requires_grad=True)
    w = torch.randn(4, requires_grad=True)
    with gg.SavedTensorGuard():
        y = x * w
        w.data = torch.zeros(4)
        with pytest.raises(gg.SilentMutationError, match="storage was replaced .* by different values"):
            y.sum().backward()


def test_straight_through_data_assignment_after_tanh_is_not_reported():
    # h.data = sign(h.data): torch keeps a saved output by its storage at save time, so the
    # tanh gradient is unchanged; this is the straight-through estimator working as meant.
    def run():
        torch.manual_seed(0)
        x = torch.randn(6, requires_grad=True)
        h = x.tanh()
        h.data = torch.sign(h.data)
        (h * torch.arange(6.0)).sum().backward()
        return x.grad

    expected = run()
    with gg.SavedTensorGuard():
        guarded = run()
    assert torch.equal(expected, guarded)


def test_weight_released_and_regathered_with_same_values_is_not_reported():
    # ZeRO-3-style offloading: p.data = torch.empty(0) after forward, re-gathered before backward.
    def run():
        torch.manual_seed(0)
        lin = nn.Linear(4, 3)
        x = torch.randn(2, 4, requires_grad=True)
        out = lin(x).tanh().sum()
        kept = lin.weight.data.clone()
        lin.weight.data = torch.empty(0)
        lin.weight.data = kept.clone()
        out.backward()
        return x.grad, lin.weight.grad

    expected = run()
    with gg.SavedTensorGuard():
        guarded = run()
    assert all(torch.equal(a, b) for a, b in zip(expected, guarded))


def test_thread_count_changed_between_forward_and_backward_is_not_reported():
    before = torch.get_num_threads()
    x = torch.randn(300_000, requires_grad=True)
    try:
        with gg.SavedTensorGuard():
            for forward_threads, backward_threads in ((1, 4), (4, 1), (2, 3)):
                torch.set_num_threads(forward_threads)
                y = x.exp()
                torch.set_num_threads(backward_threads)
                y.sum().backward()
    finally:
        torch.set_num_threads(before)


def _gan_step(context):
    """D's optimizer steps before G's backward through D(fake): torch raises."""
    torch.manual_seed(0)
    G, D = nn.Linear(4, 4), nn.Linear(4, 1)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
    with context():
        fake = G(torch.randn(8, 4))
        out = D(fake)
        loss_d = out.mean()
        loss_d.backward(retain_graph=True)
        opt_d.step()
        (-out.mean()).backward()


@pytest.mark.parametrize("factory", [gg.LeakMonitor, gg.SavedTensorGuard])
def test_every_guard_keeps_torchs_version_check(factory):
    import contextlib

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _gan_step(contextlib.nullcontext)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        _gan_step(factory)
    assert "GG208" in str(info.value) and "parameter `D.weight`" in str(info.value)


def test_torch_func_runs_unguarded_with_one_warning():
    import warnings

    from gradguard.runtime import hooks as hook_layer

    hook_layer._warned_functorch = False
    x = torch.randn(5)
    expected = torch.func.grad(lambda v: v.sin().sum())(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with gg.SavedTensorGuard(), gg.LeakMonitor():
            for _ in range(3):
                got = torch.func.grad(lambda v: v.sin().sum())(x)
                torch.func.vjp(torch.tanh, x)[1](torch.ones(5))
                torch.func.jacrev(torch.sin)(x)
                torch.func.hessian(lambda v: v.pow(3).sum())(x)
            assert hooks_registered()
            # and the guard still works after the transform
            y = torch.randn(3, requires_grad=True).exp()
            y.data.mul_(0)
            with pytest.raises(gg.SilentMutationError):
                y.sum().backward()
    assert torch.equal(expected, got)
    messages = [str(w.message) for w in caught if "torch.func" in str(w.message)]
    assert len(messages) == 1 and "unguarded" not in messages[0] or len(messages) == 1


class ScaleBySaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, w):
        ctx.save_for_backward(w)
        return a * w

    @staticmethod
    def backward(ctx, grad):
        (w,) = ctx.saved_tensors
        return grad * w, None


class ScaleByAttribute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, w):
        ctx.w = w  # GG501
        return a * w

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.w, None


@pytest.mark.parametrize("function", [ScaleBySaved, ScaleByAttribute])
def test_tensor_stored_on_ctx_and_mutated_is_caught(function):
    a = torch.ones(3, requires_grad=True)
    scale = torch.full((3,), 2.0)
    with gg.SavedTensorGuard():
        with pytest.raises(gg.SilentMutationError) as info:
            for _ in range(3):
                out = function.apply(a, scale)
                scale.data.mul_(10)  # e.g. a schedule updating the scale too early
                out.sum().backward()
    assert "GG102" in str(info.value)
    assert function.__name__ + "Backward" in str(info.value)


def test_normal_training_loop_with_batchnorm_is_not_reported():
    torch.manual_seed(0)
    model = SmallCNN().train()
    with gg.SavedTensorGuard():
        losses = train_steps(model, n=3)
    assert len(losses) == 3


def test_checkpointing_is_not_reported():
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8))
    x = torch.randn(4, 8, requires_grad=True)
    with gg.SavedTensorGuard():
        for reentrant in (False, True):
            out = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=reentrant)
            out.exp().sum().backward()


def test_create_graph_gradient_penalty_is_not_reported():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with gg.SavedTensorGuard():
        for _ in range(2):
            x = torch.randn(6, 4, requires_grad=True)
            out = model(x).sum()
            (grad_x,) = torch.autograd.grad(out, x, create_graph=True)
            loss = out + grad_x.pow(2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()


def test_loss_kept_one_step_and_backpropagated_later_is_not_reported():
    # Two micro-batches per optimizer step; the first loss waits one iteration.
    torch.manual_seed(0)
    model = SmallCNN().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    pending = None
    with gg.SavedTensorGuard():
        for x, y in batches(4):
            loss = criterion(model(x), y)
            if pending is None:
                pending = loss
                continue
            opt.zero_grad()
            (pending + loss).backward()
            opt.step()
            pending = None


def _grads_after_steps(guard_factory):
    torch.manual_seed(0)
    model = SmallCNN().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    with guard_factory():
        for x, y in batches(2, seed=1):
            opt.zero_grad()
            criterion(model(x), y).backward()
            opt.step()
    return [p.grad.clone() for p in model.parameters()] + [p.detach().clone() for p in model.parameters()]


class _Nested:
    def __enter__(self):
        self.monitor = gg.LeakMonitor().__enter__()
        self.guard = gg.SavedTensorGuard().__enter__()

    def __exit__(self, *exc):
        self.guard.__exit__(*exc)
        self.monitor.__exit__(*exc)


@pytest.mark.parametrize("factory", [gg.SavedTensorGuard, gg.LeakMonitor, _Nested])
def test_gradients_are_bit_identical_with_and_without_guard(factory):
    import contextlib

    reference = _grads_after_steps(contextlib.nullcontext)
    guarded = _grads_after_steps(factory)
    assert all(torch.equal(a, b) for a, b in zip(reference, guarded, strict=True))


def test_nothing_left_registered_after_exit_and_after_exceptions():
    original_apply = torch.autograd.Function.__dict__["apply"]
    with gg.SavedTensorGuard():
        assert hooks_registered()
        assert torch.autograd.Function.__dict__["apply"] is not original_apply
    assert not hooks_registered()
    with pytest.raises(ZeroDivisionError):
        with gg.SavedTensorGuard(), gg.LeakMonitor():
            1 / 0  # noqa: B018 (raises on purpose)
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(gg.SilentMutationError):
        with gg.SavedTensorGuard():
            y = x.exp()
            y.data.zero_()
            y.sum().backward()
    assert not hooks_registered()
    assert torch.autograd.Function.__dict__["apply"] is original_apply
    assert hooks.consumers() == []


def test_guard_is_not_reentrant():
    guard = gg.SavedTensorGuard()
    with guard:
        with pytest.raises(RuntimeError, match="already active"):
            guard.__enter__()
    assert not hooks_registered()


def test_weight_doubled_through_data_is_caught_and_named():
    # 1024 float32 values doubled add 1024 * 2**23 = 2**33 to their bit sum: invisible to a 32-bit
    # checksum alone; the strided sample of the (transposed, non-contiguous) saved view sees it.
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 32))
    x = torch.randn(4, 32, requires_grad=True)
    with gg.SavedTensorGuard():
        out = encoder(x).sum()
        encoder[2].weight.data.mul_(2)
        with pytest.raises(gg.SilentMutationError) as info:
            out.backward()
    assert "parameter `encoder.2.weight`" in str(info.value)


def test_locate_mutations_names_the_line_that_changed_the_tensor():
    x = torch.randn(5, requires_grad=True)
    with gg.SavedTensorGuard(locate_mutations=True):
        y = x.exp()
        y.data.mul_(0)  # the mutating line
        with pytest.raises(gg.SilentMutationError) as info:
            y.sum().backward()
    line = _line_of(test_locate_mutations_names_the_line_that_changed_the_tensor, "# the mutating line")
    assert f"It was changed at {__file__}:{line}" in str(info.value)


def test_report_gives_the_users_line_and_the_library_line(tmp_path, monkeypatch):
    library = tmp_path / "site-packages" / "fakelib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("import torch\n\n\ndef squash(x):\n    return torch.sigmoid(x)\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    import fakelib

    x = torch.randn(4, requires_grad=True)
    with gg.SavedTensorGuard():
        h = fakelib.squash(x)  # user line
        h.data.mul_(2)
        with pytest.raises(gg.SilentMutationError) as info:
            h.sum().backward()
    user = f"{__file__}:{_line_of(test_report_gives_the_users_line_and_the_library_line, '# user line')}"
    assert f"at {user} (in {library / '__init__.py'}:5)" in str(info.value)
