"""An input or output tensor stored as a `ctx` attribute instead of `save_for_backward`.

## What it does
Inside `forward` (or `setup_context`) of a custom `torch.autograd.Function`, flags
`ctx.name = value` where `value` is an input tensor of the Function, an output tensor, or a
view of one (`x.t()`, `x.view(...)`, `x[i]`, `x.detach()`, `x.data`, ...).

An input counts as a tensor only when the code shows it: it is annotated `torch.Tensor`, it
is passed to `ctx.save_for_backward`, a tensor-only method is called on it
(`x.view(...)`, `x.size()`, `x.contiguous()`, `x.t()`, ...), it is the first argument of a
`torch.*` / `torch.nn.functional.*` operation (the first two of `torch.mul`, `torch.matmul` and
their kind, the first three of `F.conv2d`, `F.linear` and `torch.addmm`: a convolution's
`stride`, `padding` and `groups` are settings), or an operand of `@`; never one whose default is
a number, a flag, a string or a tuple of numbers (`stride=1`). An output is a name
`forward` returns (or the `output` argument of `setup_context`) that is bound to a tensor
computation. Non-tensors (`ctx.scale = scale`, `ctx.shape = x.shape`, `ctx.dim = dim`) and
tensors created inside `forward` that are neither inputs nor outputs (`ctx.mask = x > 0`,
`ctx.copy = x.clone()`) are not flagged: nothing else holds those, so they cannot be changed
behind autograd's back and they form no reference cycle. A legacy Function whose `forward`
is not a `@staticmethod` (state kept on the Function instance) is not flagged: torch 2.x
refuses to run it at all ("Legacy autograd function with non-static forward method is
deprecated"), so the code needs rewriting as a new-style Function first.

## Why is this bad?
Tensors saved with `ctx.save_for_backward` get autograd's version check: if one is modified
in place before backward runs, backward raises instead of using the new values. A tensor kept
as a `ctx` attribute gets no check. Measured on torch 2.13 for `y = x**2`, `x = 3`, with the
input changed in place (`*= 10`) after the forward: `ctx.x = x` gives the gradient 60 instead
of 6 with no error, `save_for_backward(x)` raises `one of the variables needed for gradient
computation has been modified by an inplace operation`. An output kept on `ctx` forms a
reference cycle (output -> its grad_fn -> ctx -> output): it is no longer freed when the last
reference goes, only when the cyclic garbage collector runs. Saved-tensor hooks
(activation offloading, checkpointing) do not see `ctx` attributes either.

## Example
```python
import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad):
        return 2 * ctx.x * grad
```

## Use instead
```python
import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad
```

## Fix safety
There is no fix: moving the tensor to `save_for_backward` also means reading it back from
`ctx.saved_tensors` in `backward`, in the right position among the other saved tensors.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.autograd_function import function_classes, function_method, own_nodes
from gradguard.check.analysis.scopes import parameter_defaults, walk_in_order
from gradguard.check.model import Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid

# Methods that return the same tensor or a view of it.
_ALIAS_METHODS = frozenset(
    """detach detach_ view view_as reshape reshape_as t transpose permute expand expand_as narrow select
    squeeze unsqueeze flatten unflatten contiguous as_strided diagonal movedim swapaxes to float half
    double bfloat16 type_as requires_grad_""".split()
)
_ALIAS_ATTRS = frozenset({"data", "T", "mT", "H", "real", "imag"})
# Methods only a tensor has (calling one is evidence that the receiver is a tensor).
_TENSOR_METHODS = frozenset(
    """view view_as contiguous is_contiguous size dim numel t transpose permute unsqueeze squeeze expand
    expand_as new_zeros new_ones new_empty new_full new_tensor type_as masked_fill masked_fill_ mm bmm
    matmul detach clone float half double bfloat16 cuda element_size stride storage_offset
    data_ptr requires_grad_ narrow index_select gather scatter scatter_add unflatten flatten
    softmax log_softmax sigmoid relu tanh""".split()
)
_CREATION = frozenset(
    """zeros ones empty full rand randn randint arange linspace logspace eye tensor as_tensor
    from_numpy zeros_like ones_like empty_like full_like rand_like randn_like randint_like""".split()
)
# How many leading positional arguments of a torch operation are tensors (others: the first);
# `F.conv2d(input, weight, bias, stride, padding, dilation, groups)` takes numbers after its bias.
_TENSOR_ARGUMENTS = {
    **dict.fromkeys(("matmul", "mm", "bmm", "mul", "add", "sub", "div"), 2),
    **dict.fromkeys(("linear", "conv1d", "conv2d", "conv3d", "addmm", "baddbmm"), 3),
}
_TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.autograd.Variable"})


class CtxAttributeTensor(Rule):
    code = "GG501"
    severity = Severity.ERROR
    name = "ctx-attribute-tensor"
    summary = "Input/output tensor stored as `ctx.attr` instead of `save_for_backward`"
    triggers = ("Function",)
    # Reported only in a `forward` or `setup_context` method (the class names `Function`).
    function_triggers = ("forward", "setup_context")

    def active_in(self, ctx) -> bool:
        return bool(function_classes(ctx))  # no custom autograd.Function in the file: nothing to check

    valid = (
        # A convolution's settings kept on ctx: `F.conv2d(input, weight, bias, stride, padding, dilation, groups)`
        # takes tensors only as its first three arguments.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            class BinaryConv2d(torch.autograd.Function):
                @staticmethod
                def forward(ctx, input, weight, stride, groups):
                    output = F.conv2d(input, weight, None, stride, 0, 1, groups)
                    ctx.save_for_backward(input, weight)
                    ctx.stride = stride
                    ctx.groups = groups
                    return output

                @staticmethod
                def backward(ctx, grad_output):
                    input, weight = ctx.saved_tensors
                    grad_input = torch.nn.grad.conv2d_input(input.shape, weight.sign(), grad_output, ctx.stride, 0, 1, ctx.groups)
                    grad_weight = torch.nn.grad.conv2d_weight(input, weight.shape, grad_output, ctx.stride, 0, 1, ctx.groups)
                    return grad_input, grad_weight, None, None
            """
        ),
        Valid(
            """
            import torch

            class Scale(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, scale, dim):
                    ctx.scale = scale
                    ctx.dim = dim
                    ctx.shape = x.shape
                    ctx.save_for_backward(x)
                    return x.sum(dim) * scale
            """,
        ),
        Valid(
            """
            import torch

            class Drop(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, p):
                    mask = torch.rand_like(x) > p
                    ctx.mask = mask
                    ctx.p = p
                    return x.view(-1) * mask
            """,
        ),
        Valid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, weight):
                    ctx.needs = ctx.needs_input_grad
                    ctx.mark_non_differentiable(weight)
                    ctx.weight = weight
                    return x + 1
            """,
        ),
        Valid(
            """
            import torch
            from torch.autograd import Function

            class RoIPool(Function):
                def __init__(self, scale):
                    self.scale = scale

                def forward(self, features, rois):
                    self.rois = rois
                    return features.new(rois.size(0)).zero_()
            """,
        ),
        Valid(
            """
            import torch

            class Helper:
                @staticmethod
                def forward(ctx, x: torch.Tensor):
                    ctx.x = x
                    return x
            """,
        ),
        # An output tuple that holds a NumPy array: only tensor elements count.
        Valid(
            """
            import torch

            class Cube(torch.autograd.Function):
                @staticmethod
                def forward(x):
                    x_np = x.cpu().numpy()
                    return torch.tensor(x_np ** 3), x_np

                @staticmethod
                def setup_context(ctx, inputs, output):
                    _, x_np = output
                    ctx.x_np = x_np
                    ctx.device = inputs[0].device
            """,
        ),
        # An argument rebound to a non-tensor.
        Valid(
            """
            import torch
            from torch._utils import _get_device_index

            class Gather(torch.autograd.Function):
                @staticmethod
                def forward(ctx, target_device, dim, *inputs):
                    target_device = _get_device_index(target_device, True)
                    ctx.target_device = target_device
                    return torch.cat(inputs, dim)
            """,
        ),
        Valid(
            """
            import torch

            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.x_copy = x.clone()
                    ctx.numel = x.numel()
                    return x.view(-1)
            """,
        ),
    )
    invalid = (
        # The convolution's weight kept on ctx: a tensor argument of `F.conv2d`.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            class BinaryConv2d(torch.autograd.Function):
                @staticmethod
                def forward(ctx, input, weight, stride, groups):
                    output = F.conv2d(input, weight, None, stride, 0, 1, groups)
                    ctx.save_for_backward(input)
                    ctx.weight = weight
                    ctx.stride = stride
                    ctx.groups = groups
                    return output

                @staticmethod
                def backward(ctx, grad_output):
                    (input,) = ctx.saved_tensors
                    weight = ctx.weight
                    grad_input = torch.nn.grad.conv2d_input(input.shape, weight.sign(), grad_output, ctx.stride, 0, 1, ctx.groups)
                    grad_weight = torch.nn.grad.conv2d_weight(input, weight.shape, grad_output, ctx.stride, 0, 1, ctx.groups)
                    return grad_input, grad_weight, None, None
            """,
            line=10,
            column=9,
            message="`weight` (an input tensor) is kept as a ctx attribute: autograd does not check it for in-place changes (silently wrong gradients); use `ctx.save_for_backward(weight)`",
        ),
        Invalid(
            """
            import torch

            class Square(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x: torch.Tensor):
                    ctx.x = x
                    return x * x
            """,
            line=6,
            column=9,
            message="`x` (an input tensor) is kept as a ctx attribute: autograd does not check it for in-place changes (silently wrong gradients); use `ctx.save_for_backward(x)`",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            class Lin(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, weight, bias):
                    ctx.weight_t = weight.t()
                    out = F.linear(x, weight, bias)
                    ctx.out = out
                    return out
            """,
            line=7,
            column=9,
            message="`weight.t()` (a view of an input tensor) is kept as a ctx attribute: autograd does not check it for in-place changes (silently wrong gradients); use `ctx.save_for_backward(weight)`",
            also=(
                Finding(
                    9,
                    9,
                    "`out` (an output tensor) is kept as a ctx attribute: it forms a reference cycle through the graph and skips autograd's in-place checks; use `ctx.save_for_backward(out)`",
                ),
            ),
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Function

            class Exp(Function):
                @staticmethod
                def forward(x):
                    return torch.exp(x)

                @staticmethod
                def setup_context(ctx, inputs, output):
                    ctx.y = output
            """,
            line=11,
            column=9,
            message="`output` (an output tensor) is kept as a ctx attribute: it forms a reference cycle through the graph and skips autograd's in-place checks; use `ctx.save_for_backward(output)`",
        ),
    )

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        info = function_method(ctx)
        if info is None:
            return
        if not any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == info.ctx_name
            for t in node.targets
        ):
            return
        base = _alias_base(node.value)
        if base is None:
            return
        if base in info.inputs and base in _tensor_inputs(ctx, info):
            role = "input"
        elif base in info.outputs and base in _tensor_outputs(ctx, info):
            role = "output"
        else:
            return
        text = ctx.text(node.value)
        advice = (
            "autograd does not check it for in-place changes (silently wrong gradients)"
            if role == "input"
            else "it forms a reference cycle through the graph and skips autograd's in-place checks"
        )
        ctx.report(
            self.code,
            node,
            f"`{text}` ({'a view of ' if text != base else ''}an {role} tensor) is kept as a ctx attribute: {advice}; "
            f"use `ctx.save_for_backward({base})`",
        )


