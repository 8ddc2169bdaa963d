"""Misspelt `requires_grad`.

## What it does
Flags misspellings of `requires_grad` and `requires_grad_` (`require_grad`, `requires_grads`,
`requries_grad`, `requiresgrad`, `requires_gard`, ..., up to two edits away, any case):
- as an attribute of a tensor, parameter or model (`p.require_grad = False`,
  `if x.requires_grads:`, `x.require_grad_()`), calling the flag as if it were the method
  (`x.requires_grad(False)`), and assigning the method's name as if it were the flag
  (`net.encoder.requires_grad_ = False`: the fix calls it, safe on a module, unsafe on a tensor,
  where `requires_grad_(False)` raises on a non-leaf);
- as an attribute assigned a `True`/`False` constant on any other object, unless the file
  itself defines that name (as a function parameter, a `self.` attribute, a function or a
  keyword of a non-torch call): then it is the program's own name, not a typo;
- as a keyword of a torch function or tensor method (`torch.zeros(3, require_grad=True)`).
Keywords of your own functions are not flagged (their parameters may be spelt any way), nor
are private names (`_requires_grad`, `torch.Tensor._make_subclass(..., require_grad=...)`,
whose keyword really is spelt so) or ALL-CAPS constants.

## Why is this bad?
Assigning a misspelt attribute silently creates a new plain attribute: `requires_grad` stays
as it was, so a layer meant to be frozen keeps training (or one meant to train gets no
gradient), with no error. Reading a misspelt attribute of a tensor raises `AttributeError`,
calling `x.requires_grad(...)` raises `TypeError` ('bool' object is not callable), and a
misspelt keyword makes the torch call raise `TypeError`.

## Example
```python
import torch

def freeze(model):
    for p in model.backbone.parameters():
        p.require_grad = False
```

## Use instead
```python
import torch

def freeze(model):
    for p in model.backbone.parameters():
        p.requires_grad = False
```

## Fix safety
The fix renames to `requires_grad` (or `requires_grad_` for a method call). It is safe where
the misspelt code cannot have run (a keyword, a read, a method call: they raise) and where an
assignment targets a parameter (a leaf, so setting the flag is allowed). Renaming an
assignment on another tensor is unsafe: setting `requires_grad` on a non-leaf tensor, or to
`True` on an integer tensor, raises a RuntimeError that the misspelt line never did. On a
model, `model.requires_grad = ...` would still do nothing, so the fix there writes
`model.requires_grad_(...)` (safe: it does what the line meant, on every parameter); the
same goes for an attribute of a model (`model.decoder`), which is a submodule or a parameter,
both of which have `requires_grad_`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Kind, Role
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

CORRECT = ("requires_grad", "requires_grad_")
# What a receiver is, for the message and the fix.
MODEL = "model"
PARAM = "param"
_CONFIG_RECEIVERS = frozenset(
    {
        "self",
        "cls",
        "args",
        "cfg",
        "config",
        "conf",
        "opt",
        "opts",
        "options",
        "hparams",
        "settings",
        "params",
        "kwargs",
    }
)


@lru_cache(maxsize=4096)
def _distance(a: str, b: str) -> int:
    """Optimal-string-alignment edit distance (a swap of neighbours counts once)."""
    prev2: list = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


_KNOWN_TYPOS = frozenset(
    {"requires_gradient", "require_gradient", "requires_gradients", "requires_grads", "requires_grads_"}
)


def misspelling_of(name: str) -> Optional[str]:
    """``requires_grad`` or ``requires_grad_`` if ``name`` is a misspelling of it, else None."""
    if name in CORRECT or name.startswith("_") or name.isupper() or not 10 <= len(name) <= 18:
        return None
    lowered = name.lower()
    if lowered in CORRECT:
        return lowered
    if lowered in _KNOWN_TYPOS:
        return "requires_grad_" if lowered.endswith("_") else "requires_grad"
    if "requires_grad" in lowered:
        return None  # a compound name: `requires_grad_fn`, `inputs_requires_grad`
    if not ("req" in lowered or "rqu" in lowered or "equ" in lowered or "rei" in lowered):
        return None
    if not ("gr" in lowered or "gar" in lowered or "rad" in lowered):
        return None
    best = min(CORRECT, key=lambda c: (_distance(lowered, c), -len(c) if lowered.endswith("_") else len(c)))
    return best if _distance(lowered, best) <= 2 else None


# Every name misspelling_of accepts holds one of these, in lower case.
_MISSPELLING_MARKERS = ("req", "rqu", "equ", "rei")


def _may_hold_misspelling(text: str) -> bool:
    """Whether the text holds a name that is a misspelling of the flag, calls the flag
    (``x.requires_grad(False)``) or assigns the method (``x.requires_grad_ = False``): everything
    the rule reports is one of those. Searched
    with ``str.find`` around each marker, not by walking the tree."""
    i = text.find("requires_grad")
    while i >= 0:
        j = i + len("requires_grad")
        while text[j : j + 1] in (" ", "\t"):
            j += 1
        if text[j : j + 1] == "(":
            return True
        if text[j : j + 1] == "_":
            # `encoder.requires_grad_ = False`: the method's name assigned as if it were the flag
            k = j + 1
            while text[k : k + 1] in (" ", "\t"):
                k += 1
            if text[k : k + 1] == "=" and text[k + 1 : k + 2] != "=":
                return True
        i = text.find("requires_grad", j)
    lowered = text.lower()
    if len(lowered) != len(text):
        return True  # a character whose lower case is longer: positions would not match
    seen = set()
    for marker in _MISSPELLING_MARKERS:
        i = lowered.find(marker)
        while i >= 0:
            start, end = i, i + len(marker)
            while start > 0 and (lowered[start - 1].isalnum() or lowered[start - 1] == "_"):
                start -= 1
            while end < len(lowered) and (lowered[end].isalnum() or lowered[end] == "_"):
                end += 1
            name = text[start:end]
            if name not in seen:
                seen.add(name)
                if misspelling_of(name) is not None:
                    return True
            i = lowered.find(marker, end)
    return False


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    own_names: Optional[frozenset] = None  # `_own_names`, computed on first use


def _own_names(ctx) -> frozenset:
    """Names the file defines itself: function parameters, functions, `self.x = ...`
    attributes and keywords of calls that are not torch's (cached per file)."""
    state = ctx.state(_State)
    if state.own_names is not None:
        return state.own_names
    names = set()
    for node in walk_in_order(ctx.tree):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and isinstance(node.ctx, ast.Store)
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Call):
            qual = ctx.imports.qualified_name(node.func) or ""
            if not qual.startswith("torch."):
                names.update(k.arg for k in node.keywords if k.arg)
    result = frozenset(n for n in names if misspelling_of(n))
    state.own_names = result
    return result


