"""The generic parallel executor: any picklable function, results in input order."""

from __future__ import annotations

import os

import gradguard.check.run.executor as executor


def square_and_pid(item: int) -> tuple:
    return item * item, os.getpid()


_SETUP_PID = []


def mark_setup() -> None:
    _SETUP_PID.append(os.getpid())


def setup_seen(item: int) -> bool:
    return os.getpid() in _SETUP_PID


def test_results_in_input_order_from_workers():
    items = list(range(executor.MIN_ITEMS_FOR_POOL + 20))
    results = executor.map_parallel(square_and_pid, items, jobs=2)
    assert [value for value, _ in results] == [i * i for i in items]
    assert any(pid != os.getpid() for _, pid in results)  # workers did the work


def test_small_runs_and_one_job_stay_in_process():
    for items, jobs in ((list(range(5)), 4), (list(range(executor.MIN_ITEMS_FOR_POOL + 5)), 1)):
        results = executor.map_parallel(square_and_pid, items, jobs=jobs)
        assert {pid for _, pid in results} == {os.getpid()}


def test_worker_setup_runs_in_each_worker_before_its_items():
    items = list(range(executor.MIN_ITEMS_FOR_POOL + 4))
    assert all(executor.map_parallel(setup_seen, items, jobs=2, worker_setup=mark_setup))


def test_chunks_cover_every_item_once():
    items = list(range(1000))
    chunks = executor.chunks_for(items, 3)
    assert [i for chunk in chunks for i in chunk] == items
    assert max(len(c) for c in chunks) <= executor.MAX_CHUNK
