"""``gradguard`` command line: dispatches to the wing that owns each command.

``check``, ``rules`` and ``explain`` belong to the checker (standard library only);
``explain --run``, ``run`` and ``bench`` need torch and ``server`` needs pygls
(``gradguard[lsp]``): they are imported only when asked for.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, Optional

from gradguard.check.cli import EXIT_ERROR, EXIT_OK

# Ctrl-C: every command prints "gradguard: interrupted" and exits 128 + SIGINT, as shells do.
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from gradguard._version import __version__
    from gradguard.check import cli as check_cli

    parser = _Parser(prog="gradguard", description="Find and prevent gradient-control bugs in PyTorch code.")
    parser.add_argument("--version", action="version", version=f"gradguard {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    check_cli.add_commands(sub)
    sub.add_parser("bench", help="measure gradient-control costs (needs torch)", add_help=False)
    sub.add_parser("server", help="run the language server over stdio (needs gradguard[lsp])")
    sub.add_parser("run", help="run a script under the runtime guards, report at exit (needs torch)", add_help=False)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except KeyboardInterrupt:
        print("gradguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "bench":
        return _bench(argv[1:])
    if argv and argv[0] == "run":
        return _run(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    if args.command == "server":
        return _server()
    if args.command == "explain" and args.run:
        return _explain_run(args.code)
    from gradguard.check.cli import run_command

    return run_command(args)


def _error(message: str) -> int:
    print(f"gradguard: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _explain_run(code: str) -> int:
    from gradguard.check.cli import rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        return _error(f"unknown rule code: {code} (see 'gradguard rules')")
    try:
        from gradguard.runtime.demos import run_demo
    except ImportError as exc:
        return _error(f"--run needs torch (pip install 'gradguard[torch]'): {exc}")
    try:
        print(run_demo(rule.code))
    except KeyError:
        return _error(f"{rule.code} has no run-time demonstration: its consequence shows only in the code")
    return EXIT_OK


def _server() -> int:
    try:
        from gradguard.check.integrations.lsp import main as server_main
    except ImportError as exc:
        return _error(f"server needs pygls and lsprotocol (pip install 'gradguard[lsp]'): {exc}")
    return server_main()


def _run(argv: list[str]) -> int:
    from gradguard.runtime.cli import main as run_main

    code: int = run_main(argv)
    return code


def _bench(argv: list[str]) -> int:
    try:
        from gradguard.bench.cli import main as bench_main
    except ImportError as exc:
        return _error(f"bench needs torch, matplotlib and tqdm (pip install 'gradguard[bench]'): {exc}")
    code: int = bench_main(argv)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
