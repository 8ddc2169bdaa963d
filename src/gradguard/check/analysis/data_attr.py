"""What a `.data` attribute does at its site: read, write, or not a tensor's `.data` at all.

Shared by GG101 (reads) and GG102 (writes). A `.data` counts only where the receiver is known
to be a tensor (by the semantic model, ``ctx.model``, or as the result of a method only tensors
have: `x.cpu().data`) or where the chain right after `.data`
uses a method only tensors have (`.data.copy_(...)`, `.data.cpu()`) on a receiver whose name
does not say it is a container (`dataset.data.cpu()` is a dataset's tensor field), or that
`Variable(...)` wraps.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from gradguard.check.analysis.scopes import own_nodes, walk_in_order
from gradguard.check.analysis.values import Kind, Role
from gradguard.check.analysis.vocabulary import (
    ALIAS_ATTRIBUTES,
    ALIAS_METHODS,
    DEPRECATED_INIT_FILLS,
    DIMENSION_KEYWORDS,
    INPLACE_VALUE_METHODS,
    JOINING_FUNCTIONS,
    META_INPLACE_METHODS,
    READ_ATTRIBUTES,
    READING_BUILTINS,
    READING_TORCH_FUNCTIONS,
    TENSOR_ARGUMENT_METHODS,
    TENSOR_ONLY_FUNCTIONS,
    TENSOR_PAIR_FUNCTIONS,
    TENSOR_TAKING_TORCHVISION_FUNCTIONS,
    VARIABLE_NAMES,
    constant_of,
)
from gradguard.check.model import Edit
from gradguard.common.text import short

# Methods only tensors have, as they follow `.data` in a chain: right after `.data` they make
# the receiver's `.data` a tensor's.
_TENSOR_METHODS_AFTER_DATA = (
    INPLACE_VALUE_METHODS
    | META_INPLACE_METHODS
    | {
        "cpu",
        "cuda",
        "numpy",
        "clone",
        "detach",
        "contiguous",  # `ppls.data[:, :, 4].contiguous()`: neither an array nor a memoryview has it
        # not on numpy arrays either: `x.data.new(x.size())`, `y.data.view_as(pred)`
        "new",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
        "new_tensor",
        "view_as",
        "type_as",
        "expand_as",
        "storage",
        "untyped_storage",
        "numel",  # `v.data.numel()`: an array has `size`, not `numel`
        "view",  # `targets.data.view(-1, 1)`: an array's `.data` is a memoryview, which has none
        "half",  # `attr.data = attr.data.half()`
        "bfloat16",
        "norm",  # `y.data.norm()`: an array's norm is `np.linalg.norm(a)`
        # comparisons and selections by name: an array compares with operators only
        "eq",  # `src_words.data.eq(padding_idx)`
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "index_select",  # `batch.src[0].data.index_select(1, perm)`
        "masked_select",
        "masked_fill",
    }
)
# Functions of `torch.nn.init` that only read the tensor they are given (the others fill it,
# the old names without `_` too: `nn.init.xavier_normal(w.data)`).
_INIT_READS = frozenset(
    f"torch.nn.init.{name}" for name in ("calculate_gain", "_calculate_fan_in_and_fan_out", "_calculate_correct_fan")
)
# Attributes that hold tensors on every torch module that has them.
TENSOR_ATTRIBUTES = frozenset({"running_mean", "running_var"})
# Receivers whose `.data` is a field holding a tensor, not `Tensor.data`: datasets
# (torchvision's `MNIST(...).data` is a tensor), loaders, batches, records, configs. A record is
# `item` or `items` alone: `test_items`, `neg_items` are a recommender's item ids.
_CONTAINER_RE = re.compile(
    r"(?:data|dataset|datasets|set|sets|loader|batch|batches|sample|samples|packed|seq|sequence|args|cfg"
    r"|config|conf|hparams|response|resp|request|event|msg|record|records|ctx|obj|node|graph"
    r"|mnist|cifar|cifar10|cifar100|imagenet|svhn|coco|voc)$"
    r"|^(?:self|cls|ds|opt|opts|item|items)$",
    re.I,
)
# Names of images, often numpy arrays (whose `.data` is a memoryview): a `.data` read from one is
# a tensor's only where a method only tensors have follows it (`images.data.cpu()`).
_IMAGE_RE = re.compile(r"^(?:img|image|images)$", re.I)
# Names ending like a sequence (`src_seq`): a `PackedSequence` where the file packs, else a tensor of ids.
_SEQUENCE_NAME_RE = re.compile(r"_(?:seq|sequence)$")
# The fields of an ultralytics `Results` that wrap a tensor in an object of their own (`Probs`,
# `Boxes`, `Masks`, `Keypoints`, `OBB`), whose `.data` is that object's field.
_ULTRALYTICS_RESULT_FIELDS = frozenset({"probs", "boxes", "masks", "keypoints", "obb"})
_PACKED_HINTS = ("PackedSequence", "pack_padded_sequence", "pack_sequence")


@dataclass
class DataAccess:
    """One `.data` on a tensor. ``kind`` is "read" or "write".

    For reads, ``safe`` says whether the value is only read (so `.detach()` cannot change what
    the program does). For writes, ``how`` is "method" (`p.data.mul_()`), "setitem"
    (`p.data[i] = v`), "augassign" (`p.data += v`), "assign" (`p.data = t`), "init"
    (`nn.init.normal_(p.data)`), "inplace_call" (`trunc_normal_(p.data)`), "alias-shape"
    (`x.data.t_()`) or "alias-storage" (`x.data.set_(y)`); ``site`` is the
    node performing the write (the Call, the Subscript, the statement).
    """

    node: ast.Attribute
    kind: str
    safe: bool = False
    how: str = ""
    site: Optional[ast.AST] = None


# In-place methods that change only a tensor's shape or strides: through `.data`, those of the
# alias `.data` returns, which is then thrown away.
_ALIAS_RESHAPES = frozenset(
    {"t_", "transpose_", "squeeze_", "unsqueeze_", "resize_", "resize_as_", "swapaxes_", "swapdims_", "as_strided_"}
)


def _discarded(ctx, call: ast.Call) -> bool:
    """Whether a call's result is thrown away: a statement of its own, or an item of a tuple
    that is one (``feature.data.t_(), target.data.sub_(1)``)."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Tuple):
        parent = ctx.parent(parent)
    return isinstance(parent, ast.Expr)


