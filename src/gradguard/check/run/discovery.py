"""Which files a run checks: walk the given paths, skip what is excluded."""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Optional

from gradguard.check.config import Config

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


def discover(
    paths: Iterable[str],
    config: Config,
    suffixes: tuple[str, ...] = SOURCE_SUFFIXES,
    errors: Optional[list[tuple[str, str]]] = None,
) -> Iterator[str]:
    """Yield files to check in a stable order.

    Paths named explicitly are checked even if excluded, unless ``config.force_exclude``
    (what pre-commit needs: it names every staged file). Unreadable directories and symlink
    loops are reported into ``errors`` as (path, reason).
    """
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            for found in _walk(path, config, suffixes, errors):
                key = os.path.realpath(found)
                if key not in seen:
                    seen.add(key)
                    yield os.path.normpath(found)
        elif os.path.exists(path) or os.path.islink(path):
            if config.force_exclude and config.is_excluded_path(path):
                continue
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path
        elif errors is not None:
            errors.append((path, "No such file or directory"))


def _walk(
    root: str, config: Config, suffixes: tuple[str, ...], errors: Optional[list[tuple[str, str]]]
) -> Iterator[str]:
    visited_dirs: set[str] = set()

    def onerror(exc: OSError) -> None:
        if errors is not None:
            errors.append((exc.filename or root, exc.strerror or str(exc)))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited_dirs:
            dirnames[:] = []
            continue
        visited_dirs.add(real)
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if d.startswith(".") or config.is_excluded(full):
                continue
            if os.path.exists(os.path.join(full, "pyvenv.cfg")):  # a virtual environment
                continue
            if os.path.realpath(full) in visited_dirs:
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.endswith(suffixes):
                full = os.path.join(dirpath, name)
                if not config.is_excluded(full):
                    yield full
