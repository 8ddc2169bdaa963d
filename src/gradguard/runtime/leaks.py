"""Graphs that outlive their step (GG301): assert_no_graph, no_graph_leak, LeakMonitor."""

from __future__ import annotations

import collections
import dataclasses
import dis
import functools
import gc
import re
import sys
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TypeVar

import torch

from gradguard.common.text import format_bytes

from . import sites
from .errors import GraphLeakError, GraphLeakWarning
from .hooks import HookRegistration, PackRecord
from .introspect import walk_graph

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
        if not filename.startswith(sites.TORCH_DIR) and "gradguard" not in filename:
            site = f"{filename}:{line}"
    return site


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 graph node``, ``3 graph nodes``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def assert_no_graph(obj: Any, name: str = "value") -> None:
    """Raise GraphLeakError listing every tensor inside ``obj`` that still carries a graph."""
    __tracebackhide__ = True
    offenders = []
    for path, t in _tensors_with_paths(obj, name, set()):
        if t.grad_fn is None:
            continue
        stats, found = walk_graph(t.grad_fn)
        made_at = sites.format_site(found[0], with_library=True) if found else _anomaly_site(t.grad_fn)
        where = f", made at {made_at}" if made_at else ""
        offenders.append(
            f"  {path}: grad_fn={type(t.grad_fn).__name__}, {plural(stats.nodes, 'node')}, "
            f"{format_bytes(stats.saved_bytes)} saved{where}"
        )
    if offenders:
        verb = "still carries" if len(offenders) == 1 else "still carry"
        raise GraphLeakError(
            f"{ASSERT_NO_GRAPH_CODE} graph leak: {plural(len(offenders), 'tensor')} {verb} an "
            f"autograd graph (checked at {sites.user_site(2)}):\n"
            + "\n".join(offenders)
            + "\nUse .item() for numbers, .detach() for tensors kept, or compute under "
            "torch.no_grad()."
        )


def no_graph_leak(func: F) -> F:
    """Decorator: apply assert_no_graph to the function's return value."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
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


class _Held:
    """One monitor's state for one saved tensor."""

    __slots__ = ("key", "step")

    def __init__(self, key: Any, step: int) -> None:
        self.key = key
        self.step = step


class _NodeToken:
    """Lives in a graph node's ``metadata`` dict: its death tells the monitor the node died."""

    __slots__ = ("monitor", "step", "site")

    def __init__(self, monitor: "LeakMonitor", step: int, site: Any) -> None:
        self.monitor = monitor
        self.step = step
        self.site = site

    def __del__(self) -> None:
        self.monitor._node_released(self)


@dataclass(frozen=True)
class LeakReport:
    """What a LeakMonitor found when it complained (also the text of its warning)."""

    step: int
    retained_bytes: int
    retained_nodes: int
    retained_saved_tensors: int
    growths: int
    window: int
    oldest_step: int
    site: Any
    holders: tuple
    message: str
    code: str = "GG301"