def _own_data_assigned(ctx, node: ast.Attribute, assign: ast.Assign) -> bool:
    """Whether ``assign`` gives the tensor whose ``.data`` ``node`` reads a new ``.data``
    (``param.data = param.data.half()``, ``w.data = w.data[mask == 1]``): the value goes back
    into the tensor itself, so nothing escapes to share its memory."""
    own = ctx.text(node.value)
    return any(
        isinstance(target, ast.Attribute) and target.attr == "data" and ctx.text(target.value) == own
        for target in assign.targets
    )


def _base_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _base_name(node.func)
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)  # `target[i, :, :]`: a part of `target`
    return None


def _is_tensor_subclass_self(ctx, node: ast.AST) -> bool:
    if not (isinstance(node, ast.Name) and node.id == "self"):
        return False
    cls = ctx.method_class
    if cls is None:
        return False
    for base in cls.bases:
        qual = ctx.imports.qualified_name(base) or ""
        if qual in (
            "torch.Tensor",
            "torch.nn.Parameter",
            "torch.nn.parameter.Parameter",
            "torch.nn.parameter.Buffer",
            "torch.nn.Buffer",
        ):
            return True
    return False


def receiver_is_tensor(ctx, recv: ast.AST, chain_certain: bool, written: bool = False) -> bool:
    """Is ``recv`` in ``recv.data`` a tensor (so `.data` is `Tensor.data`)? ``written``: an
    in-place method writes values through it (`w.data.uniform_(...)`), which nobody does to a
    `PackedSequence`'s `data` field."""
    if _is_tensor_subclass_self(ctx, recv):
        return True
    followed_by_tensor_method = chain_certain
    if isinstance(recv, (ast.Name, ast.Attribute)) and ctx.imports.qualified_name(recv) is not None:
        return False  # an imported module or name: `torch.utils.data`, `timm.data`
    name = _base_name(recv)
    if isinstance(recv, ast.Name) and recv.id == "self":
        return False
    if _attribute_of_plain_self(ctx, recv) and not (chain_certain and isinstance(recv, ast.Attribute)):
        # `self.weight` of a class with no base class: its own attribute, unless a method only
        # tensors have follows its `.data` (`self.gradients.data.numpy()`) or a method of the
        # class assigns it a tensor (`self.C_max = Variable(torch.FloatTensor([c]))`), or it is a
        # parameter of a torch module the class keeps (`self.model.weight` of `self.model =
        # nn.Embedding(n, d)`)
        if not ctx.model.tensor_on_some_path(recv) and not _parameter_of_a_kept_module(ctx, recv):
            return False
        chain_certain = True
    if isinstance(recv, ast.Attribute) and recv.attr in TENSOR_ATTRIBUTES:
        return True
    value = ctx.model.value(recv)
    if value.kind is Kind.TENSOR:
        if value.has(Role.OUTPUT) and value.weak and any(h in ctx.source.text for h in _PACKED_HINTS):
            return False  # an unknown model's output may be a PackedSequence, whose `.data` is a field
        return True
    if value.kind is not Kind.UNKNOWN and not (value.kind is Kind.MODULE and value.weak and chain_certain):
        # a module, a data set, a numpy array, a container: `.data` is its own field (not a
        # module known by its name alone whose `.data` a tensor method follows: `for model,
        # master in zip(...): model.data.copy_(master)`, a module has no `.data`)
        return False
    if _tensor_method_result(ctx, recv):
        return True
    if isinstance(recv, ast.Name) and _sparse_matrix_uses(ctx, recv.id):
        return False  # `adj.row`, `adj.col` beside `adj.data`: a scipy sparse matrix's values
    if not chain_certain and isinstance(recv, ast.Name):
        # `target.data.sub_(1)` elsewhere in the scope shows `target` is a tensor: its other
        # `.data` reads are a tensor's too (`(pred == target.data).sum()`); so does a binding
        # to a tensor that reaches this read on some path (`out, h = net(x, h)` in a loop).
        chain_certain = (
            _data_shows_tensor(ctx, recv.id)
            or _given_to_torch(ctx, recv.id)
            or ctx.model.tensor_on_some_path(recv)
            or _given_to_a_model(ctx, recv.id)
            or _module_attribute_by_name(ctx, recv.id)
        )
    elif (
        not chain_certain
        and isinstance(recv, ast.Call)
        and isinstance(recv.func, ast.Attribute)
        and recv.func.attr in ALIAS_METHODS
        and isinstance(recv.func.value, ast.Name)
    ):
        # `w.view(height, -1).data` where `w.data.new(height)` in the scope shows `w` is a tensor
        chain_certain = _data_shows_tensor(ctx, recv.func.value.id)
    elif not chain_certain and isinstance(recv, ast.Subscript) and isinstance(recv.value, ast.Name):
        # `precision_matrices[n] = p.clone().detach().fill_(0)` in the scope: its items are
        # tensors (`precision_matrices[n].data += p.grad ** 2`)
        chain_certain = recv.value.id in _names_with_tensor_items(ctx)
    elif not chain_certain and isinstance(recv, ast.Attribute):
        # `m2.indexes.data.zero_()` elsewhere in the scope shows `m2.indexes` is a tensor; so
        # does `self.C_max` set to a tensor in a method.
        chain_certain = ctx.text(recv) in _names_with_tensor_chains(ctx) or ctx.model.tensor_on_some_path(recv)
    if not chain_certain:
        return False
    if isinstance(recv, ast.Subscript) and isinstance(recv.slice, ast.Constant) and isinstance(recv.slice.value, str):
        return False  # batch["image"].data: a field of a record
    if (
        isinstance(recv, ast.Attribute)
        and recv.attr in _ULTRALYTICS_RESULT_FIELDS
        and any(q.startswith("ultralytics") for q in ctx.imports.names.values())
    ):
        # `results[0].probs.data.cpu()` of an ultralytics prediction: a wrapper's field (it has
        # `.cpu()`, no `.detach()`)
        return False
    if name is None:
        return False
    if (_CONTAINER_RE.search(name) or (_IMAGE_RE.search(name) and not followed_by_tensor_method)) and not (
        # `batch.data.new(mean)` in `def normalize(batch): ... batch / 255.0`: what its code
        # divides is no record, loader or data set, and an array's `.data` has no tensor method
        (followed_by_tensor_method and isinstance(recv, ast.Name) and recv.id in _arithmetic_parameters(ctx))
        # `ys.type_as(src_seq.data)` in a file that packs no sequence: a sequence of token ids, a tensor
        or (
            followed_by_tensor_method
            and _SEQUENCE_NAME_RE.search(name) is not None
            and not any(h in ctx.source.text for h in _PACKED_HINTS)
        )
        # `label_batch = batch["L"]`, then `torch.unique(label_batch.data)` in the scope: torch takes
        # it where it takes only tensors, whatever its name says
        or (isinstance(recv, ast.Name) and recv.id in _names_with_data_handed_to_torch(ctx))
        # `self.loss_l1_poseSeq = self.l1(recon, pose) * 2.0`: a loss, by how it is made or by the
        # start of its name, whatever its name ends with
        or name.lower().startswith("loss_")
        or _shown_a_loss(ctx, recv)
    ):
        return False
    if (
        not written
        and any(h in ctx.source.text for h in _PACKED_HINTS)
        and not (
            isinstance(recv, ast.Subscript)
            and isinstance(recv.value, ast.Name)
            and recv.value.id in _names_with_tensor_items(ctx, computed=True)
        )
    ):
        return False  # a file that packs sequences: unless torch computed it, it may be a PackedSequence
    if isinstance(recv, ast.Name) and _annotated_non_tensor(ctx, recv.id):
        return False
    if ctx.text(recv) in _optional_data_receivers(ctx):
        return False  # `s.data is None` elsewhere: `data` is an optional field, never a tensor's
    return True


