"""The gradient-control choices being compared, each as a zero-argument forward call.

Every mode runs the same model on the same input; only the gradient control differs:

- ``grad``: grad enabled, parameters require grad (the baseline a training step pays).
- ``no_grad``: the forward inside ``torch.no_grad()``.
- ``inference_mode``: the forward inside ``torch.inference_mode()``.
- ``detach_input``: grad enabled, only the input detached. The parameters still require
  grad, so the graph is built and activations are saved exactly as in ``grad``.
- ``frozen``: grad enabled, every parameter ``requires_grad_(False)``. With an input that
  does not require grad nothing is recorded at all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch
from torch import nn

MODE_DESCRIPTIONS = {
    "grad": "grad enabled, parameters require grad (baseline)",
    "no_grad": "forward inside torch.no_grad()",
    "inference_mode": "forward inside torch.inference_mode()",
    "detach_input": "grad enabled, input.detach(); parameters still require grad",
    "frozen": "grad enabled, all parameters requires_grad_(False)",
}

_GRAD_CONTEXTS: dict[str, Callable[[], contextlib.AbstractContextManager]] = {
    "grad": torch.enable_grad,
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "detach_input": torch.enable_grad,
    "frozen": torch.enable_grad,
}


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


@contextlib.contextmanager
def prepared(mode: str, params: list[torch.Tensor]) -> Iterator[None]:
    """State a mode needs around all its calls (only ``frozen`` needs any)."""
    if mode == "frozen":
        with frozen_parameters(params):
            yield
    else:
        yield


def forward_call(
    mode: str,
    fn: Callable[..., torch.Tensor],
    args: tuple[torch.Tensor, ...],
    autocast: tuple[str, torch.dtype] | None = None,
) -> Callable[[], torch.Tensor]:
    """A zero-argument call running ``fn(*args)`` under ``mode``.

    ``detach_input`` detaches the first argument (the input) inside the call, so its cost is
    part of what is timed. Run it inside ``prepared(mode, ...)``.
    """
    grad_context = _GRAD_CONTEXTS[mode]
    detach_first = mode == "detach_input"

    def autocast_context() -> contextlib.AbstractContextManager:
        if autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=autocast[0], dtype=autocast[1])

    def call() -> torch.Tensor:
        with grad_context(), autocast_context():
            if detach_first:
                return fn(args[0].detach(), *args[1:])
            return fn(*args)

    return call


def model_forward(
    mode: str,
    model: nn.Module,
    x: torch.Tensor,
    autocast: tuple[str, torch.dtype] | None = None,
) -> Callable[[], torch.Tensor]:
    """``forward_call`` for a model on one input."""
    return forward_call(mode, model, (x,), autocast)
