"""`no_grad` / `inference_mode` inside `nn.Module.forward`.

## What it does
Flags a `torch.no_grad()`, `torch.inference_mode()` or `torch.set_grad_enabled(False)`
region (a `with` item or a decorator) in the `forward` method of a class that this file shows
to subclass `torch.nn.Module` (directly, through a `torch.nn` class, a `LightningModule`,
or through another such class of the file).

A region in the branch that runs only when the module does not train (`if not self.training:`,
the `else` of `if self.trainable:`) is not flagged: no gradient is meant to reach it. Nor is a
region that only calls and binds nothing (`with torch.no_grad(): self.temp.clamp_(0.001, 0.5)`):
nothing computed there reaches the output. Nor is one that only builds tensors with torch
factories and writes into them in place (a label-smoothing target, `smooth = torch.full_like(logits,
eps)`, `smooth.scatter_(1, targets.unsqueeze(1), 1 - eps)`): nothing there could carry a graph.

This rule is off by default: freezing a sub-encoder, computing a target (EMA teacher,
k-means assignment, positional table) or updating a buffer inside `forward` is a
legitimate use. Enable it to review each such region.

## Why is this bad?
Nothing computed inside the region is recorded by autograd: gradients do not flow from the
module's outputs back through that code to its parameters or to its inputs. When that is
not intended, the parameters used there silently stop training (their `.grad` stays `None`)
and no error is ever raised. Under `inference_mode` the results are also inference tensors,
which fail later if autograd has to save them ("Inference tensors cannot be saved for
backward").

## Example
```python
import torch
from torch import nn

class Classifier(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            feats = self.encoder(x)
        return self.head(feats)
```

## Use instead
```python
import torch
from torch import nn

class Classifier(nn.Module):
    def forward(self, x):
        feats = self.encoder(x)
        return self.head(feats)
```
or, where stopping the gradient is intended (a frozen encoder), keep the region and mark
the line with `# noqa: GG206`.

## Fix safety
There is no fix: only the author knows whether the gradient is meant to stop there.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.grad_mode import GRAD_OFF_NAMES, INFERENCE, NO_GRAD, classify_grad_mode
from gradguard.check.analysis.vocabulary import GRAPH_FREE_FACTORIES
from gradguard.check.model import FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid


def _names_training(test: ast.AST) -> bool:
    """``self.training``, ``self.trainable``, ``self.is_train``: the module's own flag for training."""
    return (
        isinstance(test, ast.Attribute)
        and isinstance(test.value, ast.Name)
        and test.value.id == "self"
        and "train" in test.attr.lower()
    )


def _inference_branch(ctx, node: ast.AST, function: ast.AST) -> bool:
    """Whether the region sits in the branch of ``forward`` that runs only when the module does
    not train (``if not self.training:`` or the ``else`` of ``if self.trainable:``): decoding
    boxes for inference, which no gradient is meant to reach."""
    child = node
    current = ctx.parent(node)
    while current is not None and current is not function:
        if isinstance(current, ast.If):
            test = current.test
            negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            flag = test.operand if negated else test  # type: ignore[attr-defined]
            if _names_training(flag):
                return (child in current.body) == negated
        child = current
        current = ctx.parent(current)
    return False


def _updates_in_place_only(region: ast.AST) -> bool:
    """Whether a region only calls (``self.temp.clamp_(0.001, 0.5)``, ``self._momentum_update()``)
    and binds nothing, returns nothing: no value computed there can reach the module's output,
    so no gradient is stopped on its way."""
    return all(
        isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call))
        for stmt in region.body  # type: ignore[attr-defined]
    )


_FACTORIES = frozenset(f"torch.{name}" for name in GRAPH_FREE_FACTORIES)


def _builds_a_constant_only(ctx, region: ast.AST) -> bool:
    """Whether a region only builds tensors from torch factories and writes into them in place
    (a label-smoothing target: ``smooth = torch.full_like(logits, eps)``, ``smooth.scatter_(1,
    targets.unsqueeze(1), 1 - eps)``): nothing there could carry a graph, so nothing is stopped."""
    made: set = set()
    for stmt in region.body:  # type: ignore[attr-defined]
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and ctx.imports.qualified_name(stmt.value.func) in _FACTORIES
        ):
            made.add(stmt.targets[0].id)
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr.endswith("_")
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id in made
        ):
            continue  # `smooth.scatter_(1, idx, 0.9)`: written in place
        else:
            return False
    return bool(made)


