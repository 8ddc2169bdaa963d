"""Grad-mode context manager used without calling it, or never entered.

## What it does
Flags `with torch.no_grad:`, `with torch.inference_mode:` and `with torch.enable_grad:`
(also `torch.autograd.*` spellings and imported names), where the class is used as a context
manager without being called; a grad-mode manager joined to another by `and` or `or` in a
`with` item (`with torch.no_grad() and torch.cuda.amp.autocast():`), which is never entered; and one
made as a statement of its own (`torch.no_grad()` alone on a line), also never entered.
`torch.set_grad_enabled(False)` as a statement does switch grad mode (GG205).

## Why is this bad?
These are classes whose *instances* are context managers. `with torch.no_grad:` raises
`TypeError` at the `with` statement (the class object has no `__enter__`), so the block never
runs. As decorators, `@torch.no_grad` and `@torch.inference_mode` without parentheses do work
(since torch 2.0 / 2.1) and are not flagged.

`torch.no_grad() and autocast()` is a boolean expression, not two context managers: an object
is true, so `and` evaluates to its last operand (`or` to its first) and `with` enters that one
alone. Grad stays enabled in the block, silently: an inference loop written this way records a
graph for every batch.

## Example
```python
import torch

with torch.no_grad:
    y = model(x)
```

## Use instead
```python
import torch

with torch.no_grad():
    y = model(x)
```

## Fix safety
The fix adds `()` and is safe: the code without it cannot run. For `and`/`or`, the fix lists the
operands as separate context managers (`with torch.no_grad(), torch.cuda.amp.autocast():`). It
is unsafe: the block then runs without grad, as written, where it ran with grad before (code in
it that backpropagates would now fail). No fix is offered for `or` with an `as` target, which
binds the first operand's value.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.grad_mode import GRAD_MODE_NAMES, classify_grad_mode, entered_operand
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_CLASSES = {name for name in GRAD_MODE_NAMES if not name.endswith("set_grad_enabled")}


class GradModeWithoutCall(Rule):
    code = "GG204"
    name = "grad-mode-without-call"
    summary = "`with torch.no_grad:` without `()` raises TypeError; `with no_grad() and x:` never enters it"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = ("no_grad", "inference_mode", "enable_grad")
    function_triggers = ("no_grad", "inference_mode", "enable_grad")
    function_names = tuple(sorted(_CLASSES))

    valid = (
        # `set_grad_enabled(True)` as a statement does switch grad mode (GG205's), and the manager is entered.
        Valid(
            """
            import torch


            def derivative_map(network, states):
                torch.set_grad_enabled(True)
                with torch.no_grad():
                    magnitude = torch.zeros(len(states))
                    for i, state in enumerate(states):
                        magnitude[i] = torch.abs(network(state)).sum()
                return magnitude.numpy()
            """
        ),
        Valid(
            """
            import torch
            with torch.no_grad():
                pass
            """,
        ),
        Valid(
            """
            import torch
            @torch.no_grad
            def f():
                pass
            """,
        ),
        Valid(
            """
            import torch
            ctx = torch.no_grad
            with ctx():
                pass
            """,
        ),
        Valid(
            """
            import torch
            no_grad = object()
            with something.no_grad:
                pass
            """,
        ),
        # Two context managers, or one chosen by a conditional expression: each is entered.
        Valid(
            """
            import contextlib
            import torch

            def predict(model, x, evaluating):
                with torch.no_grad(), torch.cuda.amp.autocast():
                    y = model(x)
                with torch.no_grad() if evaluating else contextlib.nullcontext():
                    z = model(x)
                return y, z
            """,
        ),
    )
    invalid = (
        # `torch.no_grad()` alone on a line: made and dropped, never entered (no fix: which code it should cover
        # is the author's to say).
        Invalid(
            """
            import torch


            def derivative_map(network, states):
                torch.no_grad()
                magnitude = torch.zeros(len(states))
                for i, state in enumerate(states):
                    magnitude[i] = torch.abs(network(state)).sum()
                return magnitude.detach().numpy()
            """,
            line=5,
            column=5,
            message="`torch.no_grad()` as a statement makes a context manager and drops it: it is never entered, and grad mode is unchanged; put the code it should cover under `with torch.no_grad():` (or decorate its function)",
        ),
        # `and` yields its last operand: only autocast is entered, grad stays on.
        Invalid(
            """
            import torch

            def predict(model, patches):
                model.eval()
                for patch in patches:
                    with torch.no_grad() and torch.cuda.amp.autocast():
                        yield model(patch).cpu()
            """,
            line=6,
            column=14,
            message="`torch.no_grad()` is never entered: `and` yields its last operand, so `with` enters "
            "`torch.cuda.amp.autocast()` alone and grad mode is unchanged; write `with torch.no_grad(), "
            "torch.cuda.amp.autocast():`",
            fixed="""
            import torch

            def predict(model, patches):
                model.eval()
                for patch in patches:
                    with torch.no_grad(), torch.cuda.amp.autocast():
                        yield model(patch).cpu()
            """,
            unsafe=True,
        ),
        # `or` yields its first operand: the second is never even evaluated.
        Invalid(
            """
            from torch import autocast, inference_mode

            def predict(model, x):
                with autocast("cuda") or inference_mode():
                    return model(x)
            """,
            line=4,
            column=30,
            message="`inference_mode()` is never entered: `or` yields its first operand, so `with` enters "
            '`autocast("cuda")` alone and grad mode is unchanged; write `with autocast("cuda"), inference_mode():`',
        ),
        Invalid(
            """
            import torch
            with torch.no_grad:
                pass
            """,
            line=2,
            column=6,
            message="`torch.no_grad` is used without `()`: this raises TypeError at the `with`; write `torch.no_grad()`",
            fixed="""
            import torch
            with torch.no_grad():
                pass
            """,
        ),
        Invalid(
            """
            from torch import inference_mode
            with open(f) as fh, inference_mode:
                pass
            """,
            line=2,
            column=21,
            message="`inference_mode` is used without `()`: this raises TypeError at the `with`; write `inference_mode()`",
            fixed="""
            from torch import inference_mode
            with open(f) as fh, inference_mode():
                pass
            """,
        ),
        Invalid(
            """
            import torch as th
            async def f():
                async with th.autograd.enable_grad:
                    pass
            """,
            line=3,
            column=16,
            message="`th.autograd.enable_grad` is used without `()`: this raises TypeError at the `with`; write `th.autograd.enable_grad()`",
            fixed="""
            import torch as th
            async def f():
                async with th.autograd.enable_grad():
                    pass
            """,
        ),
    )

    def visit_withitem(self, node: ast.withitem, ctx) -> None:
        expr = node.context_expr
        if isinstance(expr, ast.BoolOp):
            self._not_entered(node, expr, ctx)
            return
        if not isinstance(expr, (ast.Name, ast.Attribute)):
            return
        qual = ctx.imports.qualified_name(expr)
        if qual not in _CLASSES:
            return
        text = ctx.text(expr)
        end = ctx.source.node_end(expr)
        fix = Fix(Applicability.SAFE, f"Call it: `{text}()`", (Edit(end, end, "()"),))
        ctx.report(
            self.code,
            expr,
            f"`{text}` is used without `()`: this raises TypeError at the `with`; write `{text}()`",
            fix,
        )

    def visit_Expr(self, node: ast.Expr, ctx) -> None:
        # `torch.no_grad()` alone on a line: the manager is made and dropped, never entered
        call = node.value
        if not isinstance(call, ast.Call) or ctx.imports.qualified_name(call.func) not in _CLASSES:
            return
        text = short(ctx.text(call), 50)
        ctx.report(
            self.code,
            call,
            f"`{text}` as a statement makes a context manager and drops it: it is never entered, and grad mode "
            f"is unchanged; put the code it should cover under `with {text}:` (or decorate its function)",
        )

    def _not_entered(self, item: ast.withitem, expr: ast.BoolOp, ctx) -> None:
        """`with torch.no_grad() and autocast():` enters `autocast()` alone."""
        entered = entered_operand(expr)
        if entered is None:
            return
        skipped = [
            operand
            for operand in expr.values
            if operand is not entered
            and isinstance(operand, ast.Call)
            and ctx.imports.qualified_name(operand.func) in GRAD_MODE_NAMES
            and classify_grad_mode(operand, ctx.imports) is not None
        ]
        if not skipped:
            return
        operator = "and" if isinstance(expr.op, ast.And) else "or"
        which = "last" if operator == "and" else "first"
        joined = ", ".join(ctx.text(operand) for operand in expr.values)
        fix = None
        if (item.optional_vars is None or operator == "and") and "#" not in ctx.text(expr):
            fix = Fix(Applicability.UNSAFE, f"Enter each: `{short(joined, 80)}`", (ctx.replace(expr, joined),))
        for operand in skipped:
            text = ctx.text(operand)
            ctx.report(
                self.code,
                operand,
                f"`{short(text, 50)}` is never entered: `{operator}` yields its {which} operand, so `with` enters "
                f"`{short(ctx.text(entered), 50)}` alone and grad mode is unchanged; write `with {short(joined, 80)}:`",
                fix,
            )
