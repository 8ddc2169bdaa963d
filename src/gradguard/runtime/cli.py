"""``gradguard run [options] script.py [args...]`` / ``gradguard run [options] -m module [args...]``.

Runs an unmodified script the way ``python script.py`` would (``sys.argv``, ``__main__``, the
script's folder first on ``sys.path``, its exit code, its output, a traceback as Python prints
it) under a guarded ``Session``, and prints a report of the findings at exit (on stderr, or into
``--output``). Child Python processes (launchers such as torchrun, spawned DataLoader workers)
inherit ``GRADGUARD_RUN=1`` and a ``PYTHONPATH`` entry that guards them too (``--no-children``
turns that off).
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import shutil
import signal
import sys
import types
from typing import Any

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

USAGE = "gradguard run [options] script.py [args ...] | gradguard run [options] -m module [args ...]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(EXIT_ERROR, f"gradguard run: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gradguard run",
        usage=USAGE,
        description="Run a Python script or module under gradguard's runtime guards and report at exit.",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default text)")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard error")
    parser.add_argument("--strict", action="store_true", help="stop at the first finding with exit code 1")
    parser.add_argument("--no-saved", action="store_true", help="without SavedTensorGuard (GG102/GG501)")
    parser.add_argument("--no-leaks", action="store_true", help="without LeakMonitor (GG301)")
    parser.add_argument(
        "--locate-mutations",
        action="store_true",
        help="name the line that changed a saved tensor (every torch call goes through Python: slow)",
    )
    parser.add_argument("--patience", type=int, default=3, help="leak: growths within the window (default 3)")
    parser.add_argument("--window", type=int, default=100, help="leak: steps looked back over (default 100)")
    parser.add_argument(
        "--no-children", action="store_true", help="do not guard child Python processes (launchers, workers)"
    )
    parser.add_argument(
        "--print-env",
        action="store_true",
        help="print the environment (GRADGUARD_RUN=1, PYTHONPATH) that guards any Python process, and exit",
    )
    return parser


def boot_folder() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")


def split_argv(argv: list[str]) -> tuple[list[str], str | None, str | None, list[str]]:
    """(gradguard options, script, module, the program's own arguments)."""
    options: list[str] = []
    takes_value = {"--format", "--output", "--patience", "--window"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-m":
            if i + 1 >= len(argv):
                return options, None, "", []
            return options, None, argv[i + 1], argv[i + 2 :]
        if arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            return options, None, arg[2:], argv[i + 1 :]
        if arg == "--":
            rest = argv[i + 1 :]
            return options, (rest[0] if rest else None), None, rest[1:]
        if arg.startswith("-"):
            options.append(arg)
            if arg in takes_value:
                if i + 1 < len(argv):
                    options.append(argv[i + 1])
                i += 1
            i += 1
            continue
        return options, arg, None, argv[i + 1 :]
    return options, None, None, []


def _error(message: str) -> int:
    print(f"gradguard run: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _strip_traceback(tb: Any) -> Any:
    """Drop gradguard's and runpy's own frames, so the traceback reads as Python prints it."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    runpy_file = os.path.abspath(runpy.__file__)

    def ours(frame: Any) -> bool:
        name = frame.f_code.co_filename
        if name.startswith("<frozen runpy"):
            return True
        if name.startswith("<"):
            return False
        path = os.path.abspath(name)
        return path == runpy_file or (path.startswith(here) and not path.endswith("demos.py"))

    kept = []
    while tb is not None:
        if not ours(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for item in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, item.tb_frame, item.tb_lasti, item.tb_lineno)
    return rebuilt


def _print_exception(exc: BaseException) -> None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:  # chained causes read the same way
        seen.add(id(current))
        current.__traceback__ = _strip_traceback(current.__traceback__)
        current = current.__cause__ or current.__context__
    sys.excepthook(type(exc), exc, exc.__traceback__)


def child_environment(options: dict) -> None:
    """Guard child Python processes: GRADGUARD_RUN=1 and the boot folder first on PYTHONPATH."""
    boot = boot_folder()
    path = os.environ.get("PYTHONPATH", "")
    parts = [p for p in path.split(os.pathsep) if p]
    if boot not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([boot, *parts])
    os.environ["GRADGUARD_RUN"] = "1"
    os.environ["GRADGUARD_OPTIONS"] = json.dumps(options)


def write_report(session: Any, *, fmt: str, output: str | None, target: str, exit_code: Any) -> None:
    from .runreport import render_json, render_text

    findings = session.all_findings()
    summary = session.summary()
    if fmt == "json":
        text = render_json(findings, summary, target=target, exit_code=exit_code)
    else:
        text = render_text(findings, summary, target=target)
    if output:
        output = output.replace("{pid}", str(os.getpid())).replace("{rank}", os.environ.get("RANK", "0"))
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stderr.write(text)
        sys.stderr.flush()


def _is_python_file(path: str) -> bool:
    """A console script (``#!.../python``) or a ``.py`` file."""
    if path.endswith(".py"):
        return True
    try:
        with open(path, "rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _exit_code(code: Any) -> int:
    """What Python makes of ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    option_args, script, module, program_args = split_argv(argv)
    if option_args[:1] in (["-h"], ["--help"]) or (script is None and module is None and not option_args):
        build_parser().print_help()
        return EXIT_OK if option_args[:1] in (["-h"], ["--help"]) else EXIT_ERROR
    args = build_parser().parse_args(option_args)
    if args.print_env:
        print("GRADGUARD_RUN=1")
        print(f"PYTHONPATH={os.pathsep.join(p for p in [boot_folder(), os.environ.get('PYTHONPATH', '')] if p)}")
        return EXIT_OK
    if module == "":
        return _error("argument -m: expected a module name")
    if script is None and module is None:
        return _error("no script or -m module given")
    if args.patience < 1 or args.window < 1:
        return _error("--patience and --window must be at least 1")
    if script is not None and not os.path.exists(script):
        found = None
        if os.sep not in script:
            # A console script of this environment (torchrun, accelerate), found beside the
            # interpreter even when the environment is not activated, else on PATH.
            beside = os.path.join(os.path.dirname(sys.executable), script)
            found = beside if os.path.isfile(beside) else shutil.which(script)
        if found is None or not _is_python_file(found):
            return _error(f"can't open file {script!r}: [Errno 2] No such file or directory")
        script = found  # a console script such as torchrun or accelerate
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            return _error(f"--output: folder {folder} does not exist")
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        return _error(f"needs torch (pip install 'gradguard[torch]'): {exc}")

    from .errors import StrictStop
    from .session import Session

    options = {
        "saved": not args.no_saved,
        "leaks": not args.no_leaks,
        "strict": args.strict,
        "locate_mutations": args.locate_mutations,
        "patience": args.patience,
        "window": args.window,
    }
    if not args.no_children:
        child_environment({**options, "format": args.format})
    target = " ".join([f"-m {module}" if module else script, *program_args])
    session = Session(**options)
    saved_argv, saved_path0 = list(sys.argv), (sys.path[0] if sys.path else None)
    interrupted = False
    code: int = 0
    if module is not None:
        sys.argv = [module, *program_args]
        sys.path[0:1] = [os.getcwd()]
    else:
        assert script is not None
        sys.argv = [script, *program_args]
        folder = script if os.path.isdir(script) else os.path.dirname(os.path.realpath(script))
        sys.path[0:1] = [folder]
    session.start()
    try:
        if module is not None:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(os.path.abspath(script), run_name="__main__")  # type: ignore[arg-type]
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except StrictStop as stop:
        session.stop()
        print(
            f"gradguard run --strict: stopped at the first finding ({stop.finding.code} at {stop.finding.where})",
            file=sys.stderr,
        )
        code = EXIT_FINDINGS
    except ImportError as exc:
        if module is not None and getattr(exc, "name", None) == module.split(".")[0] and exc.__traceback__:
            session.stop()
            return _error(str(exc))
        _print_exception(exc)
        code = 1
    except KeyboardInterrupt as exc:
        _print_exception(exc)
        interrupted = True
        code = 130
    except BaseException as exc:  # noqa: BLE001 - the script's own error, printed as Python would
        _print_exception(exc)
        code = 1
    finally:
        session.stop()
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path:
            sys.path[0] = saved_path0
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    write_report(session, fmt=args.format, output=args.output, target=target, exit_code=code)
    if interrupted:
        # As Python does for an uncaught KeyboardInterrupt: die of SIGINT, so that the shell sees it.
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except (OSError, ValueError, AttributeError):
            pass
        return 130
    if args.strict and session.all_findings() and code == 0:
        return EXIT_FINDINGS
    return code


__all__ = ["main", "split_argv"]
