"""Runtime guards for gradient control (need torch).

Each report names the static rule it corresponds to: GG102 (silent mutation of a saved
tensor), GG301 (graph kept beyond its step), GG503 (inference tensors kept for autograd).
"""

from .errors import GraphLeakError, GraphLeakWarning, SilentMutationError
from .inference import find_inference_tensors
from .leaks import LeakMonitor, assert_no_graph, no_graph_leak
from .report import GraphStats, TensorReport, explain, graph_stats
from .saved import SavedTensorGuard

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
