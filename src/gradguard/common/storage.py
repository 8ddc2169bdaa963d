"""Which memory a tensor occupies, so that shared storage is counted once (needs torch)."""

from __future__ import annotations

from typing import Any

import torch


def storage_key(t: torch.Tensor) -> tuple[Any, int, int]:
    """(device, address, bytes) of the tensor's storage; tensors without a plain storage
    (sparse, some subclasses) get a key of their own and their element bytes."""
    try:
        storage = t.untyped_storage()
        return (str(t.device), storage.data_ptr(), storage.nbytes())
    except (RuntimeError, NotImplementedError):
        return (str(t.device), -id(t), t.numel() * t.element_size())
