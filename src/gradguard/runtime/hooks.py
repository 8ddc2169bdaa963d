"""One saved-tensor hook pair shared by every gradguard guard on a thread, and its consumer protocol.

``torch.autograd.graph.saved_tensors_hooks`` runs only the innermost active pair, so two
gradguard guards nested in each other would hide the outer one. This layer pushes one pair and
serves every *consumer* registered on the thread. It knows nothing of the guards: a consumer is
any object with

- ``on_pack(tensor, record) -> state``: called when autograd saves ``tensor``; the returned
  state (``None`` = not interested) is kept for this consumer in the record;
- ``on_unpack(state, record, tensor)``: called when backward reads it back (may raise);
  ``tensor`` is what backward will read;
- ``on_release(state, record)``: called when autograd frees the saved tensor.

The layer itself does what torch stops doing once any hook pair is active: it checks the version
counter at unpack (torch skips that check under hooks), and it returns what torch would have
read (the current storage of a saved *input* whose ``.data`` was replaced; the storage at save
time for an output), so gradients stay bit-identical with and without gradguard.

``torch.func`` transforms refuse saved-tensor hooks; while one runs, gradguard's pair is taken
off the stack (one warning per process), so they run unguarded instead of failing.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
import weakref
from typing import Any, Callable, Iterator, Protocol

import torch

from . import sites
from .errors import SilentMutationError

_state = threading.local()


class Consumer(Protocol):
    """What a guard registers with the hook layer."""

    def on_pack(self, tensor: torch.Tensor, record: "PackRecord") -> Any: ...

    def on_unpack(self, state: Any, record: "PackRecord", tensor: torch.Tensor) -> None: ...

    def on_release(self, state: Any, record: "PackRecord") -> None: ...


def consumers() -> list:
    """The consumers registered on this thread, outermost first."""
    try:
        return _state.consumers
    except AttributeError:
        _state.consumers = []
        return _state.consumers


class PackRecord:
    """What autograd stores in place of a saved tensor while gradguard's hooks are active.

    A leaf (a parameter, a tensor that needs no grad) is held as is, as torch holds it. Anything
    else is held as a detached alias (same storage and version counter) plus a weak reference:
    holding an output tensor from its own grad_fn would make a reference cycle that Python's
    collector cannot see through.
    """

    __slots__ = ("tensor", "original", "version", "site", "module", "states", "unpacked", "__weakref__")

    def __init__(self, tensor: torch.Tensor, site: sites.Site, module: Any) -> None:
        if tensor.grad_fn is None:
            self.tensor = tensor
            self.original = None
        else:
            self.tensor = tensor.detach()
            self.original = weakref.ref(tensor)
        self.version = tensor._version
        self.site = site
        self.module = module
        self.states: tuple = ()
        self.unpacked = 0

    def read(self) -> torch.Tensor:
        """The tensor backward reads, as torch would read it without hooks."""
        original = self.original
        if original is None:
            return self.tensor
        t = original()
        if t is None or _same_storage(t, self.tensor):
            return self.tensor
        # `.data` of the saved tensor was replaced. torch keeps outputs by their storage at
        # save time but inputs by the tensor itself, whose storage is now the new one.
        if t.grad_fn is torch._C._current_autograd_node():
            return self.tensor
        return t.detach()

    def __del__(self) -> None:
        for consumer, state in self.states:
            try:
                consumer.on_release(state, self)
            except Exception:  # noqa: BLE001 - a finaliser must not raise
                pass


def _same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    try:
        return a.data_ptr() == b.data_ptr() and a.shape == b.shape
    except RuntimeError:
        return True


# module_of() is set by the module tracker while it is active: it returns the module whose
# forward is running, so that records can name it.
def _no_module() -> Any:
    return None


module_of: Callable[[], Any] = _no_module


def _plain_description(record: "PackRecord", tensor: torch.Tensor) -> str:
    return "a tensor"


# describe(record, tensor) names a saved tensor in reports; the naming module installs a
# better one (parameter paths, module names) when it is loaded.
describe: Callable[["PackRecord", torch.Tensor], str] = _plain_description


def _pack(tensor: torch.Tensor) -> PackRecord:
    record = PackRecord(tensor, sites.capture(2), module_of())
    states = []
    for consumer in consumers():
        state = consumer.on_pack(tensor, record)
        if state is not None:
            states.append((consumer, state))
    if states:
        record.states = tuple(states)
    return record


def _unpack(record: PackRecord) -> torch.Tensor:
    __tracebackhide__ = True
    capture = getattr(_state, "capture", None)
    if capture is not None:
        # An inspection (graph_stats) reads the saved tensors: record where they were saved.
        capture.append(record)
        return record.tensor
    tensor = record.read()
    if tensor._version != record.version:
        check_version(record, tensor)
    record.unpacked += 1
    for consumer, state in record.states:
        consumer.on_unpack(state, record, tensor)
    return tensor


def node_name() -> str:
    node = torch._C._current_autograd_node()
    return type(node).__name__ if node is not None else "a backward node"


def is_batchnorm_running_stat(name: str, t: torch.Tensor) -> bool:
    """Training-mode batch norm saves running_mean/var, updates them in place while its graph is
    alive, and never reads them in backward; torch does not complain, neither do we."""
    return "BatchNorm" in name and t.dim() == 1 and not t.requires_grad


version_error_listeners: list = []  # called with the error before it is raised (gradguard run)


def check_version(record: PackRecord, tensor: torch.Tensor) -> None:
    """torch's own version-counter check, which it skips while saved-tensor hooks are active."""
    __tracebackhide__ = True
    name = node_name()
    if is_batchnorm_running_stat(name, tensor):
        return
    what = describe(record, tensor)
    is_param = "parameter `" in what
    code = "GG208" if is_param else "GG102"
    cause = (
        "a parameter saved for backward was updated in place before this backward ran "
        "(an optimizer step between two backward passes through one graph?)"
        if is_param
        else "it was modified in place after autograd saved it"
    )
    error = SilentMutationError(
        f"{code} one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {name} saved {what} of shape {tuple(tensor.shape)} at "
        f"{sites.format_site(record.site, with_library=True)}; {cause} "
        f"(version counter {record.version} -> {tensor._version}). torch raises this error "
        f"itself when no saved-tensor hooks are active; gradguard repeats its check.",
        code=code,
        site=record.site,
    )
    for listener in version_error_listeners:
        listener(error)
    raise error