class LeakMonitor:
    """Context manager for loops: warn (GG301) when graph memory outlives its steps.

    Call ``step()`` once per iteration (``gradguard run`` calls it for you at each optimizer
    step). Every tensor autograd saves while the monitor is active is accounted to the step that
    saved it (each storage once) until its graph is freed. Graphs from steps older than ``grace``
    steps are *retained*. When the retained bytes or nodes have grown at ``patience`` of the last
    ``window`` steps (not necessarily consecutive: a leak that grows every second or third step,
    or one that comes back every epoch, counts too), the monitor warns with GraphLeakWarning, or
    raises GraphLeakError with ``strict=True``; ``on_leak`` receives the LeakReport instead.
    The report names what holds the leaked graph (a list, a local, an attribute), found through
    the garbage collector.
    """

    def __init__(
        self,
        *,
        patience: int = 3,
        window: int = 100,
        grace: int = 1,
        strict: bool = False,
        min_bytes: int = 0,
        on_leak: Callable[[LeakReport], None] | None = None,
    ) -> None:
        if patience < 1 or grace < 0 or window < 1:
            raise ValueError("patience and window must be >= 1 and grace >= 0")
        self.patience = patience
        self.window = max(window, patience)
        self.grace = grace
        self.strict = strict
        self.min_bytes = min_bytes
        self.on_leak = on_leak
        self._registration = HookRegistration(self)
        self._step = 0
        self._storages: dict[Any, _StorageEntry] = {}
        self._bytes_by_step: dict[int, int] = {}
        self._tensors_by_step: dict[int, int] = {}
        self._sites_by_step: dict[int, dict[Any, int]] = {}
        self._nodes_by_step: dict[int, int] = {}
        self._node_sites_by_step: dict[int, dict[Any, int]] = {}
        self._token_key = f"gradguard.LeakMonitor.{id(self)}"
        self._figures: list[StepFigures] = []
        self._growth_steps: collections.deque = collections.deque()
        self._warned = False
        self.leak: LeakReport | None = None

    # -- consumer protocol (hot path: plain dicts only) ------------------------------------
    def on_pack(self, tensor: torch.Tensor, record: PackRecord) -> _Held:
        try:
            storage = tensor.untyped_storage()
            key: Any = storage.data_ptr()
            nbytes = storage.nbytes()
        except (RuntimeError, NotImplementedError):
            key, nbytes = ("tensor", id(record)), tensor.element_size() * tensor.numel()
        step = self._step
        entry = self._storages.get(key)
        if entry is None:
            entry = self._storages[key] = _StorageEntry(nbytes, step)
            self._bytes_by_step[step] = self._bytes_by_step.get(step, 0) + nbytes
        entry.count += 1
        tensors = self._tensors_by_step
        tensors[step] = tensors.get(step, 0) + 1
        site_counts = self._sites_by_step.get(step)
        if site_counts is None:
            site_counts = self._sites_by_step[step] = {}
        site = record.site
        site_counts[site] = site_counts.get(site, 0) + 1
        # Graph nodes outlive their saved tensors (backward frees those): count the node
        # that produced each saved tensor through a token stored in its metadata.
        node = tensor.grad_fn
        if node is not None:
            self._token(node, step, site)
        return _Held(key, step)

    def _token(self, node: Any, step: int, site: Any) -> None:
        metadata = node.metadata
        if self._token_key not in metadata:
            metadata[self._token_key] = _NodeToken(self, step, site)
            nodes = self._nodes_by_step
            nodes[step] = nodes.get(step, 0) + 1
            node_sites = self._node_sites_by_step.get(step)
            if node_sites is None:
                node_sites = self._node_sites_by_step[step] = {}
            node_sites[site] = node_sites.get(site, 0) + 1

    # -- module calls: the output nodes of top-level calls are counted too, since a kept
    # output whose saved tensors backward freed still holds its graph nodes --------------
    def top_enter(self, module: Any, args: Any) -> Any:
        return None

    def top_exit(self, module: Any, output: Any, token: Any) -> None:
        if not torch.is_grad_enabled():
            return
        from .names import output_nodes

        nodes = output_nodes(output)
        if nodes:
            site = sites.capture(3)
            for node in nodes:
                try:
                    self._token(node, self._step, site)
                except (RuntimeError, AttributeError):
                    pass

    def on_unpack(self, state: _Held, record: PackRecord, tensor: torch.Tensor) -> None:
        pass

    def on_release(self, state: _Held, record: PackRecord) -> None:
        self._decrement(self._tensors_by_step, state.step)
        self._decrement_site(self._sites_by_step, state.step, record.site)
        entry = self._storages.get(state.key)
        if entry is not None:
            entry.count -= 1
            if entry.count <= 0:
                del self._storages[state.key]
                self._decrement(self._bytes_by_step, entry.step, entry.nbytes)

    @staticmethod
    def _decrement(counts: dict, key: Any, amount: int = 1) -> None:
        left = counts.get(key, 0) - amount
        if left > 0:
            counts[key] = left
        else:
            counts.pop(key, None)

    def _decrement_site(self, by_step: dict, step: int, site: Any) -> None:
        site_counts = by_step.get(step)
        if site_counts is not None:
            self._decrement(site_counts, site)
            if not site_counts:
                del by_step[step]

    def _node_released(self, token: _NodeToken) -> None:
        self._decrement(self._nodes_by_step, token.step)
        self._decrement_site(self._node_sites_by_step, token.step, token.site)

    # -- public ---------------------------------------------------------------------------
    def __enter__(self) -> "LeakMonitor":
        from .names import TRACKER

        self._registration.enter()
        TRACKER.acquire(listener=self)
        return self

    def __exit__(self, *exc: object) -> None:
        from .names import TRACKER

        if self._registration.active:
            TRACKER.release(listener=self)
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
        __tracebackhide__ = True
        figures = self._figures_now()
        previous = self._figures[-1] if self._figures else None
        growths = self._growth_steps
        if self._grew(figures, previous):
            growths.append(self._step)
        while growths and growths[0] <= self._step - self.window:
            growths.popleft()
        if len(growths) >= self.patience and figures.retained_bytes >= self.min_bytes and not self._warned:
            gc.collect()  # rule out graphs held only by collectable reference cycles
            figures = self._figures_now()
            if figures.retained_bytes > 0 or figures.retained_nodes > 0:
                self._figures.append(figures)
                self._step += 1
                self._complain(figures)
                return figures
            growths.clear()
        self._figures.append(figures)
        self._step += 1
        return figures

    @staticmethod
    def _grew(figures: StepFigures, previous: StepFigures | None) -> bool:
        if previous is None:
            return figures.retained_bytes > 0 or figures.retained_nodes > 0
        return figures.retained_bytes > previous.retained_bytes or figures.retained_nodes > previous.retained_nodes

    def _oldest_site(self) -> tuple[int, Any]:
        candidates = []
        for by_step in (self._sites_by_step, self._node_sites_by_step):
            for step in sorted(by_step):
                if by_step[step]:
                    candidates.append((step, next(iter(by_step[step]))))
                    break
        return min(candidates, default=(-1, None), key=lambda c: c[0])

    def _complain(self, figures: StepFigures) -> None:
        __tracebackhide__ = True
        oldest_step, site = self._oldest_site()
        holders = tuple(find_holders(self._token_key, figures.step - self.grace))
        growths = len(self._growth_steps)
        span = self._growth_steps[-1] - self._growth_steps[0] + 1 if self._growth_steps else 1
        how = f"at {growths} consecutive steps" if growths == span else f"at {growths} of the last {span} steps"
        held = f" Held by: {'; '.join(holders)}." if holders else ""
        verb = "is" if figures.retained_nodes == 1 and not figures.retained_saved_tensors else "are"
        library = sites.library_line(site)
        message = (
            f"GG301 graph leak: graph memory that outlives its step grew {how}; after step "
            f"{figures.step}, {plural(figures.retained_nodes, 'graph node')}"
            + (
                f" and {format_bytes(figures.retained_bytes)} in "
                f"{plural(figures.retained_saved_tensors, 'saved tensor')}"
                if figures.retained_saved_tensors
                else ""
            )
            + f" from earlier steps {verb} still "
            f"alive. The oldest surviving graph (step {oldest_step}) was made at "
            f"{sites.format_site(site)}" + (f" (in {library})" if library else "") + f".{held} Something keeps "
            f"graph-carrying tensors across iterations (e.g. `total += loss`, or appending outputs "
            f"to a list): keep `.item()` or `.detach()`."
        )
        self._warned = True
        self.leak = LeakReport(
            figures.step,
            figures.retained_bytes,
            figures.retained_nodes,
            figures.retained_saved_tensors,
            growths,
            span,
            oldest_step,
            site,
            holders,
            message,
        )
        if self.on_leak is not None:
            self.on_leak(self.leak)
            return
        if self.strict:
            raise GraphLeakError(message)
        warnings.warn(message, GraphLeakWarning, stacklevel=3)

    def report(self) -> list[StepFigures]:
        """The figures recorded at each ``step()`` so far."""
        return list(self._figures)

    def live_sites(self) -> list[str]:
        """Where the still-alive saved tensors were saved, oldest step first."""
        found: list[str] = []
        steps = sorted(set(self._sites_by_step) | set(self._node_sites_by_step))
        for step in steps:
            for by_step in (self._sites_by_step, self._node_sites_by_step):
                for site in by_step.get(step, ()):
                    text = sites.format_site(site)
                    if text not in found:
                        found.append(text)
        return found

    def live_graph_bytes(self) -> int:
        """Saved-for-backward bytes of graphs made under this monitor that are still alive."""
        return sum(self._bytes_by_step.values())

    def live_graph_nodes(self) -> int:
        """Graph nodes (producers of saved tensors) made under this monitor still alive."""
        return sum(self._nodes_by_step.values())


