"""Indexing a 0-dim tensor: `loss.data[0]`, `loss[0]`, `acc.data.numpy()[0]`.

Shared by GG105 (which reports it and rewrites it to `.item()`) and GG101 (whose `.detach()`
fix must not turn `loss.data[0]` into `loss.detach()[0]`, which still raises). Whether the
tensor is 0-dim comes from the semantic model (``Role.SCALAR``: a full reduction, a
criterion's output); a value known only from its name counts where the chain goes through
`.data` or `.numpy()` (the PyTorch 0.3 idiom, written only on tensors).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.imports import TORCH_PACKAGES
from gradguard.check.analysis.project import current as current_project
from gradguard.check.analysis.values import Kind, Role
from gradguard.check.analysis.vocabulary import FULL_REDUCTIONS, RETURNS_A_REDUCTION_RE, call_argument, constant_of

# Calls between the tensor and the index that keep it 0-dim (and a tensor, or for
# `.numpy()` a 0-d array, which cannot be indexed either).
_KEEPING_CALLS = frozenset({"cpu", "cuda", "detach", "clone", "numpy"})


@dataclass(frozen=True)
class ZeroDimIndex:
    """``subscript`` indexes the 0-dim ``tensor`` (the expression before any `.data`,
    `.cpu()`, `.numpy()`); ``legacy`` says the chain goes through `.data` or `.numpy()`."""

    subscript: ast.Subscript
    tensor: ast.expr
    legacy: bool
    array: bool = False  # ``tensor`` holds a 0-dim numpy array (`loss.data.numpy()`, bound or returned)
    listed: bool = False  # `.tolist()` on the way: a Python number, which cannot be indexed (TypeError)


def zero_dim_index(ctx, node: ast.Subscript) -> Optional[ZeroDimIndex]:
    """``node`` as a `[0]` or `[-1]` on a tensor the model knows to be 0-dim, else None."""
    if not isinstance(node.ctx, ast.Load) or constant_of(node.slice, default=None) not in (0, -1):
        return None
    if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, bool):
        return None
    tensor = node.value
    legacy = False
    listed = False
    if (
        isinstance(tensor, ast.Call)
        and isinstance(tensor.func, ast.Attribute)
        and tensor.func.attr == "tolist"
        and not tensor.args
        and not tensor.keywords
    ):
        # `loss.data.tolist()[0]`: the 0.3 idiom read a one-element list; a 0-dim tensor's is a float
        listed = True
        tensor = tensor.func.value
    moved = False  # a method only tensors have on the way (`.cpu()`, `.detach()`): the value is a tensor
    while True:
        if isinstance(tensor, ast.Attribute) and tensor.attr == "data":
            legacy = True
            tensor = tensor.value
        elif (
            isinstance(tensor, ast.Call)
            and isinstance(tensor.func, ast.Attribute)
            and tensor.func.attr in _KEEPING_CALLS
            and not tensor.args
            and (tensor.func.attr == "numpy" or not tensor.keywords)
        ):
            legacy = legacy or tensor.func.attr == "numpy"
            moved = True
            tensor = tensor.func.value
        else:
            break
    if isinstance(tensor, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.JoinedStr)):
        return None
    if listed and not legacy:
        return None  # `x.tolist()[0]` of a tensor of any shape: the list's first item
    if not legacy and not _scope_makes_zero_dim(ctx):
        return None
    value = ctx.model.value(tensor)
    if value.kind is Kind.OTHER and value.has(Role.SCALAR):
        # `loss = optimize(...)`, of `return loss.data.cpu().numpy()`: a 0-dim array
        return ZeroDimIndex(node, tensor, legacy, array=True)
    if value.kind is not Kind.TENSOR or not value.has(Role.SCALAR):
        if legacy and not listed and value.kind is Kind.UNKNOWN and _full_reduction_of_a_tensor(tensor, moved):
            # `(input * target).long().sum().data.cpu()[0]` of a parameter the code does not show
            return ZeroDimIndex(node, tensor, legacy)
        if legacy and not listed and value.kind is Kind.UNKNOWN and _scalar_loss_attribute(ctx, tensor):
            # `self.loss_G_L1.data[0]` of `self.loss_G_L1 = self.criterionL1(fake, real)` in another method
            return ZeroDimIndex(node, tensor, legacy)
        return None
    if listed:
        return None if value.weak else ZeroDimIndex(node, tensor, legacy, listed=True)
    if value.weak and not legacy and not (isinstance(tensor, ast.Name) and _accumulated(ctx, tensor.id)):
        return None  # `compute_loss(...)[0]` may index a tuple the function returns
    if value.weak and isinstance(tensor, ast.Name) and _computed_by_another_package(ctx, tensor.id):
        return None  # warp-ctc's `CTCLoss()(...)`: a tensor of shape (1,), whose `[0]` is its value
    return ZeroDimIndex(node, tensor, legacy)


# Methods only tensors have that cast a value (`x.long()`): what they are called on is a tensor.
_TENSOR_CASTS = frozenset({"long", "float", "double", "int", "half", "byte", "bool", "bfloat16"})


def _scalar_loss_attribute(ctx, tensor: ast.AST) -> bool:
    """Whether ``self.<attr>`` is set by the class's methods to reduced losses only (a number
    where a branch leaves the loss out: ``self.loss_G_GAN = 0``), one of them at least."""
    if not isinstance(tensor, ast.Attribute):
        return False
    values = ctx.model.self_attribute_values(tensor)
    if not values:
        return False
    losses = [v for v in values if v.kind is Kind.TENSOR and v.has(Role.SCALAR) and v.has(Role.LOSS) and not v.weak]
    return bool(losses) and all(v in losses or v.kind is Kind.NUMBER for v in values)


def _full_reduction_of_a_tensor(value: ast.AST, moved: bool) -> bool:
    """Whether ``value`` reduces a tensor to 0 dimensions by a method without arguments
    (``x.sum()``), the code showing it a tensor: moved after it (``.cpu()``, ``.detach()``) or
    cast before it (``x.long().sum()``)."""
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in FULL_REDUCTIONS
        and not value.args
        and not value.keywords
    ):
        return False
    receiver = value.func.value
    cast = (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in _TENSOR_CASTS
        and not receiver.args
    )
    return moved or cast


# Calls that hand back the object they are called on, moved or cast (`CTCLoss().type(dtype)`).
_MOVES = frozenset({"type", "cuda", "cpu", "to", "float", "double"})


def _computed_by_another_package(ctx, name: str) -> bool:
    """Whether the scope binds ``name`` only to what a callable bound to an instance of a class
    imported from a package other than torch computes (``loss = ctc(out, y, out_len, y_len) /
    n`` with ``ctc = warpctc_pytorch.CTCLoss()``): its shape is that package's, not known to be
    0-dim (warp-ctc's loss has shape (1,))."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    bindings = ctx.model.uses(scope).bindings_of(name)
    made_by = [b for b in bindings if not isinstance(b.node, ast.AugAssign)]  # (`loss /= n` keeps its shape)
    if not made_by:
        return False
    for binding in made_by:
        value = binding.value
        while isinstance(value, ast.BinOp):
            value = value.left  # `ctc(...) / batch_size`
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return False
        callee = value.func.id
        scopes = (scope,) if scope is ctx.tree else (scope, ctx.tree)
        made = [b.value for where in scopes for b in ctx.model.uses(where).bindings_of(callee)]
        if not made and scope is not ctx.tree:
            made = _handed_in(ctx, scope, callee)  # `train(model, loader, loss_fn)`, given `CTCLoss()`
        if not made or not all(_instance_of_another_package(ctx, m) for m in made):
            return False
    return True


def _handed_in(ctx, fn: ast.AST, name: str) -> list:
    """What the file's calls of the function ``fn`` hand its parameter ``name``, each
    caller's own binding of the name it passes (``loss_fn = CTCLoss()``, then ``train(model,
    loader, loss_fn)``); empty where a call passes something else or the function is used
    other than by calling it."""
    args = fn.args  # type: ignore[attr-defined]
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if name not in positional or ctx.model.body_binds(fn, name):
        return []
    index = positional.index(name)
    sites = ctx.model.callers(fn)
    if not sites:
        return []
    made: list = []
    for site in sites:
        if not isinstance(site.call.func, ast.Name):
            return []  # a method's call: its positions are shifted by `self`
        handed = call_argument(site.call, index, name)
        if not isinstance(handed, ast.Name):
            return []
        bindings = ctx.model.uses(site.frame.node).bindings_of(handed.id)
        if not bindings:
            return []
        made.extend(b.value for b in bindings)
    return made


def _instance_of_another_package(ctx, node: Optional[ast.AST]) -> bool:
    """``CTCLoss()`` or ``CTCLoss().type(dtype)`` of a class imported from a package other than
    torch and the run's own files (``from utils import mixup_criterion`` of the run computes
    with torch's losses)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
        node = node.func.value
    if not isinstance(node, ast.Call):
        return False
    qualified = ctx.imports.qualified_name(node.func) or ""
    package = qualified.split(".", 1)[0]
    if not package or "." not in qualified or package in TORCH_PACKAGES:
        return False
    project = current_project()
    return project is None or package not in project.run_modules()


def _accumulated(ctx, name: str) -> bool:
    """Whether the scope binds ``name`` only by a number and augmented assignments
    (``total_loss = 0``, then ``total_loss += loss.data``): a sum, never a tuple."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    bindings = ctx.model.uses(scope).bindings_of(name)
    return any(isinstance(b.node, ast.AugAssign) for b in bindings) and all(
        isinstance(b.node, ast.AugAssign) or (isinstance(b.value, ast.Constant) and type(b.value.value) in (int, float))
        for b in bindings
    )


# Text that code making a 0-dim tensor contains: a full reduction, a loss or criterion call,
# a backward pass or `.item()`. Without any of it in the enclosing function (or module), a
# plain `x[0]` is not worth analysing the function for (`args[0]`, `shape[0]`, ...).
ZERO_DIM_HINTS = (
    *(f".{name}()" for name in sorted(FULL_REDUCTIONS)),
    "loss",
    "Loss",
    "criterion",
    ".backward(",
    ".item(",
)


@dataclass
class _ScopeHints:
    found: dict = field(default_factory=dict)  # id(scope node) -> bool
    reducing: Optional[frozenset] = None  # `reducing_functions`


def _scope_makes_zero_dim(ctx) -> bool:
    scope = ctx.function if ctx.function is not None else ctx.tree
    hints = ctx.state(_ScopeHints).found
    found = hints.get(id(scope))
    if found is None:
        text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
        found = hints[id(scope)] = any(hint in text for hint in ZERO_DIM_HINTS) or any(
            f"{name}(" in text for name in reducing_functions(ctx)
        )
    return found


def reducing_functions(ctx) -> frozenset:
    """How the file calls the functions, its own or the run's, whose text returns a full
    reduction (``RETURNS_A_REDUCTION_RE``): ``checkAcc(model, x, y)[0]`` of ``return
    torch.mean(...)``, made once per file."""
    state = ctx.state(_ScopeHints)
    if state.reducing is None:
        own = {
            stmt.name
            for stmt in ctx.tree.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and RETURNS_A_REDUCTION_RE.search(ctx.text(stmt)) is not None
        }
        project = current_project()
        imported = (
            project.spellings(ctx.filename, ctx.imports.names, project.reducing_functions)
            if project is not None
            else frozenset()
        )
        state.reducing = frozenset(own) | imported
    return state.reducing


def zero_dim_index_above(ctx, data_node: ast.Attribute) -> Optional[ZeroDimIndex]:
    """For the `.data` of ``loss.data[0]`` (or ``loss.data.cpu().numpy()[0]``): the 0-dim
    index it is part of, if any."""
    current: ast.AST = data_node
    while True:
        parent = ctx.parent(current)
        if isinstance(parent, ast.Subscript) and parent.value is current:
            return zero_dim_index(ctx, parent)
        if isinstance(parent, ast.Attribute) and parent.value is current:
            call = ctx.parent(parent)
            if (
                (parent.attr in _KEEPING_CALLS or parent.attr == "tolist")
                and isinstance(call, ast.Call)
                and call.func is parent
            ):
                current = call
                continue
            if parent.attr == "data":
                current = parent
                continue
        return None
