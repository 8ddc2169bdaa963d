"""`ctx.save_for_backward(x.detach())` breaks double backward.

## What it does
Inside `forward` (or `setup_context`) of a custom `torch.autograd.Function`, flags
`ctx.save_for_backward(...)` arguments of the form `x.detach()` or `x.data` where `x` is an
input or an output of the Function. Not flagged: Functions whose `backward` is
`@once_differentiable` (they refuse double backward anyway), and detached tensors computed
inside `forward`, which carry no graph either way.

## Why is this bad?
`forward` already runs with grad disabled, and `save_for_backward` is what lets autograd
reconnect a saved input or output to the graph when `backward` is differentiated again
(`create_graph=True`, gradient penalties, Hessian-vector products). Saving a detached alias
cuts that link. Measured on torch 2.13 for `y = x**2` with `x = 3`: the first-order gradient
is right (6), but the gradient returned with `create_graph=True` does not require grad, so
differentiating it alone raises `RuntimeError: element 0 of tensors does not require grad
and does not have a grad_fn`, and differentiating `(g * x).sum()` silently returns 6 instead
of 12. `x.data` also gives the saved tensor a fresh version counter: if `x` is then modified
in place, backward uses the changed values without an error (gradient 60 instead of 6 in
the same example).

## Example
```python
import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.detach())
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad
```

## Use instead
```python
import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad
```

## Fix safety
The fix drops the `.detach()` / `.data`. For an input saved through `.detach()` it is safe:
the saved tensor has the same values, storage and version counter, so first-order gradients
and in-place checks are unchanged, and double backward now differentiates `backward` as
written. It is unsafe for an output (a detached output is occasionally saved on purpose, so
that higher-order gradients treat it as a constant) and for `.data` (the saved tensor starts
sharing the version counter of `x`, so an in-place change of `x` that went unnoticed now
raises at backward).
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.autograd_function import function_classes, function_method, is_once_differentiable
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid


class SaveForBackwardDetach(Rule):
    code = "GG502"
    name = "save-for-backward-detach"
    summary = "`ctx.save_for_backward(x.detach())` breaks double backward"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = ("save_for_backward",)
    function_triggers = ("save_for_backward",)

    def active_in(self, ctx) -> bool:
        return bool(function_classes(ctx))  # no custom autograd.Function in the file: nothing to check

    valid = (
        Valid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
        ),
        Valid(
            """
            import torch
            from torch.autograd.function import once_differentiable

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x.detach())
                    return x * 2

                @staticmethod
                @once_differentiable
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
        ),
        Valid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    mask = (x > 0).float()
                    ctx.save_for_backward(mask.detach())
                    return x * mask

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
        ),
        Valid(
            """
            import torch

            class Saver:
                def forward(self, ctx, x):
                    ctx.save_for_backward(x.detach())
            """,
        ),
        Valid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x.detach().clone())
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, w):
                    ctx.save_for_backward(x.detach(), w)
                    return x * w

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
            line=6,
            column=31,
            message="Saving `x.detach()` (an input of the Function) cuts it from the graph: double backward through this Function fails or is wrong; save `x`",
            fixed="""
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, w):
                    ctx.save_for_backward(x, w)
                    return x * w

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
        ),
        Invalid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    y = x.exp()
                    ctx.save_for_backward(y.detach())
                    return y

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
            line=7,
            column=31,
            message="Saving `y.detach()` (an output of the Function) cuts it from the graph: double backward through this Function fails or is wrong; save `y`",
            fixed="""
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    y = x.exp()
                    ctx.save_for_backward(y)
                    return y

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
            unsafe=True,
        ),
        Invalid(
            """
            from torch.autograd import Function

            class F(Function):
                @staticmethod
                def forward(x):
                    return x * 2

                @staticmethod
                def setup_context(ctx, inputs, output):
                    (x,) = inputs
                    ctx.save_for_backward(x.data)

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
            line=11,
            column=31,
            message="Saving `x.data` (an input of the Function) cuts it from the graph: double backward through this Function fails or is wrong; save `x`",
            fixed="""
            from torch.autograd import Function

            class F(Function):
                @staticmethod
                def forward(x):
                    return x * 2

                @staticmethod
                def setup_context(ctx, inputs, output):
                    (x,) = inputs
                    ctx.save_for_backward(x)

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x
            """,
            unsafe=True,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr != "save_for_backward":
            return
        info = function_method(ctx)
        if info is None or not (isinstance(func.value, ast.Name) and func.value.id == info.ctx_name):
            return
        if is_once_differentiable(ctx, info.cls):
            return
        for arg in node.args:
            if (
                isinstance(arg, ast.Call)
                and isinstance(arg.func, ast.Attribute)
                and arg.func.attr == "detach"
                and not arg.args
                and not arg.keywords
            ):
                base, how = arg.func.value, ".detach()"
            elif isinstance(arg, ast.Attribute) and arg.attr == "data":
                base, how = arg.value, ".data"
            else:
                continue
            if not isinstance(base, ast.Name):
                continue
            if base.id in info.inputs:
                role = "input"
            elif base.id in info.outputs:
                role = "output"
            else:
                continue
            safe = how == ".detach()" and role == "input"
            edit = Edit(ctx.source.node_end(base), ctx.source.node_end(arg), "")
            fix = Fix(Applicability.SAFE if safe else Applicability.UNSAFE, f"Save `{base.id}` itself", (edit,))
            ctx.report(
                self.code,
                arg,
                f"Saving `{base.id}{how}` (an {role} of the Function) cuts it from the graph: "
                f"double backward through this Function fails or is wrong; save `{base.id}`",
                fix,
            )
