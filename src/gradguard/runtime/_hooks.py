"""One saved-tensor hook pair shared by every gradguard guard active on a thread.

``torch.autograd.graph.saved_tensors_hooks`` runs only the innermost active pair, so two
gradguard guards nested in each other would hide the outer one. Each guard therefore
pushes the same pack/unpack functions, and those serve every gradguard guard that is
active on the thread.
"""

from __future__ import annotations

import threading
from typing import Any

import torch

from ._sites import user_site

_state = threading.local()


def _consumers() -> list:
    try:
        return _state.consumers
    except AttributeError:
        _state.consumers = []
        return _state.consumers


def _no_original() -> None:
    return None


class Packed:
    """What autograd stores in place of a saved tensor while a guard is active.

    It holds a detached alias (same storage and version counter) rather than the tensor
    itself: holding an output tensor from its own grad_fn would make a reference cycle
    that Python's collector cannot see through.
    """

    __slots__ = ("tensor", "original", "site", "fingerprint", "monitors", "key", "step")

    def __init__(self, tensor: torch.Tensor, site: str) -> None:
        self.tensor = tensor.detach()
        self.original: Any = _no_original  # set by SavedTensorGuard, which needs it
        self.site = site
        self.fingerprint: Any = None
        self.monitors: tuple = ()
        self.key: Any = None
        self.step = 0

    def __del__(self) -> None:
        for monitor in self.monitors:
            monitor._released(self)


def _pack(tensor: torch.Tensor) -> Packed:
    packed = Packed(tensor, user_site(2))
    for consumer in _consumers():
        consumer._on_pack(packed, tensor)
    return packed


def _unpack(packed: Packed) -> torch.Tensor:
    capture = getattr(_state, "capture", None)
    if capture is not None:
        # An inspection (graph_stats) reads the saved tensors: record where they were
        # saved instead of checking them.
        capture.append(packed)
    elif packed.fingerprint is not None:
        from .saved import verify_packed

        verify_packed(packed)
    return packed.tensor


class capture_sites:
    """While active, unpacking gradguard-packed tensors records their save sites."""

    def __enter__(self) -> list:
        self._previous = getattr(_state, "capture", None)
        _state.capture = []
        return _state.capture

    def __exit__(self, *exc: object) -> None:
        _state.capture = self._previous


class HookRegistration:
    """Enter/exit pair shared by the guards: registers a consumer and the hook pair."""

    def __init__(self, consumer: object) -> None:
        self._consumer = consumer
        self._hooks: torch.autograd.graph.saved_tensors_hooks | None = None

    def enter(self) -> None:
        if self._hooks is not None:
            raise RuntimeError(f"{type(self._consumer).__name__} is already active")
        hooks = torch.autograd.graph.saved_tensors_hooks(_pack, _unpack)
        hooks.__enter__()
        self._hooks = hooks
        _consumers().append(self._consumer)

    def exit(self) -> None:
        hooks, self._hooks = self._hooks, None
        consumers = _consumers()
        for index in range(len(consumers) - 1, -1, -1):
            if consumers[index] is self._consumer:
                del consumers[index]
                break
        if hooks is not None:
            hooks.__exit__(None, None, None)
