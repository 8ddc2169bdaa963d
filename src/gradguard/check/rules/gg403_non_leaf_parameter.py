"""A tensor meant to be trained, made a non-leaf by a move or a cast.

## What it does
Flags `.cuda()`, `.to(...)`, `.double()`, `.half()`, `.bfloat16()` and `.type(...)` applied to
a leaf that requires grad (`torch.randn(..., requires_grad=True)`, `torch.zeros(...).requires_grad_()`,
`Variable(x, requires_grad=True)`, a name bound to one), when the result is bound to a name or
attribute that the code then trains: gives to an optimizer (`torch.optim.SGD([w], ...)`) or
reads the gradient of (`w.grad`). A result that is only used as an input (its gradient read
through hooks or `torch.autograd.grad`) is not flagged. Also flagged: `nn.Parameter(...)`
moved or cast in the same expression and stored on `self` in a module, which leaves a plain
tensor that the module does not register. `.float()`, `.cpu()` and `.type(torch.FloatTensor)`
are not flagged: on the usual float32 CPU tensor they return the tensor itself; nor is a cast of a tensor made from
numpy data or with a `dtype=`, which may already have the dtype cast to, nor `.to(device)` of a
tensor made with the same `device=device`, which returns it as is.

## Why is this bad?
A move or cast that copies records the copy in the graph: the result requires grad but is not
a leaf, and only leaves get a `.grad`. The copy's `.grad` stays `None` (with a warning), and
`torch.optim.SGD([w], lr=0.1)` raises `ValueError: can't optimize a non-leaf Tensor`
(measured on torch 2.13). On a CPU-only machine `.to(device)` may return the tensor itself
and hide the bug until the code first runs on a GPU. A `Parameter` moved after it is made is
no longer a `Parameter`: `model.parameters()` does not list it and it is never trained.

## Example
```python
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(10, 1, requires_grad=True).to(device)
optimizer = torch.optim.SGD([w], lr=0.1)
```

## Use instead
```python
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(10, 1, device=device, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
```

## Fix safety
The fix asks for the gradient after the move instead of before it: it drops
`requires_grad=True` from the factory call (or the `.requires_grad_()` before the move) and
appends `.requires_grad_()` after it (`torch.randn(10, 1).to(device).requires_grad_()`); for a
name bound earlier it moves a detached copy (`w.detach().to(device).requires_grad_()`). It is
safe: the values, dtype and device are those of the original result, which now is the leaf
that the optimizer and `.grad` need; nothing could use the hidden leaf before the move. No
fix is offered for a `Parameter` or where the tensor is built from data that itself carries a
graph.
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Grad, Kind, Role
from gradguard.check.analysis.vocabulary import (
    FACTORIES,
    LEGACY_TENSOR_TYPES,
    OPTIMIZER_NON_CLASSES,
    OPTIMIZER_PREFIX,
    PARAMETER_NAMES,
    VARIABLE_NAMES,
    call_argument,
    constant_of,
    last_name,
)
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

# Moves and casts that copy a float32 tensor (`.float()` and `.cpu()` usually return it as is).
_COPYING = frozenset({"cuda", "to", "double", "half", "bfloat16", "type"})


class NonLeafParameter(Rule):
    code = "GG403"
    name = "non-leaf-parameter"
    summary = "A tensor meant to be trained is moved or cast after `requires_grad=True`: not a leaf, no `.grad`"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = ("requires_grad", "Parameter")
    function_triggers = ("requires_grad", "Parameter")

    valid = (
        # A copy made a leaf of a tensor handed in: the caller may have moved it to the device
        # already, and the move then returns the leaf as is.
        Valid(
            """
            import torch

            device = "cuda" if torch.cuda.is_available() else "cpu"


            def transfer(content, steps):
                content = content.to(device)
                image = content.clone().requires_grad_(True).to(device)
                optimizer = torch.optim.Adam([image])
                return image, optimizer
            """
        ),
        # Moved to the device it was made on: `.to()` returns the same tensor, still a leaf.
        Valid(
            """
            import torch

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            w1 = torch.rand(1, requires_grad=True, device=device).to(device)
            optimizer = torch.optim.Adam([w1], lr=1e-2)
            """,
        ),
        # A cast to the type a float32 CPU tensor already has returns the Parameter itself.
        Valid(
            """
            import torch
            import torch.nn as nn

            dtype = torch.FloatTensor


            class Word2Vec(nn.Module):
                def __init__(self, vocab_size, embedding_size):
                    super().__init__()
                    self.W = nn.Parameter(-2 * torch.rand(vocab_size, embedding_size) + 1).type(dtype)
                    self.WO = nn.Parameter(torch.rand(embedding_size, vocab_size)).type(torch.FloatTensor)

                def forward(self, X):
                    return X @ self.W @ self.WO
            """,
        ),
        Valid(
            """
            import torch

            device = torch.device("cuda")
            w = torch.randn(10, 1, device=device, requires_grad=True)
            b = torch.zeros(1).to(device).requires_grad_()
            optimizer = torch.optim.SGD([w, b], lr=0.1)
            """,
        ),
        # Moved, but only an input whose gradient is never read as `.grad`.
        Valid(
            """
            import torch
            from torch.autograd import Variable

            def saliency(model, image):
                x = Variable(image, requires_grad=True).cuda()
                out = model(x)
                return torch.autograd.grad(out.sum(), x)[0]
            """,
        ),
        Valid(
            """
            import torch

            w = torch.randn(3, requires_grad=True).float()
            print(w.grad)
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            class Scale(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = nn.Parameter(torch.ones(1).cuda())
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            device = torch.device("cuda")
            w = torch.randn(10, 1, requires_grad=True).to(device)
            optimizer = torch.optim.SGD([w], lr=0.1)
            """,
            line=4,
            column=5,
            message="`torch.randn(10, 1, requires_grad=True).to(device)` is not a leaf: the copy made by `.to()` "
            "requires grad through the original, so optimizers refuse it and its `.grad` stays None; move it first, "
            "then ask for the gradient",
            fixed="""
            import torch

            device = torch.device("cuda")
            w = torch.randn(10, 1).to(device).requires_grad_()
            optimizer = torch.optim.SGD([w], lr=0.1)
            """,
        ),
        Invalid(
            """
            import torch

            def fit(x, y, steps=100):
                w = torch.zeros(3).requires_grad_().double()
                for _ in range(steps):
                    loss = ((x @ w - y) ** 2).mean()
                    loss.backward()
                    with torch.no_grad():
                        w -= 0.1 * w.grad
                        w.grad.zero_()
                return w
            """,
            line=4,
            column=9,
            message="`torch.zeros(3).requires_grad_().double()` is not a leaf: the copy made by `.double()` requires "
            "grad through the original, so optimizers refuse it and its `.grad` stays None; move it first, then ask "
            "for the gradient",
            fixed="""
            import torch

            def fit(x, y, steps=100):
                w = torch.zeros(3).double().requires_grad_()
                for _ in range(steps):
                    loss = ((x @ w - y) ** 2).mean()
                    loss.backward()
                    with torch.no_grad():
                        w -= 0.1 * w.grad
                        w.grad.zero_()
                return w
            """,
        ),
        Invalid(
            """
            import torch

            w = torch.randn(5, requires_grad=True)
            w = w.cuda()
            opt = torch.optim.Adam([w])
            """,
            line=4,
            column=5,
            message="`w.cuda()` is not a leaf: the copy made by `.cuda()` requires grad through the original, so "
            "optimizers refuse it and its `.grad` stays None; move it first, then ask for the gradient",
            fixed="""
            import torch

            w = torch.randn(5, requires_grad=True)
            w = w.detach().cuda().requires_grad_()
            opt = torch.optim.Adam([w])
            """,
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Scale(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = nn.Parameter(torch.ones(1)).cuda()
            """,
            line=7,
            column=22,
            message="`nn.Parameter(torch.ones(1)).cuda()` is a plain tensor, not a Parameter: the module does not "
            "register it, so `parameters()` and optimizers miss it; move the data before wrapping it in "
            "`nn.Parameter`",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _COPYING:
            return
        if func.attr in ("to", "type") and not (node.args or node.keywords):
            return  # `.to()` with nothing to do returns the tensor itself
        target = _bound_target(ctx, node)
        if target is None:
            return
        receiver = func.value
        if _is_parameter_call(ctx, receiver):
            if func.attr == "type" and node.args and _float32_cpu_type(ctx, node.args[0]):
                return  # `.type(torch.FloatTensor)` of a float32 CPU Parameter returns it as is
            if isinstance(target, ast.Attribute) and _in_module_method(ctx, node):
                ctx.report(
                    self.code,
                    node,
                    f"`{short(ctx.text(node), 60)}` is a plain tensor, not a Parameter: the module does not register "
                    "it, so `parameters()` and optimizers miss it; move the data before wrapping it in `nn.Parameter`",
                )
            return
        if _may_keep_dtype(ctx, node) or _to_its_own_device(ctx, node) or _copy_of_an_unknown_tensor(ctx, receiver):
            return
        made = ctx.model.value(receiver)
        if not (made.carries_grad and made.has(Role.LEAF)) or made.weak:
            return
        result = ctx.model.value(node)
        if not result.carries_grad or result.has(Role.LEAF):
            return  # under no_grad the copy requires no grad; `.to()` of the same dtype keeps the leaf
        if not _trained(ctx, target, node):
            return
        ctx.report(
            self.code,
            node,
            f"`{short(ctx.text(node), 60)}` is not a leaf: the copy made by `.{func.attr}()` requires grad through "
            "the original, so optimizers refuse it and its `.grad` stays None; move it first, then ask for the "
            "gradient",
            _fix(ctx, node, receiver),
        )


def _copy_of_an_unknown_tensor(ctx, made: ast.AST) -> bool:
    """``content.clone().requires_grad_(True)`` of a tensor the code does not show the making of
    (a parameter, a loader's): it may be on the device already (``content.to(device)`` in a
    caller), and the move then returns the leaf as is."""
    while isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute):
        if made.func.attr in ("clone", "detach"):
            return ctx.model.value(made.func.value).kind is not Kind.TENSOR
        if made.func.attr != "requires_grad_":
            return False
        made = made.func.value
    return False


