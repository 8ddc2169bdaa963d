"""What a name or expression holds, as far as the code itself shows it.

Precision over reach: an expression is a tensor only when the code makes it certain (a
parameter from ``parameters()``, ``.weight``/``.bias``/``.grad``, the result of a torch call,
a model output, a loss). Facts are flow-insensitive and local to one function body: a name
gets a kind only if every assignment to it in that body agrees.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from gradguard.check.analysis.imports import dotted_name, iter_statements, subclasses_in_file

PARAM = "param"  # an nn.Parameter (from parameters(), nn.Parameter(...))
TENSOR = "tensor"  # a tensor of unknown grad state
MODEL = "model"  # an nn.Module instance
OUTPUT = "output"  # the result of calling a model
LOSS = "loss"  # a loss value
GRAD_TENSOR = "grad_tensor"  # a tensor derived from params/outputs/losses (carries a graph)

TENSOR_KINDS = frozenset({PARAM, TENSOR, OUTPUT, LOSS, GRAD_TENSOR})
GRAD_KINDS = frozenset({PARAM, OUTPUT, LOSS, GRAD_TENSOR})

MODEL_NAME_RE = re.compile(
    r"^(model|net|network|encoder|decoder|backbone|generator|discriminator|classifier|teacher|"
    r"student|ema_model|netG|netD|G|D|unet|vae|[a-z_]*_model|[a-z_]*_net|model_[a-z0-9_]*)$"
)
LOSS_CALL_RE = re.compile(r"(^|_)(loss|criterion|loss_fn|lossfn)($|_)|^criterion|loss$", re.I)

_TORCH_NON_TENSOR = frozenset(
    """no_grad enable_grad inference_mode set_grad_enabled is_grad_enabled is_inference_mode_enabled
    device dtype Size manual_seed seed initial_seed load save is_tensor is_storage
    is_floating_point is_complex is_nonzero numel get_default_dtype set_default_dtype
    set_default_device set_num_threads get_num_threads set_num_interop_threads compile finfo iinfo
    Generator set_printoptions use_deterministic_algorithms are_deterministic_algorithms_enabled
    get_rng_state set_rng_state typename is_autocast_enabled autocast set_float32_matmul_precision
    get_float32_matmul_precision broadcast_shapes result_type can_cast promote_types
    set_anomaly_enabled is_anomaly_enabled vmap cond""".split()
)
_TORCH_TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
_F_NON_TENSOR = frozenset({"_Reduction", "has_torch_function", "handle_torch_function"})

# Methods and torch functions whose result still carries the graph of their input.
GRAD_PRESERVING = frozenset(
    """abs absolute acos add addmm arccos arcsin arctan asin atan baddbmm bmm cat chunk clamp clamp_max
    clamp_min clip clone contiguous cos cosh cpu cuda cumsum cumprod diag diagonal div divide double
    einsum exp expand expand_as expm1 flatten flip float gather half bfloat16 index_select log log10
    log1p log2 log_softmax logsumexp masked_fill matmul max mean min mm mul multiply narrow neg norm
    permute pow prod relu repeat reshape roll rsqrt select sigmoid sin sinh softmax split sqrt square
    squeeze stack std sub subtract sum t tanh tile to transpose tril triu unbind unflatten unsqueeze
    var view view_as where nan_to_num gelu silu dropout linear conv1d conv2d normalize
    cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy
    binary_cross_entropy_with_logits kl_div cosine_similarity pairwise_distance type_as
    real imag amax amin topk sort""".split()
)
# Results that never carry a graph (integer or boolean results, plain numbers, copies out).
GRAD_DROPPING = frozenset(
    """detach detach_ item tolist numpy argmax argmin argsort eq ne lt le gt ge long int bool
    isnan isinf isfinite nonzero size dim numel shape dtype device data sign round floor ceil
    requires_grad_""".split()
)
LOSS_FUNCTIONS = frozenset(
    """cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy
    binary_cross_entropy_with_logits kl_div margin_ranking_loss hinge_embedding_loss
    multilabel_margin_loss soft_margin_loss multilabel_soft_margin_loss cosine_embedding_loss
    multi_margin_loss triplet_margin_loss poisson_nll_loss gaussian_nll_loss ctc_loss""".split()
)


def _target_names(target: ast.AST) -> Iterable[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


_NESTED_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_SCOPE_FIELDS: dict = {}


def _scope_statements(scope: ast.AST) -> Iterable[ast.AST]:
    """Every node of a scope's body, without descending into nested functions or classes."""
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    stack = list(reversed(body))
    pop = stack.pop
    push = stack.append
    AST = ast.AST
    nested = _NESTED_SCOPES
    fields_of = _SCOPE_FIELDS
    while stack:
        node = pop()
        yield node
        t = type(node)
        fields = fields_of.get(t)
        if fields is None:
            fields = fields_of[t] = tuple(f for f in t._fields if f != "ctx")
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, AST) and type(child) not in nested:
                        push(child)
            elif isinstance(value, AST) and type(value) not in nested:
                push(value)


