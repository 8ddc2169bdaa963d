"""``%load_ext gradguard`` and ``%gradguard on|off|report|status`` for IPython and Jupyter.

``%gradguard on`` starts the same guarded session as ``gradguard run`` in the kernel (options as
for ``gradguard run``: ``--strict``, ``--no-saved``, ``--no-leaks``, ``--locate-mutations``);
after each cell, findings that are new since the previous cell are printed; ``%gradguard
report`` prints all of them, ``%gradguard off`` prints the report and stops the session.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from .cli import build_parser

_session: Any = None
_shown: dict = {}
_ipython: Any = None


def _start(args: list[str]) -> str:
    global _session
    from .session import Session

    if _session is not None:
        return "gradguard: already on (use %gradguard off first)"
    options = build_parser().parse_args(args)
    _session = Session(
        saved=not options.no_saved,
        leaks=not options.no_leaks,
        strict=options.strict,
        locate_mutations=options.locate_mutations,
        patience=options.patience,
        window=options.window,
    )
    _session.start()
    _shown.clear()
    return "gradguard: on (SavedTensorGuard, LeakMonitor, steps from optimizer steps)"


def _report(session: Any) -> str:
    from .runreport import render_text

    return render_text(session.all_findings(), session.summary(), target="notebook")


def _stop() -> str:
    global _session
    if _session is None:
        return "gradguard: off"
    session, _session = _session, None
    session.stop()
    return _report(session) + "gradguard: off"


def gradguard_magic(line: str) -> None:
    """%gradguard on [options] | off | report | status"""
    words = shlex.split(line)
    command = words[0] if words else "status"
    try:
        if command == "on":
            print(_start(words[1:]))
        elif command == "off":
            print(_stop())
        elif command == "report":
            print(_report(_session) if _session is not None else "gradguard: off")
        elif command == "status":
            print("gradguard: on" if _session is not None else "gradguard: off")
        else:
            print(f"gradguard: unknown command {command!r} (on, off, report, status)", file=sys.stderr)
    except SystemExit:  # argparse already printed the one-line error
        pass


def _after_cell(result: Any = None) -> None:
    session = _session
    if session is None:
        return
    for finding in session.all_findings():
        key = (finding.code, finding.where)
        if _shown.get(key) != finding.count:
            _shown[key] = finding.count
            print(f"gradguard: {finding.message}", file=sys.stderr)


def load_ipython_extension(ipython: Any) -> None:
    global _ipython
    _ipython = ipython
    ipython.register_magic_function(gradguard_magic, magic_kind="line", magic_name="gradguard")
    ipython.events.register("post_run_cell", _after_cell)


def unload_ipython_extension(ipython: Any) -> None:
    _stop()
    try:
        ipython.events.unregister("post_run_cell", _after_cell)
    except ValueError:
        pass
