"""pytest plugin for gradguard's runtime guards (registered through ``pytest11``).

It must not import torch at import time: it is loaded in every pytest run of an
environment where gradguard is installed. torch is imported only when ``--gradguard``,
the ``gradguard`` marker or the ``gradguard_monitor`` fixture is used.

- ``--gradguard``: every test runs under ``gradguard.SavedTensorGuard`` (GG102).
- ``--gradguard-leaks``: every test fails when graph memory made during it is still alive after
  it returned (GG301), as with the marker below.
- ``@pytest.mark.gradguard(leaks=True)``: the test fails when graph memory made during
  the test is still alive after it returned (GG301). ``saved=True`` adds the
  SavedTensorGuard to that test alone.
- ``gradguard_monitor`` fixture: a strict ``gradguard.LeakMonitor`` already entered; call
  ``gradguard_monitor.step()`` once per loop iteration.
"""

from __future__ import annotations

import gc
from typing import Any, Iterator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gradguard")
    group.addoption(
        "--gradguard",
        action="store_true",
        default=False,
        help="run every test under gradguard.SavedTensorGuard (tensors saved for backward "
        "that change before backward read them fail the test, GG102)",
    )
    group.addoption(
        "--gradguard-leaks",
        action="store_true",
        default=False,
        help="fail every test whose autograd graph memory is still alive after it returned (GG301)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "gradguard(leaks=False, saved=False): leaks=True fails the test when autograd graph "
        "memory made during it is still alive afterwards (GG301); saved=True runs it under "
        "gradguard.SavedTensorGuard (GG102).",
    )


def _options(item: pytest.Item) -> tuple[bool, bool]:
    saved = bool(item.config.getoption("gradguard", default=False))
    leaks = bool(item.config.getoption("gradguard_leaks", default=False))
    for marker in item.iter_markers(name="gradguard"):
        unknown = set(marker.kwargs) - {"leaks", "saved"}
        if marker.args or unknown:
            raise pytest.UsageError(
                f"{item.nodeid}: gradguard marker takes only leaks=... and saved=..., "
                f"got {marker.args or sorted(unknown)}"
            )
        leaks = leaks or bool(marker.kwargs.get("leaks", False))
        saved = saved or bool(marker.kwargs.get("saved", False))
    return saved, leaks


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    __tracebackhide__ = True
    saved, leaks = _options(item)
    if not (saved or leaks):
        return (yield)

    from gradguard import runtime

    monitor = runtime.LeakMonitor() if leaks else None
    guard = runtime.SavedTensorGuard() if saved else None
    if monitor is not None:
        monitor.__enter__()
    try:
        if guard is not None:
            guard.__enter__()
        try:
            result = yield
        finally:
            if guard is not None:
                guard.__exit__(None, None, None)
    finally:
        if monitor is not None:
            monitor.__exit__(None, None, None)
    if monitor is not None:
        gc.collect()
        alive = monitor.live_graph_bytes()
        nodes = monitor.live_graph_nodes()
        if alive or nodes:
            from gradguard.common.text import format_bytes
            from gradguard.runtime.leaks import plural

            sites = monitor.live_sites()
            what = plural(nodes, "graph node") + f" and {format_bytes(alive)} saved for backward"
            verb = "is" if nodes <= 1 and not alive else "are"
            raise runtime.GraphLeakError(
                f"GG301 graph leak: {what}, made during {item.nodeid}, {verb} still alive after it "
                f"returned (saved at {', '.join(sites[:3]) or '<unknown>'}). Something outside the "
                f"test keeps a graph-carrying tensor: store .item() or .detach()."
            )
    return result


@pytest.fixture
def gradguard_monitor() -> Iterator[Any]:
    """A strict gradguard.LeakMonitor, entered for the test; call ``.step()`` per iteration."""
    from gradguard import runtime

    with runtime.LeakMonitor(strict=True) as monitor:
        yield monitor
