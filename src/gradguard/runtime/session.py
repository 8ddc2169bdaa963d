"""A guarded run: both guards, steps advanced automatically, and the runtime twins of static rules.

``Session`` is what ``gradguard run``, ``GRADGUARD_RUN=1`` and ``%gradguard on`` start. While it
is active:

- ``SavedTensorGuard`` and ``LeakMonitor`` watch every saved tensor (GG102, GG208, GG301);
- the leak monitor's step advances at each step of the first optimizer that steps
  (``torch.optim`` global step hooks), at each ``backward()`` while no optimizer has stepped,
  and at each top-level call of the first module called with grad enabled while neither has
  happened (an evaluation-only script);
- GG201: graphs built by top-level module calls with grad enabled and freed without any backward
  running through them are counted per calling line;
- GG303: a backward that adds to gradients still holding the previous optimizer step's values;
- GG210: grad mode disabled at a backward or an optimizer step because a generator is suspended
  inside a ``no_grad`` / ``inference_mode`` / ``set_grad_enabled(False)`` block;
- GG503: an inference tensor used by a module's forward with grad enabled, with the line that
  made it (tensors made under ``torch.inference_mode`` are noted while the session runs).

Findings are collected (grouped by code and line); with ``strict`` the first one stops the
program with ``StrictStop``.
"""

from __future__ import annotations

import gc
import os
import threading
import types
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode

from gradguard.common.text import format_bytes

from . import hooks, sites
from .errors import SilentMutationError, StrictStop
from .hooks import HookRegistration, PackRecord
from .leaks import LeakMonitor, LeakReport, plural
from .names import TRACKER, describe_tensor, module_name, output_nodes, parameter_name
from .saved import SavedTensorGuard

RULE_TITLES = {
    "GG102": "saved tensor changed before backward read it",
    "GG201": "graph built with grad enabled that no backward used",
    "GG208": "parameter updated in place between forward and backward",
    "GG210": "grad mode disabled by a generator suspended inside a no_grad block",
    "GG301": "graph kept beyond its step",
    "GG303": "gradients accumulate across optimizer steps",
    "GG501": "tensor kept as a ctx attribute changed before backward",
    "GG503": "inference tensor used with grad enabled",
}


@dataclass
class Finding:
    """One problem at one user line; repeated occurrences raise ``count`` and ``bytes``."""

    code: str
    site: Any
    message: str
    count: int = 1
    bytes: int = 0
    details: list = field(default_factory=list)

    @property
    def where(self) -> str:
        return sites.format_site(self.site)

    @property
    def library(self) -> str | None:
        return sites.library_line(self.site)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "title": RULE_TITLES.get(self.code, ""),
            "where": self.where,
            "library": self.library,
            "count": self.count,
            "bytes": self.bytes,
            "message": self.message,
        }


# -- GG201: top-level module calls whose graph no backward used ---------------------------------


class _CallGraph:
    """The graph one top-level module call built; told when backward runs through it or it dies."""

    __slots__ = ("site", "bytes", "used", "alive", "tracker")

    def __init__(self, tracker: "_UnusedGraphs", site: Any, nbytes: int) -> None:
        self.tracker = tracker
        self.site = site
        self.bytes = nbytes
        self.used = False
        self.alive = 0

    def mark_used(self, grad_outputs: Any) -> None:
        self.used = True

    def token_died(self) -> None:
        self.alive -= 1
        if self.alive == 0:
            self.tracker.finished(self)


class _Token:
    __slots__ = ("call",)

    def __init__(self, call: _CallGraph) -> None:
        self.call = call

    def __del__(self) -> None:
        self.call.token_died()