# Attributes and methods of scipy's sparse matrices that tensors lack (`coo.row`, `csr.tocoo()`).
_SPARSE_MATRIX_MEMBERS = frozenset({"row", "col", "nnz", "tocoo", "tocsr", "tocsc", "toarray", "todense", "getnnz"})


def _sparse_matrix_uses(ctx, name: str) -> bool:
    """Whether the scope uses ``name`` as a scipy sparse matrix (``adj.row``, ``adj.tocoo()``),
    whose ``.data`` is the array of its stored values."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    return any(
        isinstance(node, ast.Attribute)
        and node.attr in _SPARSE_MATRIX_MEMBERS
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        for node in ctx.model.own_nodes(scope)
    )


# Methods that only tensors have among the values a `.data` is read from (a module has
# `cpu`/`cuda` too, but no `.data` of its own; an array has none of them).
_TENSOR_ONLY_METHODS = frozenset({"cpu", "cuda", "detach", "clone", "contiguous"})


def _tensor_method_result(ctx, recv: ast.AST) -> bool:
    """``recv`` is ``x.cpu()``, ``x.detach()``, ``x.clone()``... on something not known to be
    anything but a tensor: `grad[:, 0].cpu().data` reads a tensor's `.data`."""
    if not (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute)):
        return False
    if recv.func.attr not in _TENSOR_ONLY_METHODS and not any(
        k.arg in DIMENSION_KEYWORDS and _dimension_numbers(k.value) for k in recv.keywords
    ):
        return False
    inner = ctx.model.value(recv.func.value)
    return inner.kind in (Kind.TENSOR, Kind.UNKNOWN)