def _alias_base(value: ast.AST) -> Optional[str]:
    while True:
        if isinstance(value, ast.Name):
            return value.id
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _ALIAS_METHODS:
            value = value.func.value
        elif isinstance(value, ast.Attribute) and value.attr in _ALIAS_ATTRS:
            value = value.value
        elif isinstance(value, ast.Subscript):
            value = value.value
        else:
            return None


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    tensor_inputs: dict = field(default_factory=dict)  # id(method) -> `_tensor_inputs`
    tensor_outputs: dict = field(default_factory=dict)  # id(method) -> `_tensor_outputs`


def _tensor_inputs(ctx, info) -> frozenset:
    inputs = ctx.state(_State).tensor_inputs
    cached = inputs.get(id(info.node))
    if cached is not None:
        return cached
    found: set[str] = set()
    bodies = [info.node]
    rename: dict[str, str] = {}
    if info.kind == "setup_context" and info.forward is not None:
        forward_params = [a.arg for a in info.forward.args.posonlyargs + info.forward.args.args]
        for name, pos in info.input_positions.items():
            if pos < len(forward_params):
                rename[forward_params[pos]] = name
        bodies.append(info.forward)
    for body in bodies:
        evidence = _evidence(ctx, body)
        for name in evidence:
            found.add(rename.get(name, name) if body is not info.node else name)
    rebound = set()
    for node in own_nodes(info.node):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for sub in walk_in_order(target):
                    if isinstance(sub, ast.Name) and sub.id in info.inputs and info.kind == "forward":
                        rebound.add(sub.id)
    result = frozenset((found & info.inputs) - rebound - _number_defaults(info.node))
    inputs[id(info.node)] = result
    return result