@dataclass
class ScopeFacts:
    """Kinds of the names of one scope, and the names ``.backward()`` is called on."""

    kinds: dict = field(default_factory=dict)
    backward: set = field(default_factory=set)
    models: set = field(default_factory=set)
    module_classes: frozenset = frozenset()


def module_classes(ctx) -> frozenset:
    """Names of classes in this file that subclass nn.Module (directly or through each other)."""

    def is_module_base(base: ast.AST) -> bool:
        qual = ctx.imports.qualified_name(base) or ""
        last = qual.rsplit(".", 1)[-1]
        return (
            qual in ("torch.nn.Module", "torch.nn.modules.module.Module")
            or qual.startswith("torch.nn.")
            and last[:1].isupper()
            and last != "Parameter"
            or (dotted_name(base) or "").endswith("LightningModule")
        )

    return subclasses_in_file(ctx, "module_classes", is_module_base, "class ")


def scope_facts(ctx, scope: ast.AST) -> ScopeFacts:
    key = ("facts", id(scope))
    cached = ctx.cache.get(key)
    if cached is not None:
        return cached
    facts = ScopeFacts(module_classes=module_classes(ctx))
    ctx.cache[key] = facts
    bindings: list[tuple[str, str, ast.AST]] = []  # (name, how, value)
    args = getattr(scope, "args", None)
    if isinstance(args, ast.arguments):
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            if MODEL_NAME_RE.match(arg.arg):
                facts.models.add(arg.arg)
    for node in _scope_statements(scope):
        t = type(node)
        if t is ast.Assign:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bindings.append((target.id, "value", node.value))
                else:
                    for name in _target_names(target):
                        bindings.append((name, "unpack", node.value))
        elif t is ast.AnnAssign and node.value is not None and isinstance(node.target, ast.Name):
            bindings.append((node.target.id, "value", node.value))
        elif t is ast.AugAssign and isinstance(node.target, ast.Name):
            bindings.append((node.target.id, "augment", node))
        elif t is ast.For or t is ast.AsyncFor or t is ast.comprehension:
            # ``[p.data for p in model.parameters()]``: comprehension targets count like loops.
            _for_bindings(node, bindings)
        elif t is ast.withitem and node.optional_vars is not None:
            for name in _target_names(node.optional_vars):
                bindings.append((name, "unknown", node.context_expr))
        elif t is ast.NamedExpr:
            bindings.append((node.target.id, "value", node.value))
        elif t is ast.Call:
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if func.attr == "backward":
                    facts.backward.add(func.value.id)
                elif func.attr in ("eval", "parameters", "named_parameters", "modules", "train"):
                    if func.attr != "train" or not node.args or isinstance(node.args[0], ast.Constant):
                        facts.models.add(func.value.id)
    # Evaluate bindings twice so names defined from other names settle.
    for _ in range(2):
        kinds: dict[str, Optional[frozenset]] = {}
        for name, how, value in bindings:
            kind = _binding_kind(ctx, facts, how, value, name)
            if name in kinds:
                prev = kinds[name]
                kinds[name] = None if prev is None or kind is None else (prev & kind) or None
            else:
                kinds[name] = kind
        facts.kinds = {k: v for k, v in kinds.items() if v}
        for name, kind in facts.kinds.items():
            if MODEL in kind:
                facts.models.add(name)
    for name in facts.backward:
        facts.kinds[name] = facts.kinds.get(name, frozenset()) | {LOSS}
    return facts


