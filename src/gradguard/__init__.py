"""gradguard: find and prevent gradient-control bugs in PyTorch code.

The static checker (``gradguard check``) needs only the standard library. The runtime
guards (``gradguard.explain``, ``gradguard.SavedTensorGuard`` ...) need torch and are
loaded lazily on first attribute access, so ``import gradguard`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradguard._version import __version__ as __version__

if TYPE_CHECKING:  # what type checkers see (re-exports); at run time these load on first use (below)
    from gradguard.runtime import (
        GraphLeakError as GraphLeakError,
        GraphLeakWarning as GraphLeakWarning,
        GraphStats as GraphStats,
        LeakMonitor as LeakMonitor,
        SavedTensorGuard as SavedTensorGuard,
        SilentMutationError as SilentMutationError,
        TensorReport as TensorReport,
        assert_no_graph as assert_no_graph,
        explain as explain,
        find_inference_tensors as find_inference_tensors,
        graph_stats as graph_stats,
        no_graph_leak as no_graph_leak,
    )

# Public runtime names, resolved lazily from gradguard.runtime (needs torch).
_RUNTIME_NAMES = frozenset(
    {
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
    }
)


def __getattr__(name: str) -> Any:
    if name in _RUNTIME_NAMES:
        from gradguard import runtime

        value = getattr(runtime, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gradguard' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext gradguard``: adds the ``%gradguard on|off|report|status`` magic (needs torch)."""
    from gradguard.runtime.notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from gradguard.runtime.notebook import unload_ipython_extension as unload

    unload(ipython)


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RUNTIME_NAMES)
