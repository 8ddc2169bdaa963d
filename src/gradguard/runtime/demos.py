"""Demonstrations for ``gradguard explain GGnnn --run``.

Each demo runs a few lines of real torch code on the installed version and returns what
happened (the wrong gradient next to the right one, the error text, the memory retained),
so the rule's consequence is shown rather than asserted.
"""

from __future__ import annotations

import warnings
from typing import Callable

import torch
from torch import nn

from .errors import SilentMutationError
from .inference import find_inference_tensors
from .leaks import LeakMonitor
from gradguard.common.text import first_line as _first_line, format_bytes

from .introspect import graph_stats
from .saved import SavedTensorGuard


def _fmt(t: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in t.detach().flatten().tolist()) + "]"


def _error_of(fn: Callable[[], object]) -> str:
    try:
        fn()
    except Exception as exc:  # the demo reports whatever torch raises
        return _first_line(exc)
    return "no error"


def _warnings_of(fn: Callable[[], object]) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught]


def _exp_with_inplace(alias: str) -> tuple[torch.Tensor | None, str]:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()  # exp saves its result for backward
    with torch.no_grad():
        (y.data if alias == "data" else y.detach()).mul_(0)
    error = _error_of(lambda: y.sum().backward())
    return x.grad, error


def demo_gg101() -> str:
    y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).exp()
    via_data, via_detach = y.data, y.detach()
    via_data.add_(1)
    after_data = y._version
    via_detach.add_(1)
    return "\n".join(
        [
            "`t.data` and `t.detach()` both share storage with t, but only detach() shares",
            "its version counter, which is how autograd notices in-place changes:",
            f"  after y.data.add_(1):     y._version = {after_data}  (autograd sees nothing)",
            f"  after y.detach().add_(1): y._version = {y._version}  (autograd will refuse backward)",
            "Reading .data is the first step of GG102; use .detach() (see `--run GG102`).",
        ]
    )


def demo_gg102() -> str:
    right = torch.tensor([1.0, 2.0, 3.0]).exp()
    grad_data, error_data = _exp_with_inplace("data")
    _, error_detach = _exp_with_inplace("detach")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with SavedTensorGuard():
        y = x.exp()
        y.data.mul_(0)
        try:
            y.sum().backward()
            guarded = "no error"
        except SilentMutationError as exc:
            guarded = f"SilentMutationError: {exc}"
    return "\n".join(
        [
            "y = x.exp() saves y for backward; then y is zeroed in place before backward.",
            f"  right gradient d(sum exp x)/dx: {_fmt(right)}",
            f"  through y.data.mul_(0):         {_fmt(grad_data)}  ({error_data}: silently wrong)",
            f"  through y.detach().mul_(0):     {error_detach}",
            f"  under gg.SavedTensorGuard():    {guarded}",
        ]
    )


def demo_gg103() -> str:
    t = torch.ones(3, requires_grad=True) * 2
    copy, caught = _warnings_of(lambda: torch.tensor(t))
    lines = ["torch.tensor(t) on a tensor t that carries a graph:"]
    lines += [f"  {w}" for w in caught] or ["  (no warning)"]
    lines.append(
        f"  result: requires_grad={copy.requires_grad}, grad_fn={copy.grad_fn}: the copy is cut "
        "from the graph, no gradient reaches t through it; say t.clone().detach() (or t.clone() to "
        "keep the graph)."
    )
    return "\n".join(lines)


def demo_gg104() -> str:
    x = torch.ones(2, 3)
    v, caught = _warnings_of(lambda: torch.autograd.Variable(x, volatile=True))
    lines = ["torch.autograd.Variable(x, volatile=True):"]
    lines += [f"  {w}" for w in caught] or ["  (no warning)"]
    w = nn.Parameter(torch.ones(3, 3))
    out = v @ w
    lines.append(
        f"  an op on it with a parameter: grad_fn={type(out.grad_fn).__name__}: volatile has no "
        "effect, a graph is built as usual. Use torch.no_grad() / torch.inference_mode()."
    )
    return "\n".join(lines)


def _eval_memory(n_batches: int, accumulate_tensor: bool, grad: bool) -> list[int]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 16 * 16, 10)).eval()
    criterion = nn.CrossEntropyLoss()
    retained = []
    with LeakMonitor(patience=10**9) as monitor, torch.set_grad_enabled(grad):
        total: object = 0.0
        for _ in range(n_batches):
            x, y = torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,))
            loss = criterion(model(x), y)
            total = total + (loss if accumulate_tensor else loss.item())
            retained.append(monitor.step().live_bytes)
    return retained