class MisspeltRequiresGrad(Rule):
    code = "GG402"
    name = "misspelt-requires-grad"
    summary = "misspelt `requires_grad` (`require_grad`, `requires_grads`, ...): silently ignored or an error"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    # Every name misspelling_of accepts holds one of its markers, in some case (`requires_gred`
    # holds none of "rad", "gar", "grd"); `requires_grad(` holds "equ".
    triggers = (
        *_MISSPELLING_MARKERS,
        *(m.upper() for m in _MISSPELLING_MARKERS),
        *(m.title() for m in _MISSPELLING_MARKERS),
    )
    function_triggers = triggers

    def active_in(self, ctx) -> bool:
        return _may_hold_misspelling(ctx.source.text)

    valid = (
        # The method called.
        Valid(
            """
            import torch.nn as nn
            from torchvision import models


            class Captioner(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = models.resnet34(weights="DEFAULT")
                    self.decoder = nn.GRU(512, 256)


            net = Captioner()
            net.encoder.requires_grad_(False)
            """
        ),
        # A flag of the program's own, three edits from `requires_grad`.
        Valid(
            """
            import torch
            args.requires_gpu = True
            """
        ),
        Valid(
            """
            import torch
            x = torch.zeros(3, requires_grad=True)
            x.requires_grad_(False)
            print(x.requires_grad)
            """,
        ),
        Valid(
            """
            import torch
            class Sub(torch.Tensor):
                def __new__(cls, data):
                    return torch.Tensor._make_subclass(cls, data, require_grad=data.requires_grad)
            """,
        ),
        Valid(
            """
            import torch
            def set_requires_grad(nets, requires_grad=False):
                for net in nets:
                    for p in net.parameters():
                        p.requires_grad = requires_grad
            """,
        ),
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def __init__(self, require_grad=True):
                    super().__init__()
                    self.require_grad = require_grad

            b = Block(require_grad=False)
            b.require_grad = True
            """,
        ),
        Valid(
            """
            import torch
            class LintCode:
                REQUIRES_GRAD = 2
            code = LintCode.REQUIRES_GRAD
            """,
        ),
        Valid(
            """
            import torch
            def f(t):
                t._requires_grad = True
                inputs_require_grad = [x.requires_grad for x in t]
                return inputs_require_grad
            """,
        ),
        Valid(
            """
            import torch
            def build(layer, require_grad):
                return make(layer, require_grad=require_grad)
            """,
        ),
    )
    invalid = (
        # The method's name assigned as if it were the flag: nothing is frozen.
        Invalid(
            """
            import torch.nn as nn
            from torchvision import models


            class Captioner(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = models.resnet34(weights="DEFAULT")
                    self.decoder = nn.GRU(512, 256)


            net = Captioner()
            net.encoder.requires_grad_ = False
            """,
            line=13,
            column=1,
            message="`requires_grad_` is a method: assigning it hides the method behind a plain attribute and leaves `requires_grad` unchanged (nothing is frozen); call `net.encoder.requires_grad_(False)`",
            fixed="""
            import torch.nn as nn
            from torchvision import models


            class Captioner(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = models.resnet34(weights="DEFAULT")
                    self.decoder = nn.GRU(512, 256)


            net = Captioner()
            net.encoder.requires_grad_(False)
            """,
        ),
        # A misspelling holding none of "grad"'s letters in order (`gred`), in a file that
        # spells `requires_grad` nowhere.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class MyModel(nn.Module):
                def __init__(self):
                    super().__init__()
                    model = torch.hub.load("pytorch/vision", "alexnet", pretrained=True)
                    for param in model.parameters():
                        param.requires_gred = False
                    self.original_model = model
            """,
            line=10,
            column=13,
            message="`requires_gred` is a misspelling of `requires_grad`: assigning it silently creates a plain "
            "attribute and leaves `requires_grad` unchanged",
            fixed="""
            import torch
            import torch.nn as nn


            class MyModel(nn.Module):
                def __init__(self):
                    super().__init__()
                    model = torch.hub.load("pytorch/vision", "alexnet", pretrained=True)
                    for param in model.parameters():
                        param.requires_grad = False
                    self.original_model = model
            """,
        ),
        Invalid(
            """
            import torch
            for p in model.parameters():
                p.require_grad = False  # freeze
            """,
            line=3,
            column=5,
            message="`require_grad` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute and leaves `requires_grad` unchanged",
            fixed="""
            import torch
            for p in model.parameters():
                p.requires_grad = False  # freeze
            """,
        ),
        Invalid(
            """
            import torch
            w = torch.zeros(3, require_grad=True)
            """,
            line=2,
            column=20,
            message="`require_grad=` is a misspelling of `requires_grad=`: torch has no such keyword (the call raises TypeError, or the value is ignored)",
            fixed="""
            import torch
            w = torch.zeros(3, requires_grad=True)
            """,
        ),
        Invalid(
            """
            import torch
            def f(x):
                y = torch.exp(x)
                if y.requries_grad:
                    y.require_grad_(False)
            """,
            line=4,
            column=8,
            message="`requries_grad` is a misspelling of `requires_grad`: reading it raises AttributeError",
            also=(
                Finding(5, 9, "`require_grad_` is a misspelling of `requires_grad_`: the call raises AttributeError"),
            ),
            fixed="""
            import torch
            def f(x):
                y = torch.exp(x)
                if y.requires_grad:
                    y.requires_grad_(False)
            """,
        ),
        Invalid(
            """
            import torch
            def f():
                h = torch.ones(2) * 3
                h.requiresGrad = True
            """,
            line=4,
            column=5,
            message="`requiresGrad` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute and leaves `requires_grad` unchanged",
            fixed="""
            import torch
            def f():
                h = torch.ones(2) * 3
                h.requiresGrad = True
            """,
        ),
        Invalid(
            """
            import torch
            def f():
                h = torch.ones(2) * 3
                h.requiresGrad = True
            """,
            line=4,
            column=5,
            message="`requiresGrad` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute and leaves `requires_grad` unchanged",
            fixed="""
            import torch
            def f():
                h = torch.ones(2) * 3
                h.requires_grad = True
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch
            def freeze(model, layer):
                model.require_grads = False
                layer.requires_gard = False
            """,
            line=3,
            column=5,
            message="`require_grads` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute and leaves `requires_grad` unchanged",
            also=(
                Finding(
                    4,
                    5,
                    "`requires_gard` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute and leaves `requires_grad` unchanged",
                ),
            ),
            fixed="""
            import torch
            def freeze(model, layer):
                model.requires_grad_(False)
                layer.requires_gard = False
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.ones(2)
            x.requires_grad(True)
            """,
            line=3,
            column=1,
            message="`requires_grad` is a bool flag: calling it raises TypeError; the method is `requires_grad_(...)`",
            fixed="""
            import torch
            x = torch.ones(2)
            x.requires_grad_(True)
            """,
        ),
    )

    # -- attributes -------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        attr = node.attr
        if attr == "requires_grad_":
            self._method_assigned(node, ctx)
            return
        correct = None if attr == "requires_grad" else misspelling_of(attr)
        if correct is None and attr != "requires_grad":
            return
        par = ctx.parent(node)
        called = isinstance(par, ast.Call) and par.func is node
        if attr == "requires_grad":
            if called and self._receiver_kind(ctx, node.value) is not None:
                message = (
                    "`requires_grad` is a bool flag: calling it raises TypeError; the method is `requires_grad_(...)`"
                )
                ctx.report(
                    self.code,
                    node,
                    message,
                    Fix(Applicability.SAFE, "Call `requires_grad_`", (self._rename(ctx, node, "requires_grad_"),)),
                )
            return
        if called or attr.endswith("_"):
            correct = "requires_grad_"
        kind = self._receiver_kind(ctx, node.value)
        store = isinstance(node.ctx, ast.Store)
        if kind is None:
            # Unknown receiver: only an assignment of True/False, on a name that is not the
            # file's own, to a receiver that is not a config or `self`.
            if not store or attr in _own_names(ctx) or not self._bool_assignment(par, node):
                return
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in _CONFIG_RECEIVERS:
                return
            if called:
                return
        elif (called or kind == MODEL) and attr in _own_names(ctx):
            return  # the file's own method, or an attribute of its own Module classes
        if store:
            message = (
                f"`{attr}` is a misspelling of `requires_grad`: assigning it silently creates a plain attribute "
                "and leaves `requires_grad` unchanged"
            )
        elif called:
            message = f"`{attr}` is a misspelling of `requires_grad_`: the call raises AttributeError"
        else:
            message = f"`{attr}` is a misspelling of `{correct}`: reading it raises AttributeError"
        ctx.report(self.code, node, message, self._attribute_fix(ctx, node, correct, kind, store, par))

    def _method_assigned(self, node: ast.Attribute, ctx) -> None:
        """``encoder.requires_grad_ = False``: the method's name assigned as if it were the flag."""
        stmt = ctx.parent(node)
        if not isinstance(node.ctx, ast.Store) or not self._bool_assignment(stmt, node):
            return
        recv = ctx.text(node.value)
        call = f"{recv}.requires_grad_({ctx.text(stmt.value)})"
        kind = self._receiver_kind(ctx, node.value)
        fix = None
        if len(stmt.targets) == 1:
            # a module's flag set on every parameter, as meant; a tensor's raises where it is no leaf
            safety = Applicability.SAFE if kind == MODEL else Applicability.UNSAFE
            fix = Fix(safety, f"Write `{short(call, 60)}`", (ctx.replace(stmt, call),))
        ctx.report(
            self.code,
            node,
            f"`requires_grad_` is a method: assigning it hides the method behind a plain attribute and leaves "
            f"`requires_grad` unchanged (nothing is frozen); call `{short(call, 60)}`",
            fix,
        )

    def _receiver_kind(self, ctx, recv: ast.AST) -> Optional[str]:
        if isinstance(recv, ast.Name) and recv.id in ("self", "cls"):
            return None
        value = ctx.model.value(recv)
        if value.kind is Kind.MODULE:
            return MODEL
        if value.kind is Kind.TENSOR:
            return PARAM if value.has(Role.PARAM) else "tensor"
        if (
            isinstance(recv, ast.Attribute)
            and recv.attr not in _CONFIG_RECEIVERS
            and ctx.model.value(recv.value).kind is Kind.MODULE
        ):
            # model.decoder: a submodule or a parameter; requires_grad_() suits both
            return MODEL
        return None

    def _bool_assignment(self, stmt: ast.AST, target: ast.AST) -> bool:
        return (
            isinstance(stmt, ast.Assign)
            and target in stmt.targets
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, bool)
        )

    def _rename(self, ctx, node: ast.Attribute, correct: str) -> Edit:
        end = ctx.source.node_end(node)
        return Edit(end - len(node.attr), end, correct)

    def _attribute_fix(self, ctx, node, correct, kind, store, stmt) -> Optional[Fix]:
        if not store:
            return Fix(Applicability.SAFE, f"Rename to `{correct}`", (self._rename(ctx, node, correct),))
        if kind == MODEL or kind is None:
            # model.requires_grad = x does nothing either: call requires_grad_(x).
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and kind == MODEL:
                new = f"{ctx.text(node.value)}.requires_grad_({ctx.text(stmt.value)})"
                return Fix(Applicability.SAFE, f"Write `{new}`", (ctx.replace(stmt, new),))
            return None
        rename = (self._rename(ctx, node, "requires_grad"),)
        if kind == PARAM:
            return Fix(Applicability.SAFE, "Rename to `requires_grad`", rename)
        return Fix(
            Applicability.UNSAFE,
            "Rename to `requires_grad` (unsafe: setting it raises on a non-leaf or integer tensor)",
            rename,
        )

    # -- keywords ---------------------------------------------------------------------------
    def visit_keyword(self, node: ast.keyword, ctx) -> None:
        arg = node.arg
        if arg is None or arg in CORRECT:
            return
        if misspelling_of(arg) is None:
            return
        call = ctx.parent(node)
        if not isinstance(call, ast.Call) or not self._torch_callable(ctx, call.func):
            return
        start = ctx.source.node_start(node)
        if ctx.source.text[start : start + len(arg)] != arg:
            return
        message = (
            f"`{arg}=` is a misspelling of `requires_grad=`: torch has no such keyword "
            "(the call raises TypeError, or the value is ignored)"
        )
        fix = Fix(Applicability.SAFE, "Rename to `requires_grad`", (Edit(start, start + len(arg), "requires_grad"),))
        ctx.report(self.code, node, message, fix)

    def _torch_callable(self, ctx, func: ast.AST) -> bool:
        qual = ctx.imports.qualified_name(func)
        if qual is not None:
            return qual.startswith("torch.") and not any(part.startswith("_") for part in qual.split("."))
        if isinstance(func, ast.Attribute) and not func.attr.startswith("_"):
            return self._receiver_kind(ctx, func.value) in ("tensor", PARAM)
        return False
