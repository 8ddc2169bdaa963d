"""The gradient-control choices compared, in one place (no torch: the reports use it too).

Every mode runs the same model on the same input; only the gradient control differs:

- ``grad``: grad enabled, parameters require grad (what the forward of a training step pays).
- ``no_grad``: the forward inside ``torch.no_grad()``.
- ``inference_mode``: the forward inside ``torch.inference_mode()``.
- ``detach_input``: grad enabled, every input tensor detached. The parameters still require
  grad, so the graph is built and activations are saved as in ``grad``.
- ``frozen``: grad enabled, every parameter ``requires_grad_(False)``. With inputs that do
  not require grad nothing is recorded at all.

How a mode is applied to a torch call lives in ``calls`` (torch); this module only says what
each mode is, so that the results and the reports can be read without torch.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Mode(str, enum.Enum):
    """One gradient-control choice; the value is the name used on the command line and in JSON."""

    GRAD = "grad"
    NO_GRAD = "no_grad"
    INFERENCE_MODE = "inference_mode"
    DETACH_INPUT = "detach_input"
    FROZEN = "frozen"

    def __str__(self) -> str:
        return self.value

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    @property
    def grad_context(self) -> str:
        """Name of the ``torch`` context manager the call runs under."""
        return {Mode.NO_GRAD: "no_grad", Mode.INFERENCE_MODE: "inference_mode"}.get(self, "enable_grad")

    @property
    def detaches_inputs(self) -> bool:
        return self is Mode.DETACH_INPUT

    @property
    def freezes_parameters(self) -> bool:
        return self is Mode.FROZEN


_DESCRIPTIONS = {
    Mode.GRAD: "grad enabled, parameters require grad (baseline)",
    Mode.NO_GRAD: "forward inside torch.no_grad()",
    Mode.INFERENCE_MODE: "forward inside torch.inference_mode()",
    Mode.DETACH_INPUT: "grad enabled, inputs detached; parameters still require grad",
    Mode.FROZEN: "grad enabled, all parameters requires_grad_(False)",
}

#: Every mode, in the order tables list them.
ALL_MODES: tuple[Mode, ...] = tuple(Mode)
#: The mode every ratio is taken against.
BASELINE = Mode.GRAD


class UnknownModeError(ValueError):
    pass


def parse_modes(values: Iterable[str]) -> tuple[Mode, ...]:
    """Names (space or comma separated, repeats dropped) to modes, in the order given."""
    names = [item.strip() for value in values for item in value.split(",") if item.strip()]
    modes = []
    for name in names:
        try:
            modes.append(Mode(name))
        except ValueError:
            raise UnknownModeError(f"unknown {name!r}, choose from {', '.join(m.value for m in Mode)}") from None
    return tuple(dict.fromkeys(modes))
