"""What a ``with`` item, decorator or statement does to autograd's grad mode.

``torch.no_grad``, ``inference_mode``, ``enable_grad`` and ``set_grad_enabled`` (under any
import alias) open regions of one of the ``GradRegion`` kinds below.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import Enum
from typing import Optional

from gradguard.check.analysis.imports import ImportMap
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.vocabulary import (
    ENABLE_NAMES,
    GRAD_MODE_KEEPING_NAMES,
    GRAD_MODE_NAMES,
    GRAD_OFF_NAMES,
    INFERENCE_NAMES,
    NO_GRAD_NAMES,
    SET_ENABLED_NAMES,
    call_argument,
)

__all__ = ["GRAD_MODE_NAMES", "GRAD_OFF_NAMES", "INFERENCE_NAMES", "NO_GRAD_NAMES", "SET_ENABLED_NAMES"]


class RegionKind(str, Enum):
    """What a region does to grad mode."""

    NO_GRAD = "no_grad"
    INFERENCE = "inference_mode"
    ENABLE = "enable_grad"
    MAYBE = "maybe"  # a context manager that may or may not disable grad
    BOUNDARY = "boundary"  # a function body: the caller's grad mode is unknown


class GradState(str, Enum):
    """Whether grad is on at a point of the code, as far as the code shows."""

    ENABLED = "enabled"
    DISABLED = "disabled"
    MAYBE = "maybe"


NO_GRAD = RegionKind.NO_GRAD
INFERENCE = RegionKind.INFERENCE
ENABLE = RegionKind.ENABLE
MAYBE = RegionKind.MAYBE
BOUNDARY = RegionKind.BOUNDARY


@dataclass
class GradRegion:
    kind: RegionKind
    node: ast.AST  # the with-item / decorator / statement that opened it
    via: str  # "with", "decorator", "statement", "function"


def _const_bool(node: Optional[ast.AST]) -> Optional[bool]:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _mentions_grad(node: ast.AST) -> bool:
    for sub in walk_in_order(node):
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if name is not None:
            lowered = name.lower()
            if "grad" in lowered or "inference" in lowered:
                return True
    return False


def classify_grad_mode(expr: ast.AST, imports: ImportMap) -> Optional[RegionKind]:
    """What a ``with`` item or decorator does to grad mode, or None if nothing (worked out
    once per node and file: ``ImportMap.grad_modes``)."""
    known = imports.grad_modes
    if expr in known:
        found: Optional[RegionKind] = known[expr]
        return found
    kind = _classify(expr, imports)
    known[expr] = kind
    return kind


def entered_operand(expr: ast.AST) -> Optional[ast.expr]:
    """For a ``with`` item that is a boolean expression of calls (``torch.no_grad() and
    autocast()``): the operand whose context manager is entered. Objects are true, so ``and``
    yields its last operand and ``or`` its first; None where an operand may be false."""
    if not isinstance(expr, ast.BoolOp):
        return None
    if isinstance(expr.op, ast.And):
        if all(isinstance(operand, ast.Call) for operand in expr.values[:-1]):
            return expr.values[-1]
        return None
    return expr.values[0] if isinstance(expr.values[0], ast.Call) else None


def _classify(expr: ast.AST, imports: ImportMap) -> Optional[RegionKind]:
    entered = entered_operand(expr)
    if entered is not None:
        return _classify(entered, imports)  # `no_grad() and autocast()` enters autocast alone
    target = expr.func if isinstance(expr, ast.Call) else expr
    qual = imports.qualified_name(target)
    if qual in NO_GRAD_NAMES:
        return NO_GRAD
    if qual in ENABLE_NAMES:
        return ENABLE
    if qual in INFERENCE_NAMES:
        if isinstance(expr, ast.Call):
            arg = call_argument(expr, 0, "mode")
            if arg is not None:
                value = _const_bool(arg)
                if value is None:
                    return MAYBE
                return INFERENCE if value else None
        return INFERENCE
    if qual in SET_ENABLED_NAMES:
        arg = call_argument(expr, 0, "mode") if isinstance(expr, ast.Call) else None
        if arg is not None:
            value = _const_bool(arg)
            if value is None:
                return MAYBE
            return ENABLE if value else NO_GRAD
        return MAYBE
    if qual in GRAD_MODE_KEEPING_NAMES:
        return None  # `torch.autograd.profiler.profile()`: "grad" in the name, not in what it does
    if _mentions_grad(expr):
        return MAYBE
    return None
