"""`backward()` on a value computed under `no_grad`.

## What it does
Flags `t.backward()`, `torch.autograd.backward(t)` and `torch.autograd.grad(t, ...)` inside a
`torch.no_grad()` / `torch.inference_mode()` region (a `with` block, a decorator, or the rest
of a block after `torch.set_grad_enabled(False)`) when `t` was computed inside that same
region: assigned there from a call or an arithmetic expression, or computed in the call
itself (`out.sum().backward()`).

Not flagged: a value computed before the region (it keeps its `grad_fn`; `backward()` under
`no_grad` works on it), a value computed inside a nested `torch.enable_grad()` block, a
value created with `requires_grad=True` or given `.requires_grad_()` (a leaf that requires
grad), and regions that only possibly disable grad (`set_grad_enabled(flag)`).

## Why is this bad?
Every tensor computed while grad is disabled has no `grad_fn` and does not require grad, so
`backward()` on it always raises `RuntimeError: element 0 of tensors does not require grad
and does not have a grad_fn` (on torch 2.13, for `no_grad` and `inference_mode` alike). The
region is usually there by mistake: a loss computed inside an evaluation block, or a training
step pasted under an inference decorator.

## Example
```python
import torch

def step(model, x, y, optimizer):
    with torch.no_grad():
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
    optimizer.step()
```

## Use instead
```python
import torch

def step(model, x, y, optimizer):
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
```

## Fix safety
There is no fix: which statements should leave the region depends on what the region was
meant to cover.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.grad_mode import GRAD_OFF_NAMES, INFERENCE, NO_GRAD
from gradguard.check.analysis.imports import callee_name
from gradguard.check.analysis.scopes import target_names
from gradguard.check.analysis.vocabulary import BACKWARD_CALL_NAMES, BACKWARD_FUNCTIONS, GRAD_PRESERVING
from gradguard.check.model import FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid

_NOT_COMPUTING = frozenset(
    {
        "get",
        "pop",
        "popitem",
        "getattr",
        "next",
        "deepcopy",
        "copy",
        "Parameter",
        "requires_grad_",
        "setdefault",
        "load",
    }
)


def _computes(value: ast.AST) -> bool:
    """An expression that certainly produces a new value (not a stored one)."""
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(value, ast.Call):
        if callee_name(value) in _NOT_COMPUTING:
            return False
        for kw in value.keywords:
            if kw.arg == "requires_grad" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                return False
            if kw.arg is None:
                return False
        return True
    return False


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    records: dict = field(default_factory=dict)  # id(function) -> what `_records` keeps for it


class BackwardWithoutGrad(Rule):
    code = "GG202"
    name = "backward-without-grad"
    summary = "`backward()` on a value computed inside the same `no_grad` region (always a RuntimeError)"
    fix_availability = FixAvailability.NONE
    severity = Severity.ERROR
    triggers = ("backward", "autograd")
    # Only a region opened in the function itself disables grad there.
    function_triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    function_names = tuple(sorted(GRAD_OFF_NAMES))

    valid = (
        Valid(
            """
            import torch

            def f(model, x):
                loss = model(x).sum()
                with torch.no_grad():
                    loss.backward()
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def f(model, x):
                with torch.enable_grad():
                    loss = model(x).sum()
                loss.backward()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x, train):
                with torch.set_grad_enabled(train):
                    loss = model(x).sum()
                    loss.backward()
            """,
        ),
        Valid(
            """
            import torch

            with torch.no_grad():
                w = torch.zeros(3, requires_grad=True)
                w.backward(torch.ones(3))
            """,
        ),
        Valid(
            """
            import torch

            with torch.no_grad():
                w = torch.zeros(3)
                w.requires_grad_()
                w.backward(torch.ones(3))
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    loss = model(x).sum()
                loss = model(x).sum()
                loss.backward()
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def f(losses):
                loss = losses.pop()
                loss.backward()
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def f(model, x):
                def closure():
                    loss = model(x).sum()
                    loss.backward()
                    return loss
                return closure
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    loss = model(x).sum()
                    loss.backward()
            """,
            line=6,
            column=9,
            message='`loss.backward()` on `loss`, computed on line 5 inside the grad-disabled region opened by `with torch.no_grad()` (line 4): it has no grad_fn, so this always raises RuntimeError ("element 0 of tensors does not require grad"); compute it outside the region or under `torch.enable_grad()`',
        ),
        Invalid(
            """
            import torch

            @torch.inference_mode()
            def f(model, x):
                out = model(x)
                torch.autograd.grad(out.sum(), x)
            """,
            line=6,
            column=5,
            message='`torch.autograd.grad(...)` on `out.sum()`, computed in this call inside the grad-disabled region opened by `@torch.inference_mode()`: it has no grad_fn, so this always raises RuntimeError ("element 0 of tensors does not require grad"); compute it outside the region or under `torch.enable_grad()`',
        ),
        Invalid(
            """
            import torch

            def f(loss):
                with torch.no_grad():
                    loss.mean().backward()
            """,
            line=5,
            column=9,
            message='`loss.mean().backward()` on `loss.mean()`, computed in this call inside the grad-disabled region opened by `with torch.no_grad()` (line 4): it has no grad_fn, so this always raises RuntimeError ("element 0 of tensors does not require grad"); compute it outside the region or under `torch.enable_grad()`',
        ),
        Invalid(
            """
            import torch as th

            def f(model, x, w):
                th.set_grad_enabled(False)
                y, aux = model(x)
                th.autograd.grad([y, aux], [w])
            """,
            line=6,
            column=5,
            message='`th.autograd.grad(...)` on `y`, computed on line 5 inside the grad-disabled region opened by `th.set_grad_enabled(False)` (line 4): it has no grad_fn, so this always raises RuntimeError ("element 0 of tensors does not require grad"); compute it outside the region or under `torch.enable_grad()`',
        ),
    )

    def _records(self, ctx) -> dict:
        return ctx.state(_State).records.setdefault(id(ctx.function), {})

    def _region(self, ctx):
        if ctx.grad_state() != "disabled":
            return None
        for region in reversed(ctx.innermost_regions()):
            if region.kind in (NO_GRAD, INFERENCE):
                return region
        return None

    def _record(self, ctx, names, value) -> None:
        region = self._region(ctx) if _computes(value) else None
        records = self._records(ctx)
        for name, lineno in names:
            records[name] = (region, lineno)

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        names = [(name, node.lineno) for target in node.targets for name in target_names(target)]
        self._record(ctx, names, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign, ctx) -> None:
        if node.value is not None and isinstance(node.target, ast.Name):
            self._record(ctx, [(node.target.id, node.lineno)], node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr, ctx) -> None:
        self._record(ctx, [(node.target.id, node.lineno)], node.value)

    def visit_For(self, node: ast.AST, ctx) -> None:
        records = self._records(ctx)
        for name in target_names(node.target):
            records[name] = (None, node.lineno)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            targets = [func.value]
            what = f"`{ctx.text(node)}`"
        else:
            if not ctx.imports.may_name(func, BACKWARD_CALL_NAMES):
                return
            qual = ctx.imports.qualified_name(func)
            if qual not in BACKWARD_FUNCTIONS:
                return
            first = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg in ("outputs", "tensors")), None)
            )
            if first is None:
                return
            targets = list(first.elts) if isinstance(first, (ast.List, ast.Tuple)) else [first]
            what = f"`{ctx.text(func)}(...)`"
        region = self._region(ctx)
        if region is None:
            return
        for target in targets:
            where = self._computed_in(ctx, target, region)
            if where is not None:
                ctx.report(
                    self.code,
                    node,
                    f"{what} on `{ctx.text(target)}`, computed {where} inside the grad-disabled region opened by "
                    f'{self._describe(ctx, region)}: it has no grad_fn, so this always raises RuntimeError ("element 0 '
                    f'of tensors does not require grad"); compute it outside the region or under `torch.enable_grad()`',
                )
                return

    visit_AsyncFor = visit_For

    def _computed_in(self, ctx, target: ast.AST, region) -> Optional[str]:
        if isinstance(target, ast.Name):
            record = self._records(ctx).get(target.id)
            if record is None or record[0] is not region:
                return None
            scope_text = ctx.text(ctx.function) if ctx.function is not None else ctx.source.text
            if f"{target.id}.requires_grad" in scope_text:
                return None
            return f"on line {record[1]}"
        if (
            isinstance(target, ast.Call)
            and isinstance(target.func, ast.Attribute)
            and target.func.attr in GRAD_PRESERVING
        ):
            return "in this call"
        if isinstance(target, ast.BinOp):
            return "in this call"
        return None

    @staticmethod
    def _describe(ctx, region) -> str:
        if region.via == "with":
            return f"`with {ctx.text(region.node.context_expr)}` (line {region.node.context_expr.lineno})"
        if region.via == "decorator":
            return f"`@{ctx.text(region.node)}`"
        return f"`{ctx.text(region.node)}` (line {region.node.lineno})"
