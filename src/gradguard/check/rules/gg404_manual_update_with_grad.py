"""A hand-written gradient step on a leaf tensor with grad enabled.

## What it does
Flags a hand-written update of a tensor that requires grad and is a leaf (a parameter, a
tensor from `model.parameters()`, a tensor created with `requires_grad=True`), computed from
a `.grad`, where grad is enabled:
- in place: `w -= lr * w.grad`, `w.sub_(lr * w.grad)`, `p.add_(p.grad, alpha=-lr)`;
- by rebinding: `w = w - lr * w.grad`.
Updates through `.data` (`w.data -= lr * w.grad.data`, GG102's concern), updates inside
`with torch.no_grad():` (or a function decorated with it) and rebindings that make a new
leaf (`w = (w - lr * w.grad).detach().requires_grad_()`, or a loop that binds the name to a new
leaf in each iteration: `x_adv = x_adv.detach().requires_grad_()` at the top of a PGD step, also in two
statements, `x_adv = x_adv.detach()` then `x_adv.requires_grad = True`) are
not flagged, nor a rebinding in a function, outside any loop, that no backward pass or read of the
name's `.grad` follows and that the function does not hand back undetached (a single FGSM step,
`x_adv = x_adv + eps * x_adv.grad.sign()`, then `return x_adv.detach()`: there is no next
`backward()`; a script's or notebook's own code may go on, and is flagged).

## Why is this bad?
Autograd refuses to change a leaf that requires grad in place while it records: `w -= lr *
w.grad` raises `RuntimeError: a leaf Variable that requires grad is being used in an in-place
operation.` Rebinding instead (`w = w - lr * w.grad`) raises nothing, but records the update
in the graph: the new `w` is not a leaf, so the next `backward()` leaves `w.grad` as `None`
(with a warning) and the next update fails or, where the gradient is read some other way,
training silently stops updating the original tensor while every step's graph stays alive.

## Example
```python
import torch

def fit(data, lr=0.1):
    w = torch.zeros(3, requires_grad=True)
    for x, y in data:
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        w -= lr * w.grad
        w.grad.zero_()
    return w
```

## Use instead
```python
import torch

def fit(data, lr=0.1):
    w = torch.zeros(3, requires_grad=True)
    for x, y in data:
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()
    return w
```

## Fix safety
For an in-place update the fix wraps the statement (with the updates next to it, or the
`for` loop they form) in `with torch.no_grad():` and is safe: the original statement raises
every time it runs with grad enabled. For a rebinding `w = w - lr * w.grad` the fix writes the
in-place update `w -= lr * w.grad` under `no_grad` and is unsafe: `w` then stays the same leaf
tensor, so its `.grad` accumulates across steps unless the code zeroes it, and other names
bound to the old tensor see the update. No fix is offered where the statement shares its
line with others or the file does not import torch under a name.
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.data_attr import no_grad_name
from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.steps import requires_grad_value
from gradguard.check.analysis.values import Role
from gradguard.check.analysis.vocabulary import INPLACE_VALUE_METHODS, constant_of
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

_IN_PLACE_OPS = {ast.Sub: "-=", ast.Add: "+="}
_BODIES = ("body", "orelse", "finalbody")


class ManualUpdateWithGrad(Rule):
    code = "GG404"
    name = "manual-update-with-grad"
    summary = "A hand-written update of a leaf that requires grad, with grad enabled: RuntimeError or a non-leaf"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = (".grad",)
    function_triggers = (".grad",)

    valid = (
        # A PGD step making its image a new leaf at each iteration in two statements
        # (`images = images.detach()`, `images.requires_grad = True`): the next backward fills its `.grad`.
        Valid(
            """
            import torch


            def pgd(model, criterion, images, labels, epsilon, step_size, steps):
                original = images
                for step in range(steps):
                    images = images.detach()
                    images.requires_grad = True
                    loss = criterion(model(images), labels)
                    model.zero_grad()
                    loss.backward()
                    images = images + step_size * torch.sign(images.grad)
                    images = torch.max(torch.min(images, original + epsilon), original - epsilon)
                return images
            """
        ),
        # A single FGSM step: nothing backpropagates after the rebinding, and what leaves is
        # detached, so no `.grad` of it is ever asked for.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def fgsm_attack(model, y, eps=0.3):
                x = torch.rand(8, 1, 28, 28)
                x_adv = x.clone().detach().requires_grad_(True)
                loss = F.cross_entropy(model(x_adv), y)
                loss.backward()
                x_adv = x_adv + eps * x_adv.grad.sign()
                x_adv = torch.clamp(x_adv, 0, 1)
                return x_adv.detach()
            """
        ),
        # A PGD attack: each iteration starts from a new leaf, whose `.grad` the next backward fills.
        Valid(
            """
            import torch

            def pgd(model, criterion, x, y, eps, step, k):
                x_adv = x.clone()
                for _ in range(k):
                    x_adv = x_adv.detach().requires_grad_(True)
                    loss = criterion(model(x_adv), y)
                    loss.backward()
                    x_adv = x_adv + step * x_adv.grad.sign()
                    x_adv = torch.min(torch.max(x_adv, x - eps), x + eps)
                return x_adv.detach()
            """,
        ),
        Valid(
            """
            import torch

            w = torch.randn(3, requires_grad=True)

            def step(lr):
                with torch.no_grad():
                    w -= lr * w.grad
                    w.grad.zero_()
            """,
        ),
        # Through `.data`: GG102's concern, and no error.
        Valid(
            """
            import torch

            def step(model, lr):
                for p in model.parameters():
                    p.data -= lr * p.grad.data
            """,
        ),
        # A new leaf each step.
        Valid(
            """
            import torch

            w = torch.randn(3, requires_grad=True)

            def step(lr):
                global w
                w = (w - lr * w.grad).detach().requires_grad_()
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def step(model, lr):
                for p in model.parameters():
                    p.add_(p.grad, alpha=-lr)
            """,
        ),
        # Not computed from a gradient.
        Valid(
            """
            import torch

            x = torch.zeros(3)
            x -= 1
            """,
        ),
    )
    invalid = (
        # The same single step handed back undetached: the caller may step it again.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def fgsm_attack(model, y, eps=0.3):
                x = torch.rand(8, 1, 28, 28)
                x_adv = x.clone().detach().requires_grad_(True)
                loss = F.cross_entropy(model(x_adv), y)
                loss.backward()
                x_adv = x_adv + eps * x_adv.grad.sign()
                x_adv = torch.clamp(x_adv, 0, 1)
                return x_adv
            """,
            line=10,
            column=5,
            message="`x_adv = x_adv + eps * x_adv.grad.sign()` records the update in the graph: `x_adv` is no longer "
            "a leaf, so the next `backward()` leaves `x_adv.grad` None; update it in place under "
            "`with torch.no_grad():`",
        ),
        # The same step followed by another backward pass whose gradient is read: it is None.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def two_steps(model, y, eps=0.3):
                x = torch.rand(8, 1, 28, 28)
                x_adv = x.clone().detach().requires_grad_(True)
                loss = F.cross_entropy(model(x_adv), y)
                loss.backward()
                x_adv = x_adv + eps * x_adv.grad.sign()
                loss = F.cross_entropy(model(x_adv), y)
                loss.backward()
                return x_adv.grad
            """,
            line=10,
            column=5,
            message="`x_adv = x_adv + eps * x_adv.grad.sign()` records the update in the graph: `x_adv` is no longer "
            "a leaf, so the next `backward()` leaves `x_adv.grad` None; update it in place under "
            "`with torch.no_grad():`",
        ),
        Invalid(
            """
            import torch

            w = torch.randn(3, requires_grad=True)
            b = torch.zeros(1, requires_grad=True)
            for x, y in data:
                loss = ((x @ w + b - y) ** 2).mean()
                loss.backward()
                w -= 0.1 * w.grad
                b -= 0.1 * b.grad
            """,
            line=8,
            column=5,
            message="`w -= 0.1 * w.grad` changes a leaf that requires grad in place with grad enabled: RuntimeError "
            "(a leaf Variable that requires grad is being used in an in-place operation); update it under "
            "`with torch.no_grad():`",
            also=(
                Finding(
                    9,
                    5,
                    "`b -= 0.1 * b.grad` changes a leaf that requires grad in place with grad enabled: RuntimeError "
                    "(a leaf Variable that requires grad is being used in an in-place operation); update it under "
                    "`with torch.no_grad():`",
                ),
            ),
            fixed="""
            import torch

            w = torch.randn(3, requires_grad=True)
            b = torch.zeros(1, requires_grad=True)
            for x, y in data:
                loss = ((x @ w + b - y) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
                    b -= 0.1 * b.grad
            """,
        ),
        Invalid(
            """
            import torch

            def sgd(model, lr):
                for p in model.parameters():
                    p.sub_(lr * p.grad)
            """,
            line=5,
            column=9,
            message="`p.sub_(lr * p.grad)` changes a leaf that requires grad in place with grad enabled: RuntimeError "
            "(a leaf Variable that requires grad is being used in an in-place operation); update it under "
            "`with torch.no_grad():`",
            fixed="""
            import torch

            def sgd(model, lr):
                with torch.no_grad():
                    for p in model.parameters():
                        p.sub_(lr * p.grad)
            """,
        ),
        Invalid(
            """
            import torch

            w = torch.randn(3, requires_grad=True)
            for x, y in data:
                loss = ((x @ w - y) ** 2).mean()
                loss.backward()
                w = w - 0.1 * w.grad
            """,
            line=7,
            column=5,
            message="`w = w - 0.1 * w.grad` records the update in the graph: `w` is no longer a leaf, so the next "
            "`backward()` leaves `w.grad` None; update it in place under `with torch.no_grad():`",
            fixed="""
            import torch

            w = torch.randn(3, requires_grad=True)
            for x, y in data:
                loss = ((x @ w - y) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
            """,
            unsafe=True,
        ),
    )

    # -- the three forms ----------------------------------------------------------------------
    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        if not _mentions_grad(node.value) or not _is_updatable(node.target):
            return
        if not self._leaf_with_grad(ctx, node.target, node):
            return
        self._report_in_place(ctx, node)

    def visit_Expr(self, node: ast.Expr, ctx) -> None:
        call = node.value
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in INPLACE_VALUE_METHODS
            and _is_updatable(call.func.value)
            and any(_mentions_grad(a) for a in [*call.args, *(k.value for k in call.keywords)])
        ):
            return
        if not self._leaf_with_grad(ctx, call.func.value, node):
            return
        self._report_in_place(ctx, node)

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        name = node.targets[0].id
        value = node.value
        if not (isinstance(value, ast.BinOp) and _mentions_grad(value)):
            return
        if not any(isinstance(n, ast.Name) and n.id == name for n in walk_in_order(value)):
            return
        if ctx.model.grad_mode(node) is not GradMode.ENABLED or not self._was_leaf(ctx, node.targets[0], node):
            return
        new = ctx.model.value(value)
        if not new.carries_grad or new.has(Role.LEAF) or self._made_a_leaf_each_iteration(ctx, name, node):
            return
        if not self._backward_may_follow(ctx, name, node):
            return  # a single step (FGSM's `x_adv = x_adv + eps * x_adv.grad.sign()`): no next backward
        fix = None
        if isinstance(value.left, ast.Name) and value.left.id == name and type(value.op) in _IN_PLACE_OPS:
            update = f"{name} {_IN_PLACE_OPS[type(value.op)]} {ctx.text(value.right)}"
            fix = self._wrap_fix(ctx, [node], Applicability.UNSAFE, {id(node): update})
        ctx.report(
            self.code,
            node,
            f"`{short(ctx.text(node), 50)}` records the update in the graph: `{name}` is no longer a leaf, so the "
            f"next `backward()` leaves `{name}.grad` None; update it in place under `with torch.no_grad():`",
            fix,
        )

    # -- helpers ------------------------------------------------------------------------------
    @staticmethod
    def _leaf_with_grad(ctx, target: ast.expr, stmt: ast.stmt) -> bool:
        if ctx.model.grad_mode(stmt) is not GradMode.ENABLED:
            return False
        value = ctx.model.value(target)
        return value.carries_grad and (value.has(Role.LEAF) or value.has(Role.PARAM)) and not value.weak

    @staticmethod
    def _was_leaf(ctx, target: ast.Name, stmt: ast.stmt) -> bool:
        """``target`` holds a leaf that requires grad here, or (in a loop, where this very
        rebinding makes it a non-leaf from the second iteration on) the scope bound it to one."""
        value = ctx.model.value(target)
        if value.carries_grad and (value.has(Role.LEAF) or value.has(Role.PARAM)) and not value.weak:
            return True
        scope = ctx.function if ctx.function is not None else ctx.tree
        for binding in ctx.model.uses(scope).bindings_of(target.id):
            if (
                binding.node is stmt
                or binding.value is None
                or isinstance(binding.node, (ast.For, ast.AsyncFor, ast.AugAssign))
            ):
                continue
            bound = ctx.model.value(binding.value)
            if bound.carries_grad and bound.has(Role.LEAF) and not bound.weak:
                return True
        return False

    @staticmethod
    def _backward_may_follow(ctx, name: str, stmt: ast.stmt) -> bool:
        """Whether a backward pass or a read of ``name.grad`` may follow the rebinding: it sits in a
        loop or in a script's own code (a notebook goes on), its function's code after it
        backpropagates or reads the gradient, or the function hands the name back undetached."""
        function = ctx.function
        if ctx.loops or function is None or isinstance(function, ast.Lambda):
            return True
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        for node in ctx.model.own_nodes(function):
            if not isinstance(node, (ast.Call, ast.Attribute, ast.Return)) or (node.lineno, node.col_offset) <= end:
                continue
            if isinstance(node, ast.Attribute):
                if node.attr == "grad" and isinstance(node.value, ast.Name) and node.value.id == name:
                    return True
            elif isinstance(node, ast.Return):
                if node.value is not None and _hands_back(node.value, name):
                    return True  # `return w`: the caller may step it again
            elif (isinstance(node.func, ast.Attribute) and node.func.attr == "backward") or (
                ctx.imports.qualified_name(node.func) or ""
            ).startswith("torch.autograd."):
                return True
        return False

    @staticmethod
    def _made_a_leaf_each_iteration(ctx, name: str, stmt: ast.stmt) -> bool:
        """Whether the loop around ``stmt`` binds ``name`` to a new leaf that requires grad in
        every iteration, in a statement of its own body (``x_adv = x_adv.detach().requires_grad_()``
        at the top of a PGD step): the next ``backward()`` fills that leaf's ``.grad``."""
        if not ctx.loops:
            return False
        body = ctx.loops[-1].body
        for index, other in enumerate(body):
            if (
                other is not stmt
                and isinstance(other, ast.Assign)
                and len(other.targets) == 1
                and isinstance(other.targets[0], ast.Name)
                and other.targets[0].id == name
            ):
                made = ctx.model.value(other.value)
                if made.carries_grad and made.has(Role.LEAF) and not made.weak:
                    return True
                if _detached(other.value) and index + 1 < len(body) and _sets_requires_grad(body[index + 1], name):
                    return True  # `x = x.detach()`, then `x.requires_grad = True`: the same leaf, in two statements
        return False

    def _report_in_place(self, ctx, stmt: ast.stmt) -> None:
        run = self._run(ctx, stmt)
        ctx.report(
            self.code,
            stmt,
            f"`{short(ctx.text(stmt), 50)}` changes a leaf that requires grad in place with grad enabled: "
            "RuntimeError (a leaf Variable that requires grad is being used in an in-place operation); update it "
            "under `with torch.no_grad():`",
            self._wrap_fix(ctx, run, Applicability.SAFE, {}),
        )

    def _run(self, ctx, stmt: ast.stmt) -> list:
        """``stmt`` and the in-place gradient updates right before and after it in its block."""
        parent = ctx.parent(stmt)
        for field in _BODIES:
            block = getattr(parent, field, None)
            if isinstance(block, list) and stmt in block:
                break
        else:
            return [stmt]
        index = block.index(stmt)
        start = end = index
        while start > 0 and self._is_in_place_update(ctx, block[start - 1]):
            start -= 1
        while end + 1 < len(block) and self._is_in_place_update(ctx, block[end + 1]):
            end += 1
        return block[start : end + 1]

    def _is_in_place_update(self, ctx, stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.AugAssign):
            return (
                _mentions_grad(stmt.value)
                and _is_updatable(stmt.target)
                and self._leaf_with_grad(ctx, stmt.target, stmt)
            )
        if isinstance(stmt, ast.Expr):
            call = stmt.value
            return (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in INPLACE_VALUE_METHODS
                and _is_updatable(call.func.value)
                and any(_mentions_grad(a) for a in [*call.args, *(k.value for k in call.keywords)])
                and self._leaf_with_grad(ctx, call.func.value, stmt)
            )
        return False

    @staticmethod
    def _wrap_fix(ctx, run: list, applicability: Applicability, replacements: dict) -> Optional[Fix]:
        """``with torch.no_grad():`` around the statements of ``run`` (or the ``for`` loop whose
        whole body they are), with some statements rewritten."""
        no_grad = no_grad_name(ctx)
        if no_grad is None or not all(_owns_line(ctx, s) for s in run):
            return None
        first, last = run[0], run[-1]
        owner = ctx.parent(first)
        if (
            isinstance(owner, ast.For)
            and owner.body == run
            and not owner.orelse
            and not replacements
            and owner.lineno != first.lineno
            and _owns_line(ctx, owner, compound=True)
        ):
            first = last = owner
        src = ctx.source
        indent = src.indentation(first.lineno)
        unit = "\t" if "\t" in indent else "    "
        starts = src.line_starts
        edits = [
            Edit(starts[first.lineno - 1], starts[first.lineno - 1], f"{indent}with {no_grad}():{src.newline}{unit}")
        ]
        for lineno in range(first.lineno + 1, last.end_lineno + 1):
            if src.line(lineno).strip():
                edits.append(Edit(starts[lineno - 1], starts[lineno - 1], unit))
        for stmt in run:
            if id(stmt) in replacements:
                edits.append(ctx.replace(stmt, replacements[id(stmt)]))
        return Fix(applicability, "Update under `with torch.no_grad():`", tuple(edits))


