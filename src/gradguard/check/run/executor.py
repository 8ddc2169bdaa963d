"""Apply a function to many items in worker processes, with the results in the input's order.

Generic: it knows nothing of files or rules. The function is sent to each worker once (at
start-up), then the items travel in chunks. Small runs stay in-process: starting workers
costs more than it saves. If workers cannot be started, or one dies, the unfinished items
are done in-process.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

Item = TypeVar("Item")
Result = TypeVar("Result")

# Below this many items, a run stays in one process.
MIN_ITEMS_FOR_POOL = 48
MAX_CHUNK = 32


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def chunks_for(items: Sequence[Item], jobs: int) -> list[Sequence[Item]]:
    """Contiguous chunks, about four per worker (load balance), at most MAX_CHUNK items each."""
    size = max(1, min(MAX_CHUNK, len(items) // (jobs * 4) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _context() -> BaseContext:
    import multiprocessing

    # fork starts workers in milliseconds with gradguard already imported; elsewhere
    # (macOS, Windows) use the platform's default.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


_WORKER_FUNCTION: Optional[Callable[[Any], Any]] = None


def _init_worker(function: Callable[[Any], Any], setup: Optional[Callable[[], None]]) -> None:
    global _WORKER_FUNCTION
    if setup is not None:
        setup()
    _WORKER_FUNCTION = function


def _run_chunk(chunk: Sequence[Any]) -> list[Any]:
    assert _WORKER_FUNCTION is not None, "worker not initialised"
    return [_WORKER_FUNCTION(item) for item in chunk]


def map_parallel(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    worker_setup: Optional[Callable[[], None]] = None,
) -> list[Result]:
    """``[function(item) for item in items]``, spread over up to ``jobs`` worker processes.

    ``function`` and ``worker_setup`` (run once in each worker before its first item) must
    be picklable where workers are spawned rather than forked (module-level functions, or
    instances of module-level classes).
    """
    if jobs <= 1 or len(items) < MIN_ITEMS_FOR_POOL:
        return [function(item) for item in items]
    # Imported here: a one-file run should not pay for multiprocessing's start-up.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunks = chunks_for(items, jobs)
    done: list[list[Result]] = []
    try:
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(chunks)),
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(function, worker_setup),
        ) as pool:
            for part in pool.map(_run_chunk, chunks):
                done.append(part)
    except (BrokenProcessPool, OSError, RuntimeError):
        pass  # finish in-process below
    results = [result for part in done for result in part]
    for chunk in chunks[len(done) :]:
        results.extend(function(item) for item in chunk)
    return results