def _for_bindings(node: ast.AST, bindings: list) -> None:
    it = node.iter
    target = node.target
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
        method = it.func.attr
        if method in ("parameters", "buffers"):
            for name in _target_names(target):
                bindings.append((name, PARAM if method == "parameters" else TENSOR, it))
            return
        if method in ("named_parameters", "named_buffers") and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            kind = PARAM if method == "named_parameters" else TENSOR
            for name in _target_names(target.elts[1]):
                bindings.append((name, kind, it))
            for name in _target_names(target.elts[0]):
                bindings.append((name, "unknown", it))
            return
    # for p in group["params"]
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Constant) and it.slice.value == "params":
        for name in _target_names(target):
            bindings.append((name, PARAM, it))
        return
    for name in _target_names(target):
        bindings.append((name, "unknown", it))


def _binding_kind(ctx, facts, how, value, name) -> Optional[frozenset]:
    if how in (PARAM, TENSOR):
        return frozenset({how})
    if how == "unknown":
        return None
    if how == "augment":
        own = facts.kinds.get(name)
        other = expr_kinds(ctx, facts, value.value)
        if own and other:
            return own | other
        return own or other or None
    if how == "unpack":
        kind = expr_kinds(ctx, facts, value)
        if kind and kind & {OUTPUT, LOSS}:
            # ``logits, aux = model(x)`` / ``loss, logs = compute_loss(...)``: keep only what
            # certainly applies to each element.
            return frozenset(kind & {OUTPUT}) or None
        return None
    return expr_kinds(ctx, facts, value)