def _dimension_numbers(node: ast.AST) -> bool:
    """``1``, ``-1``, ``(0, 2, 3)``, ``True``: dimensions given by number (as torch takes them)."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_dimension_numbers(elt) for elt in node.elts)
    return isinstance(constant_of(node, None), int)


def _parameter_of_a_kept_module(ctx, recv: ast.AST) -> bool:
    """``self.model.weight`` where the code shows ``self.model`` is a module: a parameter."""
    if not (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Attribute)):
        return False
    value = ctx.model.value(recv)
    return (
        value.kind is Kind.TENSOR
        and value.has(Role.PARAM)
        and (not value.weak or ctx.model.value(recv.value).kind is Kind.MODULE)
    )


def _attribute_of_plain_self(ctx, recv: ast.AST) -> bool:
    while isinstance(recv, ast.Attribute):
        recv = recv.value
    if not (isinstance(recv, ast.Name) and recv.id == "self"):
        return False
    cls = ctx.method_class
    return cls is not None and all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases) and not cls.keywords


def _annotated_non_tensor(ctx, name: str) -> bool:
    """Is ``name`` a parameter of the current function annotated with a non-tensor type?"""
    func = ctx.function
    args = getattr(func, "args", None)
    if not isinstance(args, ast.arguments):
        return False
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        if arg.arg == name and arg.annotation is not None:
            text = ctx.text(arg.annotation)
            return "Tensor" not in text and "Parameter" not in text
    return False


_TENSOR_CHAIN_RE = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.data(?:\[[^\]\n]*\])*\.(?:"
    + "|".join(sorted(_TENSOR_METHODS_AFTER_DATA))
    + r")\("
)


def _names_with_tensor_chains(ctx) -> frozenset:
    """Names and dotted attributes ``n`` (``m2.indexes``) written ``n.data.<a method only
    tensors have>(`` in the current scope's text, also through an index (``n.data[:, 0].clone(``;
    cached per scope)."""
    scope = ctx.scope
    key = ("gg-tensor-chains", id(scope))
    found = ctx.cache.get(key)
    if found is None:
        text = ctx.source.text if isinstance(scope, ast.Module) else ctx.text(scope)
        found = ctx.cache[key] = frozenset(_TENSOR_CHAIN_RE.findall(text)) if ".data." in text else frozenset()
    return found


def _data_shows_tensor(ctx, name: str) -> bool:
    """Whether the current scope's uses of ``name.data`` show ``name`` is a tensor: a method only
    tensors have follows it, or torch takes it where it takes only tensors."""
    return name in _names_with_tensor_chains(ctx) or name in _names_with_data_handed_to_torch(ctx)


def _names_with_data_handed_to_torch(ctx) -> frozenset:
    """Names ``n`` whose ``n.data``, or ``n.<view>(...).data``, the current scope hands where
    torch takes only tensors (``torch.mv(torch.t(w.view(h, -1).data), u.data)``): ``n`` is a
    tensor there, so its other ``.data`` are a tensor's too (``u.data = l2normalize(...)``;
    cached per scope)."""
    scope = ctx.scope
    key = ("gg-data-handed-to-torch", id(scope))
    found = ctx.cache.get(key)
    if found is None:
        names = set()
        if "torch" in (ctx.source.text if isinstance(scope, ast.Module) else ctx.text(scope)):
            for node in own_nodes(scope):
                if type(node) is not ast.Attribute or node.attr != "data":  # type: ignore[attr-defined]
                    continue
                recv = node.value  # type: ignore[attr-defined]
                if type(recv) is ast.Call and type(recv.func) is ast.Attribute and recv.func.attr in ALIAS_METHODS:
                    recv = recv.func.value  # `w.view(h, -1).data`
                if type(recv) is not ast.Name:
                    continue
                par = ctx.parent(node)
                if _handed_to_torch(ctx, node, par) or _joined_by_torch(ctx, node, par):
                    names.add(recv.id)
        found = ctx.cache[key] = frozenset(names)
    return found


def _names_with_tensor_items(ctx, computed: bool = False) -> frozenset:
    """Names ``d`` the current scope assigns items of as tensors (``d[k] = p.clone()``,
    ``d[k] = torch.zeros(3)``): a value the model knows to be a tensor, or the result of a
    method only tensors have (cached per scope). ``computed``: only items the model knows to be
    tensors computed by torch, not a model's output of unknown kind (``d[k] = F.log_softmax(out,
    dim=1)``; an RNN's output may be a ``PackedSequence``, which has ``cpu()`` too)."""
    scope = ctx.scope
    key = ("gg-tensor-items", id(scope), computed)
    found = ctx.cache.get(key)
    if found is None:
        names = set()
        for node in own_nodes(scope):
            if (
                type(node) is ast.Assign
                and len(node.targets) == 1  # type: ignore[attr-defined]
                and type(node.targets[0]) is ast.Subscript  # type: ignore[attr-defined]
                and type(node.targets[0].value) is ast.Name  # type: ignore[attr-defined]
            ):
                value = node.value  # type: ignore[attr-defined]
                if computed:
                    known = ctx.model.value(value)
                    holds_tensors = known.kind is Kind.TENSOR and not known.weak
                else:
                    holds_tensors = _tensor_chain(value) or ctx.model.value(value).kind is Kind.TENSOR
                if holds_tensors:
                    names.add(node.targets[0].value.id)  # type: ignore[attr-defined]
        found = ctx.cache[key] = frozenset(names)
    return found


def _tensor_chain(node: ast.AST) -> bool:
    """A chain of calls through a method only tensors have: ``p.clone().detach().fill_(0)``."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _TENSOR_ONLY_METHODS:
            return True
        node = node.func.value
    return False


def _positional_arguments(ctx, position: int = 0) -> dict:
    """name -> the callees of the current scope's calls that take it as their first positional
    argument (``F.log_softmax(pred, dim=1)``, ``self.D(x_real)``), or as their second with
    ``position=1`` (``criterion(outputs, targets)``), from one walk of the scope (cached per
    scope)."""
    scope = ctx.scope
    key = ("gg-positional-arguments", id(scope))
    found = ctx.cache.get(key)
    if found is None:
        first: dict = {}
        second: dict = {}
        body = scope.body if isinstance(scope.body, list) else [scope.body]
        for stmt in body:
            for sub in walk_in_order(stmt):
                if type(sub) is ast.Call and sub.args:
                    args = sub.args  # type: ignore[attr-defined]
                    if type(args[0]) is ast.Name:
                        first.setdefault(args[0].id, []).append(sub.func)  # type: ignore[attr-defined]
                    if len(args) > 1 and type(args[1]) is ast.Name:
                        second.setdefault(args[1].id, []).append(sub.func)  # type: ignore[attr-defined]
        found = ctx.cache[key] = (first, second)
    return found[position]


def _given_to_torch(ctx, name: str) -> bool:
    """Whether the current scope hands ``name`` to a torch function that takes only tensors as
    its first argument (``F.log_softmax(pred, dim=1)``, ``torch.mean(source, 0)``), or to a torch
    loss as its target (``criterion(outputs, targets)`` of ``criterion = nn.BCELoss()``,
    ``F.cross_entropy(out, y)``): whatever else it is bound to, the code uses it as a tensor."""
    return any(_takes_only_tensors(ctx, func) for func in _positional_arguments(ctx).get(name, ())) or any(
        ctx.model.is_torch_loss(func) for func in _positional_arguments(ctx, 1).get(name, ())
    )


# Methods that hand back the value they are called on, or a copy of it, detached or not.
_COPYING_METHODS = frozenset({"detach", "clone", "contiguous"})


def _through_copies(ctx, call: ast.Call) -> ast.AST:
    """``call``, or the outermost ``.detach()`` / ``.clone()`` / ``.contiguous()`` taken of it
    (``F.normalize(w.data).detach()``)."""
    outer: ast.AST = call
    while True:
        attribute = ctx.parent(outer)
        method = ctx.parent(attribute) if isinstance(attribute, ast.Attribute) else None
        if not (
            isinstance(method, ast.Call)
            and method.func is attribute
            and attribute.attr in _COPYING_METHODS  # type: ignore[union-attr]
            and not method.args
        ):
            return outer
        outer = method


def _module_attribute_by_name(ctx, name: str) -> bool:
    """Whether every binding of ``name`` in the scope reads an attribute of a module, or of a
    part of one, by a name the code computes (``param = getattr(model.fc, param_name)``): read
    through `.data`, that attribute is a parameter or a buffer (a module has no `.data`)."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    bindings = ctx.model.uses(scope).bindings_of(name)
    return bool(bindings) and all(
        isinstance(b.value, ast.Call)
        and isinstance(b.value.func, ast.Name)
        and b.value.func.id == "getattr"
        and len(b.value.args) == 2
        and not isinstance(b.value.args[1], ast.Constant)
        and _of_a_module(ctx, b.value.args[0])
        for b in bindings
    )


