"""A tensor created under `inference_mode` stored where later code can reach it.

## What it does
Inside a `torch.inference_mode()` region (a `with` block or a decorator, with or without
parentheses), flags storing a tensor created in that region somewhere that outlives the
call: an attribute of `self` (`self.cache = out`, `self.stats[k] = out`,
`self.history.append(out)`), `self.register_buffer(...)`, `setattr(self, ...)`, or a
module-level container or `global` name (`CACHE[key] = out`, `_cache.append(out)`).
A tensor is created in the region when it comes from a torch operation, a model call or
arithmetic there. Not flagged: `.item()` / `.tolist()` results and other non-tensors, tensors
only returned or kept in locals, and values that were created before the region.

## Why is this bad?
Every tensor created under `inference_mode` is an inference tensor, and `.clone()` inside the
region makes another one. Measured on torch 2.13: using such a tensor later in computation
that autograd records (for example multiplying it by a parameter with grad enabled) raises
`RuntimeError: Inference tensors cannot be saved for backward`, and updating it in place
outside inference mode raises `Inplace update to inference tensor outside InferenceMode is
not allowed`; a buffer registered from one does the same when the module trains. The failure
appears far from the region that made the tensor. Tensors created under `torch.no_grad()`
are ordinary tensors and have neither restriction.

## Example
```python
import torch

class Encoder(torch.nn.Module):
    @torch.inference_mode()
    def warmup(self, x):
        self.cached = self.backbone(x)
```

## Use instead
```python
import torch

class Encoder(torch.nn.Module):
    @torch.no_grad()
    def warmup(self, x):
        self.cached = self.backbone(x)
```

## Fix safety
There is no fix: whether the stored tensor is ever used outside inference mode is not visible
in the file. Use `torch.no_grad()` for the region, or store `t.clone()` made after leaving it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.grad_mode import INFERENCE_NAMES
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Role
from gradguard.check.model import Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

# Methods that may return their receiver itself (or a view of it) rather than a new tensor.
_MAY_ALIAS = frozenset(
    """to cpu cuda float half double bfloat16 contiguous view view_as reshape reshape_as detach t
    transpose permute expand expand_as squeeze unsqueeze flatten narrow select type_as requires_grad_
    as_strided diagonal""".split()
)
_NOT_TENSOR = frozenset("item tolist numpy size dim numel shape dtype device".split())
_CONTAINER_METHODS = frozenset({"append", "insert", "extend", "setdefault", "add", "appendleft"})


class InferenceTensorEscapes(Rule):
    code = "GG503"
    severity = Severity.ERROR
    name = "inference-tensor-escapes"
    summary = "Tensor created under `inference_mode` stored on `self` or in a module-level cache"
    triggers = ("inference_mode",)
    function_triggers = ("inference_mode",)
    function_names = tuple(sorted(INFERENCE_NAMES))

    valid = (
        Valid(
            """
            import torch

            class M(torch.nn.Module):
                def update(self, x):
                    with torch.inference_mode():
                        out = self.net(x)
                        self.score = out.mean().item()
                        self.values = out.tolist()
            """,
        ),
        Valid(
            """
            import torch

            class M(torch.nn.Module):
                @torch.no_grad()
                def update(self, x):
                    self.cached = self.net(x)
            """,
        ),
        Valid(
            """
            import torch

            @torch.inference_mode()
            def predict(model, x):
                out = model(x)
                probs = out.softmax(-1)
                return probs
            """,
        ),
        Valid(
            """
            import torch

            class M(torch.nn.Module):
                def update(self, x):
                    y = torch.relu(x)
                    with torch.inference_mode():
                        self.last = y
                        self.steps = self.steps + 1 if isinstance(self.steps, int) else 0
            """,
        ),
        Valid(
            """
            import torch

            class M(torch.nn.Module):
                def update(self, x):
                    with torch.inference_mode():
                        out = self.net(x)
                    self.cached = out.clone()
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            class M(torch.nn.Module):
                @torch.inference_mode
                def calibrate(self, x):
                    out = self.net(x)
                    self.register_buffer('mean', out.mean(0))
            """,
            line=7,
            column=9,
            message="`out.mean(0)` is an inference tensor (made under inference_mode) kept in a buffer of `self`: later use in autograd-recorded code or an in-place update outside inference mode raises RuntimeError; use torch.no_grad() for this region",
        ),
        Invalid(
            """
            import torch

            _CACHE = {}

            def embed(model, key, x):
                with torch.inference_mode():
                    _CACHE[key] = model(x).clone()
                return _CACHE[key]
            """,
            line=7,
            column=9,
            message="`model(x).clone()` is an inference tensor (made under inference_mode) kept in the module-level `_CACHE`: later use in autograd-recorded code or an in-place update outside inference mode raises RuntimeError; use torch.no_grad() for this region",
        ),
        Invalid(
            """
            import torch

            class M(torch.nn.Module):
                def update(self, x):
                    with torch.inference_mode():
                        feats = torch.cat([x, x], 1)
                        self.history.append(feats * 2)
                        setattr(self, 'last', feats)
            """,
            line=7,
            column=13,
            message="`feats * 2` is an inference tensor (made under inference_mode) kept in `self.history`: later use in autograd-recorded code or an in-place update outside inference mode raises RuntimeError; use torch.no_grad() for this region",
            also=(
                Finding(
                    8,
                    13,
                    "`feats` is an inference tensor (made under inference_mode) kept in an attribute of `self`: later use in autograd-recorded code or an in-place update outside inference mode raises RuntimeError; use torch.no_grad() for this region",
                ),
            ),
        ),
    )

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        if not ctx.in_inference_mode:
            return
        for target in node.targets:
            where = _escape_target(ctx, target)
            if where is not None:
                self._check(node, node.value, where, ctx)
                return

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if not ctx.in_inference_mode:
            return
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "register_buffer" and _is_self(func.value) and len(node.args) >= 2:
                self._check(node, node.args[1], "a buffer of `self`", ctx)
            elif func.attr in _CONTAINER_METHODS and node.args:
                where = _container(ctx, func.value)
                if where is not None:
                    self._check(node, node.args[-1], where, ctx)
        elif isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3 and _is_self(node.args[0]):
            self._check(node, node.args[2], "an attribute of `self`", ctx)

    def _check(self, node: ast.AST, value: ast.AST, where: str, ctx) -> None:
        if ctx.model.grad_mode(node) is not GradMode.INFERENCE:
            return
        kept = ctx.model.value(value)
        if not (kept.is_tensor and kept.has(Role.INFERENCE)):
            return
        ctx.report(
            self.code,
            node,
            f"`{short(ctx.text(value))}` is an inference tensor (made under inference_mode) kept in {where}: "
            "later use in autograd-recorded code or an in-place update outside inference mode raises RuntimeError; "
            "use torch.no_grad() for this region",
        )


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    module_names: Optional[frozenset] = None  # `_module_names`, computed on first use


def _module_names(ctx) -> frozenset:
    state = ctx.state(_State)
    if state.module_names is not None:
        return state.module_names
    names: set[str] = set()
    for stmt in ctx.tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    result = frozenset(names)
    state.module_names = result
    return result


def _globals(ctx) -> set:
    fn = ctx.function
    out: set[str] = set()
    if fn is not None and not isinstance(fn, ast.Lambda):
        for node in walk_in_order(fn):
            if isinstance(node, ast.Global):
                out.update(node.names)
    return out


def _local_names(ctx) -> set:
    fn = ctx.function
    if fn is None or isinstance(fn, ast.Lambda):
        return set()
    args = fn.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(binding.name for binding in ctx.model.uses(fn).bindings)
    return names - _globals(ctx)


def _container(ctx, node: ast.AST) -> Optional[str]:
    """Where a container lives when it outlives the call: on self or at module level."""
    if isinstance(node, ast.Attribute) and _is_self(node.value):
        return f"`{ctx.text(node)}`"
    if isinstance(node, ast.Name) and ctx.function is not None:
        if node.id in _module_names(ctx) and node.id not in _local_names(ctx):
            return f"the module-level `{node.id}`"
    return None


def _escape_target(ctx, target: ast.AST) -> Optional[str]:
    if isinstance(target, ast.Attribute) and _is_self(target.value):
        return "an attribute of `self`"
    if isinstance(target, ast.Subscript):
        return _container(ctx, target.value)
    if isinstance(target, ast.Name) and target.id in _globals(ctx):
        return f"the global `{target.id}`"
    return None


def _parameters(ctx) -> set:
    fn = ctx.function
    if fn is None or isinstance(fn, ast.Lambda):
        return set()
    args = fn.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