def _hands_back(value: ast.AST, name: str) -> bool:
    """Whether a returned expression hands back ``name`` itself, not detached (``return w``,
    ``return w, loss``; not ``return w.detach()``)."""
    if isinstance(value, ast.Name):
        return value.id == name
    if isinstance(value, (ast.Tuple, ast.List)):
        return any(_hands_back(item, name) for item in value.elts)
    return False


def _mentions_grad(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in walk_in_order(node))


def _is_updatable(target: ast.AST) -> bool:
    """A name or attribute (not `.data`, not an item): what a gradient step updates."""
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, ast.Attribute) and target.attr not in ("data", "grad")


def _owns_line(ctx, stmt: ast.stmt, compound: bool = False) -> bool:
    """The statement is alone on its lines (no `;` neighbours) and holds no multi-line string."""
    src = ctx.source
    starts = src.line_starts
    if src.line(stmt.lineno)[: src.node_start(stmt) - starts[stmt.lineno - 1]].strip():
        return False
    end = stmt.lineno if compound else stmt.end_lineno
    if not compound:
        after = src.line(end)[src.node_end(stmt) - starts[end - 1] :].strip()
        if after and not after.startswith("#"):
            return False
    for sub in walk_in_order(stmt):
        if isinstance(sub, (ast.Constant, ast.JoinedStr)) and sub.lineno != sub.end_lineno:
            return False
    return True


def _detached(value: ast.AST) -> bool:
    """``x.detach()``, ``x.detach().clone()``, ``x.clone().detach()``: a copy cut from any graph."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr == "detach":
            return True
        if value.func.attr not in ("clone", "to", "cuda", "cpu", "float", "contiguous"):
            return False
        value = value.func.value
    return False


def _sets_requires_grad(stmt: ast.stmt, name: str) -> bool:
    """``x.requires_grad = True`` or ``x.requires_grad_()`` (``requires_grad_(True)``) as a statement."""
    return constant_of(requires_grad_value(stmt, name), default=None) is True
