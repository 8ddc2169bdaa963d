"""Checking many files in worker processes, with results in the order of the input.

Workers receive rule codes (not rule objects) and rebuild the rules once each, then take
chunks of files. Small runs stay in-process: starting workers costs more than it saves.
If workers cannot be started, or one dies, the unfinished files are checked in-process.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

# Below this many files to check, a run stays in one process.
MIN_FILES_FOR_POOL = 48
MAX_CHUNK = 32


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def chunks_for(tasks: list, jobs: int) -> list:
    """Contiguous chunks, about four per worker (load balance), at most MAX_CHUNK files each."""
    size = max(1, min(MAX_CHUNK, len(tasks) // (jobs * 4) or 1))
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _context():
    import multiprocessing

    # fork starts workers in milliseconds with gradguard already imported; elsewhere
    # (macOS, Windows) use the platform's default.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _rule_specs(rules: list) -> list:
    """A code for each rule that the catalogue resolves back to its class, else the class."""
    from gradguard.check.rules import rule_by_code

    return [rule.code if rule_by_code(rule.code) is type(rule) else type(rule) for rule in rules]


_WORKER_STATE: Optional[tuple] = None


def _init_worker(specs: list, settings, options, cache) -> None:
    from gradguard.check.rules import rule_by_code

    global _WORKER_STATE
    import gc

    from gradguard.check.run.pipeline import GC_THRESHOLD

    gc.set_threshold(max(gc.get_threshold()[0], GC_THRESHOLD), *gc.get_threshold()[1:])
    rules = [(rule_by_code(spec) if isinstance(spec, str) else spec)() for spec in specs]
    _WORKER_STATE = (rules, settings, options, cache)


def _run_chunk(chunk: list) -> list:
    from gradguard.check.run.pipeline import check_task

    rules, settings, options, cache = _WORKER_STATE
    return [check_task(path, key, rules, settings, options, cache) for path, key in chunk]


def map_tasks(tasks: list, rules: list, settings, options, cache, jobs: int) -> list:
    """Run ``check_task`` for every ``(path, cache_key)``; one RunResult per task, in order."""
    from gradguard.check.run.pipeline import check_task

    def in_process(items: list) -> list:
        return [check_task(path, key, rules, settings, options, cache) for path, key in items]

    if jobs <= 1 or len(tasks) < MIN_FILES_FOR_POOL:
        return in_process(tasks)
    # Imported here: a one-file run should not pay for multiprocessing's start-up.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunks = chunks_for(tasks, jobs)
    done: list = []
    try:
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(chunks)),
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(_rule_specs(rules), settings, options, cache),
        ) as pool:
            for part in pool.map(_run_chunk, chunks):
                done.append(part)
    except (BrokenProcessPool, OSError, RuntimeError):
        pass  # finish in-process below
    results = [result for part in done for result in part]
    for chunk in chunks[len(done) :]:
        results.extend(in_process(chunk))
    return results
