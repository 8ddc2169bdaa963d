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

from gradguard.common.text import first_line as _first_line, format_bytes

from .errors import SilentMutationError
from .inference import find_inference_tensors
from .introspect import graph_stats
from .leaks import LeakMonitor
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
            return torch.autograd.grad(first, x)[0]  # noqa: B023 (called in this iteration)

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


def demo_gg105() -> str:
    x, y = torch.randn(4, 3), torch.randint(0, 3, (4,))
    loss = nn.functional.cross_entropy(nn.Linear(3, 3)(x), y)
    return "\n".join(
        [
            f"loss = criterion(model(x), y) is a 0-dim tensor (shape {tuple(loss.shape)}):",
            f"  loss.data[0]: {_error_of(lambda: loss.data[0])}",
            f"  loss[0]:      {_error_of(lambda: loss[0])}",
            f"  loss.item():  {loss.item():.4f}  (a Python float: the fix)",
        ]
    )


def demo_gg106() -> str:
    def backward_with(keyword: str) -> str:
        w = nn.Parameter(torch.ones(3))
        loss = (w * w).sum()
        error = _error_of(lambda: loss.backward(**{keyword: True}))
        if error != "no error":
            return error
        loss.backward()  # the graph was kept: a second backward works
        return f"works, graph kept for a second backward (w.grad = {_fmt(w.grad)})"

    return "\n".join(
        [
            "loss.backward(retain_variables=True), a keyword removed from PyTorch:",
            f"  {backward_with('retain_variables')}",
            f"  retain_graph=True: {backward_with('retain_graph')}",
        ]
    )


def demo_gg107() -> str:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2))
    seen: dict[str, list] = {"old": [], "full": []}

    class TwoOps(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.block = block

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.block(x) * 2  # more than one operation: the last one is `* 2`

    model = TwoOps()
    x = torch.randn(4, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        handle = model.register_backward_hook(lambda m, gin, gout: seen["old"].append(gin))
        model(x).sum().backward()
        handle.remove()
    fresh = TwoOps()  # a module cannot carry both kinds of hook
    handle = fresh.register_full_backward_hook(lambda m, gin, gout: seen["full"].append(gin))
    fresh(x).sum().backward()
    handle.remove()
    old = [tuple(g.shape) if g is not None else None for g in seen["old"][0]]
    full = [tuple(g.shape) if g is not None else None for g in seen["full"][0]]
    same = len(old) == len(full) and all(
        a is not None and b is not None and a.shape == b.shape and torch.equal(a, b)
        for a, b in zip(seen["old"][0], seen["full"][0])
    )
    return "\n".join(
        [
            "A module whose forward is `block(x) * 2`, input x of shape (4, 3):",
            f"  register_backward_hook:      grad_input shapes {old}  (the last operation's inputs)",
            f"  register_full_backward_hook: grad_input shapes {full}  (the module's input x)",
            f"  the same gradients: {same}",
        ]
    )


def _gan_generator_grad(detach: bool) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    G, D = nn.Linear(2, 2), nn.Linear(2, 1)
    fake = G(torch.randn(4, 2))
    d_loss = D(fake.detach() if detach else fake).mean()
    d_loss.backward()  # the discriminator's update
    return G.weight.grad, D.weight.grad


def demo_gg207() -> str:
    g_undetached, _ = _gan_generator_grad(detach=False)
    g_detached, _ = _gan_generator_grad(detach=True)
    return "\n".join(
        [
            "Discriminator step: d_loss = D(fake).mean(); d_loss.backward(), fake = G(z):",
            f"  D(fake):          G.weight.grad = {_fmt(g_undetached)}",
            "                    (D's loss reached G, and a backward ran through G)",
            f"  D(fake.detach()): G.weight.grad = {g_detached}",
            "Unless G's gradients are zeroed before G's own step, G is updated with D's gradients too.",
        ]
    )


def _gan_step(step_between: bool) -> str:
    torch.manual_seed(0)
    G, D = nn.Linear(2, 2), nn.Linear(2, 1)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
    out = D(G(torch.randn(4, 2)))

    def run() -> None:
        out.mean().backward(retain_graph=True)  # D's loss
        if step_between:
            opt_d.step()
        (-out).exp().mean().backward()  # G's loss through the same graph
        if not step_between:
            opt_d.step()

    error = _error_of(run)
    return error if error != "no error" else f"works (G.weight.grad = {_fmt(G.weight.grad)})"


def demo_gg208() -> str:
    return "\n".join(
        [
            "out = D(G(z)); D's backward(retain_graph=True), then G's backward through the same graph:",
            f"  opt_d.step() between the two: {_gan_step(True)}",
            f"  both backward before the step: {_gan_step(False)}",
        ]
    )


def _train_two_steps(zero: bool) -> list[float]:
    w = nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([w], lr=0.0)  # lr 0: the gradient alone, step after step
    grads = []
    for _ in range(2):
        if zero:
            opt.zero_grad()
        (w * 3).sum().backward()
        grads.append(w.grad.item())
        opt.step()
    return grads


def demo_gg303() -> str:
    without = _train_two_steps(zero=False)
    with_zero = _train_two_steps(zero=True)
    from .session import Session

    session = Session(saved=False, leaks=False)
    with session:
        _train_two_steps(zero=False)
    found = [f.code for f in session.all_findings()]
    return "\n".join(
        [
            "loss = 3 * w; loss.backward(); opt.step() twice (d loss / dw = 3):",
            f"  without zero_grad():       w.grad = {without[0]:.0f}, then {without[1]:.0f}  (accumulated)",
            f"  opt.zero_grad() each step: w.grad = {with_zero[0]:.0f}, then {with_zero[1]:.0f}",
            f"  under `gradguard run`: {', '.join(found) or 'nothing reported'}",
        ]
    )


def demo_gg403() -> str:
    w = torch.randn(3, requires_grad=True).to(torch.float64)
    (w * 2).sum().backward()
    leaf = torch.randn(3, dtype=torch.float64, requires_grad=True)
    (leaf * 2).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad_of_moved = w.grad
    return "\n".join(
        [
            "w = torch.randn(3, requires_grad=True).to(torch.float64):",
            f"  w.is_leaf = {w.is_leaf}, after backward w.grad = {grad_of_moved}",
            f"  torch.optim.SGD([w]): {_error_of(lambda: torch.optim.SGD([w], lr=0.1))}",
            "w = torch.randn(3, dtype=torch.float64, requires_grad=True) (made where it is used):",
            f"  w.is_leaf = {leaf.is_leaf}, w.grad = {_fmt(leaf.grad)}",
        ]
    )


def demo_gg404() -> str:
    lr = 0.1
    w = torch.ones(2, requires_grad=True)
    (w * 3).sum().backward()

    def inplace_outside() -> None:
        nonlocal w
        w -= lr * w.grad

    error = _error_of(inplace_outside)
    w2 = torch.ones(2, requires_grad=True)
    (w2 * 3).sum().backward()
    w2 = w2 - lr * w2.grad  # a new non-leaf tensor
    (w2 * 3).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        next_grad = w2.grad
    w3 = torch.ones(2, requires_grad=True)
    for _ in range(2):
        (w3 * 3).sum().backward()
        with torch.no_grad():
            w3 -= lr * w3.grad
        w3.grad = None
    return "\n".join(
        [
            "A hand-written SGD step on a leaf w that requires grad (d loss / dw = 3, lr 0.1):",
            f"  w -= lr * w.grad (outside no_grad): {error}",
            f"  w = w - lr * w.grad: w.is_leaf = {w2.is_leaf}, the next step's w.grad = {next_grad}  (training stops)",
            f"  with torch.no_grad(): w -= lr * w.grad: two steps give w = {_fmt(w3)}",
        ]
    )


def demo_gg209() -> str:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))
    x = torch.randn(4, 8)
    with torch.no_grad():
        first, second = model(x), model(x)
    model.eval()
    with torch.no_grad():
        third, fourth = model(x), model(x)
    return "\n".join(
        [
            "A model with Dropout, the same batch twice under torch.no_grad():",
            f"  without model.eval(): outputs equal: {torch.equal(first, second)}  (dropout still drops)",
            f"  after model.eval():   outputs equal: {torch.equal(third, fourth)}",
        ]
    )