class NoGradInForward(Rule):
    code = "GG206"
    name = "no-grad-in-forward"
    summary = "`no_grad`/`inference_mode` inside `nn.Module.forward` stops gradients there"
    fix_availability = FixAvailability.NONE
    severity = Severity.ERROR
    default_enabled = False
    triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    function_triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    function_names = tuple(sorted(GRAD_OFF_NAMES))

    valid = (
        # A label-smoothing target built from a factory and written in place: nothing there could
        # carry a graph.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn


            class SmoothLoss(nn.Module):
                def __init__(self, eps=0.03):
                    super().__init__()
                    self.eps = eps

                def forward(self, logits, targets):
                    log_probs = F.log_softmax(logits, dim=1)
                    with torch.no_grad():
                        smooth = torch.full_like(logits, self.eps / (logits.size(1) - 1))
                        smooth.scatter_(1, targets.unsqueeze(1), 1.0 - self.eps)
                    return -(smooth * log_probs).sum(dim=1).mean()
            """
        ),
        # A region that only updates the module's state in place (a learnable temperature kept in
        # range): it computes nothing the output is made from.
        Valid(
            """
            import torch
            from torch import nn


            class Contrastive(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.temp = nn.Parameter(torch.tensor(0.07))
                    self.proj = nn.Linear(8, 4)

                def forward(self, x):
                    with torch.no_grad():
                        self.temp.clamp_(0.001, 0.5)
                    return self.proj(x) / self.temp
            """
        ),
        # The branch of `forward` that runs only when the module does not train.
        Valid(
            """
            import torch
            from torch import nn


            class Detector(nn.Module):
                def __init__(self, trainable=False):
                    super().__init__()
                    self.trainable = trainable
                    self.pred = nn.Linear(8, 5)

                def forward(self, x, target=None):
                    prediction = self.pred(x)
                    if not self.trainable:
                        with torch.no_grad():
                            return torch.sigmoid(prediction).argmax(-1)
                    return prediction
            """
        ),
        Valid(
            """
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x):
                    return self.net(x)
            """,
        ),
        Valid(
            """
            import torch

            class Helper:
                def forward(self, x):
                    with torch.no_grad():
                        return x * 2
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            class M(nn.Module):
                @torch.no_grad()
                def predict(self, x):
                    return self(x)
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x):
                    with torch.enable_grad():
                        return self.net(x)
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x, frozen):
                    with torch.set_grad_enabled(not frozen):
                        return self.net(x)
            """,
        ),
    )
    invalid = (
        # The same region under a test that says nothing of training.
        Invalid(
            """
            import torch
            from torch import nn


            class Detector(nn.Module):
                def __init__(self, trainable=False):
                    super().__init__()
                    self.trainable = trainable
                    self.pred = nn.Linear(8, 5)

                def forward(self, x, target=None):
                    prediction = self.pred(x)
                    if target is None:
                        with torch.no_grad():
                            return torch.sigmoid(prediction).argmax(-1)
                    return prediction
            """,
            line=14,
            column=18,
            message="`torch.no_grad()` in `Detector.forward`: gradients do not flow through the code in this region to "
            "its parameters or inputs; make sure this is intended (a frozen sub-module, a positional table or a "
            "target may legitimately be computed this way)",
        ),
        Invalid(
            """
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x):
                    with torch.no_grad():
                        f = self.encoder(x)
                    return self.head(f)
            """,
            line=6,
            column=14,
            message="`torch.no_grad()` in `M.forward`: gradients do not flow through the code in this region to its parameters or inputs; make sure this is intended (a frozen sub-module, a positional table or a target may legitimately be computed this way)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Base(nn.Linear):
                pass

            class M(Base):
                @torch.inference_mode()
                def forward(self, x):
                    return super().forward(x)
            """,
            line=8,
            column=6,
            message="`torch.inference_mode()` in `M.forward`: gradients do not flow through the code in this region to its parameters or inputs; make sure this is intended (a frozen sub-module, a positional table or a target may legitimately be computed this way)",
        ),
        Invalid(
            """
            import torch
            from lightning import LightningModule

            class M(LightningModule):
                def forward(self, x):
                    with torch.set_grad_enabled(False):
                        return self.net(x)
            """,
            line=6,
            column=14,
            message="`torch.set_grad_enabled(False)` in `M.forward`: gradients do not flow through the code in this region to its parameters or inputs; make sure this is intended (a frozen sub-module, a positional table or a target may legitimately be computed this way)",
        ),
    )

    def _in_module_forward(self, ctx, function) -> bool:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name != "forward":
            return False
        cls = ctx.method_class if ctx.function is function else None
        return cls is not None and ctx.model.is_module_class(cls)

    def _message(self, ctx, expr, cls_name) -> str:
        return (
            f"`{ctx.text(expr)}` in `{cls_name}.forward`: gradients do not flow through the code in this region to "
            f"its parameters or inputs; make sure this is intended (a frozen sub-module, a positional table or a target may legitimately be computed this way)"
        )

    def visit_withitem(self, node: ast.withitem, ctx) -> None:
        if classify_grad_mode(node.context_expr, ctx.imports) not in (NO_GRAD, INFERENCE):
            return
        function = ctx.function
        region = ctx.parent(node)
        if isinstance(region, (ast.With, ast.AsyncWith)) and (
            _updates_in_place_only(region) or _builds_a_constant_only(ctx, region)
        ):
            return  # `self.temp.clamp_(0.001, 0.5)`: nothing computed there reaches the output
        if self._in_module_forward(ctx, function) and not _inference_branch(ctx, node, function):
            ctx.report(self.code, node.context_expr, self._message(ctx, node.context_expr, ctx.method_class.name))

    def visit_FunctionDef(self, node: ast.AST, ctx) -> None:
        if node.name != "forward" or not node.decorator_list or not isinstance(ctx.scope, ast.ClassDef):
            return
        if not ctx.model.is_module_class(ctx.scope):
            return
        for deco in node.decorator_list:
            if classify_grad_mode(deco, ctx.imports) in (NO_GRAD, INFERENCE):
                ctx.report(self.code, deco, self._message(ctx, deco, ctx.scope.name))

    visit_AsyncFunctionDef = visit_FunctionDef