def _to_its_own_device(ctx, move: ast.Call) -> bool:
    """``torch.rand(1, requires_grad=True, device=device).to(device)``: a move to the device the
    tensor was made on returns it as is (still a leaf)."""
    func = move.func
    assert isinstance(func, ast.Attribute)
    if func.attr != "to" or len(move.args) + len(move.keywords) != 1:
        return False
    target = call_argument(move, 0, "device")
    made = func.value
    if target is None or not isinstance(made, ast.Call):
        return False
    device = call_argument(made, None, "device")
    return device is not None and ctx.text(device) == ctx.text(target)


def _may_keep_dtype(ctx, move: ast.Call) -> bool:
    """A cast (`.double()`, `.to(torch.float64)`) of a tensor whose dtype the code chose (from
    numpy, `dtype=`): it may already have that dtype, and then the cast returns it as is."""
    func = move.func
    assert isinstance(func, ast.Attribute)
    if func.attr == "cuda":
        return False
    if func.attr == "type" and move.args and _float32_cpu_type(ctx, move.args[0]):
        return True  # `.type(torch.FloatTensor)`: what the usual float32 CPU tensor already is
    if func.attr == "to":
        casts = [
            a
            for a in move.args
            if (ctx.imports.qualified_name(a) or "").startswith("torch.") and "float" in ctx.text(a)
        ]
        if not casts and call_argument(move, None, "dtype") is None:
            return False  # a move to a device
    for sub in walk_in_order(func.value):
        if isinstance(sub, ast.keyword) and sub.arg == "dtype":
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ("from_numpy", "numpy"):
            return True
        if isinstance(sub, ast.Name) and ctx.imports.qualified_name(sub) in ("numpy", "torch.from_numpy"):
            return True
    return False