class _UnusedGraphs:
    """Per calling line: graphs built with grad enabled, how many a backward used, and bytes."""

    KEY = "gradguard.unused_graph"

    def __init__(self) -> None:
        self.by_site: dict[Any, list] = {}  # site -> [unused calls, used calls, unused bytes]
        self.saved_bytes = 0  # running total, advanced by the session's pack hook

    def finished(self, call: _CallGraph) -> None:
        entry = self.by_site.get(call.site)
        if entry is None:
            entry = self.by_site[call.site] = [0, 0, 0]
        if call.used:
            entry[1] += 1
        else:
            entry[0] += 1
            entry[2] += call.bytes

    def top_enter(self, module: Any, args: Any) -> Any:
        # Only calls of modules with trainable parameters (the model, not a criterion or a
        # softmax used for logging) count: those are the graphs evaluation builds for nothing.
        if not torch.is_grad_enabled() or not _trainable(module):
            return None
        return self.saved_bytes

    def top_exit(self, module: Any, output: Any, start: Any) -> None:
        if start is None or not torch.is_grad_enabled():
            return
        nodes = output_nodes(output)
        if not nodes:
            return
        call = _CallGraph(self, sites.capture(3), self.saved_bytes - start)
        for node in nodes:
            try:
                node.register_prehook(call.mark_used)
                node.metadata[self.KEY + str(id(call))] = _Token(call)
            except (RuntimeError, AttributeError):
                continue
            call.alive += 1

    def findings(self) -> list[Finding]:
        found = []
        for site, (unused, used, nbytes) in self.by_site.items():
            if unused >= 2 and used == 0:
                found.append(
                    Finding(
                        "GG201",
                        site,
                        f"{sites.format_site(site)} built {format_bytes(nbytes)} of graph over "
                        f"{plural(unused, 'call')} that no backward used: evaluate under "
                        f"torch.no_grad() or torch.inference_mode()",
                        count=unused,
                        bytes=nbytes,
                    )
                )
        return found


# -- GG210: which suspended generator holds grad mode off ---------------------------------------


def _disables_grad(obj: Any) -> str | None:
    if isinstance(obj, torch.no_grad):
        return "torch.no_grad()"
    if isinstance(obj, torch.inference_mode) and getattr(obj, "mode", True):
        return "torch.inference_mode()"
    if isinstance(obj, torch.set_grad_enabled) and getattr(obj, "mode", None) is False:
        return "torch.set_grad_enabled(False)"
    return None


def suspended_generators_disabling_grad() -> list[tuple[str, Any, str]]:
    """(generator name, site of its suspended yield, region) for generators paused inside a block
    that disabled grad mode: the block's ``__exit__`` sits on the generator's frame stack."""
    found = []
    for obj in gc.get_objects():
        if type(obj) is not types.GeneratorType or not getattr(obj, "gi_suspended", False):
            continue
        frame = obj.gi_frame
        if frame is None:
            continue
        for ref in gc.get_referents(obj):
            if type(ref) is types.MethodType and getattr(ref, "__name__", "") == "__exit__":
                region = _disables_grad(ref.__self__)
                if region is not None:
                    site = (frame.f_code.co_filename, frame.f_lineno, None, 0)
                    found.append((obj.gi_code.co_name, site, region))
                    break
    return found


# -- GG503: where inference tensors were made ---------------------------------------------------


class _InferenceOrigins(TorchFunctionMode):
    """Active inside ``torch.inference_mode`` regions during a session: notes where each tensor
    made there was made (by id, dropped when the tensor dies)."""

    def __init__(self, table: dict) -> None:
        super().__init__()
        self.table = table

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Tensor):
            key = id(result)
            if key not in self.table:
                table = self.table
                try:
                    table[key] = (weakref.ref(result, lambda _ref, key=key: table.pop(key, None)), sites.capture(2))
                except TypeError:
                    pass
        return result


# -- the session ----------------------------------------------------------------------------------


