"""How each mode is applied to a torch call: the grad context, detached inputs, frozen parameters."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch

from gradguard.bench.modes import Mode

_GRAD_CONTEXTS: dict[str, Callable[[], contextlib.AbstractContextManager]] = {
    "enable_grad": torch.enable_grad,
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
}


def grad_context(mode: Mode) -> contextlib.AbstractContextManager:
    return _GRAD_CONTEXTS[mode.grad_context]()


@contextlib.contextmanager
def frozen_parameters(params: list[torch.Tensor]) -> Iterator[None]:
    """Set ``requires_grad=False`` on ``params`` for the block, then restore each flag."""
    flags = [p.requires_grad for p in params]
    try:
        for p in params:
            p.requires_grad_(False)
        yield
    finally:
        for p, flag in zip(params, flags):
            p.requires_grad_(flag)


def prepared(mode: Mode, params: list[torch.Tensor]) -> contextlib.AbstractContextManager:
    """State a mode needs around its calls, outside what is timed (only ``frozen`` needs any)."""
    return frozen_parameters(params) if mode.freezes_parameters else contextlib.nullcontext()


def map_tensors(value: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    """``fn`` applied to every tensor in nested tuples, lists and dicts."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(map_tensors(v, fn) for v in value)
    if isinstance(value, list):
        return [map_tensors(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_tensors(v, fn) for k, v in value.items()}
    return value


def tensors_in(value: Any) -> list[torch.Tensor]:
    """Every tensor in a (possibly nested) value; dict-like model outputs included."""
    found: list[torch.Tensor] = []

    def collect(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                collect(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v)

    collect(value)
    return found


def forward_call(
    mode: Mode,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    autocast: tuple[str, torch.dtype] | None = None,
) -> Callable[[], Any]:
    """A zero-argument call running ``fn(*args, **kwargs)`` under ``mode``.

    ``detach_input`` detaches every input tensor inside the call, so its cost is part of
    what is timed. Run the call inside ``prepared(mode, ...)``.
    """
    kwargs = kwargs or {}
    context = _GRAD_CONTEXTS[mode.grad_context]

    def autocast_context() -> contextlib.AbstractContextManager:
        if autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=autocast[0], dtype=autocast[1])

    if mode.detaches_inputs:

        def call() -> Any:
            with context(), autocast_context():
                detached_args = map_tensors(args, torch.Tensor.detach)
                detached_kwargs = map_tensors(kwargs, torch.Tensor.detach)
                return fn(*detached_args, **detached_kwargs)

    else:

        def call() -> Any:
            with context(), autocast_context():
                return fn(*args, **kwargs)

    return call
