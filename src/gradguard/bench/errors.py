"""The one exception the bench command turns into a one-line error and exit code 2."""

from __future__ import annotations


class BenchInputError(Exception):
    """Bad input from the user (unknown model, wrong shape, missing device ...)."""