def _of_a_module(ctx, node: ast.AST) -> bool:
    """Whether ``node`` is a module or a part of one (``model.fc``, ``net.layers[i]``)."""
    while True:
        if ctx.model.value(node).kind is Kind.MODULE:
            return True
        if not isinstance(node, (ast.Attribute, ast.Subscript)):
            return False
        node = node.value


def _takes_only_tensors(ctx, func: ast.AST) -> bool:
    """Whether a callee is a torch function that takes only a tensor as its first argument
    (``torch.nn.functional.*``, ``torch.linalg.*``, ``torch.max``, ``torch.exp``...), or a torchvision one that takes a
    tensor or a list of them (``vutils.save_image``)."""
    qual = ctx.imports.qualified_name(func)
    return qual is not None and (
        qual.startswith(("torch.nn.functional.", "torch.linalg."))
        or (qual.startswith("torch.") and qual.count(".") == 1 and qual[6:] in TENSOR_ONLY_FUNCTIONS)
        or qual in TENSOR_TAKING_TORCHVISION_FUNCTIONS
    )


# Not `+`: data sets add up (`train_set + val_set`), and lists and tuples join.
_ARITHMETIC_OPS = (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult)


def _shown_a_loss(ctx, recv: ast.AST) -> bool:
    """Whether the code shows the receiver is a loss tensor (made by a loss, not by its name)."""
    value = ctx.model.value(recv)
    return value.kind is Kind.TENSOR and not value.weak and value.has(Role.LOSS)


def _arithmetic_parameters(ctx) -> frozenset:
    """The current function's parameters that its own code uses as operands of arithmetic
    (``batch / 255.0``, ``x - mean``, ``-x``) and never rebinds: a record, a loader, a data set
    or a `PackedSequence` has no such arithmetic, so such a parameter holds a tensor or an array,
    whatever its name (cached per function)."""
    function = ctx.function
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return frozenset()
    key = ("gg-arithmetic-parameters", id(function))
    found = ctx.cache.get(key)
    if found is None:
        spec = function.args
        names = {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs}
        operands = set()
        for node in own_nodes(function):
            if type(node) is ast.BinOp and isinstance(node.op, _ARITHMETIC_OPS):  # type: ignore[attr-defined]
                sides = (node.left, node.right)  # type: ignore[attr-defined]
            elif type(node) is ast.UnaryOp and isinstance(node.op, ast.USub):  # type: ignore[attr-defined]
                sides = (node.operand,)  # type: ignore[attr-defined]
            else:
                continue
            operands.update(side.id for side in sides if type(side) is ast.Name and side.id in names)
        found = ctx.cache[key] = frozenset(n for n in operands if not ctx.model.body_binds(function, n))
    return found


_RECURRENT_LAYERS = ("RNN", "LSTM", "GRU")  # they take a PackedSequence, whose `.data` is a field


def _given_to_a_model(ctx, name: str) -> bool:
    """Whether the current scope runs a model on ``name`` (``out_src, out_cls = self.D(x_real)``):
    a model's input is a tensor (not for a recurrent layer, which takes a `PackedSequence` too)."""
    for func in _positional_arguments(ctx).get(name, ()):
        callee = ctx.model.value(func)
        if callee.kind is Kind.MODULE and not (callee.ref or "").endswith(_RECURRENT_LAYERS):
            return True
    return False


def _optional_data_receivers(ctx) -> frozenset:
    """Receiver texts ``r`` compared ``r.data is None`` in the current function (cached)."""
    scope = ctx.scope
    key = ("gg-optional-data", id(scope))
    found = ctx.cache.get(key)
    if found is None:
        out = set()
        if " None" in ctx.source.text:
            body = scope.body if isinstance(scope.body, list) else [scope.body]
            for stmt in body:
                for sub in walk_in_order(stmt):
                    if (
                        isinstance(sub, ast.Compare)
                        and isinstance(sub.left, ast.Attribute)
                        and sub.left.attr == "data"
                        and any(isinstance(c, ast.Constant) and c.value is None for c in sub.comparators)
                    ):
                        out.add(ctx.text(sub.left.value))
        found = frozenset(out)
        ctx.cache[key] = found
    return found


def _copied_by_advanced_indexing(ctx, subscript: ast.Subscript) -> bool:
    """Whether an index gives a copy, not a view: a list (``w.data[:, [0, 2]]``, a comprehension,
    or a name bound to a list or tuple beside other indices, ``w.data[:, columns]``) or a mask
    (``x.data[x.data > 0]``) among its indices. A name alone may hold a tuple of slices, a view."""
    index = subscript.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, (ast.List, ast.ListComp, ast.Compare)):
            return True
        if isinstance(index, ast.Tuple) and isinstance(part, ast.Name):
            if ctx.model.value(part).kind is Kind.CONTAINER:
                return True
    return False


def _computed_from_by_a_file_function(ctx, call: ast.Call, arg: ast.AST) -> bool:
    """Whether ``call`` runs a function or method the file defines that only computes with the
    argument ``arg`` (``def l2normalize(v, eps=1e-12): return v / (v.norm() + eps)``; a
    quantiser's ``def quantize_tensor(self, t): return quantize_tensor(t, self.scale, ...)``
    handing it on to such a function): what it hands back is a new tensor, as a torch
    function's is."""
    if arg not in call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    fn = ctx.model.callee(call)
    if fn is None:
        return False
    index = call.args.index(arg) + (1 if isinstance(call.func, ast.Attribute) else 0)  # a method's `self`
    return _computes_with_parameter(ctx, fn, index, 3)