def is_model_expr(ctx, facts: ScopeFacts, node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in facts.models or MODEL in facts.kinds.get(node.id, ())
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return bool(MODEL_NAME_RE.match(node.attr)) or node.attr in self_submodules(ctx)
        if node.attr == "module":
            return is_model_expr(ctx, facts, node.value)
    return False


def self_submodules(ctx) -> frozenset:
    """Attributes that the current nn.Module class assigns a module to: ``self.proj = nn.Linear(...)``."""
    cls = ctx.class_def
    if cls is None:
        return frozenset()
    key = ("submodules", id(cls))
    cached = ctx.cache.get(key)
    if cached is not None:
        return cached
    found: set = set()
    classes = module_classes(ctx)
    ctx.cache[key] = frozenset()  # guards against recursion through expr_kinds
    if cls.name in classes:
        empty = ScopeFacts(module_classes=classes)
        for stmt in iter_statements(cls.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in iter_statements(stmt.body):
                    if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                        for target in sub.targets:
                            if (
                                isinstance(target, ast.Attribute)
                                and isinstance(target.value, ast.Name)
                                and target.value.id == "self"
                                and _call_kinds(ctx, empty, sub.value) == frozenset({MODEL})
                            ):
                                found.add(target.attr)
    result = frozenset(found)
    ctx.cache[key] = result
    return result


def expr_kinds(ctx, facts: ScopeFacts, node: ast.AST) -> Optional[frozenset]:
    """The kinds an expression certainly has, or None when unknown."""
    t = type(node)
    if t is ast.Name:
        return facts.kinds.get(node.id) or (frozenset({MODEL}) if node.id in facts.models else None)
    if t is ast.Attribute:
        attr = node.attr
        if attr in ("weight", "bias"):
            return frozenset({PARAM})
        if attr == "grad":
            return frozenset({TENSOR})
        if attr in ("T", "mT", "H", "real", "imag"):
            inner = expr_kinds(ctx, facts, node.value)
            return inner if inner and inner & TENSOR_KINDS else None
        if attr == "loss":
            inner = expr_kinds(ctx, facts, node.value)
            return frozenset({LOSS}) if inner and OUTPUT in inner else None
        if attr == "logits":
            inner = expr_kinds(ctx, facts, node.value)
            return frozenset({OUTPUT}) if inner and OUTPUT in inner else None
        if is_model_expr(ctx, facts, node):
            return frozenset({MODEL})
        return None
    if t is ast.Call:
        return _call_kinds(ctx, facts, node)
    if t is ast.BinOp:
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod)):
            left = expr_kinds(ctx, facts, node.left)
            right = expr_kinds(ctx, facts, node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                return frozenset({TENSOR}) if (left and left & TENSOR_KINDS) else None
            kinds = (left or frozenset()) | (right or frozenset())
            kinds &= TENSOR_KINDS
            if not kinds:
                return None
            if LOSS in kinds:
                return frozenset({LOSS})
            if kinds & GRAD_KINDS:
                return frozenset({GRAD_TENSOR})
            return frozenset({TENSOR})
        return None
    if t is ast.UnaryOp and isinstance(node.op, ast.USub):
        inner = expr_kinds(ctx, facts, node.operand)
        if inner and inner & GRAD_KINDS:
            return frozenset({GRAD_TENSOR} | (inner & {LOSS}))
        return inner if inner and inner & TENSOR_KINDS else None
    if t is ast.Subscript:
        inner = expr_kinds(ctx, facts, node.value)
        if inner and inner & GRAD_KINDS:
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                # out["loss"] on a model output
                if OUTPUT in inner and node.slice.value == "loss":
                    return frozenset({LOSS})
                return None
            return frozenset({GRAD_TENSOR})
        if inner and TENSOR in inner:
            return frozenset({TENSOR})
        return None
    return None


def _call_kinds(ctx, facts: ScopeFacts, node: ast.Call) -> Optional[frozenset]:
    func = node.func
    qual = ctx.imports.qualified_name(func)
    if qual is not None and qual.startswith("torch."):
        last = qual.rsplit(".", 1)[-1]
        if qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return frozenset({PARAM})
        if qual.startswith("torch.nn.") and not qual.startswith(_TORCH_TENSOR_NAMESPACES) and last[:1].isupper():
            return frozenset({MODEL})
        if qual.startswith(_TORCH_TENSOR_NAMESPACES) or qual.count(".") == 1:
            if last in _TORCH_NON_TENSOR or last in _F_NON_TENSOR or last[:1].isupper() or last.startswith("_"):
                return None
            if last in LOSS_FUNCTIONS:
                return frozenset({LOSS}) if _any_grad_arg(ctx, facts, node) else frozenset({TENSOR})
            if last in GRAD_PRESERVING and _any_grad_arg(ctx, facts, node):
                return frozenset({GRAD_TENSOR})
            if last in GRAD_DROPPING:
                return None if last in ("numel", "is_tensor") else frozenset({TENSOR})
            return frozenset({TENSOR})
        return None
    if isinstance(func, ast.Name) and func.id in facts.module_classes:
        return frozenset({MODEL})
    if is_model_expr(ctx, facts, func):
        return frozenset({OUTPUT})
    if isinstance(func, ast.Attribute):
        method = func.attr
        receiver = func.value
        if method == "forward" and is_model_expr(ctx, facts, receiver):
            return frozenset({OUTPUT})
        inner = expr_kinds(ctx, facts, receiver)
        if inner and MODEL in inner and method in ("to", "cuda", "cpu", "eval", "train", "float", "half", "double"):
            return frozenset({MODEL})
        if inner and inner & TENSOR_KINDS:
            if method in GRAD_DROPPING:
                if method in ("detach", "detach_", "data", "requires_grad_"):
                    return frozenset({TENSOR})
                if method in ("item", "tolist", "numpy", "size", "dim", "numel"):
                    return None
                return frozenset({TENSOR})
            if method in GRAD_PRESERVING:
                if inner & GRAD_KINDS:
                    return (
                        frozenset({LOSS})
                        if LOSS in inner
                        and method
                        in ("mean", "sum", "to", "cpu", "cuda", "float", "double", "half", "clone", "mul", "div")
                        else frozenset({GRAD_TENSOR})
                    )
                return frozenset({TENSOR})
            return None
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if (
        name is not None
        and LOSS_CALL_RE.search(name)
        and not name.lower().startswith(
            ("get_", "log", "print", "plot", "save", "update", "record", "add", "is_", "reset", "set_")
        )
    ):
        return frozenset({LOSS})
    return None


def _any_grad_arg(ctx, facts, node: ast.Call) -> bool:
    for arg in node.args:
        if isinstance(arg, (ast.List, ast.Tuple)):
            if any(carries_grad(ctx, facts, elt) for elt in arg.elts):
                return True
        elif carries_grad(ctx, facts, arg):
            return True
    return False


def is_tensor(ctx, facts: ScopeFacts, node: ast.AST) -> bool:
    kinds = expr_kinds(ctx, facts, node)
    return bool(kinds and kinds & TENSOR_KINDS)


def carries_grad(ctx, facts: ScopeFacts, node: ast.AST) -> bool:
    """True when the expression is derived from parameters, model outputs or losses."""
    kinds = expr_kinds(ctx, facts, node)
    return bool(kinds and kinds & GRAD_KINDS)


def is_loss(ctx, facts: ScopeFacts, node: ast.AST) -> bool:
    kinds = expr_kinds(ctx, facts, node)
    return bool(kinds and LOSS in kinds)
