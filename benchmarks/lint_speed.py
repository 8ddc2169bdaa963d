"""How fast is ``gradguard check``? Every figure side by side, over the same files, in one run.

    python benchmarks/lint_speed.py [PATH ...] [--rounds 3] [--jobs N] [--sample N]
                                    [--torchfix-sample N] [--skip-torchfix]

Default corpus: the installed torch package's sources plus the folders under
``scratch/corpus/`` (see ``tests/corpus.py``). Every ``.py`` file is checked, whether it
imports torch or not (``--all-files``), so the checker parses exactly what the baseline does.

Each mode is timed by wall clock (``time.perf_counter``) and by CPU time (``getrusage`` of this
process and of the waited-for subprocesses and their workers), garbage collector on as in real
runs. Modes are interleaved round by round; ratios are medians over rounds of the per-round
ratio. On a shared machine, CPU-time ratios are the stable figure for single-process modes;
wall time is what counts for parallel and cached runs.

Modes:
- ``bare parse``: read + decode (``tokenize.detect_encoding``) + ``ast.parse`` per file, in-process;
- ``bare parse, checker's GC``: the same under the garbage-collector threshold a check run sets
  (``pipeline.fewer_collections``), to show how much of the check's ratio that setting buys;
- ``check 1 job``: the engine in-process (``pipeline.run``, default rules, no cache);
- ``walk every node``: as above plus a rule that handles every node type (a stand-in for a
  full rule set: the cost of the walk itself);
- ``engine, no rules``: the engine with no rule (read, decode, parse, import map, results):
  the floor of any check;
- ``walk alone``: the engine with only that every-node rule: every node of every function
  visited and handed to a no-op handler, no rule's own work (the floor of a check that walks);
- ``CLI 1 job`` / ``CLI N jobs``: ``gradguard check --no-cache`` as a subprocess;
- ``cold cache`` / ``warm cache``: the CLI with N jobs, first into an empty cache, then again;
- ``torchfix``: the ``torchfix --jobs 1`` command (PyPI) on an evenly spaced sample of the same
  files (150 by default: it is about 150x slower), against the in-process check of that sample;
- ``start-up``: ``gradguard check`` on one small file, and ``python -c pass`` for reference;
  also ``start-up, no bytecode``: the same where Python may neither read nor write compiled
  modules (``PYTHONDONTWRITEBYTECODE=1``, an empty ``PYTHONPYCACHEPREFIX``), as in containers
  that set that variable: every module of the checker is compiled again at each start;
- ``pyflakes``: read + decode + parse + ``pyflakes.checker.Checker`` per file, in-process (a
  one-pass checker of scopes and bindings, with no flow analysis: a reference for what any
  checker in Python that builds a model of the code costs above the parse; skipped when
  pyflakes is not installed; flake8, a test dependency, brings it).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tools.corpus: the shared corpus definition

from gradguard.check.config import resolve  # noqa: E402
from gradguard.check.rules import all_rules  # noqa: E402
from gradguard.check.rules.base import Rule  # noqa: E402
from gradguard.check.run.executor import default_jobs  # noqa: E402
from gradguard.check.run.pipeline import fewer_collections, run  # noqa: E402
from tools.corpus import corpus_files, default_corpus  # noqa: E402

GRADGUARD = [sys.executable, "-m", "gradguard"]
# Subprocesses read and write compiled modules in a folder of this run (``bytecode_env``), as an
# installed package does (pip compiles its modules when it installs them), whatever this
# environment's PYTHONDONTWRITEBYTECODE says.
SUBPROCESS_ENV: dict = dict(os.environ)


def bytecode_env(prefix: Path, write: bool = True) -> dict:
    """This environment with compiled modules kept under ``prefix`` (``write``: written there
    on first import, read after), or never written (``write=False``: with an empty ``prefix``,
    every module is compiled at each start)."""
    env = dict(os.environ)
    env["PYTHONPYCACHEPREFIX"] = str(prefix)
    if write:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def parsed_files(files: list) -> Iterator[tuple]:
    """(path, tree) of each file: read, decoded (``tokenize.detect_encoding``) and parsed; a file
    that does not parse is skipped."""
    for path in files:
        with open(path, "rb") as handle:
            data = handle.read()
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            tree = ast.parse(data.decode(encoding), path)
        except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
            continue
        yield path, tree


def bare_parse(files: list) -> None:
    for _ in parsed_files(files):
        pass


def pyflakes_check(files: list) -> None:
    """``bare_parse`` plus pyflakes' checker of each tree (its messages dropped)."""
    from pyflakes.checker import Checker

    for path, tree in parsed_files(files):
        Checker(tree, filename=path)


def _every_node_rule() -> type:
    """A rule class with a no-op handler for every AST node type and no triggers.

    Not for the parser's shared singletons (Load/Store, operators): no real rule visits those.
    """
    singletons = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    handlers = {
        f"visit_{name}": (lambda self, node, ctx: None)
        for name in dir(ast)
        if isinstance(getattr(ast, name), type)
        and issubclass(getattr(ast, name), ast.AST)
        and not issubclass(getattr(ast, name), singletons)
    }
    return type("EveryNode", (Rule,), {"code": "GG000", "name": "every-node", "summary": "benchmark probe", **handlers})