def _computes_with_parameter(ctx, fn: ast.AST, index: int, depth: int) -> bool:
    """Whether every use of ``fn``'s positional parameter ``index`` is an operand, the receiver
    of a method that neither aliases nor changes it (``v.norm()``), or an argument of another
    function of the file that only computes with it (``depth`` calls deep), the parameter never
    rebound, and ``fn`` returns a value."""
    if type(fn) is not ast.FunctionDef or fn.decorator_list or depth == 0:
        return False
    positional = fn.args.posonlyargs + fn.args.args
    if index >= len(positional):
        return False
    name = positional[index].arg
    nodes = ctx.model.own_nodes(fn)
    parents = {id(child): sub for sub in nodes for child in ast.iter_child_nodes(sub)}
    used = returned = False
    for sub in nodes:
        if isinstance(sub, (ast.Yield, ast.YieldFrom)):
            return False
        returned = returned or (isinstance(sub, ast.Return) and sub.value is not None)
        if not (isinstance(sub, ast.Name) and sub.id == name):
            continue
        if not isinstance(sub.ctx, ast.Load):
            return False  # rebound: what the body computes from is not the argument alone
        parent = parents.get(id(sub))
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
            used = True
            continue
        method = parents.get(id(parent)) if isinstance(parent, ast.Attribute) else None
        if (
            isinstance(method, ast.Call)
            and method.func is parent
            and parent.attr not in ALIAS_METHODS
            and parent.attr != "data"
            and not parent.attr.endswith("_")
        ):
            used = True  # `v.norm()`, `v.sum(1)`: a new tensor computed from it
            continue
        if (
            isinstance(parent, ast.Call)
            and sub in parent.args
            and not any(isinstance(a, ast.Starred) for a in parent.args)
        ):
            inner = ctx.model.callee(parent)
            offset = 1 if isinstance(parent.func, ast.Attribute) else 0
            if inner is not None and _computes_with_parameter(ctx, inner, parent.args.index(sub) + offset, depth - 1):
                used = True  # handed on to another function of the file that computes with it
                continue
        return False  # returned, stored, aliased or handed on: it may escape
    return used and returned


def _call_callee_reads(ctx, call: ast.Call, arg: ast.AST) -> Optional[bool]:
    """For ``.data`` (or a chain of it) passed to ``call``: True if only read, False if it may
    escape, None if the site must not be reported at all."""
    func = call.func
    if _computed_from_by_a_file_function(ctx, call, arg):
        return True  # `l2normalize(torch.mv(w.data, v.data))`: a new tensor computed from it
    qual = ctx.imports.qualified_name(func)
    if qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Buffer"):
        return None
    if isinstance(func, ast.Name) and func.id in READING_BUILTINS:
        return True
    if (
        qual is not None
        and qual.startswith("torch.")
        and qual.rsplit(".", 1)[-1] in READING_TORCH_FUNCTIONS
        and qual.count(".") == 1
    ):
        return True
    if qual in ("torch.testing.assert_close", "torch.testing.assert_allclose"):
        return True
    if qual in _INIT_READS:
        return True  # `_calculate_fan_in_and_fan_out(w.data)`: reads the shape
    if qual is not None and qual.startswith("torch.") and qual.count(".") == 1 and qual[6:] in ALIAS_METHODS:
        # `torch.t(w.data)`: a view of it, only read where the view itself is (`torch.mv(torch.t(w.data), u)`)
        outer = ctx.parent(call)
        return isinstance(outer, ast.Call) and call in outer.args and _call_callee_reads(ctx, outer, call) is True
    if isinstance(func, ast.Attribute):
        if func.attr == "set_":
            return None
        recv = func.value
        if func.attr.startswith("assert"):
            return True  # unittest's assertEqual(p.data, ...) only compares
        if (
            func.attr in _TENSOR_METHODS_AFTER_DATA
            or (isinstance(recv, ast.Attribute) and recv.attr == "data")
            or receiver_is_tensor(ctx, recv, False)
        ):
            # A tensor method reads its arguments (only `set_` adopts one's storage).
            return True
        if func.attr == "format" and isinstance(recv, ast.Constant):
            return True
    return False


# Methods of arrays and sparse matrices that tensors lack: `L.data.astype(np.float32)` reads a
# scipy matrix's values, not a tensor's `.data`.
_ARRAY_ONLY_METHODS = frozenset({"astype", "tobytes", "tostring", "todense", "toarray", "tocoo", "tocsr"})


# Methods arrays and tensors share that give back the same kind of value: what follows them
# in a chain after `.data` still tells what `.data` was read from.
_SHARED_SAME_KIND_METHODS = frozenset({"squeeze", "reshape", "transpose", "flatten", "copy", "round", "abs"})
# Methods only tensors have, besides `_TENSOR_METHODS_AFTER_DATA` (no array has `.float()`).
_TENSOR_CONVERSION_METHODS = frozenset({"float", "double", "long", "int", "byte", "bool", "clamp", "clamp_"})


def _handed_to_torch(ctx, node: ast.AST, par: ast.AST) -> bool:
    """``torch.max(logprob.data, 1)``, ``F.softmax(x.data, dim=1)``: the first argument of a torch
    function that takes only tensors there is a tensor (as ``_given_to_torch`` says of names); so
    is either argument of a product of two tensors (``torch.mv(w, u.data)``)."""
    if not isinstance(par, ast.Call) or not par.args:
        return False
    if par.args[0] is node:
        return _takes_only_tensors(ctx, par.func)
    if node in par.args[1:2]:
        qual = ctx.imports.qualified_name(par.func) or ""
        return qual.startswith("torch.") and qual.count(".") == 1 and qual[6:] in TENSOR_PAIR_FUNCTIONS
    return False


def _joined_by_torch(ctx, node: ast.AST, par: ast.AST) -> bool:
    """``torch.cat((X1.data, fake_X2.data), 0)``: an item of the sequence a torch join takes is
    a tensor, whatever the code shows of the name."""
    if not isinstance(par, (ast.Tuple, ast.List)) or node not in par.elts:
        return False
    call = ctx.parent(par)
    return (
        isinstance(call, ast.Call)
        and bool(call.args)
        and call.args[0] is par
        and ctx.imports.qualified_name(call.func) in JOINING_FUNCTIONS
    )


