"""What a value is, as far as the code shows it: the lattice of the semantic model.

A ``Value`` has a ``Kind`` (tensor, module, optimizer, data loader, ...) and, for tensors,
whether it carries autograd history (``Grad``) and a few roles that rules care about
(a parameter, a loss, a model output, 0-dim, created under inference mode). ``join``
merges the values that reach one point along different paths: what is not certain on every
path is dropped. ``weak`` marks values known only from a name (``model``, ``val_loader``):
rules may accept weak evidence where the old name-based behaviour was right, and prefer
strong evidence where a wrong guess would be a false positive.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Optional


class Kind(enum.Enum):
    UNKNOWN = "unknown"
    TENSOR = "tensor"
    MODULE = "module"  # an nn.Module instance
    NUMBER = "number"  # int, float, bool, or a 0-dim result taken out with .item()
    CONTAINER = "container"  # list, tuple, dict, set: ``elem`` says what it holds
    OPTIMIZER = "optimizer"
    LOADER = "loader"  # a DataLoader or another iterable of batches
    DATASET = "dataset"
    FUNCTION = "function"  # a function defined in the project
    CLASS = "class"  # a class defined in the project or a torch class
    NONE = "none"
    OTHER = "other"  # known, and none of the above (strings, numpy arrays, devices, ...)


class Grad(enum.Enum):
    """Does a tensor carry autograd history (or require grad)?"""

    YES = "yes"
    NO = "no"
    MAYBE = "maybe"


class Role(enum.Flag):
    NONE = 0
    PARAM = enum.auto()  # an nn.Parameter, or a tensor from .parameters()
    LEAF = enum.auto()  # a leaf created with requires_grad=True (or .requires_grad_())
    LOSS = enum.auto()  # a loss value; on a module, a loss module (torch's `nn.MSELoss`, a run's `PCCLoss`)
    OUTPUT = enum.auto()  # the output of a model call
    SCALAR = enum.auto()  # 0-dim (a full reduction, a criterion output)
    INFERENCE = enum.auto()  # created under inference_mode
    DETACHED = enum.auto()  # the result of .detach() / .data
    TRAINING = enum.auto()  # a module in training mode on every path (new, or after .train())
    EVALUATING = enum.auto()  # a module switched to eval mode on every path (.eval(), .train(False))
    # a loss module built with reduction="none" (or reduce=False); on a tensor, what such a module
    # or a reduction over named dimensions (`torch.mean(x, 0)`) gives: not known to be 0-dim
    UNREDUCED = enum.auto()


class Split(enum.Enum):
    """Which part of a data set a loader or data set serves."""

    TRAIN = "train"
    EVAL = "eval"  # validation or test


@dataclass(frozen=True)
class Value:
    kind: Kind = Kind.UNKNOWN
    grad: Grad = Grad.MAYBE
    roles: Role = Role.NONE
    # containers and loaders: what iterating yields; a callable annotated `Callable[..., R]`: R
    elem: Optional["Value"] = None
    items: Optional[tuple] = None  # fixed tuples: the value of each position
    split: Optional[Split] = None  # loaders and data sets
    # modules and data sets: their class; classes and functions: which definition; optimizers:
    # the modules whose parameters they update, dotted names joined by "+" (``D`` for
    # ``Adam(D.parameters())``, ``G_AB+G_BA`` for ``Adam(chain(G_AB.parameters(), G_BA.parameters()))``);
    # a function another file of the run defines: ``RUN_FUNCTION`` and its qualified name here
    ref: Optional[str] = None
    weak: bool = False  # known from a name only
    # dicts written with string keys: (key, value) of each (``{"tnet": tnet, "snet": snet}``), so
    # that ``nets["tnet"]`` is that value and not the join of them all
    keyed: Optional[tuple] = None
    # modules: the classes it may be an instance of, where paths disagree (``model = LSTM(...)``
    # on one branch, ``model = Transformer(...)`` on the other; ``ref`` is then None); classes:
    # the classes it may be (``{"mlp": MLP, "hnn": HNN}[name]``)
    alternatives: Optional[tuple] = None

    # -- questions rules ask -------------------------------------------------------------
    @property
    def is_tensor(self) -> bool:
        return self.kind is Kind.TENSOR

    @property
    def is_module(self) -> bool:
        return self.kind is Kind.MODULE

    @property
    def carries_grad(self) -> bool:
        """Certainly a tensor with autograd history (or one that requires grad)."""
        return self.kind is Kind.TENSOR and self.grad is Grad.YES

    @property
    def holds_graph(self) -> bool:
        """``carries_grad``, or a fixed tuple one of whose values does (``cls, validity =
        D(fake)`` of a discriminator whose ``forward`` returns two heads)."""
        if self.kind is Kind.CONTAINER:
            return any(part.holds_graph for part in self.items or ())
        return self.carries_grad

    @property
    def may_carry_graph(self) -> bool:
        """A tensor (or an unknown value) that may have autograd history, or a container
        known to hold such a tensor: ``return action, log_prob`` hands a graph back as surely
        as ``return log_prob`` (an element of unknown kind, such as a word, does not count)."""
        if self.kind in (Kind.TENSOR, Kind.UNKNOWN):
            return self.grad is not Grad.NO
        if self.kind is Kind.CONTAINER:
            if self.grad is not Grad.NO:
                return True
            parts = (*(self.items or ()), *((self.elem,) if self.elem is not None else ()))
            return any(part.kind is not Kind.UNKNOWN and part.may_carry_graph for part in parts)
        return False

    def has(self, role: Role) -> bool:
        return bool(self.roles & role)

    def with_(self, **changes) -> "Value":
        return replace(self, **changes)


# The ref prefix of a function another file of the run defines, held under a name of this one
# (``net = utils.linreg``): a call of the name is a call of that function.
RUN_FUNCTION = "run-function:"

UNKNOWN = Value()
NONE_VALUE = Value(Kind.NONE)
NUMBER = Value(Kind.NUMBER, Grad.NO)
OTHER = Value(Kind.OTHER, Grad.NO)
FUNCTION = Value(Kind.FUNCTION)
OPTIMIZER = Value(Kind.OPTIMIZER)


def tensor(grad: Grad = Grad.MAYBE, roles: Role = Role.NONE, weak: bool = False) -> Value:
    return Value(Kind.TENSOR, grad, roles, weak=weak)


def module(cls: Optional[str] = None, weak: bool = False) -> Value:
    return Value(Kind.MODULE, Grad.NO, ref=cls, weak=weak)


def container(elem: Optional[Value] = None, items: Optional[tuple] = None) -> Value:
    if elem is None and items:
        elem = join_all(items)
    return Value(Kind.CONTAINER, Grad.NO, elem=elem, items=items)


def loader(split: Optional[Split] = None, elem: Optional[Value] = None, weak: bool = False) -> Value:
    return Value(Kind.LOADER, Grad.NO, elem=elem, split=split, weak=weak)


def dataset(split: Optional[Split] = None, cls: Optional[str] = None) -> Value:
    return Value(Kind.DATASET, Grad.NO, split=split, ref=cls)


def join_grad(a: Grad, b: Grad) -> Grad:
    return a if a is b else Grad.MAYBE


def placeholders(value: Value) -> bool:
    """Whether a value is a list of placeholders to be filled by index (``[None] * n``,
    ``[None for _ in range(n)]``)."""
    return value.kind is Kind.CONTAINER and value.elem is not None and value.elem.kind is Kind.NONE


def join(a: Optional[Value], b: Optional[Value]) -> Optional[Value]:
    """The value certain on both paths (None is "not bound on this path": the other wins)."""
    if a is None:
        return b
    if b is None or a is b or a == b:
        return a
    if a.kind is not b.kind:
        scalar = _number_or_scalar_tensor(a, b)
        if scalar is not None:
            return scalar
        if {a.kind, b.kind} == {Kind.TENSOR, Kind.NONE}:
            # A tensor or None (`recon_loss = None` on a path that should not run): wherever the
            # code uses it as a tensor (`.data`, `.backward()`, `[0]`), it is the tensor.
            return a if a.kind is Kind.TENSOR else b
        if {a.kind, b.kind} == {Kind.OTHER, Kind.NONE}:
            # An instance of a plain class of the code or None (`best = None`, then `best =
            # cand` of a `LinearSVM()`): wherever it is used as an object, it is the instance.
            other = a if a.kind is Kind.OTHER else b
            if other.ref is not None and not other.ref.startswith(("<", "torch.")):
                return other
        if {a.kind, b.kind} == {Kind.MODULE, Kind.NONE}:
            # A module or None (``model = None``, then ``model = Net()`` on the branch that picks
            # it): wherever the code uses it as a module (calls it, asks for its parameters), it is
            # the module.
            return a if a.kind is Kind.MODULE else b
        return UNKNOWN
    items = None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        items = tuple(join(x, y) or UNKNOWN for x, y in zip(a.items, b.items))
    if a.elem is not None and b.elem is not None:
        if placeholders(a) is not placeholders(b):
            # a list of placeholders (`[None] * n`) on one path, filled on the other
            # (`actors[i] = Actor()` in a loop): its elements are what fills it
            elem = b.elem if placeholders(a) else a.elem
        else:
            elem = join(a.elem, b.elem)
    elif a.items == () or b.items == ():
        elem = a.elem or b.elem  # an empty container on one path: the other's elements
    else:
        elem = None
    keyed = None
    if a.keyed is not None and b.keyed is not None and [k for k, _ in a.keyed] == [k for k, _ in b.keyed]:
        keyed = tuple((k, join(x, y) or UNKNOWN) for (k, x), (_, y) in zip(a.keyed, b.keyed))
    return Value(
        a.kind,
        join_grad(a.grad, b.grad),
        a.roles & b.roles,
        elem,
        items,
        a.split if a.split is b.split else None,
        a.ref if a.ref == b.ref else None,
        a.weak or b.weak,
        keyed,
        _module_alternatives(a, b) if a.kind in (Kind.MODULE, Kind.CLASS) else None,
    )


# At most this many classes are kept as a module's alternatives; past it, none is.
_MAX_ALTERNATIVES = 6


def _module_alternatives(a: Value, b: Value) -> Optional[tuple]:
    """The classes a module (or a class) reaching a point along two paths may be an instance of
    (or be), where each path knows its classes (a class, or alternatives already); none where
    both paths agree on one class (``ref`` says it)."""
    if a.ref is not None and a.ref == b.ref:
        return None
    classes_a = (a.ref,) if a.ref is not None else a.alternatives
    classes_b = (b.ref,) if b.ref is not None else b.alternatives
    if not classes_a or not classes_b:
        return None
    classes = tuple(sorted({*classes_a, *classes_b}))
    return classes if len(classes) <= _MAX_ALTERNATIVES else None


def _number_or_scalar_tensor(a: Value, b: Value) -> Optional[Value]:
    """A number on one path, a 0-dim tensor on the other (``avg_cost = 0`` then
    ``avg_cost += cost / n`` in a loop): a 0-dim tensor wherever code indexes or reads it as
    one (``avg_cost.data[0]``, ``avg_cost[0]``: either path fails), its graph unknown. A number
    and a tensor of any shape without graph: a tensor without graph (weak)."""
    tensor_side = a if a.kind is Kind.TENSOR else b if b.kind is Kind.TENSOR else None
    other = b if tensor_side is a else a
    if tensor_side is None or other.kind is not Kind.NUMBER:
        return None
    if not tensor_side.has(Role.SCALAR):
        # `log_is = 0`, then `log_is += scores.sum(1)` under `no_grad`: a tensor without graph,
        # or the number; neither carries a graph
        return Value(Kind.TENSOR, Grad.NO, weak=True) if tensor_side.grad is Grad.NO else None
    return Value(
        Kind.TENSOR, join_grad(Grad.NO, tensor_side.grad), tensor_side.roles & Role.SCALAR, weak=tensor_side.weak
    )


def join_all(values) -> Optional[Value]:
    out: Optional[Value] = None
    first = True
    for value in values:
        out = value if first else join(out, value)
        first = False
    return out
