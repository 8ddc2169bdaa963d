"""Instructions, not seconds: what ``gradguard check`` costs against bare parsing, counted by valgrind.

    python benchmarks/lint_instructions.py [PATH ...] [--sample 150]

CPU time on a shared machine moves by 20% or more from one round to the next; the number of
instructions a run executes does not (``PYTHONHASHSEED=0``), so this tells whether a change to
the engine made it cheaper. Each mode runs in its own interpreter under
``valgrind --tool=cachegrind --cache-sim=no`` (about 50x slower than normal, so a sample):

- ``baseline``: start-up, imports (every rule's module too), and reading every file: subtracted from the others;
- ``bare parse``: decode (``tokenize.detect_encoding``) + ``ast.parse`` per file;
- ``check 1 job``: ``pipeline.run`` with the default rules, no cache, every file (``--all-files``).

Instructions are not time (cache misses and branches differ), so ``lint_speed.py`` stays the
measure of the speed target; this one is for comparing two versions of the engine.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tools.corpus: the shared corpus definition

from tools.corpus import corpus_files, default_corpus  # noqa: E402

MODES = ("baseline", "bare parse", "check 1 job")


def child(mode: str, files: list) -> None:
    from gradguard.check.config import resolve
    from gradguard.check.rules import all_rules
    from gradguard.check.run.pipeline import run

    # Every mode imports the rules (compiling them where no bytecode is kept), so the baseline
    # subtracts that cost from the check whatever the environment.
    rules = all_rules()
    data = [(path, Path(path).read_bytes()) for path in files]
    if mode == "bare parse":
        for path, raw in data:
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
                ast.parse(raw.decode(encoding), path)
            except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
                pass
    elif mode == "check 1 job":
        run(files, resolve(rules, all_files=True))


def count(mode: str, list_file: Path) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--child",
            mode,
            "--list",
            str(list_file),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    match = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if match is None:
        raise SystemExit(f"error: no instruction count in valgrind's output for {mode!r}")
    return int(match.group(1).replace(",", ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=150, help="an evenly spaced sample of N files (0: all)")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--list", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.list.read_text().splitlines())
        return 0
    if shutil.which("valgrind") is None:
        print("error: valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    paths = args.paths or default_corpus()
    files = [os.path.abspath(f) for f in corpus_files(paths, args.sample or None)]
    list_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"gradguard-instructions-{os.getpid()}.txt"
    list_file.write_text("\n".join(files))
    try:
        counts = {mode: count(mode, list_file) for mode in MODES}
    finally:
        list_file.unlink(missing_ok=True)
    base = counts["baseline"]
    bare = counts["bare parse"] - base
    check = counts["check 1 job"] - base
    print(f"corpus: {', '.join(map(str, paths))}  files: {len(files)}  python: {sys.version.split()[0]}")
    print(f"  bare parse     {bare / 1e6:10.0f} M instructions")
    print(f"  check 1 job    {check / 1e6:10.0f} M instructions")
    print(f"  check 1 job / bare parse, instructions  {check / bare:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