def _tensor_method_down_the_chain(ctx, par: ast.AST) -> bool:
    """Whether a method only tensors have is called on ``<recv>.data``, at once or after
    methods arrays share that keep the kind (``img.data.squeeze().float().clamp_(0, 1)``)."""
    while isinstance(par, ast.Attribute):
        call = ctx.parent(par)
        if not (isinstance(call, ast.Call) and call.func is par):
            return False
        if par.attr in _TENSOR_METHODS_AFTER_DATA or par.attr in _TENSOR_CONVERSION_METHODS:
            return True
        if par.attr == "to":
            # `y_test.data.to(dev)`: an array's `.data` (a memoryview) has no `to`; a graph
            # library's data set holds a graph there that has one (`dataset.data.to(device)`)
            return not _imports_graph_data(ctx)
        if par.attr not in _SHARED_SAME_KIND_METHODS:
            return False
        par = ctx.parent(call)
    return False


def _imports_graph_data(ctx) -> bool:
    """Whether the file imports a graph library whose data sets keep a graph in ``.data``."""
    return ctx.imports.imports_package(_GRAPH_DATA_PACKAGES)


_GRAPH_DATA_PACKAGES = frozenset({"torch_geometric", "dgl", "ogb"})


def classify(ctx, node: ast.Attribute) -> Optional[DataAccess]:
    """Classify a ``<recv>.data`` node, or None when it is not (certainly) a tensor's `.data`."""
    par = ctx.parent(node)
    if isinstance(par, ast.Attribute) and par.attr in _ARRAY_ONLY_METHODS:
        return None
    if (
        isinstance(par, ast.Subscript)
        and par.value is node
        and isinstance(par.slice, ast.Constant)
        and isinstance(par.slice.value, str)
    ):
        return None  # `train.data["images"]`: a mapping's item (a data set's dict), no tensor is indexed by a string
    chain_certain = (
        _tensor_method_down_the_chain(ctx, par)
        or _joined_by_torch(ctx, node, par)
        or _handed_to_torch(ctx, node, par)
        or (
            # `Variable(h.data)`: what `Variable` wraps is a tensor (the old idiom of cutting a
            # hidden state from its history).
            isinstance(par, ast.Call)
            and bool(par.args)
            and par.args[0] is node
            and ctx.imports.qualified_name(par.func) in VARIABLE_NAMES
        )
        or (
            # `ys.type_as(src.data)`: what a tensor is converted or shaped like is a tensor, and
            # what `copy_` copies from (`w.data.copy_(X.data)`)
            isinstance(par, ast.Call)
            and isinstance(par.func, ast.Attribute)
            and (par.func.attr in TENSOR_ARGUMENT_METHODS or par.func.attr == "copy_")
            and len(par.args) == 1
            and par.args[0] is node
        )
    )
    above = par
    while isinstance(above, ast.Subscript):  # `b.data[i:j].fill_(1.)`
        above = ctx.parent(above)
    written = isinstance(above, ast.Attribute) and above.attr in INPLACE_VALUE_METHODS
    if above is not par:
        # `w.data[20:40].fill_(1)`, `seq.data[:, 0].clone()`: a slice of an array's `.data` is a
        # memoryview, which has no in-place or tensor method; of a tensor's, a view
        chain_certain = chain_certain or _tensor_method_down_the_chain(ctx, above)
    if not receiver_is_tensor(ctx, node.value, chain_certain, written):
        return None
    cur: ast.AST = node
    while True:
        par = ctx.parent(cur)
        if isinstance(par, ast.Attribute) and par.value is cur:
            grand = ctx.parent(par)
            if isinstance(grand, ast.Call) and grand.func is par:
                name = par.attr
                if name in INPLACE_VALUE_METHODS:
                    return DataAccess(node, "write", how="method", site=grand)
                if name in META_INPLACE_METHODS:
                    # `v.data.resize_(size).copy_(x)`: the method returns the tensor itself, and
                    # the next one in the chain writes its values
                    outer = ctx.parent(grand)
                    call = ctx.parent(outer) if isinstance(outer, ast.Attribute) else None
                    if isinstance(call, ast.Call) and call.func is outer and outer.attr in INPLACE_VALUE_METHODS:
                        return DataAccess(node, "write", how="method", site=call)
                    if name in _ALIAS_RESHAPES and _discarded(ctx, grand):
                        # `feature.data.t_()`: `.data` is a new alias each time; only it is reshaped
                        return DataAccess(node, "write", how="alias-shape", site=grand)
                    if name == "set_" and _discarded(ctx, grand):
                        # `emb.weight.data.set_(glove)`: only the new alias gets the new storage
                        return DataAccess(node, "write", how="alias-storage", site=grand)
                    if name == "requires_grad_" and not _discarded(ctx, grand):
                        # `x = images.data.requires_grad_()`: a new leaf on the same storage, which
                        # `images.detach().requires_grad_()` makes with the version counter kept
                        return DataAccess(node, "read", safe=True)
                    return None
                if name in ALIAS_METHODS:
                    cur = grand
                    continue
                assign = ctx.parent(grand)
                if isinstance(assign, ast.Assign) and assign.value is grand and _own_data_assigned(ctx, node, assign):
                    return None  # `w.data = w.data.div(norm)`: computed back into its own storage (GG102's)
                return DataAccess(node, "read", safe=True)
            if par.attr in ALIAS_ATTRIBUTES:
                cur = par
                continue
            return DataAccess(node, "read", safe=par.attr in READ_ATTRIBUTES)
        if isinstance(par, ast.Subscript) and par.value is cur:
            if isinstance(par.ctx, ast.Store):
                return DataAccess(node, "write", how="setitem", site=par)
            if isinstance(par.ctx, ast.Del):
                return None
            if _copied_by_advanced_indexing(ctx, par):
                return DataAccess(node, "read", safe=True)  # `w.data[:, columns]`: a copy, not a view
            cur = par
            continue
        if cur is node and isinstance(par, ast.Assign) and node in par.targets:
            return DataAccess(node, "write", how="assign", site=par)
        if cur is node and isinstance(par, ast.AugAssign) and par.target is node:
            return DataAccess(node, "write", how="augassign", site=par)
        if isinstance(par, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and cur is not par.value:
            return None  # some other target form
        if isinstance(par, ast.AugAssign) and ctx.model.value(par.target).kind in (Kind.NUMBER, Kind.TENSOR):
            # `train_loss += loss.data` (`train_loss = 0` before the loop): added into a number
            # (a new tensor) or into a tensor (in place, a copy of the values), so only read
            return DataAccess(node, "read", safe=True)
        if isinstance(par, ast.Assign) and _own_data_assigned(ctx, node, par):
            return None  # `p.data = p.data.half()`, `w.data = w.data[keep]`: its own storage swapped (GG102's)
        if (
            isinstance(par, ast.Assign)
            and par.value is cur
            and all(isinstance(target, ast.Attribute) and target.attr == "data" for target in par.targets)
        ):
            # `a.weight.data = b.weight.data` (or a view of it): `b`'s storage shared on purpose
            # (GG102 leaves it); `a` keeps its own version counter, so `.detach()` would change nothing
            return None
        if (
            isinstance(par, ast.Call)
            and cur in par.args
            and (ctx.imports.qualified_name(par.func) or "").startswith("torch.")
            and isinstance(assign := ctx.parent(copied := _through_copies(ctx, par)), ast.Assign)
            and assign.value is copied
            and _own_data_assigned(ctx, node, assign)
        ):
            # `img.data = torch.clamp(img.data, 0, 1)`, `w.data = F.normalize(w.data).detach()`:
            # computed back into itself
            return None
        if isinstance(par, ast.Call) and cur in par.args:
            qual = ctx.imports.qualified_name(par.func) or ""
            fname = _base_name(par.func) or ""
            if (
                par.args[0] is cur
                and fname.endswith("_")
                and not fname.endswith("__")
                and not isinstance(par.func, ast.Attribute)
                or (par.args[0] is cur and qual.startswith("torch.nn.init.") and qual not in _INIT_READS)
            ):
                fill = qual.startswith("torch.nn.init.") and qual.endswith("_") or qual in DEPRECATED_INIT_FILLS
                how = "init" if fill else "inplace_call"
                return DataAccess(node, "write", how=how, site=par)
            if (
                par.args[0] is cur
                and isinstance(par.func, ast.Attribute)
                and fname.endswith("_")
                and not fname.endswith("__")
            ):
                recv = par.func.value
                if ctx.imports.qualified_name(recv) is not None:  # module.func_(p.data): `timm.layers.trunc_normal_`
                    return DataAccess(node, "write", how="inplace_call", site=par)
            reads = _call_callee_reads(ctx, par, cur)
            if reads is None:
                return None
            return DataAccess(node, "read", safe=reads)
        if isinstance(par, ast.keyword):
            call = ctx.parent(par)
            if par.arg == "out":
                return None
            reads = _call_callee_reads(ctx, call, cur) if isinstance(call, ast.Call) else False
            if reads is None:
                return None
            return DataAccess(node, "read", safe=reads)
        if isinstance(par, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.FormattedValue)):
            return DataAccess(node, "read", safe=True)
        if _joined_by_torch(ctx, cur, par):
            return DataAccess(node, "read", safe=True)  # `torch.cat((a.data, b.data))` copies them
        if isinstance(par, (ast.Expr, ast.Assert)) or (
            isinstance(par, (ast.If, ast.While, ast.IfExp)) and par.test is cur
        ):
            return DataAccess(node, "read", safe=True)
        if (
            isinstance(par, ast.Assign)
            and par.value is cur
            and all(
                isinstance(target, ast.Subscript)
                and (
                    (isinstance(target.value, ast.Attribute) and target.value.attr == "data")
                    or ctx.model.value(target.value).is_tensor
                )
                for target in par.targets
            )
        ):
            # `attentions[i] = w.data`, `a.data[:] = b.data[:]`: copied into a tensor's rows
            return DataAccess(node, "read", safe=True)
        return DataAccess(node, "read", safe=False)