# -- registration ------------------------------------------------------------------------------


def _our_pair_on_top() -> bool:
    top = torch._C._autograd._top_saved_tensors_default_hooks(False)
    return top is not None and top[0] is _pack


class HookRegistration:
    """Enter/exit pair shared by the guards: registers a consumer and pushes the hook pair."""

    def __init__(self, consumer: object) -> None:
        self._consumer = consumer
        self._hooks: torch.autograd.graph.saved_tensors_hooks | None = None

    @property
    def active(self) -> bool:
        return self._hooks is not None

    def enter(self) -> None:
        if self._hooks is not None:
            raise RuntimeError(f"{type(self._consumer).__name__} is already active")
        install_functorch_bypass()
        hooks = torch.autograd.graph.saved_tensors_hooks(_pack, _unpack)
        hooks.__enter__()
        self._hooks = hooks
        consumers().append(self._consumer)

    def exit(self) -> None:
        hooks, self._hooks = self._hooks, None
        registered = consumers()
        for index in range(len(registered) - 1, -1, -1):
            if registered[index] is self._consumer:
                del registered[index]
                break
        if hooks is not None:
            hooks.__exit__(None, None, None)


class capture_sites:
    """While active, unpacking gradguard records returns them to the caller instead of checking."""

    def __enter__(self) -> list:
        self._previous = getattr(_state, "capture", None)
        _state.capture = []
        return _state.capture

    def __exit__(self, *exc: object) -> None:
        _state.capture = self._previous


# -- torch.func ----------------------------------------------------------------------------------

_original_disable = None
_warned_functorch = False
_FUNCTORCH_WARNING = (
    "gradguard: torch.func transforms (grad, vjp, jacrev, hessian) do not support saved-tensor "
    "hooks; they run without gradguard's guards"
)


@contextlib.contextmanager
def _disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """torch's ``disable_saved_tensors_hooks``, but gradguard's own pairs step aside first."""
    global _warned_functorch
    removed = 0
    while _our_pair_on_top():
        torch._C._autograd._pop_saved_tensors_default_hooks()
        removed += 1
    if removed and not _warned_functorch:
        _warned_functorch = True
        site = sites.capture(3)
        warnings.warn_explicit(_FUNCTORCH_WARNING, RuntimeWarning, site[0], site[1] or 1)
    try:
        with _original_disable(error_message):
            yield
    finally:
        for _ in range(removed):
            torch._C._autograd._push_saved_tensors_default_hooks(_pack, _unpack)


def install_functorch_bypass() -> None:
    """Route torch's ``disable_saved_tensors_hooks`` (used by torch.func) through the bypass."""
    global _original_disable
    if _original_disable is None:
        _original_disable = torch.autograd.graph.disable_saved_tensors_hooks
        torch.autograd.graph.disable_saved_tensors_hooks = _disable_saved_tensors_hooks
