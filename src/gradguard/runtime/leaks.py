"""Graphs that outlive their step (GG301): assert_no_graph, no_graph_leak, LeakMonitor."""

from __future__ import annotations

import dataclasses
import functools
import gc
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TypeVar

import torch

from ._hooks import HookRegistration, Packed
from ._sites import _TORCH_DIR, user_site
from .errors import GraphLeakError, GraphLeakWarning
from .report import format_bytes, walk_graph

F = TypeVar("F", bound=Callable[..., Any])

# assert_no_graph reports GG301: a value that still carries a graph once it is returned,
# stored or logged is exactly what, kept across iterations, becomes a graph leak.
ASSERT_NO_GRAPH_CODE = "GG301"

_TRACEBACK_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _tensors_with_paths(obj: Any, path: str, seen: set[int]) -> Iterator[tuple[str, torch.Tensor]]:
    if isinstance(obj, torch.Tensor):
        yield path, obj
        return
    if id(obj) in seen:
        return
    if isinstance(obj, dict):
        seen.add(id(obj))
        for key, value in obj.items():
            yield from _tensors_with_paths(value, f"{path}[{key!r}]", seen)
    elif isinstance(obj, tuple) and hasattr(obj, "_fields"):
        seen.add(id(obj))
        for field in obj._fields:
            yield from _tensors_with_paths(getattr(obj, field), f"{path}.{field}", seen)
    elif isinstance(obj, (list, tuple)):
        seen.add(id(obj))
        for index, value in enumerate(obj):
            yield from _tensors_with_paths(value, f"{path}[{index}]", seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        seen.add(id(obj))
        for field in dataclasses.fields(obj):
            yield from _tensors_with_paths(getattr(obj, field.name), f"{path}.{field.name}", seen)


def _anomaly_site(grad_fn: Any) -> str | None:
    """The creation line torch recorded under ``detect_anomaly``, if any."""
    try:
        trace = grad_fn.metadata.get("traceback_")
    except (AttributeError, RuntimeError):
        return None
    if not trace:
        return None
    text = "".join(trace) if isinstance(trace, (list, tuple)) else str(trace)
    site = None
    for filename, line in _TRACEBACK_LINE.findall(text):
        if not filename.startswith(_TORCH_DIR) and "gradguard" not in filename:
            site = f"{filename}:{line}"
    return site


def assert_no_graph(obj: Any, name: str = "value") -> None:
    """Raise GraphLeakError listing every tensor inside ``obj`` that still carries a graph."""
    offenders = []
    for path, t in _tensors_with_paths(obj, name, set()):
        if t.grad_fn is None:
            continue
        stats, sites = walk_graph(t.grad_fn)
        made_at = sites[0] if sites else _anomaly_site(t.grad_fn)
        where = f", made at {made_at}" if made_at else ""
        offenders.append(
            f"  {path}: grad_fn={type(t.grad_fn).__name__}, {stats.nodes} nodes, "
            f"{format_bytes(stats.saved_bytes)} saved{where}"
        )
    if offenders:
        raise GraphLeakError(
            f"{ASSERT_NO_GRAPH_CODE} graph leak: {len(offenders)} tensor(s) still carry an "
            f"autograd graph (checked at {user_site(2)}):\n"
            + "\n".join(offenders)
            + "\nUse .item() for numbers, .detach() for tensors kept, or compute under "
            "torch.no_grad()."
        )


def no_graph_leak(func: F) -> F:
    """Decorator: apply assert_no_graph to the function's return value."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = func(*args, **kwargs)
        assert_no_graph(result, name=f"{func.__qualname__}()")
        return result

    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class StepFigures:
    """Graph memory alive when ``step()`` closed step ``step``."""

    step: int
    live_bytes: int
    live_saved_tensors: int
    retained_bytes: int
    retained_saved_tensors: int
    live_nodes: int = 0
    retained_nodes: int = 0


class _StorageEntry:
    __slots__ = ("count", "nbytes", "step")

    def __init__(self, nbytes: int, step: int) -> None:
        self.count = 0
        self.nbytes = nbytes
        self.step = step


class _NodeToken:
    """Lives in a graph node's ``metadata`` dict: its death tells the monitor the node died."""

    __slots__ = ("monitor", "step", "site")

    def __init__(self, monitor: "LeakMonitor", step: int, site: str) -> None:
        self.monitor = monitor
        self.step = step
        self.site = site

    def __del__(self) -> None:
        self.monitor._node_released(self)


class LeakMonitor:
    """Context manager for loops: warn (GG301) when graph memory outlives its steps.

    Call ``step()`` once per iteration. Every tensor autograd saves while the monitor is
    active is accounted to the step that saved it (each storage once) until its graph is
    freed. Graphs from steps older than ``grace`` steps are *retained*; when the retained
    bytes grow at ``patience`` consecutive steps, the monitor warns with
    GraphLeakWarning, or raises GraphLeakError with ``strict=True``.
    """

    def __init__(
        self,
        *,
        patience: int = 3,
        grace: int = 1,
        strict: bool = False,
        min_bytes: int = 0,
    ) -> None:
        if patience < 1 or grace < 0:
            raise ValueError("patience must be >= 1 and grace >= 0")
        self.patience = patience
        self.grace = grace
        self.strict = strict
        self.min_bytes = min_bytes
        self._registration = HookRegistration(self)
        self._step = 0
        self._storages: dict[Any, _StorageEntry] = {}
        self._bytes_by_step: dict[int, int] = {}
        self._tensors_by_step: dict[int, int] = {}
        self._sites_by_step: dict[int, dict[str, int]] = {}
        self._nodes_by_step: dict[int, int] = {}
        self._node_sites_by_step: dict[int, dict[str, int]] = {}
        self._token_key = f"gradguard.LeakMonitor.{id(self)}"
        self._figures: list[StepFigures] = []
        self._growing = 0
        self._warned = False

    # -- bookkeeping, called from the shared hooks (hot path: plain dicts only) ----------
    def _on_pack(self, packed: Packed, tensor: torch.Tensor) -> None:
        try:
            storage = tensor.untyped_storage()
            key: Any = storage.data_ptr()
            nbytes = storage.nbytes()
        except (RuntimeError, NotImplementedError):
            key, nbytes = ("tensor", id(packed)), tensor.element_size() * tensor.numel()
        step = self._step
        entry = self._storages.get(key)
        if entry is None:
            entry = self._storages[key] = _StorageEntry(nbytes, step)
            self._bytes_by_step[step] = self._bytes_by_step.get(step, 0) + nbytes
        entry.count += 1
        tensors = self._tensors_by_step
        tensors[step] = tensors.get(step, 0) + 1
        sites = self._sites_by_step.get(step)
        if sites is None:
            sites = self._sites_by_step[step] = {}
        site = packed.site
        sites[site] = sites.get(site, 0) + 1
        packed.monitors += (self,)
        packed.key = key
        packed.step = step
        # Graph nodes outlive their saved tensors (backward frees those): count the node
        # that produced each saved tensor through a token stored in its metadata.
        node = tensor.grad_fn
        if node is not None:
            metadata = node.metadata
            if self._token_key not in metadata:
                metadata[self._token_key] = _NodeToken(self, step, site)
                nodes = self._nodes_by_step
                nodes[step] = nodes.get(step, 0) + 1
                node_sites = self._node_sites_by_step.get(step)
                if node_sites is None:
                    node_sites = self._node_sites_by_step[step] = {}
                node_sites[site] = node_sites.get(site, 0) + 1

    @staticmethod
    def _decrement(counts: dict, key: Any, amount: int = 1) -> None:
        left = counts.get(key, 0) - amount
        if left > 0:
            counts[key] = left
        else:
            counts.pop(key, None)

    def _decrement_site(self, by_step: dict, step: int, site: str) -> None:
        sites = by_step.get(step)
        if sites is not None:
            self._decrement(sites, site)
            if not sites:
                del by_step[step]

    def _node_released(self, token: _NodeToken) -> None:
        self._decrement(self._nodes_by_step, token.step)
        self._decrement_site(self._node_sites_by_step, token.step, token.site)

    def _released(self, packed: Packed) -> None:
        self._decrement(self._tensors_by_step, packed.step)
        self._decrement_site(self._sites_by_step, packed.step, packed.site)
        entry = self._storages.get(packed.key)
        if entry is not None:
            entry.count -= 1
            if entry.count <= 0:
                del self._storages[packed.key]
                self._decrement(self._bytes_by_step, entry.step, entry.nbytes)

    # -- public ---------------------------------------------------------------------------
    def __enter__(self) -> "LeakMonitor":
        self._registration.enter()
        return self

    def __exit__(self, *exc: object) -> None:
        self._registration.exit()

    def _figures_now(self) -> StepFigures:
        horizon = self._step - self.grace
        retained_bytes = sum(b for s, b in self._bytes_by_step.items() if s <= horizon)
        retained_tensors = sum(n for s, n in self._tensors_by_step.items() if s <= horizon)
        retained_nodes = sum(n for s, n in self._nodes_by_step.items() if s <= horizon)
        return StepFigures(
            step=self._step,
            live_bytes=sum(self._bytes_by_step.values()),
            live_saved_tensors=sum(self._tensors_by_step.values()),
            retained_bytes=retained_bytes,
            retained_saved_tensors=retained_tensors,
            live_nodes=sum(self._nodes_by_step.values()),
            retained_nodes=retained_nodes,
        )

    def step(self) -> StepFigures:
        """Close the current loop step; warn or raise when retained graph memory keeps growing."""
        figures = self._figures_now()
        previous = self._figures[-1] if self._figures else None
        if self._grew(figures, previous):
            self._growing += 1
        else:
            self._growing = 0
        if self._growing >= self.patience and figures.retained_bytes >= self.min_bytes and not self._warned:
            gc.collect()  # rule out graphs held only by collectable reference cycles
            figures = self._figures_now()
            if self._grew(figures, previous):
                self._complain(figures)
            else:
                self._growing = 0
        self._figures.append(figures)
        self._step += 1
        return figures

    @staticmethod
    def _grew(figures: StepFigures, previous: StepFigures | None) -> bool:
        if previous is None:
            return figures.retained_bytes > 0 or figures.retained_nodes > 0
        return figures.retained_bytes > previous.retained_bytes or figures.retained_nodes > previous.retained_nodes

    def _oldest_site(self) -> tuple[int, str]:
        candidates = []
        for by_step in (self._sites_by_step, self._node_sites_by_step):
            for step in sorted(by_step):
                if by_step[step]:
                    candidates.append((step, next(iter(by_step[step]))))
                    break
        return min(candidates, default=(-1, "<unknown>"), key=lambda c: c[0])

    def _complain(self, figures: StepFigures) -> None:
        oldest_step, site = self._oldest_site()
        message = (
            f"GG301 graph leak: graph memory that outlives its step grew at "
            f"{self._growing} consecutive steps; after step {figures.step}, "
            f"{figures.retained_nodes} graph nodes and "
            f"{format_bytes(figures.retained_bytes)} in {figures.retained_saved_tensors} "
            f"saved tensors from earlier steps are still alive. The oldest surviving graph "
            f"(step {oldest_step}) was made at {site}. Something keeps graph-carrying "
            f"tensors across iterations (e.g. `total += loss`, or appending outputs to a "
            f"list): keep `.item()` or `.detach()`."
        )
        if self.strict:
            raise GraphLeakError(message)
        self._warned = True
        warnings.warn(message, GraphLeakWarning, stacklevel=3)

    def report(self) -> list[StepFigures]:
        """The figures recorded at each ``step()`` so far."""
        return list(self._figures)

    def live_sites(self) -> list[str]:
        """Where the still-alive saved tensors were saved, oldest step first."""
        sites: list[str] = []
        steps = sorted(set(self._sites_by_step) | set(self._node_sites_by_step))
        for step in steps:
            for by_step in (self._sites_by_step, self._node_sites_by_step):
                sites.extend(s for s in by_step.get(step, ()) if s not in sites)
        return sites

    def live_graph_bytes(self) -> int:
        """Saved-for-backward bytes of graphs made under this monitor that are still alive."""
        return sum(self._bytes_by_step.values())

    def live_graph_nodes(self) -> int:
        """Graph nodes (producers of saved tensors) made under this monitor still alive."""
        return sum(self._nodes_by_step.values())
