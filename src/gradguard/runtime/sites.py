"""Which line of the user's code is running: the first frame outside libraries, torch and gradguard.

A site is a tuple ``(user_file, user_line, library_file, library_line)``: the innermost frame
that belongs to the user (not torch, not gradguard, not the standard library, not an
installed package) and, when the innermost frame outside torch and gradguard is library code
(transformers, timm ...), that library line too. Sites are tuples so that the hot path (one per
saved tensor) builds no string; ``format_site`` writes them out when a report is made.
"""

from __future__ import annotations

import os
import site as _site_module
import sys
import sysconfig
from types import CodeType

import torch

Site = tuple  # (user_file, user_line, library_file | None, library_line)

TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = os.path.dirname(_HERE) + os.sep
# demos.py is user code on purpose: demonstrations point at their own lines.
_USER_FILES_IN_PACKAGE = frozenset({os.path.join(_HERE, "demos.py")})

USER, LIBRARY, INTERNAL = 0, 1, 2


def _library_dirs() -> tuple[str, ...]:
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path) + os.sep)
            dirs.add(os.path.abspath(path) + os.sep)
    try:
        for path in _site_module.getsitepackages() + [_site_module.getusersitepackages()]:
            dirs.add(os.path.abspath(path) + os.sep)
    except AttributeError:  # some embedded interpreters have no site helpers
        pass
    return tuple(sorted(dirs))


_LIBRARY_DIRS = _library_dirs()
_kind_cache: dict[CodeType, int] = {}


def _classify(filename: str) -> int:
    if filename.startswith("<frozen") or filename.startswith(TORCH_DIR):
        return INTERNAL
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    if path.startswith(_PACKAGE) and path not in _USER_FILES_IN_PACKAGE:
        return INTERNAL
    if "site-packages" + os.sep in path or "dist-packages" + os.sep in path:
        return LIBRARY
    if any(path.startswith(d) for d in _LIBRARY_DIRS):
        return LIBRARY
    return USER


def kind_of(code: CodeType) -> int:
    try:
        return _kind_cache[code]
    except KeyError:
        kind = _classify(code.co_filename)
        if len(_kind_cache) > 20_000:
            _kind_cache.clear()
        _kind_cache[code] = kind
        return kind


def capture(depth: int = 1) -> Site:
    """The site of the caller ``depth`` frames up: its user frame and, if any, its library frame."""
    frame = sys._getframe(depth)
    library = None
    cache = _kind_cache
    while frame is not None:
        code = frame.f_code
        kind = cache.get(code)
        if kind is None:
            kind = kind_of(code)
        if kind == USER:
            if library is None:
                return (code.co_filename, frame.f_lineno, None, 0)
            return (code.co_filename, frame.f_lineno, library[0], library[1])
        if kind == LIBRARY and library is None:
            library = (code.co_filename, frame.f_lineno)
        frame = frame.f_back
    if library is not None:
        return (library[0], library[1], None, 0)
    return ("<unknown>", 0, None, 0)


def format_site(site: Site | None, *, with_library: bool = False) -> str:
    """``train.py:42``; with ``with_library`` the library line follows in parentheses."""
    if not site:
        return "<unknown>"
    user = f"{site[0]}:{site[1]}" if site[1] else site[0]
    if with_library and site[2]:
        return f"{user} (in {site[2]}:{site[3]})"
    return user


def library_line(site: Site | None) -> str | None:
    """The library frame of a site as ``file:line``, or None when the user's frame made the call."""
    if site and site[2]:
        return f"{site[2]}:{site[3]}"
    return None


def user_site(depth: int = 1) -> str:
    """``file:line`` of the innermost user frame (kept for callers that want a string)."""
    return format_site(capture(depth + 1))
