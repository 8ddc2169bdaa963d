"""A grad-mode `with` region around a `yield`: the mode leaks into the consumer.

## What it does
Flags `yield` (and `yield from`) inside a `with torch.no_grad():`,
`with torch.inference_mode():`, `with torch.set_grad_enabled(...):` or
`with torch.enable_grad():` region of a generator function. Not flagged: a generator that
leaves the region before it yields, the decorator form (`@torch.no_grad()` on the generator
function, which torch applies around each resumption), and generators that are meant to
hand their mode to the caller's block: functions decorated with `contextlib.contextmanager`
(or `asynccontextmanager`) and pytest fixtures.

## Why is this bad?
Grad mode is a thread-wide setting, and a `with` region inside a generator stays entered
while the generator is suspended at `yield`. The code that iterates over the generator runs
in that mode between two items: measured on torch 2.13, `torch.is_grad_enabled()` is `False`
in the body of `for batch in loader():` when `loader` yields inside `with torch.no_grad():`.
A training step written in that loop silently records no graph (`loss.backward()` then
raises, or parameters get no gradient), and the setting is only undone when the generator is
exhausted or closed.

## Example
```python
import torch

def embeddings(model, loader):
    with torch.no_grad():
        for x, _ in loader:
            yield model(x)
```

## Use instead
```python
import torch

@torch.no_grad()
def embeddings(model, loader):
    for x, _ in loader:
        yield model(x)
```

## Fix safety
Where the region is the whole body of a (non-async) generator function with one context
manager, the fix turns it into a decorator of the function and dedents the body. It is
unsafe: the code consuming the generator then runs in its own grad mode, which is the point,
but a consumer that relied on the leaked mode (and computed under it) changes behaviour. No
fix is offered elsewhere: moving the `yield` out of the region has to be done by hand.
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.grad_mode import RegionKind, classify_grad_mode
from gradguard.check.analysis.imports import dotted_name
from gradguard.check.analysis.scopes import own_nodes, walk_in_order
from gradguard.check.analysis.vocabulary import GRAD_MODE_NAMES
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Decorators that make a generator hand its state to the caller's block on purpose.
_HANDING_DECORATORS = ("contextmanager", "asynccontextmanager", "fixture")
_EFFECT = {
    RegionKind.NO_GRAD: "with grad disabled",
    RegionKind.INFERENCE: "in inference mode",
    RegionKind.ENABLE: "with grad enabled",
    RegionKind.MAYBE: "in the grad mode set here",
}


class GradModeInGenerator(Rule):
    code = "GG210"
    name = "grad-mode-in-generator"
    summary = "`yield` inside a `no_grad`/`inference_mode` region leaks the grad mode into the consumer"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = ("yield",)
    function_triggers = ("yield",)

    valid = (
        # The region is left before the yield.
        Valid(
            """
            import torch

            def embeddings(model, loader):
                for x, _ in loader:
                    with torch.no_grad():
                        out = model(x)
                    yield out
            """,
        ),
        # The decorator form: torch re-enters the mode around each resumption.
        Valid(
            """
            import torch

            @torch.no_grad()
            def embeddings(model, loader):
                for x, _ in loader:
                    yield model(x)

            @torch.inference_mode()
            def predictions(model, loader):
                with torch.inference_mode():
                    for x in loader:
                        yield model(x)
            """,
        ),
        # A context manager made from a generator hands its mode to the `with` block on purpose.
        Valid(
            """
            import contextlib
            import torch

            @contextlib.contextmanager
            def evaluating(model):
                model.eval()
                with torch.no_grad():
                    yield model
                model.train()
            """,
        ),
        # A yield of a nested function is that function's.
        Valid(
            """
            import torch

            def run(model, xs):
                with torch.no_grad():
                    def gen():
                        for x in xs:
                            yield x
                    return [model(x) for x in gen()]
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            def embeddings(model, loader):
                with torch.no_grad():
                    for x, _ in loader:
                        yield model(x)
            """,
            line=6,
            column=13,
            message="`yield` inside `with torch.no_grad():`: while the generator is suspended, the code consuming "
            "it runs with grad disabled; decorate the generator with `@torch.no_grad()` or leave the region "
            "before `yield`",
            fixed="""
            import torch

            @torch.no_grad()
            def embeddings(model, loader):
                for x, _ in loader:
                    yield model(x)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch

            class Batches:
                def __iter__(self):
                    for chunk in self.chunks:
                        with torch.inference_mode():
                            out = self.model(chunk)
                            yield out
                    self.done = True
            """,
            line=8,
            column=17,
            message="`yield` inside `with torch.inference_mode():`: while the generator is suspended, the code "
            "consuming it runs in inference mode; decorate the generator with `@torch.inference_mode()` or leave "
            "the region before `yield`",
        ),
        Invalid(
            """
            import torch

            def stream(model, xs, train):
                with torch.set_grad_enabled(train):
                    yield from (model(x) for x in xs)
            """,
            line=5,
            column=9,
            message="`yield from` inside `with torch.set_grad_enabled(train):`: while the generator is suspended, the "
            "code consuming it runs in the grad mode set here; leave the region before `yield from`",
            fixed="""
            import torch

            def stream(model, xs, train):
                with torch.set_grad_enabled(train):
                    yield from (model(x) for x in xs)
            """,
            unsafe=True,
        ),
    )

    def visit_With(self, node: ast.With, ctx) -> None:
        self._check(node, ctx)

    def visit_AsyncWith(self, node: ast.AsyncWith, ctx) -> None:
        self._check(node, ctx)

    def _check(self, node: ast.AST, ctx) -> None:
        function = ctx.function
        if not isinstance(function, _FUNCTIONS):
            return
        region = None
        for item in node.items:  # type: ignore[attr-defined]
            expr = item.context_expr
            target = expr.func if isinstance(expr, ast.Call) else expr
            if ctx.imports.qualified_name(target) in GRAD_MODE_NAMES:
                kind = classify_grad_mode(expr, ctx.imports)
                if kind is not None:
                    region = (item, kind)
        if region is None:
            return
        yielded = _first_yield(node)
        if yielded is None:
            return
        for deco in function.decorator_list:
            if classify_grad_mode(deco, ctx.imports) is not None:
                return  # torch wraps each resumption in the decorator's mode
            name = dotted_name(deco.func if isinstance(deco, ast.Call) else deco) or ""
            if name.rsplit(".", 1)[-1] in _HANDING_DECORATORS:
                return
        item, kind = region
        manager = short(ctx.text(item.context_expr))
        word = "yield from" if isinstance(yielded, ast.YieldFrom) else "yield"
        expr = item.context_expr
        if _defined_anywhere(expr):
            advice = f"decorate the generator with `@{manager}` or leave the region before `{word}`"
        else:
            advice = f"leave the region before `{word}`"
        ctx.report(
            self.code,
            yielded,
            f"`{word}` inside `with {manager}:`: while the generator is suspended, the code consuming it runs "
            f"{_EFFECT[kind]}; {advice}",
            self._fix(ctx, function, node, item),
        )

    @staticmethod
    def _fix(ctx, function: ast.AST, region: ast.AST, item: ast.withitem) -> Optional[Fix]:
        """The region as a decorator, when it is the whole body of a plain generator function
        and its context manager can be evaluated where the function is defined."""
        if isinstance(function, ast.AsyncFunctionDef) or isinstance(region, ast.AsyncWith):
            return None
        body = function.body  # type: ignore[attr-defined]
        first = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
        if body[first:] != [region] or len(region.items) != 1 or item.optional_vars is not None:  # type: ignore[attr-defined]
            return None
        expr = item.context_expr
        if not _defined_anywhere(expr):
            return None  # `set_grad_enabled(train)`: `train` is not known where the function is defined
        src = ctx.source
        inner = region.body  # type: ignore[attr-defined]
        with_line = region.lineno  # type: ignore[attr-defined]
        end_line = region.end_lineno  # type: ignore[attr-defined]
        if inner[0].lineno == with_line or end_line is None:
            return None  # `with ...: yield x` on one line
        for sub in walk_in_order(region):
            if isinstance(sub, (ast.Constant, ast.JoinedStr)) and sub.lineno != sub.end_lineno:
                return None  # dedenting would change a multi-line string
        outer_indent = src.indentation(with_line)
        inner_indent = src.indentation(inner[0].lineno)
        cut = len(inner_indent) - len(outer_indent)
        if cut <= 0 or inner_indent[cut:] != outer_indent:
            return None
        starts = src.line_starts
        edits = []
        for lineno in range(inner[0].lineno, end_line + 1):
            line = src.line(lineno)
            if not line.strip():
                continue
            if not line.startswith(inner_indent):
                return None  # a comment or continuation line indented less than the body
            edits.append(Edit(starts[lineno - 1], starts[lineno - 1] + cut, ""))
        edits.append(Edit(starts[with_line - 1], starts[inner[0].lineno - 1], ""))  # the `with` line
        def_line = function.lineno  # type: ignore[attr-defined]
        def_start = starts[def_line - 1]
        decorator = f"{src.indentation(def_line)}@{ctx.text(expr)}{src.newline}"
        edits.append(Edit(def_start, def_start, decorator))
        return Fix(Applicability.UNSAFE, "Make the region a decorator of the generator function", tuple(edits))


def _first_yield(region: ast.AST) -> Optional[ast.AST]:
    """The first `yield` / `yield from` of the region's own function inside it."""
    found = [sub for sub in own_nodes(region) if isinstance(sub, (ast.Yield, ast.YieldFrom))]
    if not found:
        return None
    return min(found, key=lambda n: (n.lineno, n.col_offset))


def _defined_anywhere(expr: ast.AST) -> bool:
    """Whether a context manager expression means the same where the function is defined (no
    arguments other than constants), so that it can become a decorator."""
    if not isinstance(expr, ast.Call):
        return True
    return all(isinstance(a, ast.Constant) for a in [*expr.args, *(k.value for k in expr.keywords)])
