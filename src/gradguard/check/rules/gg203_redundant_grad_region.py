"""Redundant nested grad-mode region.

## What it does
Flags a `torch.no_grad()` region (a `with` item or a decorator) inside a region of the same
function body that already disables grad: `no_grad` inside `inference_mode`, or `no_grad`
inside `no_grad` (decorators count, `@torch.no_grad` without parentheses too, and so does
`torch.set_grad_enabled(False)`).

Not flagged: `inference_mode` inside `no_grad` (it is not redundant: tensors created there
become inference tensors), `no_grad` inside an `enable_grad` region that is itself inside
`no_grad`, and regions whose outer mode is only possibly disabled (a conditional
`set_grad_enabled(flag)`, an unknown context manager).

## Why is this bad?
The inner region changes nothing: grad is already disabled there. It adds indentation and
suggests to the reader that grad was enabled before it, which hides where grad mode is
really decided.

## Example
```python
import torch

@torch.inference_mode()
def evaluate(model, x):
    with torch.no_grad():
        return model(x)
```

## Use instead
```python
import torch

@torch.inference_mode()
def evaluate(model, x):
    return model(x)
```

## Fix safety
The fix removes the inner region: for a `with` statement with one item it deletes the
`with` line and dedents its body (comments kept; lines inside multi-line strings untouched);
for a `with` with several items it removes only that item; for a decorator on its own line it
deletes that line. It is safe: grad mode inside the region is the same with and without it.
No fix is offered when the item binds a name (`as g`) or the layout is unusual.
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.grad_mode import (
    ENABLE,
    INFERENCE,
    MAYBE,
    NO_GRAD,
    NO_GRAD_NAMES,
    GradRegion,
    classify_grad_mode,
)
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid


def _outer_disabling(ctx, regions) -> Optional[object]:
    """The innermost region of ``regions`` if it certainly disables grad, else None."""
    for region in reversed(regions):
        if region.kind in (NO_GRAD, INFERENCE):
            return region
        if region.kind in (ENABLE, MAYBE):
            return None
    return None


class RedundantGradRegion(Rule):
    code = "GG203"
    name = "redundant-grad-region"
    summary = "`no_grad` inside a region that already disables grad"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = ("no_grad",)
    function_triggers = ("no_grad",)
    function_names = tuple(sorted(NO_GRAD_NAMES))

    valid = (
        Valid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    with torch.inference_mode():
                        return model(x)
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def f(model, x):
                with torch.enable_grad():
                    y = model(x)
                    with torch.no_grad():
                        z = y * 2
                return z
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x, train):
                with torch.set_grad_enabled(train):
                    with torch.no_grad():
                        return model(x)
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def outer(model):
                def inner(x):
                    with torch.no_grad():
                        return model(x)
                return inner
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    y = model(x)
                with torch.no_grad():
                    return y + model(x)
            """,
        ),
        Valid(
            """
            import torch

            with torch.inference_mode(False):
                with torch.no_grad():
                    pass
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            @torch.inference_mode()
            def evaluate(model, x):
                with torch.no_grad():  # no graph
                    y = model(x)
                    # keep
                    s = '''a
              b'''
                return y, s
            """,
            line=5,
            column=10,
            message="`torch.no_grad()` is redundant: grad is already disabled here by the decorator `@torch.inference_mode()` (inference mode); remove it",
            fixed="""
            import torch

            @torch.inference_mode()
            def evaluate(model, x):
                # no graph
                y = model(x)
                # keep
                s = '''a
              b'''
                return y, s
            """,
        ),
        Invalid(
            """
            import torch
            from torch import no_grad

            with torch.no_grad():
                with open('f') as fh, no_grad():
                    data = fh.read()
            """,
            line=5,
            column=27,
            message="`no_grad()` is redundant: grad is already disabled here by the `with torch.no_grad()` on line 4; remove it",
            fixed="""
            import torch
            from torch import no_grad

            with torch.no_grad():
                with open('f') as fh:
                    data = fh.read()
            """,
        ),
        Invalid(
            """
            import torch

            @torch.no_grad
            @torch.no_grad()
            def f(model, x):
                return model(x)
            """,
            line=4,
            column=2,
            message="`torch.no_grad()` is redundant: grad is already disabled here by the decorator `@torch.no_grad`; remove it",
            fixed="""
            import torch

            @torch.no_grad
            def f(model, x):
                return model(x)
            """,
        ),
        Invalid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    with torch.no_grad(): y = model(x)
                return y
            """,
            line=5,
            column=14,
            message="`torch.no_grad()` is redundant: grad is already disabled here by the `with torch.no_grad()` on line 4; remove it",
            fixed="""
            import torch

            def f(model, x):
                with torch.no_grad():
                    y = model(x)
                return y
            """,
        ),
        Invalid(
            """
            import torch

            def f(model, x):
                torch.set_grad_enabled(False)
                with torch.no_grad() as g:
                    return model(x)
            """,
            line=5,
            column=10,
            message="`torch.no_grad()` is redundant: grad is already disabled here by `torch.set_grad_enabled(False)` on line 4; remove it",
        ),
    )

    # -- with items --------------------------------------------------------------------------
    def visit_withitem(self, node: ast.withitem, ctx) -> None:
        if classify_grad_mode(node.context_expr, ctx.imports) != NO_GRAD:
            return
        if not self._is_no_grad(node.context_expr, ctx):
            return
        outer = _outer_disabling(ctx, ctx.innermost_regions())
        if outer is None:
            return
        with_node = ctx.parent(node)
        fix = self._with_fix(ctx, with_node, node)
        ctx.report(self.code, node.context_expr, self._message(ctx, node.context_expr, outer), fix)

    # -- decorators --------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.AST, ctx) -> None:
        decorators = node.decorator_list
        if not decorators:
            return
        kinds = [classify_grad_mode(d, ctx.imports) for d in decorators]
        for index, deco in enumerate(decorators):
            if kinds[index] != NO_GRAD or not self._is_no_grad(deco, ctx):
                continue
            outer = None
            for earlier in range(index - 1, -1, -1):
                kind = kinds[earlier]
                if kind in (NO_GRAD, INFERENCE):
                    outer = decorators[earlier]
                    break
                if kind in (ENABLE, MAYBE):
                    break
            if outer is None:
                continue
            region = GradRegion(kinds[decorators.index(outer)], outer, "decorator")
            ctx.report(self.code, deco, self._message(ctx, deco, region), self._decorator_fix(ctx, deco))

    visit_AsyncFunctionDef = visit_FunctionDef

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _is_no_grad(expr: ast.AST, ctx) -> bool:
        """Only ``no_grad`` itself is redundant; ``set_grad_enabled(False)`` may be a choice left open."""
        target = expr.func if isinstance(expr, ast.Call) else expr
        qual = ctx.imports.qualified_name(target) or ""
        return qual.endswith(".no_grad") and not (isinstance(expr, ast.Call) and (expr.args or expr.keywords))

    @staticmethod
    def _message(ctx, inner: ast.AST, outer) -> str:
        kind = " (inference mode)" if outer.kind == INFERENCE else ""
        if outer.via == "statement":
            how = f"`{ctx.text(outer.node).strip()}` on line {outer.node.lineno}"
        elif outer.via == "decorator":
            how = f"the decorator `@{ctx.text(outer.node)}`"
        else:
            how = f"the `with {ctx.text(outer.node.context_expr)}` on line {outer.node.context_expr.lineno}"
        return f"`{ctx.text(inner)}` is redundant: grad is already disabled here by {how}{kind}; remove it"

    @staticmethod
    def _decorator_fix(ctx, deco: ast.AST) -> Optional[Fix]:
        src = ctx.source
        if deco.lineno != deco.end_lineno:
            return None
        line = src.line(deco.lineno)
        start = src.line_starts[deco.lineno - 1]
        at = src.node_start(deco) - start - 1
        if at < 0 or line[at] != "@" or line[:at].strip():
            return None
        rest = line[src.node_end(deco) - start :]
        if rest.strip():
            return None
        return Fix(Applicability.SAFE, "Remove the redundant decorator", (Edit(start, start + len(line), ""),))

    def _with_fix(self, ctx, with_node: ast.AST, item: ast.withitem) -> Optional[Fix]:
        if item.optional_vars is not None:
            return None
        src = ctx.source
        items = with_node.items
        if len(items) > 1:
            index = items.index(item)
            if index + 1 < len(items):
                start = src.node_start(item.context_expr)
                nxt = items[index + 1].context_expr
                end = src.node_start(nxt)
            else:
                prev = items[index - 1]
                start = src.node_end(prev.optional_vars or prev.context_expr)
                end = src.node_end(item.context_expr)
            if "#" in src.text[start:end]:
                return None
            return Fix(Applicability.SAFE, "Remove the redundant `no_grad()` item", (Edit(start, end, ""),))
        return self._dedent_fix(ctx, with_node)

    @staticmethod
    def _dedent_fix(ctx, with_node: ast.AST) -> Optional[Fix]:
        src = ctx.source
        text = src.text
        line_start = src.line_starts[with_node.lineno - 1]
        with_start = src.node_start(with_node)
        with_indent = text[line_start:with_start]
        if with_indent.strip():
            return None
        # Find the colon that ends the header.
        last = with_node.items[-1]
        pos = src.node_end(last.optional_vars or last.context_expr)
        while pos < len(text) and text[pos] in " \t)\\\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != ":":
            return None
        colon = pos + 1
        if "#" in text[with_start:colon]:
            return None
        colon_row = src.position(colon).row
        body = with_node.body
        first = body[0]
        if first.lineno == colon_row:
            # ``with torch.no_grad(): y = f(x)`` -> ``y = f(x)``
            return Fix(
                Applicability.SAFE, "Remove the redundant `with`", (Edit(with_start, src.node_start(first), ""),)
            )
        header_end_line = colon_row
        next_line_start = src.line_starts[header_end_line] if header_end_line < len(src.line_starts) else len(text)
        rest = text[colon:next_line_start]
        comment = rest.strip()
        if comment and not comment.startswith("#"):
            return None
        body_indent = src.indentation(first.lineno)
        if not body_indent.startswith(with_indent) or len(body_indent) <= len(with_indent):
            return None
        extra = len(body_indent) - len(with_indent)
        header_replacement = with_indent + comment + src.newline if comment else ""
        edits = [Edit(line_start, next_line_start, header_replacement)]
        skip = set()
        for node in walk_in_order(with_node):
            if (
                isinstance(node, (ast.Constant, ast.JoinedStr))
                and getattr(node, "end_lineno", node.lineno) > node.lineno
            ):
                if isinstance(node, ast.JoinedStr) or isinstance(node.value, (str, bytes)):
                    skip.update(range(node.lineno + 1, node.end_lineno + 1))
        last_line = max(getattr(stmt, "end_lineno", stmt.lineno) for stmt in body)
        for lineno in range(header_end_line + 1, last_line + 1):
            if lineno in skip:
                continue
            line = src.line(lineno)
            if line.startswith(body_indent):
                start = src.line_starts[lineno - 1] + len(with_indent)
                edits.append(Edit(start, start + extra, ""))
        return Fix(Applicability.SAFE, "Remove the redundant `with` and dedent its body", tuple(edits))