_FLOAT32_CPU_TYPES = frozenset({"torch.FloatTensor", "torch.float32", "torch.float"})


def _float32_cpu_type(ctx, arg: ast.expr) -> bool:
    """``torch.FloatTensor``, ``"torch.FloatTensor"``, ``torch.float32``, or a module-level name
    bound only to one of them (``dtype = torch.FloatTensor``)."""
    if isinstance(arg, ast.Constant):
        return arg.value == "torch.FloatTensor"
    if ctx.imports.qualified_name(arg) in _FLOAT32_CPU_TYPES:
        return True
    if isinstance(arg, ast.Name) and arg.id not in ctx.imports.names:
        bindings = ctx.model.uses(ctx.tree).bindings_of(arg.id)
        return bool(bindings) and all(
            b.value is not None and ctx.imports.qualified_name(b.value) in _FLOAT32_CPU_TYPES for b in bindings
        )
    return False


def _bound_target(ctx, call: ast.Call) -> Optional[ast.expr]:
    """The name or attribute the call's result is assigned to, if it is the whole value."""
    parent = ctx.parent(call)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is call:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
            return targets[0]
    return None


def _is_parameter_call(ctx, node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ctx.imports.qualified_name(node.func) in PARAMETER_NAMES


def _in_module_method(ctx, node: ast.AST) -> bool:
    cls = ctx.method_class
    return cls is not None and ctx.model.is_module_class(cls)


def _trained(ctx, target: ast.expr, call: ast.Call) -> bool:
    """Is the target read for `.grad`, or given to an optimizer, where it still holds the copy?"""
    text = ctx.text(target)
    if isinstance(target, ast.Attribute):
        region = ctx.class_def if isinstance(target.value, ast.Name) and target.value.id == "self" else None
        region = region if region is not None else ctx.tree
    else:
        region = ctx.function if ctx.function is not None and not isinstance(ctx.function, ast.Lambda) else ctx.tree
    for node in walk_in_order(region):
        if isinstance(node, ast.Attribute) and node.attr == "grad" and isinstance(node.ctx, ast.Load):
            use = node.value
        elif isinstance(node, ast.Call) and _is_optimizer(ctx, node.func):
            use = next((sub for sub in walk_in_order(node) if _same(ctx, sub, text)), None)
            if use is None:
                continue
        else:
            continue
        if not _same(ctx, use, text) or use.lineno < call.lineno:
            continue
        value = ctx.model.value(use)
        if value.carries_grad and not value.has(Role.LEAF):
            return True
    return False


def _same(ctx, node: ast.AST, text: str) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and ctx.text(node) == text


def _is_optimizer(ctx, func: ast.AST) -> bool:
    qual = ctx.imports.qualified_name(func)
    if qual is None or not qual.startswith(OPTIMIZER_PREFIX):
        return False
    name = last_name(qual)
    return name[:1].isupper() and name not in OPTIMIZER_NON_CLASSES and ".lr_scheduler." not in qual


def _fix(ctx, move: ast.Call, receiver: ast.expr) -> Optional[Fix]:
    src = ctx.source
    move_end = src.node_end(move)
    append = Edit(move_end, move_end, ".requires_grad_()")
    if isinstance(receiver, ast.Call):
        func = receiver.func
        if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
            if _carries_graph(ctx, func.value):
                return None
            drop = Edit(src.node_end(func.value), src.node_end(receiver), "")
            return Fix(Applicability.SAFE, "Call `.requires_grad_()` after the move", (drop, append))
        qual = ctx.imports.qualified_name(func)
        keyword = call_argument(receiver, None, "requires_grad")
        if qual is None or keyword is None or constant_of(keyword, default=None) is not True:
            return None
        made_by = last_name(qual)
        if not (made_by in FACTORIES or made_by in LEGACY_TENSOR_TYPES or qual in VARIABLE_NAMES):
            return None
        if qual in VARIABLE_NAMES or made_by in ("tensor", "as_tensor", "from_numpy"):
            data = receiver.args[0] if receiver.args else None
            if data is None or _carries_graph(ctx, data):
                return None
        drop = _drop_keyword(ctx, receiver, keyword)
        if drop is None:
            return None
        return Fix(Applicability.SAFE, "Ask for the gradient after the move", (drop, append))
    if isinstance(receiver, (ast.Name, ast.Attribute)):
        end = src.node_end(receiver)
        return Fix(
            Applicability.SAFE,
            "Move a detached copy and ask for the gradient after the move",
            (Edit(end, end, ".detach()"), append),
        )
    return None


def _carries_graph(ctx, node: ast.expr) -> bool:
    return ctx.model.value(node).grad is not Grad.NO


def _drop_keyword(ctx, call: ast.Call, value: ast.expr) -> Optional[Edit]:
    """An edit removing the keyword argument whose value is ``value`` with its comma."""
    src = ctx.source
    keyword = next(k for k in call.keywords if k.value is value)
    parts = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    index = parts.index(keyword)
    if index > 0:
        return Edit(src.node_end(parts[index - 1]), src.node_end(keyword), "")
    if len(parts) > 1:
        return Edit(src.node_start(keyword), src.node_start(parts[1]), "")
    return Edit(src.node_start(keyword), src.node_end(keyword), "")