def _consumer_grad_modes(decorated: bool) -> list[bool]:
    if decorated:

        @torch.no_grad()
        def batches():  # type: ignore[no-untyped-def]
            for i in range(2):
                yield torch.full((2,), float(i))

    else:

        def batches():  # type: ignore[no-untyped-def]
            with torch.no_grad():
                for i in range(2):
                    yield torch.full((2,), float(i))

    modes = []
    before = torch.is_grad_enabled()
    try:
        for _ in batches():
            modes.append(torch.is_grad_enabled())
    finally:
        torch.set_grad_enabled(before)
    return modes


def demo_gg210() -> str:
    return "\n".join(
        [
            "A generator that yields batches; what the consumer's loop sees (torch.is_grad_enabled()):",
            f"  `with torch.no_grad():` around the yield: {_consumer_grad_modes(False)}",
            "    (the consumer trains without grad)",
            f"  @torch.no_grad() on the generator function: {_consumer_grad_modes(True)}",
        ]
    )


_DEMOS: dict[str, Callable[[], str]] = {
    "GG101": demo_gg101,
    "GG102": demo_gg102,
    "GG103": demo_gg103,
    "GG104": demo_gg104,
    "GG105": demo_gg105,
    "GG106": demo_gg106,
    "GG107": demo_gg107,
    "GG201": demo_gg201,
    "GG202": demo_gg202,
    "GG204": demo_gg204,
    "GG205": demo_gg205,
    "GG206": demo_gg206,
    "GG207": demo_gg207,
    "GG208": demo_gg208,
    "GG209": demo_gg209,
    "GG210": demo_gg210,
    "GG301": demo_gg301,
    "GG302": demo_gg302,
    "GG303": demo_gg303,
    "GG401": demo_gg401,
    "GG402": demo_gg402,
    "GG403": demo_gg403,
    "GG404": demo_gg404,
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
