"""Exceptions and warnings raised by the runtime guards; each carries its rule ``code``."""

from __future__ import annotations

from typing import Any


class GraphLeakError(AssertionError):
    """A value still carries an autograd graph where none should survive (GG301)."""

    code = "GG301"


class GraphLeakWarning(UserWarning):
    """Graph memory created in earlier loop steps keeps growing (GG301)."""

    code = "GG301"


class SilentMutationError(RuntimeError):
    """A tensor saved for backward changed before backward read it (GG102; GG208 for a parameter
    updated in place between forward and backward)."""

    code = "GG102"

    def __init__(self, message: str, *, code: str | None = None, site: Any = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.site = site


class StrictStop(BaseException):
    """``gradguard run --strict``: the first finding stops the script.

    A BaseException, so that a script's ``except Exception`` does not swallow it."""

    def __init__(self, finding: Any) -> None:
        super().__init__(str(finding))
        self.finding = finding