def _number_defaults(fn: ast.AST) -> frozenset:
    """The parameters whose default is a number, a flag, a string or a tuple of numbers
    (``stride=1``, ``padding=(0, 0)``): settings, not tensors."""
    found = set()
    for name, default in parameter_defaults(fn).items():  # type: ignore[arg-type]
        values = default.elts if isinstance(default, ast.Tuple) else [default]
        if values and all(isinstance(v, ast.Constant) and isinstance(v.value, (int, float, str)) for v in values):
            found.add(name)
    return frozenset(found)


def _evidence(ctx, fn: ast.AST) -> set:
    """Names of ``fn`` the code uses as tensors."""
    names: set[str] = set()
    args = fn.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        if arg.annotation is not None and ctx.imports.qualified_name(arg.annotation) in _TENSOR_ANNOTATIONS:
            names.add(arg.arg)
    for node in own_nodes(fn):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                if func.attr in _TENSOR_METHODS and isinstance(func.value, ast.Name):
                    names.add(func.value.id)
                if func.attr == "save_for_backward":
                    names.update(a.id for a in node.args if isinstance(a, ast.Name))
            qual = ctx.imports.qualified_name(func)
            if qual is not None and qual.startswith("torch.") and node.args:
                last = qual.rsplit(".", 1)[-1]
                if (
                    last not in _CREATION
                    and not last[:1].isupper()
                    and not last.startswith("_")
                    and (
                        qual.count(".") == 1
                        or qual.startswith(("torch.nn.functional.", "torch.linalg.", "torch.special.", "torch.fft."))
                    )
                ):
                    positions = node.args[: _TENSOR_ARGUMENTS.get(last, 1)]
                    names.update(a.id for a in positions if isinstance(a, ast.Name))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            names.update(o.id for o in (node.left, node.right) if isinstance(o, ast.Name))
    return names


