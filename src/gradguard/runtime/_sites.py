"""Find the line of user code that is running: the first frame outside torch and gradguard."""

from __future__ import annotations

import os
import sys
from types import CodeType

import torch

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__))
# gradguard's own machinery; demos.py is deliberately absent so that demonstrations
# point at their own lines.
_INTERNAL_FILES = frozenset(
    os.path.join(_HERE, name)
    for name in (
        "__init__.py",
        "_sites.py",
        "_hooks.py",
        "errors.py",
        "report.py",
        "leaks.py",
        "saved.py",
        "inference.py",
    )
) | {os.path.join(os.path.dirname(_HERE), "pytest_plugin.py")}

_is_internal_cache: dict[CodeType, bool] = {}


def _is_internal(code: CodeType) -> bool:
    try:
        return _is_internal_cache[code]
    except KeyError:
        name = code.co_filename
        internal = name.startswith(_TORCH_DIR) or os.path.abspath(name) in _INTERNAL_FILES or name.startswith("<frozen")
        if len(_is_internal_cache) > 10_000:
            _is_internal_cache.clear()
        _is_internal_cache[code] = internal
        return internal


def user_site(depth: int = 1) -> str:
    """``file:line`` of the innermost frame that is neither torch's nor gradguard's."""
    frame = sys._getframe(depth)
    while frame is not None:
        code = frame.f_code
        if not _is_internal(code):
            return f"{code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"
