"""explain / graph_stats: what autograd state a tensor has and how much graph it keeps alive.

(``inspect`` would shadow the standard library module of that name inside this package.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import torch

from gradguard.common.storage import storage_key
from gradguard.common.text import format_bytes

from .hooks import PackRecord, capture_sites


@dataclass(frozen=True)
class GraphStats:
    """Size of the autograd graph behind a tensor; each storage is counted once."""

    nodes: int
    saved_tensors: int
    saved_bytes: int


@dataclass(frozen=True)
class TensorReport:
    shape: tuple
    dtype: torch.dtype
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    is_inference: bool
    version: int | None
    graph_nodes: int
    saved_tensors: int
    saved_bytes: int

    def __str__(self) -> str:
        if self.is_inference:
            state = "inference tensor: cannot be saved for backward (GG503 if kept for training)"
        elif self.grad_fn is not None:
            state = f"carries a graph: grad_fn={self.grad_fn}"
        elif self.requires_grad:
            state = "leaf that requires grad (gradients accumulate in .grad)"
        else:
            state = "plain tensor: no grad, no graph"
        lines = [
            f"tensor {tuple(self.shape)} {self.dtype}: {state}",
            f"  requires_grad={self.requires_grad} is_leaf={self.is_leaf} "
            f"is_inference={self.is_inference} version={self.version}",
        ]
        if self.grad_fn is not None:
            lines.append(
                f"  graph kept alive: {self.graph_nodes} nodes, {self.saved_tensors} saved "
                f"tensors, {format_bytes(self.saved_bytes)} saved"
            )
        return "\n".join(lines)


_saved_names_cache: dict[type, tuple[str, ...]] = {}


def _saved_names(node_type: type) -> tuple[str, ...]:
    try:
        return _saved_names_cache[node_type]
    except KeyError:
        names = tuple(n for n in dir(node_type) if n.startswith("_saved_") and not n.startswith("_saved_tensors_"))
        _saved_names_cache[node_type] = names
        return names


def _tensors_in(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, torch.Tensor):
                yield item


def _saved_of(node: Any) -> Iterator[torch.Tensor]:
    if isinstance(node, torch.autograd.function.BackwardCFunction):
        try:
            yield from node.saved_tensors
        except RuntimeError:
            pass  # already freed by a backward pass
        for value in vars(node).values():  # tensors kept as ctx attributes
            yield from _tensors_in(value)
        return
    for name in _saved_names(type(node)):
        try:
            value = getattr(node, name)
        except RuntimeError:
            continue  # freed after backward
        yield from _tensors_in(value)


def walk_graph(grad_fn: Any) -> tuple[GraphStats, list[tuple]]:
    """Stats of the graph under ``grad_fn`` and the save sites gradguard recorded in it."""
    if grad_fn is None:
        return GraphStats(0, 0, 0), []
    seen: dict[int, Any] = {}
    storages: dict[tuple, int] = {}
    saved = 0
    stack = [grad_fn]
    with capture_sites() as packed_seen:
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            for t in _saved_of(node):
                saved += 1
                key = storage_key(t)
                storages[key] = key[2]
            for child, _ in node.next_functions:
                if child is not None and id(child) not in seen:
                    stack.append(child)
    sites = []
    for packed in packed_seen:
        if isinstance(packed, PackRecord) and packed.site not in sites:
            sites.append(packed.site)
    return GraphStats(len(seen), saved, sum(storages.values())), sites


def graph_stats(t: torch.Tensor) -> GraphStats:
    """Nodes, saved tensors and saved bytes of the graph ``t`` keeps alive."""
    return walk_graph(t.grad_fn)[0]


def explain(t: torch.Tensor) -> TensorReport:
    """A tensor's autograd state and the size of the graph it holds alive."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"explain() expects a torch.Tensor, got {type(t).__name__}")
    inference = t.is_inference()
    stats = graph_stats(t)
    return TensorReport(
        shape=tuple(t.shape),
        dtype=t.dtype,
        requires_grad=t.requires_grad,
        is_leaf=t.is_leaf,
        grad_fn=type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        is_inference=inference,
        version=None if inference else t._version,
        graph_nodes=stats.nodes,
        saved_tensors=stats.saved_tensors,
        saved_bytes=stats.saved_bytes,
    )
