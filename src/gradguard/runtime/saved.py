"""SavedTensorGuard: catch tensors saved for backward that change before backward reads them.

Autograd's own check is the version counter, and writes through ``.data`` (or a tensor
whose storage was swapped with ``set_``) do not move it: backward then computes a wrong
gradient without any error. The guard fingerprints each saved tensor when it is saved
(version, storage pointer, shape, a checksum of all values and a strided sample of values)
and compares when backward unpacks it.

Under saved-tensor hooks autograd skips its own version check, so the guard checks the
version counter too; otherwise wrapping a loop would hide errors torch normally raises.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import torch

from ._hooks import HookRegistration, Packed
from ._sites import user_site
from .errors import SilentMutationError

_SAMPLE_SIZE = 64


class Fingerprint:
    """What a saved tensor looked like when autograd saved it."""

    __slots__ = ("version", "data_ptr", "shape", "checksum", "sample", "sample_step")

    def __init__(self, version, data_ptr, shape, checksum, sample, sample_step) -> None:
        self.version = version
        self.data_ptr = data_ptr
        self.shape = shape
        self.checksum = checksum
        self.sample = sample
        self.sample_step = sample_step


def _checksum(t: torch.Tensor) -> torch.Tensor:
    # Summing in the tensor's own dtype is ~4x faster than accumulating in float64 and,
    # on the same tensor and thread count, reproducible bit for bit.
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.sum(dtype=torch.float32)
    if t.is_floating_point():
        return t.sum()
    if t.dtype == torch.bool:
        return t.sum()
    return t.sum(dtype=torch.int64)


def _sample(t: torch.Tensor, step: int) -> torch.Tensor | None:
    """Every ``step``-th element of a contiguous tensor: catches sign flips, permutations."""
    if step <= 0 or not t.is_contiguous():
        return None
    return t.view(-1)[::step]


def _content_view(t: torch.Tensor) -> torch.Tensor | None:
    if t.layout != torch.strided or t.device.type == "meta" or t.numel() == 0:
        return None
    return torch.view_as_real(t) if t.is_complex() else t


def fingerprint(t: torch.Tensor) -> Fingerprint:
    checksum = sample = None
    step = 0
    with torch.no_grad():
        try:
            content = _content_view(t)
            if content is not None:
                checksum = _checksum(content)
                step = max(1, content.numel() // _SAMPLE_SIZE)
                sample = _sample(content, step)
                if sample is not None:
                    sample = sample.clone()
        except (RuntimeError, TypeError, NotImplementedError):
            checksum = sample = None  # tensor subclasses or layouts without these ops
        try:
            data_ptr = t.data_ptr()
        except RuntimeError:
            data_ptr = 0
    return Fingerprint(t._version, data_ptr, tuple(t.shape), checksum, sample, step)


def _same(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    if a is None or b is None:
        return True
    if a.shape != b.shape:
        return False
    if torch.equal(a, b):
        return True
    if a.is_floating_point():  # NaN != NaN: equal when both are NaN at the same places
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return False


def _content_unchanged(fp: Fingerprint, t: torch.Tensor) -> bool:
    with torch.no_grad():
        try:
            content = _content_view(t)
            if content is None:
                return True
            return _same(_checksum(content), fp.checksum) and _same(_sample(content, fp.sample_step), fp.sample)
        except (RuntimeError, TypeError, NotImplementedError):
            return True


def _node_name() -> str:
    node = torch._C._current_autograd_node()
    return type(node).__name__ if node is not None else "a backward node"


def _is_batchnorm_running_stat(node_name: str, t: torch.Tensor) -> bool:
    # Training-mode batch norm saves running_mean/running_var and then updates them in
    # place while its graph is alive; its backward does not read them.
    return "BatchNorm" in node_name and t.dim() == 1 and not t.requires_grad


def mutation_problems(fp: Fingerprint, t: torch.Tensor, original: torch.Tensor | None) -> list[str]:
    problems = []
    if original is not None:
        try:
            ptr = original.data_ptr()
        except RuntimeError:
            ptr = fp.data_ptr
        if ptr != fp.data_ptr or tuple(original.shape) != fp.shape:
            problems.append(
                "its storage was replaced (`set_` or an assignment to `.data`); backward reads the old values"
            )
    if t._version != fp.version:
        problems.append(f"it was modified in place (version counter {fp.version} -> {t._version})")
    elif not _content_unchanged(fp, t):
        problems.append(
            "its values changed while its version counter did not move "
            "(a write through `.data`, or through another alias autograd cannot see)"
        )
    return problems


def _describe(node_name: str, shape: tuple, dtype: torch.dtype, site: str, what: str) -> str:
    return (
        f"GG102 silent mutation: {node_name} saved {what} of shape {tuple(shape)} and "
        f"dtype {dtype} at {site}, and it changed before backward read it: "
    )


def verify_packed(packed: Packed) -> None:
    fp = packed.fingerprint
    t = packed.tensor
    problems = mutation_problems(fp, t, packed.original())
    if not problems:
        return
    node_name = _node_name()
    if _is_batchnorm_running_stat(node_name, t):
        return
    raise SilentMutationError(
        _describe(node_name, fp.shape, t.dtype, packed.site, "a tensor")
        + "; ".join(problems)
        + ". The gradient computed from it would be wrong. Change a clone instead, or "
        "make the change after backward."
    )


# --- tensors kept as ctx attributes of custom autograd Functions (GG501) -----------------
# `ctx.x = x` bypasses save_for_backward, so no hook sees it. While a guard is active,
# Function.apply is wrapped: after forward, every tensor attribute on ctx is fingerprinted
# and a pre-hook on the node checks them before its backward runs.

_apply_lock = threading.Lock()
_apply_users = 0
_original_apply: Any = None
_active = threading.local()


def _ctx_tensors(ctx: Any) -> list[tuple[str, torch.Tensor]]:
    found = []
    for name, value in vars(ctx).items():
        if isinstance(value, torch.Tensor):
            found.append((f"ctx.{name}", value))
        elif isinstance(value, (list, tuple)):
            found.extend((f"ctx.{name}[{i}]", item) for i, item in enumerate(value) if isinstance(item, torch.Tensor))
    return found


def _watch_ctx(ctx: Any, site: str) -> None:
    tensors = _ctx_tensors(ctx)
    if not tensors:
        return
    records = [(path, fingerprint(t), t.dtype) for path, t in tensors]
    node_name = type(ctx).__name__

    def check_before_backward(grad_outputs: Any) -> None:
        node = torch._C._current_autograd_node()
        current = dict(_ctx_tensors(node)) if node is not None else {}
        for path, fp, dtype in records:
            t = current.get(path)
            if t is None:
                continue
            problems = mutation_problems(fp, t, None)
            if problems:
                raise SilentMutationError(
                    _describe(node_name, fp.shape, dtype, site, f"`{path}`")
                    + "; ".join(problems)
                    + ". Tensors kept as ctx attributes get no in-place check from autograd "
                    "(GG501): use ctx.save_for_backward, and change a clone instead."
                )

    ctx.register_prehook(check_before_backward)


def _guarded_apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
    result = _original_apply.__func__(cls, *args, **kwargs)
    if getattr(_active, "depth", 0) > 0 and torch.is_grad_enabled():
        outputs = result if isinstance(result, (tuple, list)) else (result,)
        for out in outputs:
            ctx = getattr(out, "grad_fn", None)
            if isinstance(ctx, torch.autograd.function.BackwardCFunction):
                _watch_ctx(ctx, user_site(2))
                break
    return result


def _patch_apply() -> None:
    global _apply_users, _original_apply
    with _apply_lock:
        if _apply_users == 0:
            _original_apply = torch.autograd.Function.__dict__["apply"]
            torch.autograd.Function.apply = classmethod(_guarded_apply)
        _apply_users += 1


def _unpatch_apply() -> None:
    global _apply_users, _original_apply
    with _apply_lock:
        _apply_users -= 1
        if _apply_users == 0:
            torch.autograd.Function.apply = _original_apply
            _original_apply = None


class SavedTensorGuard:
    """Context manager: raise SilentMutationError (GG102) when a saved tensor changes.

    ``check_ctx_attributes`` also watches tensors stored as attributes of the ``ctx`` of
    custom autograd Functions (it wraps ``torch.autograd.Function.apply`` while active).
    """

    def __init__(self, *, check_ctx_attributes: bool = True) -> None:
        self.check_ctx_attributes = check_ctx_attributes
        self._registration = HookRegistration(self)
        self._patched = False

    def _on_pack(self, packed: Packed, tensor: torch.Tensor) -> None:
        if packed.fingerprint is None:
            packed.fingerprint = fingerprint(tensor)
            packed.original = weakref.ref(tensor)

    def __enter__(self) -> "SavedTensorGuard":
        self._registration.enter()
        if self.check_ctx_attributes:
            try:
                _patch_apply()
            except BaseException:
                self._registration.exit()
                raise
            self._patched = True
            _active.depth = getattr(_active, "depth", 0) + 1
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._patched:
                self._patched = False
                _active.depth -= 1
                _unpatch_apply()
        finally:
            self._registration.exit()