def demo_gg201() -> str:
    with_grad = _eval_memory(4, accumulate_tensor=False, grad=True)
    without = _eval_memory(4, accumulate_tensor=False, grad=False)
    model = nn.Linear(512, 512)
    x = torch.randn(256, 512)
    out_grad = model(x).relu()
    with torch.no_grad():
        out_nograd = model(x).relu()
    return "\n".join(
        [
            "Evaluation forward of Linear(512, 512) + ReLU on a 256x512 batch:",
            f"  grad enabled: output keeps {format_bytes(graph_stats(out_grad).saved_bytes)} saved "
            "for a backward that never comes",
            f"  torch.no_grad(): {format_bytes(graph_stats(out_nograd).saved_bytes)}",
            "Evaluation loop of a small CNN, graph memory alive after each batch (`total += loss.item()`):",
            f"  grad enabled:    {', '.join(format_bytes(b) for b in with_grad)}",
            f"  torch.no_grad(): {', '.join(format_bytes(b) for b in without)}",
            "Only the current batch's graph is alive (the previous one is freed when `loss` is "
            "rebound); with `total += loss` they accumulate (see `--run GG301`).",
        ]
    )


def demo_gg202() -> str:
    w = nn.Parameter(torch.ones(3))
    with torch.no_grad():
        loss = (w * 2).sum()
    return "\n".join(
        [
            "loss computed inside torch.no_grad(), then loss.backward():",
            f"  loss.grad_fn = {loss.grad_fn}",
            f"  {_error_of(loss.backward)}",
        ]
    )


def demo_gg204() -> str:
    def without_parens() -> None:
        with torch.no_grad:  # type: ignore[attr-defined]  # the bug being demonstrated
            pass

    return "\n".join(["`with torch.no_grad:` (class, not an instance):", f"  {_error_of(without_parens)}"])


def demo_gg205() -> str:
    before = torch.is_grad_enabled()

    def evaluate() -> None:
        torch.set_grad_enabled(False)  # the statement form the rule flags

    try:
        evaluate()
        after = torch.is_grad_enabled()
        w = nn.Parameter(torch.ones(2))
        loss = (w * 3).sum()
        error = _error_of(loss.backward)
    finally:
        torch.set_grad_enabled(before)
    return "\n".join(
        [
            "A function calls torch.set_grad_enabled(False) as a statement and returns:",
            f"  grad enabled before: {before}; after it returned: {after}",
            f"  the next training step's loss.backward(): {error}",
            "Use `with torch.set_grad_enabled(False):` (or torch.no_grad()) to scope it.",
        ]
    )