class Session:
    """Both guards with automatic steps and the runtime twins; see the module docstring."""

    def __init__(
        self,
        *,
        saved: bool = True,
        leaks: bool = True,
        strict: bool = False,
        locate_mutations: bool = False,
        patience: int = 3,
        window: int = 100,
    ) -> None:
        self.strict = strict
        self.findings: dict[tuple, Finding] = {}
        self.optimizer_steps = 0
        self.backward_calls = 0
        self.monitor_steps = 0
        self._monitor = LeakMonitor(patience=patience, window=window, on_leak=self._on_leak) if leaks else None
        self._guard = (
            SavedTensorGuard(locate_mutations=locate_mutations, on_finding=self._on_mutation) if saved else None
        )
        self._registration = HookRegistration(self)
        self._unused = _UnusedGraphs()
        self._handles: list = []
        self._stepper: Any = None
        self._forward_stepper: Any = None
        self._grad_state: dict[int, list] = {}
        self._grad_hooks: dict[int, Any] = {}
        self._last_step_site: Any = None
        self._pending_stop: Finding | None = None
        self._gg210_sites: set = set()
        self._inference_seen: set[int] = set()
        self._inference_origins: dict[int, Any] = {}
        self._inference_modes: list = []
        self._original_backward: Any = None
        self._original_inference_enter: Any = None
        self._original_inference_exit: Any = None
        self._thread = None
        self.active = False

    # -- findings ---------------------------------------------------------------------------
    def add(self, code: str, site: Any, message: str, nbytes: int = 0, *, stop: bool = True) -> Finding:
        key = (code, sites.format_site(site))
        finding = self.findings.get(key)
        if finding is None:
            finding = self.findings[key] = Finding(code, site, message, bytes=nbytes)
        else:
            finding.count += 1
            finding.bytes += nbytes
        if self.strict and stop:
            raise StrictStop(finding)
        return finding

    def all_findings(self) -> list[Finding]:
        found = dict(self.findings)
        for finding in self._unused.findings():
            found.setdefault((finding.code, finding.where), finding)
        return sorted(found.values(), key=lambda f: (f.code, f.where))

    def _check_pending(self) -> None:
        if self._pending_stop is not None:
            finding, self._pending_stop = self._pending_stop, None
            raise StrictStop(finding)

    def _on_mutation(self, error: SilentMutationError) -> None:
        code = getattr(error, "code", "GG102")
        if "GG501" in str(error):
            code = "GG501"
        self.add(code, error.site, str(error))

    def _on_version_error(self, error: SilentMutationError) -> None:
        # torch raises this error itself without hooks; it is raised as usual, and reported.
        self.add(error.code, error.site, str(error), stop=False)

    def _on_leak(self, leak: LeakReport) -> None:
        finding = self.add("GG301", leak.site, leak.message, leak.retained_bytes, stop=False)
        if self.strict:
            self._pending_stop = finding
            self._check_pending()

    # -- consumer protocol: bytes saved during top-level calls (GG201) ---------------------------
    def on_pack(self, tensor: torch.Tensor, record: PackRecord) -> None:
        try:
            self._unused.saved_bytes += tensor.untyped_storage().nbytes()
        except (RuntimeError, NotImplementedError):
            pass
        return None

    def on_unpack(self, state: Any, record: PackRecord, tensor: torch.Tensor) -> None:
        pass

    def on_release(self, state: Any, record: PackRecord) -> None:
        pass

    # -- module calls -----------------------------------------------------------------------
    def top_enter(self, module: Any, args: Any) -> Any:
        token = self._unused.top_enter(module, args)
        if self._stepper is None and self.backward_calls == 0 and torch.is_grad_enabled():
            if self._forward_stepper is None and _trainable(module):
                self._forward_stepper = weakref.ref(module)
            if self._forward_stepper is not None and self._forward_stepper() is module:
                self._advance()
        return token

    def top_exit(self, module: Any, output: Any, token: Any) -> None:
        self._unused.top_exit(module, output, token)

    def on_call(self, module: Any, args: Any) -> None:
        if not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
            return
        for table, kind in ((module._parameters, "parameter"), (module._buffers, "buffer")):
            for name, value in table.items():
                if value is not None and value.is_inference():
                    self._inference_used(value, f"{kind} `{{module}}.{name}`", module)
        for value in args if isinstance(args, tuple) else ():
            if isinstance(value, torch.Tensor) and value.is_inference():
                self._inference_used(value, "an input of `{module}`", module)

    def _inference_used(self, tensor: torch.Tensor, what: str, module: Any) -> None:
        if id(tensor) in self._inference_seen:
            return
        self._inference_seen.add(id(tensor))
        origin = self._inference_origins.get(id(tensor))
        made_site = origin[1] if origin is not None and origin[0]() is tensor else None
        made = (
            f"made at {sites.format_site(made_site, with_library=True)} under torch.inference_mode()"
            if made_site
            else "made under torch.inference_mode()"
        )
        site = made_site or sites.capture(3)
        name = what.format(module=module_name(module))
        self.add(
            "GG503",
            site,
            f"GG503 inference tensor used with grad enabled: {name} {tuple(tensor.shape)} is an inference "
            f"tensor ({made}); the forward at {sites.format_site(sites.capture(3))} records autograd, and "
            f'any autograd-recorded use of it fails ("Inference tensors cannot be saved for backward"). '
            f"Make it outside torch.inference_mode(), or keep a .clone() made outside it.",
        )

    def _inference_enter(self, region: Any) -> None:
        self._original_inference_enter(region)
        if getattr(region, "mode", True) and threading.current_thread() is self._thread:
            mode = _InferenceOrigins(self._inference_origins)
            mode.__enter__()
            self._inference_modes.append((region, mode))
        else:
            self._inference_modes.append((region, None))

    def _inference_exit(self, region: Any, *exc: Any) -> None:
        for index in range(len(self._inference_modes) - 1, -1, -1):
            if self._inference_modes[index][0] is region:
                _, mode = self._inference_modes.pop(index)
                if mode is not None:
                    try:
                        mode.__exit__(None, None, None)
                    except (RuntimeError, AssertionError):
                        pass
                break
        return self._original_inference_exit(region, *exc)

    # -- steps ------------------------------------------------------------------------------
    def _advance(self) -> None:
        self.monitor_steps += 1
        if self._monitor is not None:
            self._monitor.step()

    def _step_pre(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if threading.current_thread() is not self._thread:
            return
        self._check_pending()
        if not torch.is_grad_enabled():
            self._check_generators("an optimizer step")
        self._check_stale(optimizer)

    def _step_post(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if threading.current_thread() is not self._thread:
            return
        self.optimizer_steps += 1
        if self._stepper is None or self._stepper() is None:
            self._stepper = weakref.ref(optimizer)
        self._last_step_site = sites.capture(3)
        self._arm(optimizer)
        if self._stepper() is optimizer:
            self._advance()
        self._check_pending()

    # GG303. After an optimizer step each of its parameters is armed. The first backward that
    # reaches the parameter finds its .grad either reset (None or zeros: fine) or still holding
    # the step's gradient: then the parameter is *stale*. Any later backward that finds .grad
    # reset clears that (a GAN's G loss reaches D's parameters after D's step, and D zeroes its
    # gradients before its own next backward). A parameter still stale when its optimizer steps
    # again is the finding.
    def _arm(self, optimizer: Any) -> None:
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, torch.Tensor) or not param.requires_grad:
                    continue
                key = id(param)
                state = self._grad_state.get(key)
                if state is None or state[2]() is not param:
                    state = [False, None, weakref.ref(param)]  # armed, stale site, param
                    try:
                        self._grad_hooks[key] = param.register_hook(self._grad_hook(state))
                    except RuntimeError:
                        continue
                    self._grad_state[key] = state
                state[0] = True
                state[1] = None

    def _grad_hook(self, state: list) -> Callable:
        session = self

        def check_accumulation(grad: torch.Tensor) -> None:
            if not session.active:
                return
            if state[0]:
                state[0] = False
                param = state[2]()
                old = param.grad if param is not None else None
                if old is not None and _holds_values(old):
                    state[1] = sites.capture(2)
            elif state[1] is not None:
                param = state[2]()
                old = param.grad if param is not None else None
                if old is None or not _holds_values(old):
                    state[1] = None  # reset before this backward: the stale values are gone

        return check_accumulation

    def _check_stale(self, optimizer: Any) -> None:
        stale = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                state = self._grad_state.get(id(param))
                if state is not None and state[1] is not None and state[2]() is param:
                    if param.grad is not None:
                        stale.append((param, state[1]))
                    state[1] = None
        if stale:
            self._accumulating(stale[0][0], stale[0][1], len(stale))

    def _accumulating(self, param: torch.Tensor, site: Any, how_many: int) -> None:
        name = parameter_name(param) or "a parameter"
        others = f" and {plural(how_many - 1, 'other parameter')}" if how_many > 1 else ""
        self.add(
            "GG303",
            site,
            f"GG303 gradients accumulate across optimizer steps: the backward at "
            f"{sites.format_site(site, with_library=True)} added to `{name}.grad`{others}, which still "
            f"held the gradient of the optimizer step at {sites.format_site(self._last_step_site)}, and "
            f"the optimizer stepped again on the sum: nothing zeroed it in between. Call "
            f"opt.zero_grad() (or set p.grad = None) once per step, before backward.",
        )

    def _backward(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        main = threading.current_thread() is self._thread
        if main:
            self._check_pending()
            if not torch.is_grad_enabled():
                self._check_generators("a backward")
        try:
            return self._original_backward(*args, **kwargs)
        finally:
            if main:
                self.backward_calls += 1
                if self._stepper is None:
                    self._advance()

    def _check_generators(self, what: str) -> None:
        here = sites.capture(3)
        key = sites.format_site(here)
        if key in self._gg210_sites:
            return
        self._gg210_sites.add(key)
        for name, gen_site, region in suspended_generators_disabling_grad():
            self.add(
                "GG210",
                gen_site,
                f"GG210 grad mode leaked out of a generator: {what} at {key} runs with grad "
                f"disabled because generator {name}() is suspended at "
                f"{sites.format_site(gen_site)} inside `with {region}`, and grad mode is "
                f"thread-wide, so the consumer's loop runs under it too. Exit the block before "
                f"`yield`, or decorate the generator function (@{region}) instead.",
            )

    # -- start / stop -------------------------------------------------------------------------
    def start(self) -> "Session":
        if self.active:
            raise RuntimeError("the gradguard session is already active")
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        self._thread = threading.current_thread()
        hooks.version_error_listeners.append(self._on_version_error)
        if self._monitor is not None:
            self._monitor.__enter__()
        if self._guard is not None:
            self._guard.__enter__()
        self._registration.enter()
        TRACKER.acquire(listener=self, call_listener=self)
        self._handles = [
            register_optimizer_step_pre_hook(self._step_pre),
            register_optimizer_step_post_hook(self._step_post),
        ]
        self._original_backward = torch.autograd.backward
        self._backward_patch = self._backward  # one bound method, so that stop() can recognise it
        torch.autograd.backward = self._backward_patch
        cls = torch.inference_mode
        self._original_inference_enter = cls.__enter__
        self._original_inference_exit = cls.__exit__
        session = self
        cls.__enter__ = lambda region: session._inference_enter(region)
        cls.__exit__ = lambda region, *exc: session._inference_exit(region, *exc)
        self._warning_filters = warnings.filters[:]
        warnings.filterwarnings("ignore", message=r"Using `torch.compile\(module\)` when there are global hooks")
        self.active = True
        return self

    def stop(self) -> None:
        if not self.active:
            return
        self.active = False
        warnings.filters[:] = self._warning_filters
        cls = torch.inference_mode
        cls.__enter__ = self._original_inference_enter
        cls.__exit__ = self._original_inference_exit
        if torch.autograd.backward is self._backward_patch:
            torch.autograd.backward = self._original_backward
        for handle in self._handles:
            handle.remove()
        for handle in self._grad_hooks.values():
            handle.remove()
        self._grad_hooks.clear()
        self._grad_state.clear()
        TRACKER.release(listener=self, call_listener=self)
        self._registration.exit()
        if self._guard is not None:
            self._guard.__exit__(None, None, None)
        if self._monitor is not None:
            self._monitor.__exit__(None, None, None)
        if self._on_version_error in hooks.version_error_listeners:
            hooks.version_error_listeners.remove(self._on_version_error)

    def __enter__(self) -> "Session":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def summary(self) -> dict:
        return {
            "optimizer_steps": self.optimizer_steps,
            "backward_calls": self.backward_calls,
            "monitor_steps": self.monitor_steps,
            "pid": os.getpid(),
            "rank": os.environ.get("RANK"),
        }


_trainable_cache: "weakref.WeakKeyDictionary[Any, bool]" = weakref.WeakKeyDictionary()


def _trainable(module: Any) -> bool:
    try:
        return _trainable_cache[module]
    except KeyError:
        value = any(p.requires_grad for p in module.parameters())
        _trainable_cache[module] = value
        return value
    except TypeError:
        return True


def _holds_values(grad: torch.Tensor) -> bool:
    """Whether a gradient still holds values (a zeroed one holds none); samples large ones."""
    try:
        with torch.no_grad():
            flat = grad.reshape(-1) if grad.is_contiguous() else grad.flatten()
            if flat.numel() > 4096:
                flat = flat[:: flat.numel() // 4096]
            return bool(flat.any())
    except (RuntimeError, TypeError, NotImplementedError):
        return False


__all__ = ["Finding", "Session", "RULE_TITLES", "describe_tensor", "suspended_generators_disabling_grad"]