# -- what holds a leaked graph ---------------------------------------------------------------


def _oldest_token_step(node: Any, token_key: str, memo: dict, budget: list) -> int | None:
    """The oldest step of a monitor token reachable from ``node`` (bounded walk)."""
    best = None
    stack = [node]
    local_seen: set[int] = set()
    while stack and budget[0] > 0:
        current = stack.pop()
        key = id(current)
        if key in local_seen:
            continue
        local_seen.add(key)
        budget[0] -= 1
        if key in memo:
            known = memo[key]
            if known is not None and (best is None or known < best):
                best = known
            continue
        try:
            token = current.metadata.get(token_key)
        except (AttributeError, RuntimeError):
            token = None
        if token is not None and (best is None or token.step < best):
            best = token.step
        for child, _ in getattr(current, "next_functions", ()):
            if child is not None:
                stack.append(child)
    memo[id(node)] = best
    return best


def _assignment_line(code: types.CodeType, name: str) -> int | None:
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF") and (
            instruction.argval == name
        ):
            return instruction.positions.lineno if instruction.positions else None
    return None


def _frame_binding(target: Any) -> str | None:
    """``list `history` at train.py:42`` when a frame on the stack binds ``target`` to a name."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if sites.kind_of(code) == sites.USER:
            for name, value in frame.f_locals.items():
                if value is target:
                    line = _assignment_line(code, name) or frame.f_lineno
                    return f"{type(target).__name__} `{name}` at {code.co_filename}:{line}"
        frame = frame.f_back
    return None


def _describe_holder(tensor: torch.Tensor) -> str | None:
    direct = _frame_binding(tensor)
    if direct is not None:
        return direct
    for referrer in gc.get_referrers(tensor):
        if isinstance(referrer, (list, tuple, dict, collections.deque)) and not isinstance(referrer, types.FrameType):
            named = _frame_binding(referrer)
            if named is not None:
                return named
            for owner in gc.get_referrers(referrer):
                if isinstance(owner, dict):
                    for module in list(sys.modules.values()):
                        if getattr(module, "__dict__", None) is owner:
                            for name, value in owner.items():
                                if value is referrer:
                                    return f"{type(referrer).__name__} `{name}`, a global of {module.__name__}"
                    for instance in gc.get_referrers(owner):
                        if getattr(instance, "__dict__", None) is owner:
                            for name, value in owner.items():
                                if value is referrer:
                                    return f"{type(referrer).__name__} `{type(instance).__name__}.{name}`"
    return None


def find_holders(token_key: str, horizon: int, limit: int = 2) -> list[str]:
    """What keeps graphs older than ``horizon`` alive: names of lists, locals, attributes."""
    memo: dict = {}
    budget = [200_000]
    candidates = []
    for obj in gc.get_objects():
        if issubclass(type(obj), torch.Tensor) and type(obj) is not torch.nn.Parameter:
            try:
                node = obj.grad_fn
            except RuntimeError:
                continue
            if node is None:
                continue
            oldest = _oldest_token_step(node, token_key, memo, budget)
            if oldest is not None and oldest <= horizon:
                candidates.append((oldest, obj))
    candidates.sort(key=lambda item: item[0])
    described: list[str] = []
    for _, tensor in candidates[:4]:  # each look-up scans the heap: a few are enough
        text = _describe_holder(tensor)
        if text is not None and text not in described:
            described.append(text)
            if len(described) >= limit:
                break
    return described
