"""Bugs inside gradguard met while checking a file: never the user's fault, never fatal."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Optional


class RuleFailure(Exception):
    """A rule's handler raised: carries the rule and the node it was looking at."""

    def __init__(self, handler: Callable[..., object], node: ast.AST, error: BaseException):
        super().__init__(str(error))
        self.rule = getattr(handler, "__self__", None)
        self.node = node
        self.error = error


@dataclass
class InternalError:
    """A bug inside gradguard met while checking one file (never the user's fault).

    ``where`` is the rule code whose code raised, or ``"engine"``. The run goes on: the failing
    rule is dropped for that file only, and the run ends with exit code 2.
    """

    where: str
    filename: str
    row: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"internal error in {self.where} on {self.filename}:{self.row}:{self.column}: {self.message}"


def internal_error(where: str, filename: str, error: BaseException, node: Optional[ast.AST] = None) -> InternalError:
    row = getattr(node, "lineno", None) or 1
    column = (getattr(node, "col_offset", None) or 0) + 1
    text = str(error).splitlines()[0] if str(error) else ""
    message = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return InternalError(where, filename, row, column, message)
