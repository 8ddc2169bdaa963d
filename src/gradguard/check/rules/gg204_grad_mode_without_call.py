"""Grad-mode context manager used without calling it.

## What it does
Flags `with torch.no_grad:`, `with torch.inference_mode:` and `with torch.enable_grad:`
(also `torch.autograd.*` spellings and imported names), where the class is used as a context
manager without being called.

## Why is this bad?
These are classes whose *instances* are context managers. `with torch.no_grad:` raises
`TypeError` at the `with` statement (the class object has no `__enter__`), so the block never
runs. As decorators, `@torch.no_grad` and `@torch.inference_mode` without parentheses do work
(since torch 2.0 / 2.1) and are not flagged.

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
The fix adds `()` and is safe: the code without it cannot run.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.grad_mode import GRAD_MODE_NAMES
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid

_CLASSES = {name for name in GRAD_MODE_NAMES if not name.endswith("set_grad_enabled")}


class GradModeWithoutCall(Rule):
    code = "GG204"
    name = "grad-mode-without-call"
    summary = "`with torch.no_grad:` without `()` raises TypeError"
    fix_availability = FixAvailability.SAFE
    severity = Severity.ERROR
    triggers = ("no_grad", "inference_mode", "enable_grad")
    function_triggers = ("no_grad", "inference_mode", "enable_grad")
    function_names = tuple(sorted(_CLASSES))

    valid = (
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
    )
    invalid = (
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
