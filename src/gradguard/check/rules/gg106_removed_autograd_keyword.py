"""`retain_variables=`, a keyword that autograd no longer accepts.

## What it does
Flags the keyword `retain_variables=` given to `.backward()`, `torch.autograd.backward()` or
`torch.autograd.grad()`. It was renamed `retain_graph` in PyTorch 0.3 (2017) and later removed;
code from that time still carries it, often next to `loss.data[0]` (GG105) and `Variable`
(GG104).

## Why is this bad?
On current PyTorch the call fails before any gradient is computed:
`TypeError: Tensor.backward() got an unexpected keyword argument 'retain_variables'`
(measured on torch 2.13; `torch.autograd.grad` raises the same). `retain_graph` has the
meaning `retain_variables` had: keep the graph's saved tensors so that a second backward pass
through it is possible.

## Example
```python
import torch

def step(d_loss, g_loss, opt):
    opt.zero_grad()
    d_loss.backward(retain_variables=True)
    g_loss.backward()
    opt.step()
```

## Use instead
```python
import torch

def step(d_loss, g_loss, opt):
    opt.zero_grad()
    d_loss.backward(retain_graph=True)
    g_loss.backward()
    opt.step()
```

## Fix safety
The fix renames the keyword to `retain_graph` and is safe: the original call raises
`TypeError` every time it runs, and `retain_graph` is the name the same option has had since
it was renamed. No fix is offered when the call also passes `retain_graph` (the two would
clash) or hands on `**kwargs`.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import BACKWARD_FUNCTIONS
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_REMOVED = "retain_variables"


class RemovedAutogradKeyword(Rule):
    code = "GG106"
    name = "removed-autograd-keyword"
    summary = "`retain_variables=` was removed: `backward()` and `autograd.grad()` raise TypeError"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = (_REMOVED,)
    function_triggers = (_REMOVED,)

    valid = (
        Valid(
            """
            import torch

            def step(loss):
                loss.backward(retain_graph=True)
            """,
        ),
        # A keyword of the project's own function or method, not autograd's.
        Valid(
            """
            def backward_pass(loss, retain_variables=False):
                return loss

            class Trainer:
                def backward(self, loss, retain_variables=False):
                    return loss

                def run(self, loss):
                    self.backward(loss, retain_variables=True)

            backward_pass(1.0, retain_variables=True)
            """,
        ),
        Valid(
            """
            import torch

            def grads(y, x):
                return torch.autograd.grad(y, x, retain_graph=True, create_graph=True)
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            def step(loss):
                loss.backward(retain_variables=True)
            """,
            line=4,
            column=5,
            message="`retain_variables` was removed from `loss.backward()`: the call raises TypeError; "
            "the keyword is now `retain_graph`",
            fixed="""
            import torch

            def step(loss):
                loss.backward(retain_graph=True)
            """,
        ),
        Invalid(
            """
            from torch import autograd

            def hvp(y, x, v):
                g = autograd.grad(y, x, create_graph=True, retain_variables=True)
                return autograd.grad(g, x, v)
            """,
            line=4,
            column=9,
            message="`retain_variables` was removed from `autograd.grad()`: the call raises TypeError; "
            "the keyword is now `retain_graph`",
            fixed="""
            from torch import autograd

            def hvp(y, x, v):
                g = autograd.grad(y, x, create_graph=True, retain_graph=True)
                return autograd.grad(g, x, v)
            """,
        ),
        Invalid(
            """
            import torch

            def step(loss, g):
                loss.backward(g, retain_variables=True, retain_graph=False)
            """,
            line=4,
            column=5,
            message="`retain_variables` was removed from `loss.backward()`: the call raises TypeError; "
            "the keyword is now `retain_graph`",
            fixed="""
            import torch

            def step(loss, g):
                loss.backward(g, retain_variables=True, retain_graph=False)
            """,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        removed = None
        for kw in node.keywords:
            if kw.arg == _REMOVED:
                removed = kw
        if removed is None:
            return
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            qual = ctx.imports.qualified_name(func)
            if qual not in (None, *BACKWARD_FUNCTIONS):
                return  # some other library's `backward`
            if qual is None and ctx.model.value(func.value).kind not in (Kind.TENSOR, Kind.UNKNOWN):
                return  # a method of the project's own class
        elif ctx.imports.qualified_name(func) not in BACKWARD_FUNCTIONS:
            return
        fix = None
        if not any(kw.arg in ("retain_graph", None) for kw in node.keywords):
            start = ctx.source.node_start(removed)
            fix = Fix(
                Applicability.SAFE,
                "Rename the keyword to `retain_graph`",
                (Edit(start, start + len(_REMOVED), "retain_graph"),),
            )
        ctx.report(
            self.code,
            node,
            f"`{_REMOVED}` was removed from `{short(ctx.text(func))}()`: the call raises TypeError; "
            "the keyword is now `retain_graph`",
            fix,
        )
