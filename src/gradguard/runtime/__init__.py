"""Runtime guards for gradient control (need torch).

Each report names the static rule it corresponds to: GG102 (silent mutation of a saved
tensor), GG301 (graph kept beyond its step), GG503 (inference tensors kept for autograd).

The names below are loaded on first use, so that ``gradguard.runtime.pytest_plugin`` (loaded
by every pytest run through its entry point) does not import torch for test suites that
never use the guards.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "GraphLeakError": ".errors",
    "GraphLeakWarning": ".errors",
    "SilentMutationError": ".errors",
    "find_inference_tensors": ".inference",
    "LeakMonitor": ".leaks",
    "assert_no_graph": ".leaks",
    "no_graph_leak": ".leaks",
    "GraphStats": ".introspect",
    "TensorReport": ".introspect",
    "explain": ".introspect",
    "graph_stats": ".introspect",
    "SavedTensorGuard": ".saved",
}

__all__ = [
    "explain",
    "graph_stats",
    "assert_no_graph",
    "no_graph_leak",
    "SavedTensorGuard",
    "LeakMonitor",
    "find_inference_tensors",
    "TensorReport",
    "GraphStats",
    "GraphLeakError",
    "GraphLeakWarning",
    "SilentMutationError",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
