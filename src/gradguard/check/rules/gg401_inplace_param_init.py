"""In-place initialisation of a parameter outside `no_grad`.

## What it does
Flags in-place initialisers (`normal_`, `uniform_`, `zero_`, `fill_`, `copy_`, `log_normal_`,
`exponential_`, `cauchy_`, `geometric_`, `bernoulli_`, `random_`, `fill_diagonal_`) called
directly on a parameter outside any `no_grad` / `inference_mode` region, unless the statements
just before it in its block switch the parameter's flag off (`w.requires_grad = False`), or its
module's (`fused = nn.Conv2d(...).requires_grad_(False)`, `fused.requires_grad_(False)`). A parameter is
`.weight` / `.bias` of a module (`self` in an `nn.Module` subclass, a submodule of it, a
model, a name from `.modules()` or checked with `isinstance(m, nn.Linear)`), a name from
`parameters()` / `named_parameters()`, or an attribute the class sets to `nn.Parameter(...)`;
also a leaf the code makes require grad (`x = torch.tensor(3., requires_grad=True)`, then
`x.uniform_()`). Also flagged, without a fix: an item write into such a tensor outside `no_grad`
(`self.bias_ih[hidden_size:2 * hidden_size] = 1` after `self.bias_ih = nn.Parameter(...)`), which
raises RuntimeError too; not one through `.data` (GG102's).

## Why is this bad?
Parameters are leaf tensors that require grad, and autograd forbids in-place changes to them
while grad is enabled: `m.weight.normal_(0, 0.02)` raises `RuntimeError: a leaf Variable that
requires grad is being used in an in-place operation.` This also happens inside a
`reset_parameters()` called from `__init__`: nothing disables grad there. `torch.nn.init`
functions run the same operation under `no_grad`.

## Example
```python
import torch.nn as nn

def init_weights(m):
    if isinstance(m, nn.Linear):
        m.weight.normal_(0, 0.02)
        m.bias.zero_()
```

## Use instead
```python
import torch.nn as nn

def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0, 0.02)
        nn.init.zeros_(m.bias)
```

## Fix safety
The fix rewrites the call to its `torch.nn.init` twin, which performs the same in-place
operation (same arguments, same random numbers) under `no_grad`, and returns the same tensor:
`t.normal_(mean, std)` -> `nn.init.normal_(t, mean, std)`, `t.uniform_(a, b)` ->
`nn.init.uniform_(t, a, b)`, `t.zero_()` -> `nn.init.zeros_(t)`, `t.fill_(v)` ->
`nn.init.constant_(t, v)`. It is safe, and offered only when the file binds a name for
`torch.nn.init`, `torch.nn` or `torch` and the arguments map one to one (positional arguments,
`generator=`, and `mean=`/`std=` for `normal_`). Other initialisers (`copy_`, `bernoulli_`, ...)
have no `nn.init` twin: wrap them in `with torch.no_grad():` yourself.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.values import Grad, Kind, Role
from gradguard.check.model import Applicability, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

INIT_METHODS = frozenset(
    """normal_ uniform_ zero_ fill_ copy_ log_normal_ exponential_ cauchy_ geometric_ bernoulli_
    random_ fill_diagonal_""".split()
)
# method -> (nn.init function, most positional args, keyword renames)
_TWINS = {
    "normal_": ("normal_", 2, {"mean": "mean", "std": "std", "generator": "generator"}),
    "uniform_": ("uniform_", 2, {"to": "b", "generator": "generator"}),
    "zero_": ("zeros_", 0, {}),
    "fill_": ("constant_", 1, {"value": "val"}),
}
_MODULE_ITERATORS = ("modules", "children", "named_modules", "named_children")
_PARAM_CLASSES = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")


class InplaceParamInit(Rule):
    code = "GG401"
    name = "inplace-param-init"
    summary = "In-place init of a parameter outside `no_grad` raises RuntimeError"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    # '.zero_(' but not 'zero_grad(': one pattern, so a file is searched once, not once per method.
    _init_call = re.compile(r"\.(?:" + "|".join(sorted(INIT_METHODS, key=len, reverse=True)) + r")\(")
    # an item write (`self.bias[h:2 * h] = 1`) where the file makes parameters or leaves
    triggers = (_init_call, "Parameter(", "requires_grad")
    function_triggers = (_init_call, "] = ")

    valid = (
        # A module built frozen in the chain that makes it (YOLOv5's conv and batch-norm fusion):
        # none of its parameters requires grad, the copies raise nothing.
        Valid(
            """
            import torch
            import torch.nn as nn


            def fuse_conv_and_bn(conv, bn):
                fused = nn.Conv2d(conv.in_channels, conv.out_channels, kernel_size=conv.kernel_size, bias=True).requires_grad_(
                    False
                )
                w_conv = conv.weight.clone().view(conv.out_channels, -1)
                w_bn = torch.diag(bn.weight.div(torch.sqrt(bn.eps + bn.running_var)))
                fused.weight.copy_(torch.mm(w_bn, w_conv).view(fused.weight.size()))
                fused.bias.copy_(bn.bias - bn.weight.mul(bn.running_mean).div(torch.sqrt(bn.running_var + bn.eps)))
                return fused
            """
        ),
        # An optimizer's parameter groups are dicts: `param["buffer"] = ...` writes no tensor.
        Valid(
            """
            import torch
            from torch.optim.optimizer import Optimizer


            class RAdam(Optimizer):
                def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
                    if isinstance(params, (list, tuple)) and len(params) > 0 and isinstance(params[0], dict):
                        for param in params:
                            if "betas" in param and param["betas"] != betas:
                                param["buffer"] = [[None, None, None] for _ in range(10)]
                    super().__init__(params, dict(lr=lr, betas=betas))

                @torch.no_grad()
                def step(self):
                    for group in self.param_groups:
                        for p in group["params"]:
                            if p.grad is not None and p.requires_grad:
                                p.add_(p.grad, alpha=-group["lr"])
            """
        ),
        # The forget gate's bias set to 1 under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn


            class LSTMCell(nn.Module):
                def __init__(self, input_size, hidden_size):
                    super().__init__()
                    self.weight_ih = nn.Parameter(torch.randn(4 * hidden_size, input_size))
                    self.bias_ih = nn.Parameter(torch.randn(4 * hidden_size))
                    with torch.no_grad():
                        self.bias_ih[hidden_size : 2 * hidden_size] = 1
            """
        ),
        # The same leaf refilled under `no_grad`, and a tensor that does not require grad.
        Valid(
            """
            import torch

            x = torch.tensor(3.0, requires_grad=True)
            (x ** 2).backward()
            with torch.no_grad():
                x.uniform_()
            noise = torch.empty(3)
            noise.uniform_()
            """
        ),
        # The flag switched off just before the copy and back on after (a pruned layer's weights).
        Valid(
            """
            import torch.nn as nn


            def prune_linear_layer(layer, index):
                W = layer.weight.index_select(0, index).clone().detach()
                new_layer = nn.Linear(layer.in_features, len(index))
                new_layer.weight.requires_grad = False
                new_layer.weight.copy_(W.contiguous())
                new_layer.weight.requires_grad = True
                return new_layer
            """
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            def init(m):
                if isinstance(m, nn.Linear):
                    with torch.no_grad():
                        m.weight.normal_(0, 0.02)
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            @torch.no_grad
            def init(model):
                for p in model.parameters():
                    p.uniform_(-0.1, 0.1)
            """,
        ),
        Valid(
            """
            import torch.nn as nn

            def init(m):
                if isinstance(m, nn.Linear):
                    m.weight.data.normal_(0, 0.02)
                    nn.init.zeros_(m.bias)
            """,
        ),
        Valid(
            """
            import torch

            class Sampler:
                def reset(self):
                    self.weight.fill_(1.0)
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def forward(self, x):
                    h = torch.empty_like(x)
                    h.normal_()
                    self.running.zero_()
                    return x + h
            """,
        ),
        Valid(
            """
            import torch

            def clear(model):
                for p in model.parameters():
                    p.grad.zero_()
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def reset_parameters(self):
                    with torch.no_grad():
                        self.weight.normal_()
            """,
        ),
    )
    invalid = (
        # An item write into a parameter with grad on: autograd forbids changing a view of a leaf
        # that requires grad in place ("a view of a leaf Variable that requires grad is being used
        # in an in-place operation").
        Invalid(
            """
            import torch
            import torch.nn as nn


            class LSTMCell(nn.Module):
                def __init__(self, input_size, hidden_size):
                    super().__init__()
                    self.weight_ih = nn.Parameter(torch.randn(4 * hidden_size, input_size))
                    self.bias_ih = nn.Parameter(torch.randn(4 * hidden_size))
                    self.bias_ih[hidden_size : 2 * hidden_size] = 1
            """,
            line=10,
            column=9,
            message="`self.bias_ih[...] = ...` writes into a parameter in place while grad is enabled: this raises "
            "RuntimeError; do it under `with torch.no_grad():`",
        ),
        # A leaf made to require grad, refilled in place (a course notebook showing the error).
        Invalid(
            """
            import torch

            x = torch.tensor(3.0, requires_grad=True)
            (x ** 2).backward()
            x.uniform_()
            """,
            line=5,
            column=1,
            message="`x.uniform_()` changes a leaf tensor that requires grad in place while grad is enabled: this "
            "raises RuntimeError; use `torch.nn.init`",
            fixed="""
            import torch

            x = torch.tensor(3.0, requires_grad=True)
            (x ** 2).backward()
            torch.nn.init.uniform_(x)
            """,
        ),
        # The same copy without switching the flag off first.
        Invalid(
            """
            import torch.nn as nn


            def prune_linear_layer(layer, index):
                W = layer.weight.index_select(0, index).clone().detach()
                new_layer = nn.Linear(layer.in_features, len(index))
                new_layer.weight.copy_(W.contiguous())
                new_layer.weight.requires_grad = True
                return new_layer
            """,
            line=7,
            column=5,
            message="`new_layer.weight.copy_()` changes a parameter in place while grad is enabled: this raises "
            "RuntimeError; do it under `with torch.no_grad():`",
        ),
        Invalid(
            """
            import torch.nn as nn

            def init(m):
                if isinstance(m, nn.Linear):
                    m.weight.normal_(0, 0.02)
                    m.bias.zero_()
            """,
            line=5,
            column=9,
            message="`m.weight.normal_()` changes a parameter in place while grad is enabled: this raises RuntimeError; use `torch.nn.init`",
            also=(
                Finding(
                    6,
                    9,
                    "`m.bias.zero_()` changes a parameter in place while grad is enabled: this raises RuntimeError; use `torch.nn.init`",
                ),
            ),
            fixed="""
            import torch.nn as nn

            def init(m):
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.02)
                    nn.init.zeros_(m.bias)
            """,
        ),
        Invalid(
            """
            import torch

            def init(model):
                for p in model.parameters():
                    p.uniform_(-0.1, to=0.1)
            """,
            line=5,
            column=9,
            message="`p.uniform_()` changes a parameter in place while grad is enabled: this raises RuntimeError; use `torch.nn.init`",
            fixed="""
            import torch

            def init(model):
                for p in model.parameters():
                    torch.nn.init.uniform_(p, -0.1, b=0.1)
            """,
        ),
        Invalid(
            """
            import torch
            from torch import nn

            class Scale(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.gamma = nn.Parameter(torch.empty(n))
                    self.gamma.fill_(value=1e-4)
            """,
            line=8,
            column=9,
            message="`self.gamma.fill_()` changes a parameter in place while grad is enabled: this raises RuntimeError; use `torch.nn.init`",
            fixed="""
            import torch
            from torch import nn

            class Scale(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.gamma = nn.Parameter(torch.empty(n))
                    nn.init.constant_(self.gamma, val=1e-4)
            """,
        ),
        # copy_ has no nn.init twin: reported without a fix.
        Invalid(
            """
            import torch.nn as nn

            def load(model, state):
                for m in model.modules():
                    if hasattr(m, 'weight'):
                        m.weight.copy_(state[m])
            """,
            line=6,
            column=13,
            message="`m.weight.copy_()` changes a parameter in place while grad is enabled: this raises RuntimeError; do it under `with torch.no_grad():`",
            fixed="""
            import torch.nn as nn

            def load(model, state):
                for m in model.modules():
                    if hasattr(m, 'weight'):
                        m.weight.copy_(state[m])
            """,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in INIT_METHODS:
            return
        if ctx.grad_disabled:
            return  # inside a region of this function that disables grad: nothing to ask
        if isinstance(func.value, ast.Attribute) and func.value.attr in ("grad", "data"):
            return  # `p.grad.zero_()`, `p.data.normal_()`: never a tensor that requires grad
        if ctx.model.is_import(func.value):
            return  # `init.uniform_(w)`, `torch.nn.init.zeros_(w)`: a function of a module, not a method
        if ctx.model.grad_mode(node) is not GradMode.ENABLED:
            return
        receiver = func.value
        parameter = _is_parameter(ctx, receiver, node)
        if not (parameter or _leaf_requiring_grad(ctx, receiver)) or _frozen_just_before(ctx, node, receiver):
            return
        fix = _twin_fix(ctx, node, receiver)
        text = ctx.text(receiver)
        what = "a parameter" if parameter else "a leaf tensor that requires grad"
        ctx.report(
            self.code,
            node,
            f"`{text}.{func.attr}()` changes {what} in place while grad is enabled: this raises RuntimeError; "
            + ("use `torch.nn.init`" if fix else "do it under `with torch.no_grad():`"),
            fix,
        )

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        if ctx.grad_disabled or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
            return
        receiver = node.targets[0].value
        if isinstance(receiver, ast.Attribute) and receiver.attr in ("grad", "data"):
            return  # `p.data[i] = v`: GG102's, no error
        key = node.targets[0].slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return  # `param['buffer'] = ...`: a dict (an optimizer's parameter group), no tensor
        if not isinstance(receiver, (ast.Name, ast.Attribute)) or not _may_hold_a_parameter(ctx, receiver):
            return  # nothing in the text makes it a parameter or a leaf: no question to the model
        if ctx.model.value(receiver).weak:
            return  # only a tensor the code shows to be a parameter or a leaf, not one named like it
        if ctx.model.grad_mode(node) is not GradMode.ENABLED:
            return
        parameter = _is_parameter(ctx, receiver, node)
        if not (parameter or _leaf_requiring_grad(ctx, receiver)) or _frozen_just_before(ctx, node, receiver):
            return
        what = "a parameter" if parameter else "a leaf tensor that requires grad"
        ctx.report(
            self.code,
            node.targets[0],
            f"`{short(ctx.text(receiver))}[...] = ...` writes into {what} in place while grad is enabled: this "
            "raises RuntimeError; do it under `with torch.no_grad():`",
        )


# A line binding a parameter or a leaf that requires grad, or a loop over a module's parameters.
_PARAMETER_LINE_RE = re.compile(r"Parameter\(|requires_grad|parameters\(\)")


def _may_hold_a_parameter(ctx, receiver: ast.AST) -> bool:
    """A cheap test of the text before asking the model: ``self.<attr>`` that the class assigns on
    a line making a parameter or a leaf (``self.bias_ih = Parameter(...)``), a layer's ``weight``
    or ``bias``, or a name the function (or module) binds on such a line or loops over one."""
    if isinstance(receiver, ast.Attribute):
        if receiver.attr in ("weight", "bias"):
            return True
        if not (isinstance(receiver.value, ast.Name) and receiver.value.id == "self") or ctx.method_class is None:
            return False
        name, scope = f"self.{receiver.attr}", ctx.method_class
    else:
        name, scope = receiver.id, ctx.function if ctx.function is not None else ctx.tree
    key = ("gg401-parameter-lines", id(scope))
    lines = ctx.cache.get(key)
    if lines is None:
        text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
        lines = ctx.cache[key] = [line for line in text.splitlines() if _PARAMETER_LINE_RE.search(line)]
    return any(name in line for line in lines)


def _frozen_just_before(ctx, call: ast.AST, receiver: ast.AST) -> bool:
    """Whether the statements before the call in its block last set the parameter's flag off
    (``layer.weight.requires_grad = False``, then ``layer.weight.copy_(W)``, then ``= True``:
    a pruned layer's weights copied in): the tensor no longer requires grad, nothing raises."""
    statement = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    block_owner = ctx.parent(statement) if statement is not None else None
    if block_owner is None:
        return False
    text = ctx.text(receiver)
    owner = ctx.text(receiver.value) if isinstance(receiver, ast.Attribute) else None
    for field in ("body", "orelse", "finalbody"):
        block = getattr(block_owner, field, None)
        if not isinstance(block, list) or statement not in block:
            continue
        for before in reversed(block[: block.index(statement)]):
            if owner is not None and _module_frozen_by(ctx, before, owner):
                return True  # `fused = nn.Conv2d(...).requires_grad_(False)`: none of its parameters requires grad
            if (
                isinstance(before, ast.Assign)
                and len(before.targets) == 1
                and isinstance(before.targets[0], ast.Attribute)
                and before.targets[0].attr == "requires_grad"
                and ctx.text(before.targets[0].value) == text
            ):
                return isinstance(before.value, ast.Constant) and before.value.value is False
            if isinstance(before, ast.Expr) and isinstance(before.value, ast.Call):
                flag = before.value.func
                if isinstance(flag, ast.Attribute) and flag.attr == "requires_grad_" and ctx.text(flag.value) == text:
                    args = before.value.args
                    return bool(args) and isinstance(args[0], ast.Constant) and args[0].value is False
    return False


def _module_frozen_by(ctx, statement: ast.stmt, owner: str) -> bool:
    """Whether a statement switches every parameter of the module ``owner`` off: it binds the
    name to a chain holding ``.requires_grad_(False)`` (YOLOv5's ``fused = nn.Conv2d(...)
    .requires_grad_(False).to(device)``), or calls ``owner.requires_grad_(False)``."""
    if isinstance(statement, ast.Assign):
        if not (len(statement.targets) == 1 and ctx.text(statement.targets[0]) == owner):
            return False
        chain = statement.value
    elif isinstance(statement, ast.Expr):
        chain = statement.value
        inner = chain
        while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
            inner = inner.func.value
        if ctx.text(inner) != owner:
            return False
    else:
        return False
    while isinstance(chain, ast.Call) and isinstance(chain.func, ast.Attribute):
        if (
            chain.func.attr == "requires_grad_"
            and chain.args
            and isinstance(chain.args[0], ast.Constant)
            and chain.args[0].value is False
        ):
            return True
        chain = chain.func.value
    return False


def _is_parameter(ctx, receiver: ast.AST, call: ast.AST) -> bool:
    """A parameter that requires grad: from ``parameters()``, an ``nn.Parameter`` the class
    assigns, or the ``weight``/``bias`` of a module."""
    value = ctx.model.value(receiver)
    if not (value.is_tensor and value.has(Role.PARAM) and value.grad is Grad.YES):
        return False
    if isinstance(receiver, ast.Attribute) and receiver.attr in ("weight", "bias"):
        owner = ctx.model.value(receiver.value)
        return owner.kind is Kind.MODULE or (
            owner.kind is Kind.UNKNOWN and _isinstance_guarded(ctx, receiver.value, call)
        )
    return True


def _leaf_requiring_grad(ctx, receiver: ast.AST) -> bool:
    """A leaf the code makes require grad (``x = torch.tensor(3., requires_grad=True)``,
    ``w = torch.randn(3).requires_grad_()``): autograd forbids changing it in place as it does a
    parameter."""
    value = ctx.model.value(receiver)
    return value.is_tensor and value.has(Role.LEAF) and value.grad is Grad.YES and not value.weak


def _isinstance_guarded(ctx, owner: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` is in the body of ``if isinstance(owner, torch.nn.<Class>)``."""
    if not isinstance(owner, ast.Name):
        return False
    name = owner.id
    child = node
    current = ctx.parent(node)
    while current is not None and current is not ctx.function:
        if isinstance(current, ast.If) and child in current.body and _tests_nn_isinstance(ctx, current.test, name):
            return True
        child = current
        current = ctx.parent(current)
    return False


def _tests_nn_isinstance(ctx, test: ast.AST, name: str) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests_nn_isinstance(ctx, v, name) for v in test.values)
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"):
        return False
    if len(test.args) != 2 or not isinstance(test.args[0], ast.Name) or test.args[0].id != name:
        return False
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    for cls in classes:
        qual = ctx.imports.qualified_name(cls) or ""
        local = isinstance(cls, ast.Name) and (ctx.model.class_info(cls.id) or None)
        if not (qual.startswith("torch.nn.") and qual.rsplit(".", 1)[-1][:1].isupper() or local and local.is_module):
            return False
        if qual in _PARAM_CLASSES:
            return False
    return True


def _init_module_name(ctx) -> Optional[str]:
    """Local spelling of ``torch.nn.init`` from the file's imports, if any."""
    names = ctx.imports.names
    for wanted, suffix in (("torch.nn.init", ""), ("torch.nn", ".init")):
        for local, qual in names.items():
            if qual == wanted:
                return local + suffix
    torch_name = ctx.imports.torch_name
    return f"{torch_name}.nn.init" if torch_name else None


def _twin_fix(ctx, node: ast.Call, receiver: ast.AST) -> Optional[Fix]:
    method = node.func.attr
    twin = _TWINS.get(method)
    if twin is None:
        return None
    init_name = _init_module_name(ctx)
    if init_name is None or _shadowed(ctx, init_name.split(".")[0]):
        return None
    function, max_positional, renames = twin
    if len(node.args) > max_positional or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if method == "zero_" and node.keywords:
        return None
    parts = [ctx.text(receiver)] + [ctx.text(a) for a in node.args]
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg not in renames:
            return None
        parts.append(f"{renames[keyword.arg]}={ctx.text(keyword.value)}")
    if "\n" in ctx.text(node):
        return None
    text = f"{init_name}.{function}({', '.join(parts)})"
    return Fix(Applicability.SAFE, f"Use `{init_name}.{function}`", (ctx.replace(node, text),))


def _shadowed(ctx, local: str) -> bool:
    fn = ctx.function
    if fn is None:
        return False
    uses = ctx.model.uses(fn)
    return local in uses.parameters or bool(uses.bindings_of(local))
