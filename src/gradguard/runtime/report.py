"""explain / graph_stats: what autograd state a tensor has and how much graph it keeps alive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import torch

from ._hooks import Packed, capture_sites


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


def format_bytes(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


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


def _storage_key(t: torch.Tensor) -> tuple[int, int]:
    try:
        storage = t.untyped_storage()
        return storage.data_ptr(), storage.nbytes()
    except (RuntimeError, NotImplementedError):
        return id(t), t.element_size() * t.numel()


def walk_graph(grad_fn: Any) -> tuple[GraphStats, list[str]]:
    """Stats of the graph under ``grad_fn`` and the save sites gradguard recorded in it."""
    if grad_fn is None:
        return GraphStats(0, 0, 0), []
    seen: dict[int, Any] = {}
    storages: dict[int, int] = {}
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
                key, nbytes = _storage_key(t)
                storages[key] = nbytes
            for child, _ in node.next_functions:
                if child is not None and id(child) not in seen:
                    stack.append(child)
    sites = []
    for packed in packed_seen:
        if isinstance(packed, Packed) and packed.site not in sites:
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
