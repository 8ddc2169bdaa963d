"""Exceptions and warnings raised by the runtime guards; each carries its rule ``code``."""

from __future__ import annotations


class GraphLeakError(AssertionError):
    """A value still carries an autograd graph where none should survive (GG301)."""

    code = "GG301"


class GraphLeakWarning(UserWarning):
    """Graph memory created in earlier loop steps keeps growing (GG301)."""

    code = "GG301"


class SilentMutationError(RuntimeError):
    """A tensor saved for backward changed before backward read it (GG102)."""

    code = "GG102"
