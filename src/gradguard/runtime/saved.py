"""SavedTensorGuard: catch tensors saved for backward that change before backward reads them.

Autograd's own check is the version counter, and writes through ``.data`` (or a tensor
whose storage was swapped with ``set_``) do not move it: backward then computes a wrong
gradient without any error. The guard fingerprints each saved tensor when it is saved
(version, storage pointer, shape, a checksum of the values' bits and a strided sample of values)
and compares when backward reads it. The checksum adds the values' bit patterns as integers,
so it does not depend on the order of the reduction (the thread count), unlike a float sum.

The version counter itself is checked by the shared hook layer (``hooks``) for every guard.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode

from . import sites
from .errors import SilentMutationError
from .hooks import HookRegistration, PackRecord, is_batchnorm_running_stat, node_name

_SAMPLE_SIZE = 64

# Integer views of the same width: their sums wrap around, and integer addition gives the same
# result in any order, so the checksum is independent of the thread count. Per dtype: the view
# dtype (None: the tensor itself) and the accumulation dtype.
_BITS: dict[torch.dtype, tuple[torch.dtype | None, torch.dtype]] = {
    torch.float32: (torch.int32, torch.int32),
    torch.float64: (torch.int64, torch.int64),
    torch.float16: (torch.int16, torch.int32),
    torch.bfloat16: (torch.int16, torch.int32),
    torch.int64: (None, torch.int64),
    torch.int32: (None, torch.int32),
    torch.int16: (None, torch.int32),
    torch.int8: (torch.uint8, torch.int32),
    torch.uint8: (None, torch.int32),
    torch.bool: (torch.uint8, torch.int32),
    torch.complex64: (torch.int64, torch.int64),
    torch.complex128: (torch.int64, torch.int64),  # 16-byte elements: viewed as pairs below
}


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
    bits, acc = _BITS[t.dtype]
    if t.dtype is torch.complex128:
        t = torch.view_as_real(t)
    return (t if bits is None else t.view(bits)).sum(dtype=acc)


_index_cache: dict[tuple, torch.Tensor] = {}


def _sample(t: torch.Tensor, step: Any) -> torch.Tensor | None:
    """Every ``step``-th value in logical order, in one ``torch.take`` (contiguous or not): catches
    what an additive checksum cannot see (every value doubled adds 2**23 per float32 value, a
    multiple of 2**32 for 512 of them)."""
    if not step:
        return None
    key = (t.numel(), step, t.device)
    index = _index_cache.get(key)
    if index is None:
        if len(_index_cache) > 4096:
            _index_cache.clear()
        index = _index_cache[key] = torch.arange(0, t.numel(), step, device=t.device)
    return torch.take(t, index)


def _sample_step(t: torch.Tensor) -> int:
    return max(1, t.numel() // _SAMPLE_SIZE)


def _usable(t: torch.Tensor) -> bool:
    return t.layout == torch.strided and not t.is_meta and t.numel() > 0 and t.dtype in _BITS


def fingerprint(t: torch.Tensor) -> Fingerprint:
    """Cheap on purpose (one view, one sum, one take): it runs for every saved tensor."""
    checksum = sample = None
    step = 0
    d = t.detach()
    try:
        if _usable(d):
            checksum = _checksum(d)
            step = max(1, d.numel() // _SAMPLE_SIZE)
            sample = _sample(d, step)
    except (RuntimeError, TypeError, NotImplementedError):
        checksum = sample = None  # tensor subclasses or layouts without these ops
    try:
        data_ptr = d.data_ptr()
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
    if fp.checksum is None:
        return True
    if tuple(t.shape) != fp.shape:
        return False
    d = t.detach()
    try:
        if not _usable(d):
            return True
        return _same(_checksum(d), fp.checksum) and _same(_sample(d, fp.sample_step), fp.sample)
    except (RuntimeError, TypeError, NotImplementedError):
        return True


def mutation_problems(fp: Fingerprint, t: torch.Tensor) -> list[str]:
    """What changed between the fingerprint and ``t``, the tensor backward reads.

    A replaced storage is a problem only when backward reads values that differ from the saved
    ones: torch reads a saved output from its storage at save time (the straight-through
    ``h.data = sign(h.data)`` leaves the gradient unchanged), and a saved input re-gathered
    with identical values (ZeRO-3-style offloading) gives the same gradient.
    """
    problems = []
    if t._version != fp.version:
        problems.append(f"it was modified in place (version counter {fp.version} -> {t._version})")
    elif not _content_unchanged(fp, t):
        try:
            replaced = t.data_ptr() != fp.data_ptr
        except RuntimeError:
            replaced = False
        if replaced:
            problems.append(
                "its storage was replaced (`set_` or an assignment to `.data`) by different values, "
                "which backward reads"
            )
        else:
            problems.append(
                "its values changed while its version counter did not move "
                "(a write through `.data`, or through another alias autograd cannot see)"
            )
    return problems


def _describe(node: str, shape: tuple, dtype: torch.dtype, site: Any, what: str) -> str:
    return (
        f"GG102 silent mutation: {node} saved {what} of shape {tuple(shape)} and "
        f"dtype {dtype} at {sites.format_site(site, with_library=True)}, and it changed before "
        f"backward read it: "
    )


# -- where was it mutated: an opt-in TorchFunctionMode that notes in-place writes ---------------


class _MutationLocator(TorchFunctionMode):
    """Records the user line of the last in-place write to each storage (costly: every torch
    call goes through Python while it is active, so it is off unless asked for)."""

    def __init__(self) -> None:
        super().__init__()
        self.last_write: dict[int, Any] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        target = None
        if name == "__set__" and args:  # Tensor.data = ...
            target = args[0]
        elif name.endswith("_") and not name.startswith("_") and args:
            target = args[0]
        elif "out" in kwargs:
            target = kwargs["out"]
        if isinstance(target, torch.Tensor):
            try:
                key = target.untyped_storage().data_ptr()
            except (RuntimeError, NotImplementedError):
                key = None
            if key is not None:
                if len(self.last_write) > 100_000:
                    self.last_write.clear()
                self.last_write[key] = sites.capture(2)
        return func(*args, **kwargs)


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


def _watch_ctx(ctx: Any, site: Any) -> None:
    tensors = _ctx_tensors(ctx)
    if not tensors:
        return
    records = [(path, fingerprint(t), t.dtype) for path, t in tensors]
    name = type(ctx).__name__
    report = getattr(_active, "report", None)

    def check_before_backward(grad_outputs: Any) -> None:
        __tracebackhide__ = True
        node = torch._C._current_autograd_node()
        current = dict(_ctx_tensors(node)) if node is not None else {}
        for path, fp, dtype in records:
            t = current.get(path)
            if t is None:
                continue
            problems = mutation_problems(fp, t)
            if problems:
                error = SilentMutationError(
                    _describe(name, fp.shape, dtype, site, f"`{path}`")
                    + "; ".join(problems)
                    + ". Tensors kept as ctx attributes get no in-place check from autograd "
                    "(GG501): use ctx.save_for_backward, and change a clone instead.",
                    site=site,
                )
                if report is None:
                    raise error
                report(error)

    ctx.register_prehook(check_before_backward)


def _guarded_apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
    result = _original_apply.__func__(cls, *args, **kwargs)
    if getattr(_active, "depth", 0) > 0 and torch.is_grad_enabled():
        outputs = result if isinstance(result, (tuple, list)) else (result,)
        for out in outputs:
            ctx = getattr(out, "grad_fn", None)
            if isinstance(ctx, torch.autograd.function.BackwardCFunction):
                _watch_ctx(ctx, sites.capture(2))
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
    ``locate_mutations`` notes the line of every in-place write, so that a report can name the
    line that changed the tensor (every torch call then goes through Python: slow).
    ``on_finding``, when given, receives each SilentMutationError instead of it being raised
    (``gradguard run`` collects them); backward then reads the changed tensor as torch would.
    """

    def __init__(
        self,
        *,
        check_ctx_attributes: bool = True,
        locate_mutations: bool = False,
        on_finding: Callable[[SilentMutationError], None] | None = None,
    ) -> None:
        self.check_ctx_attributes = check_ctx_attributes
        self.locate_mutations = locate_mutations
        self.on_finding = on_finding
        self._registration = HookRegistration(self)
        self._patched = False
        self._locator: _MutationLocator | None = None

    # -- consumer protocol ----------------------------------------------------------------
    def on_pack(self, tensor: torch.Tensor, record: PackRecord) -> Fingerprint:
        return fingerprint(tensor)

    def on_unpack(self, fp: Fingerprint, record: PackRecord, tensor: torch.Tensor) -> None:
        __tracebackhide__ = True
        problems = mutation_problems(fp, tensor)
        if not problems:
            return
        name = node_name()
        if is_batchnorm_running_stat(name, tensor):
            return
        from .names import describe_tensor

        where = ""
        if self._locator is not None:
            try:
                key = tensor.untyped_storage().data_ptr()
            except (RuntimeError, NotImplementedError):
                key = None
            written = self._locator.last_write.get(key) or self._locator.last_write.get(fp.data_ptr)
            if written is not None:
                where = f" It was changed at {sites.format_site(written, with_library=True)}."
        error = SilentMutationError(
            _describe(name, fp.shape, tensor.dtype, record.site, describe_tensor(record, tensor))
            + "; ".join(problems)
            + "."
            + where
            + " The gradient computed from it would be wrong. Change a clone instead, or "
            "make the change after backward.",
            site=record.site,
        )
        if self.on_finding is None:
            raise error
        self.on_finding(error)

    def on_release(self, state: Any, record: PackRecord) -> None:
        pass

    # -- context manager ------------------------------------------------------------------
    def __enter__(self) -> "SavedTensorGuard":
        self._registration.enter()
        try:
            from .names import TRACKER

            TRACKER.acquire()
            if self.check_ctx_attributes:
                _patch_apply()
                self._patched = True
                _active.depth = getattr(_active, "depth", 0) + 1
                _active.report = self.on_finding
            if self.locate_mutations:
                self._locator = _MutationLocator()
                self._locator.__enter__()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._locator is not None:
                locator, self._locator = self._locator, None
                locator.__exit__(None, None, None)
            if self._patched:
                self._patched = False
                _active.depth -= 1
                _active.report = None
                _unpatch_apply()
        finally:
            if self._registration.active:
                from .names import TRACKER

                TRACKER.release()
            self._registration.exit()
