"""find_inference_tensors: tensors of a module made under inference_mode (GG503)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class InferenceTensorFinding:
    path: str
    kind: str  # "parameter", "buffer" or "attribute"
    shape: tuple
    dtype: torch.dtype
    module_defined_at: str
    code: str = "GG503"

    def __str__(self) -> str:
        return (
            f"{self.code} {self.kind} {self.path} {self.shape} {self.dtype} is an inference "
            f'tensor: any autograd-recorded use of it fails ("Inference tensors cannot be '
            f"saved for backward\"). The module's class is defined at "
            f"{self.module_defined_at}; create or refresh this tensor outside "
            f"torch.inference_mode(), or store a .clone() made outside it."
        )


def _defined_at(module: torch.nn.Module) -> str:
    cls = type(module)
    try:
        return f"{inspect.getsourcefile(cls)}:{inspect.getsourcelines(cls)[1]}"
    except (OSError, TypeError):
        return f"<{cls.__module__}.{cls.__qualname__}>"


def find_inference_tensors(module: torch.nn.Module) -> list[InferenceTensorFinding]:
    """Parameters, buffers and tensor attributes of ``module`` that are inference tensors."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"find_inference_tensors() expects an nn.Module, got {type(module).__name__}")
    findings = []
    for prefix, sub in module.named_modules(remove_duplicate=True):
        where = _defined_at(sub)
        dotted = f"{prefix}." if prefix else ""
        candidates = [(name, "parameter", p) for name, p in sub._parameters.items()]
        candidates += [(name, "buffer", b) for name, b in sub._buffers.items()]
        for name, value in vars(sub).items():
            if isinstance(value, torch.Tensor):
                candidates.append((name, "attribute", value))
            elif isinstance(value, (list, tuple)):
                candidates += [
                    (f"{name}[{i}]", "attribute", v) for i, v in enumerate(value) if isinstance(v, torch.Tensor)
                ]
            elif isinstance(value, dict) and not name.startswith("_"):
                candidates += [
                    (f"{name}[{k!r}]", "attribute", v) for k, v in value.items() if isinstance(v, torch.Tensor)
                ]
        for name, kind, t in candidates:
            if t is not None and t.is_inference():
                findings.append(InferenceTensorFinding(f"{dotted}{name}", kind, tuple(t.shape), t.dtype, where))
    return findings