def check_in_process(files: list, probe: bool = False, rules: bool = True) -> None:
    config = resolve(all_rules() if rules else [], all_files=True)
    if probe:
        config = dataclasses.replace(config, rules=(*config.rules, _every_node_rule()))
    run(files, config)


def cli(files_arg: list, *flags: str) -> None:
    subprocess.run(
        [*GRADGUARD, "check", "--all-files", "--exit-zero", "-q", *flags, *files_arg],
        stdout=subprocess.DEVNULL,
        check=True,
        cwd=tempfile.gettempdir(),
        env=SUBPROCESS_ENV,
    )


def timed(fn) -> tuple:
    """(wall seconds, CPU seconds) of one call; CPU counts this process and waited-for children
    (subprocesses and their workers), so other load on a shared machine barely moves it."""

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    wall, used = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - wall, cpu() - used


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repeats of each mode")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="jobs for the parallel modes")
    parser.add_argument("--sample", type=int, default=None, help="an evenly spaced sample of N files")
    parser.add_argument(
        "--torchfix-sample",
        type=int,
        default=150,
        help="run torchfix on an evenly spaced N of the files (0: all; it takes ~1 s per 500 lines)",
    )
    parser.add_argument("--torchfix-rounds", type=int, default=1)
    parser.add_argument("--skip-torchfix", action="store_true")
    args = parser.parse_args(argv)

    paths = args.paths or default_corpus()
    files = [os.path.abspath(f) for f in corpus_files(paths, args.sample)]
    lines = 0
    for path in files:
        with open(path, "rb") as handle:
            lines += handle.read().count(b"\n")
    kloc = lines / 1000
    jobs = args.jobs
    work = Path(tempfile.mkdtemp(prefix="gradguard-bench-"))
    (work / "pyproject.toml").write_text("[tool.gradguard]\n")  # no project config leaks in
    list_file = work / "files.txt"
    list_file.write_text("\n".join(files))
    config = ["--config", str(work / "pyproject.toml")]
    SUBPROCESS_ENV.clear()
    SUBPROCESS_ENV.update(bytecode_env(work / "pycache"))
    small = work / "small.py"
    small.write_text("import torch\n\nwith torch.no_grad():\n    y = 1\n")

    def start_up(env: dict) -> None:
        """``gradguard check`` on the one small file, in ``env``."""
        command = [*GRADGUARD, "check", "-q", "--no-cache", *config, str(small)]
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)

    start_up(SUBPROCESS_ENV)  # compiles every module of the checker into the run's folder before any timing
    no_bytecode = bytecode_env(work / "no-pycache", write=False)

    print(f"corpus: {', '.join(map(str, paths))}")
    print(
        f"files: {len(files)}  lines: {lines}  cpus: {os.cpu_count()}  jobs: {jobs}  python: {sys.version.split()[0]}"
    )

    times: dict = {}  # wall seconds per mode
    cpu_times: dict = {}  # CPU seconds per mode

    def record(name: str, measured: tuple) -> None:
        times.setdefault(name, []).append(measured[0])
        cpu_times.setdefault(name, []).append(measured[1])

    try:
        import pyflakes  # noqa: F401
    except ImportError:
        with_pyflakes = False
    else:
        with_pyflakes = True
    bare_parse(files)  # warm the page cache
    for round_no in range(args.rounds):
        record("bare parse", timed(lambda: bare_parse(files)))
        if with_pyflakes:
            record("pyflakes", timed(lambda: pyflakes_check(files)))
        with fewer_collections():
            record("bare parse, checker's GC", timed(lambda: bare_parse(files)))
        record("check 1 job", timed(lambda: check_in_process(files)))
        record("walk every node", timed(lambda: check_in_process(files, probe=True)))
        record("engine, no rules", timed(lambda: check_in_process(files, rules=False)))
        record("walk alone", timed(lambda: check_in_process(files, probe=True, rules=False)))
        record("CLI 1 job", timed(lambda: cli(files, *config, "--no-cache", "--jobs", "1")))
        record(f"CLI {jobs} jobs", timed(lambda: cli(files, *config, "--no-cache", "--jobs", str(jobs))))
        cache_dir = work / f"cache{round_no}"
        record("cold cache", timed(lambda: cli(files, *config, "--cache-dir", str(cache_dir), "--jobs", str(jobs))))  # noqa: B023
        record("warm cache", timed(lambda: cli(files, *config, "--cache-dir", str(cache_dir), "--jobs", str(jobs))))  # noqa: B023
        print(
            f"  round {round_no + 1} (wall/CPU s): "
            + ", ".join(f"{k} {v[-1]:.2f}/{cpu_times[k][-1]:.2f}" for k, v in times.items()),
            flush=True,
        )

    for _ in range(10):
        record("python -c pass", timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)))
        record("start-up (1 small file)", timed(lambda: start_up(SUBPROCESS_ENV)))
        record("start-up, no bytecode", timed(lambda: start_up(no_bytecode)))

    torchfix_note = None
    torchfix = shutil.which("torchfix") or (
        str(Path(sys.executable).with_name("torchfix")) if Path(sys.executable).with_name("torchfix").exists() else None
    )
    tf_files = files
    if args.skip_torchfix:
        torchfix_note = "skipped (--skip-torchfix)"
    elif torchfix is None:
        torchfix_note = "skipped: torchfix is not installed (pip install torchfix)"
    else:
        if 0 < args.torchfix_sample < len(files):
            tf_files = [files[i * len(files) // args.torchfix_sample] for i in range(args.torchfix_sample)]
        tf_lines = sum(Path(f).read_bytes().count(b"\n") for f in tf_files)
        for _ in range(args.torchfix_rounds):
            record(
                "torchfix 1 job",
                timed(
                    lambda: subprocess.run(
                        [torchfix, "--jobs", "1", *tf_files], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    )
                ),
            )
            record("gradguard 1 job, torchfix files", timed(lambda: check_in_process(tf_files)))
    shutil.rmtree(work, ignore_errors=True)

    med = {name: statistics.median(values) for name, values in times.items()}
    cpu = {name: statistics.median(values) for name, values in cpu_times.items()}
    print()
    print(f"{'mode':34} {'wall s':>8} {'CPU s':>8} {'CPU ms/1k lines':>16} {'runs':>5}")
    for name in med:
        if name in ("python -c pass", "start-up (1 small file)", "start-up, no bytecode"):
            per = ""
        elif "torchfix" in name:
            per = f"{1000 * cpu[name] / (tf_lines / 1000):16.2f}"
        else:
            per = f"{1000 * cpu[name] / kloc:16.2f}"
        print(f"{name:34} {med[name]:8.3f} {cpu[name]:8.3f} {per:>16} {len(times[name]):5d}")
    print()

    def per_round(a: str, b: str, table: dict) -> float:
        return statistics.median(x / y for x, y in zip(table[a], table[b]))

    print("ratios: median over rounds of the per-round ratio (target in brackets)")
    print(
        f"  check 1 job / bare parse, CPU        {per_round('check 1 job', 'bare parse', cpu_times):6.2f}x  (<= 1.5x)"
        f"   wall: {per_round('check 1 job', 'bare parse', times):.2f}x"
    )
    same_gc = per_round("check 1 job", "bare parse, checker's GC", cpu_times)
    print(f"  check 1 job / bare parse with the checker's GC setting, CPU {same_gc:6.2f}x")
    print(
        f"  walk every node / bare parse, CPU    {per_round('walk every node', 'bare parse', cpu_times):6.2f}x"
        f"   wall: {per_round('walk every node', 'bare parse', times):.2f}x"
    )
    print(f"  engine, no rules / bare parse, CPU   {per_round('engine, no rules', 'bare parse', cpu_times):6.2f}x")
    if with_pyflakes:
        print(
            f"  pyflakes / bare parse, CPU           {per_round('pyflakes', 'bare parse', cpu_times):6.2f}x  (reference)"
        )
    print(f"  walk alone / bare parse, CPU         {per_round('walk alone', 'bare parse', cpu_times):6.2f}x")
    print(
        f"  CLI 1 job / bare parse, CPU          {per_round('CLI 1 job', 'bare parse', cpu_times):6.2f}x"
        f"   wall: {per_round('CLI 1 job', 'bare parse', times):.2f}x"
    )
    print(
        f"  CLI 1 job / CLI {jobs} jobs, wall          {per_round('CLI 1 job', f'CLI {jobs} jobs', times):6.2f}x"
        f"  (speed-up from jobs; CPU cost of jobs: {per_round(f'CLI {jobs} jobs', 'CLI 1 job', cpu_times):.2f}x)"
    )
    print(
        f"  cold cache / warm cache, wall        {per_round('cold cache', 'warm cache', times):6.2f}x  (>= 10x)"
        f"   CPU: {per_round('cold cache', 'warm cache', cpu_times):.2f}x"
    )
    print(
        f"  start-up, 1 small file, wall         {med['start-up (1 small file)']:6.3f} s  (< 0.2 s; python -c pass: "
        f"{med['python -c pass']:.3f} s)"
    )
    print(
        f"  start-up, no bytecode, wall          {med['start-up, no bytecode']:6.3f} s  (every module compiled at each start)"
    )
    if torchfix_note:
        print(f"  torchfix: {torchfix_note}")
    else:
        print(
            f"  torchfix 1 job / gradguard 1 job, CPU {per_round('torchfix 1 job', 'gradguard 1 job, torchfix files', cpu_times):6.2f}x"
            f"  (>= 10x)   wall: {per_round('torchfix 1 job', 'gradguard 1 job, torchfix files', times):.2f}x;"
            f" over {len(tf_files)} files, {tf_lines} lines"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