def _tensor_outputs(ctx, info) -> frozenset:
    """Returned names of forward bound only to tensor computations."""
    outputs = ctx.state(_State).tensor_outputs
    cached = outputs.get(id(info.node))
    if cached is not None:
        return cached
    if info.kind == "setup_context":
        result = _setup_context_outputs(ctx, info)
        outputs[id(info.node)] = result
        return result
    tensor_inputs = _tensor_inputs(ctx, info)
    values: dict[str, list] = {}
    for node in own_nodes(info.node):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
                else:
                    for sub in walk_in_order(target):
                        if isinstance(sub, ast.Name):
                            values.setdefault(sub.id, []).append(None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            target = node.target
            for sub in walk_in_order(target):
                if isinstance(sub, ast.Name):
                    values.setdefault(sub.id, []).append(
                        getattr(node, "value", None) if isinstance(node, ast.AnnAssign) else None
                    )
    found = set()
    for name in info.outputs:
        bound = values.get(name)
        if bound and all(v is not None and _tensor_value(ctx, v, tensor_inputs) for v in bound):
            found.add(name)
    result = frozenset(found)
    outputs[id(info.node)] = result
    return result


def _tensor_value(ctx, value: ast.AST, tensor_inputs) -> bool:
    if ctx.model.value(value).is_tensor:
        return True
    if isinstance(value, ast.Name):
        return value.id in tensor_inputs
    if isinstance(value, ast.BinOp) and isinstance(
        value.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow)
    ):
        return _tensor_value(ctx, value.left, tensor_inputs) or _tensor_value(ctx, value.right, tensor_inputs)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        method = value.func.attr
        if (
            method in _TENSOR_METHODS
            or method in _ALIAS_METHODS
            or method in ("exp", "log", "sum", "mean", "abs", "pow", "mul", "add", "clamp", "sqrt")
        ):
            return method not in (
                "size",
                "dim",
                "numel",
                "element_size",
                "stride",
                "storage_offset",
                "data_ptr",
                "is_contiguous",
            ) and _tensor_value(ctx, value.func.value, tensor_inputs)
    return False


def _setup_context_outputs(ctx, info) -> frozenset:
    """``output`` (or names unpacked from it) where ``forward`` returns tensors there."""
    forward = info.forward
    if forward is None:
        return frozenset()
    params = [a.arg for a in info.node.args.posonlyargs + info.node.args.args]
    output_name = params[2]
    forward_params = [a.arg for a in forward.args.posonlyargs + forward.args.args]
    fake = type(info)("forward", forward, info.cls, "", inputs=set(forward_params))
    tensor_inputs = _tensor_inputs_of_forward(ctx, fake)
    returns = [n.value for n in own_nodes(forward) if isinstance(n, ast.Return) and n.value is not None]
    if not returns:
        return frozenset()
    found: set[str] = set()
    if all(not isinstance(r, ast.Tuple) and _tensor_value(ctx, r, tensor_inputs) for r in returns):
        found.add(output_name)
    for node in own_nodes(info.node):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == output_name:
            for target in node.targets:
                if not isinstance(target, (ast.Tuple, ast.List)):
                    continue
                for i, elt in enumerate(target.elts):
                    if isinstance(elt, ast.Name) and all(
                        isinstance(r, ast.Tuple)
                        and len(r.elts) == len(target.elts)
                        and _tensor_value(ctx, r.elts[i], tensor_inputs)
                        for r in returns
                    ):
                        found.add(elt.id)
    return frozenset(found)


def _tensor_inputs_of_forward(ctx, info) -> set:
    return _evidence(ctx, info.node) & info.inputs
