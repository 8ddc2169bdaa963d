"""``GRADGUARD_RUN=1``: start a guarded session in a process as soon as it imports torch.

Used by ``boot/sitecustomize.py`` (the environment switch for launchers) and by ``gradguard
run`` for its child processes. The session's options come from ``GRADGUARD_OPTIONS`` (JSON);
the report is printed at exit on stderr, or written to ``GRADGUARD_OUTPUT`` (``{pid}`` and
``{rank}`` are replaced). A multiprocessing child (a spawned DataLoader worker) prints a report
only when it found something.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.machinery
import json
import os
import sys
from typing import Any

_session: Any = None


def activate() -> Any:
    """Start the process-wide session (idempotent)."""
    global _session
    if _session is not None:
        return _session
    from .session import Session

    try:
        options = json.loads(os.environ.get("GRADGUARD_OPTIONS") or "{}")
    except ValueError:
        options = {}
    fmt = options.pop("format", "text")
    known = {"saved", "leaks", "strict", "locate_mutations", "patience", "window"}
    _session = Session(**{k: v for k, v in options.items() if k in known})
    _session.start()
    atexit.register(_report_at_exit, fmt)
    return _session


def _report_at_exit(fmt: str) -> None:
    session = _session
    if session is None:
        return
    session.stop()
    findings = session.all_findings()
    if not findings and _is_multiprocessing_child():
        return
    from .cli import write_report

    target = " ".join(sys.argv)
    write_report(session, fmt=fmt, output=os.environ.get("GRADGUARD_OUTPUT"), target=target, exit_code=None)


def _is_multiprocessing_child() -> bool:
    mp = sys.modules.get("multiprocessing")
    try:
        return mp is not None and mp.parent_process() is not None
    except Exception:  # noqa: BLE001
        return False


class _TorchImportWatcher(importlib.abc.MetaPathFinder):
    """Activates the session right after ``import torch`` finishes."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module: Any) -> None:
            original_exec(module)
            try:
                activate()
            except Exception as exc:  # noqa: BLE001 - never break the guarded program
                sys.stderr.write(f"gradguard: GRADGUARD_RUN=1 ignored: {exc}\n")

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install_on_torch_import() -> None:
    if "torch" in sys.modules:
        activate()
    elif not any(isinstance(f, _TorchImportWatcher) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchImportWatcher())