def demo_gg206() -> str:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(4, 4)
            self.head = nn.Linear(4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                h = self.body(x)
            return self.head(h)

    net = Net()
    net(torch.randn(2, 4)).sum().backward()
    return "\n".join(
        [
            "torch.no_grad() inside forward around the body, head outside:",
            f"  body.weight.grad = {net.body.weight.grad}  (never trained)",
            f"  head.weight.grad is set: {net.head.weight.grad is not None}",
        ]
    )


def demo_gg301() -> str:
    accumulated = _eval_memory(5, accumulate_tensor=True, grad=True)
    with_item = _eval_memory(5, accumulate_tensor=False, grad=True)
    return "\n".join(
        [
            "Small CNN, batches of 16, grad enabled; graph memory alive after each batch:",
            f"  total += loss:        {', '.join(format_bytes(b) for b in accumulated)}",
            f"  total += loss.item(): {', '.join(format_bytes(b) for b in with_item)}",
            "Each `+=` links the new batch's graph to the running total, so no graph is freed.",
        ]
    )


def demo_gg302() -> str:
    w = nn.Parameter(torch.ones(3))
    return "\n".join(
        [
            "w.numpy() on a parameter (requires_grad=True):",
            f"  {_error_of(w.numpy)}",
            f"  w.detach().numpy() works: {w.detach().numpy().tolist()}",
        ]
    )


def demo_gg401() -> str:
    lin = nn.Linear(3, 3)

    def init_outside() -> None:
        lin.weight.normal_(0, 0.02)

    error = _error_of(init_outside)
    with torch.no_grad():
        lin.weight.normal_(0, 0.02)
    return "\n".join(
        [
            "In-place init of a parameter outside torch.no_grad():",
            f"  lin.weight.normal_(): {error}",
            "  inside torch.no_grad() (or nn.init.normal_): works",
        ]
    )


def demo_gg402() -> str:
    x = torch.ones(3)
    x.require_grad = True  # type: ignore[attr-defined]  # the typo being demonstrated
    w = nn.Parameter(torch.ones(3))
    (x * w).sum().backward()
    return "\n".join(
        [
            "x.require_grad = True (missing 's'):",
            f"  x.requires_grad = {x.requires_grad}, x.grad = {x.grad}: silently a plain attribute",
        ]
    )


class _SquareCtxAttribute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[override]
        ctx.x = x  # GG501
        return x * x

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        return 2 * ctx.x * grad


class _SquareSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[override]
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        (x,) = ctx.saved_tensors
        return 2 * x * grad


class _SquareSavedDetached(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # type: ignore[override]
        ctx.save_for_backward(x.detach())  # GG502
        return x * x

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        (x,) = ctx.saved_tensors
        return 2 * x * grad


def _square_then_mutate(function: type, guard: bool = False) -> str:
    a = torch.tensor(3.0, requires_grad=True)
    x = a * 1  # non-leaf input, changed in place after forward
    context = SavedTensorGuard() if guard else None
    if context is not None:
        context.__enter__()
    try:
        y = function.apply(x)
        x.mul_(10)
        error = _error_of(y.backward)
    finally:
        if context is not None:
            context.__exit__(None, None, None)
    return f"grad {a.grad.item():.0f}" if error == "no error" else error


def demo_gg501() -> str:
    return "\n".join(
        [
            "y = Square.apply(x) with x = 3, then x.mul_(10) before backward (right: dy/dx = 6):",
            f"  ctx.x = x:                 {_square_then_mutate(_SquareCtxAttribute)}  (no error)",
            f"  ctx.save_for_backward(x):  {_square_then_mutate(_SquareSaved)}",
            f"  ctx.x = x under gg.SavedTensorGuard(): {_square_then_mutate(_SquareCtxAttribute, True)}",
        ]
    )


def demo_gg502() -> str:
    lines = ["Second derivative of y = x*x at x = 3 (right: 2):"]
    for label, function in (
        ("save_for_backward(x)         ", _SquareSaved),
        ("save_for_backward(x.detach())", _SquareSavedDetached),
    ):
        x = torch.tensor(3.0, requires_grad=True)
        (first,) = torch.autograd.grad(function.apply(x), x, create_graph=True)

        def second() -> object:
            return torch.autograd.grad(first, x)[0]

        try:
            result = f"{second().item():.0f}"
        except RuntimeError as exc:
            result = _first_line(exc)
        lines.append(f"  {label}: first {first.item():.0f}, second {result}")
    return "\n".join(lines)


def demo_gg503() -> str:
    class Scaler(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.register_buffer("scale", torch.ones(4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(x) * self.scale

    model = Scaler()
    with torch.inference_mode():
        model.scale = model(torch.randn(2, 4)).abs().mean(0)  # cache refreshed at serving time
    error = _error_of(lambda: model(torch.randn(2, 4)).sum().backward())
    findings = find_inference_tensors(model)
    return "\n".join(
        ["A buffer refreshed under torch.inference_mode(), then a training step:", f"  {error}"]
        + [f"  gg.find_inference_tensors(model): {f.code} {f.kind} {f.path} {f.shape}" for f in findings]
    )


_DEMOS: dict[str, Callable[[], str]] = {
    "GG101": demo_gg101,
    "GG102": demo_gg102,
    "GG103": demo_gg103,
    "GG104": demo_gg104,
    "GG201": demo_gg201,
    "GG202": demo_gg202,
    "GG204": demo_gg204,
    "GG205": demo_gg205,
    "GG206": demo_gg206,
    "GG301": demo_gg301,
    "GG302": demo_gg302,
    "GG401": demo_gg401,
    "GG402": demo_gg402,
    "GG501": demo_gg501,
    "GG502": demo_gg502,
    "GG503": demo_gg503,
}


def available_demos() -> list[str]:
    """Rule codes that have a run-time demonstration."""
    return sorted(_DEMOS)


def run_demo(code: str) -> str:
    """Run the demonstration for ``code`` and return its text; KeyError if there is none."""
    demo = _DEMOS[code.upper()]
    header = f"{code.upper()} on torch {torch.__version__}:"
    return f"{header}\n{demo()}"