# Receivers that bind less tightly than `.data`: a message shows them in brackets.
_LOOSE_RECEIVERS = (ast.BinOp, ast.BoolOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Await)


def receiver_text(ctx, node: ast.Attribute) -> str:
    """The receiver of ``r.data`` as a message shows it: as written, or on one line when it
    spans several (``model(state.float())``); in brackets where it needs them
    (``(a * b.grad).data``)."""
    text = ctx.text(node.value)
    if "\n" in text:
        text = short(ast.unparse(node.value), 60)
    return f"({text})" if isinstance(node.value, _LOOSE_RECEIVERS) else text


def data_name_span(ctx, node: ast.Attribute) -> tuple:
    """Offsets of the identifier ``data`` in ``recv.data``."""
    end = ctx.source.node_end(node)
    return end - 4, end


def drop_data_edit(ctx, node: ast.Attribute) -> Edit:
    """An edit deleting ``.data`` (the dot and the name) from ``recv.data``."""
    start, end = data_name_span(ctx, node)
    text = ctx.source.text
    dot = text.rfind(".", ctx.source.node_end(node.value), start)
    return Edit(dot, end, "")


def no_grad_name(ctx) -> Optional[str]:
    """Local spelling of ``torch.no_grad`` in this file, or None."""
    torch_name = ctx.imports.torch_name
    if torch_name is not None:
        return f"{torch_name}.no_grad"
    for local, qual in ctx.imports.names.items():
        if qual in ("torch.no_grad", "torch.autograd.no_grad"):
            return local
    return None


def has_comment(ctx, node: ast.AST) -> bool:
    """Does the source of ``node`` hold a comment (a fix replacing it would drop it)?"""
    text = ctx.text(node)
    if "#" not in text:
        return False
    import io
    import tokenize

    try:
        for tok in tokenize.generate_tokens(io.StringIO("(" + text + ")").readline):
            if tok.type == tokenize.COMMENT:
                return True
    except (tokenize.TokenError, SyntaxError):
        return True
    return False
