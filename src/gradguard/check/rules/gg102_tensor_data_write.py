"""Writing to a tensor through `.data`.

## What it does
Flags in-place writes through `t.data` where `t` is known to be a tensor (a parameter, also one a
model's method named for a selection of them hands out, `for p in model.final_parameters()`, a
`.weight`/`.bias`/`.grad`, a name bound to a torch call, a model output or loss) or where the
in-place method itself shows `t.data` is a tensor: `p.data.mul_(d)`, `p.data.copy_(s)`,
`p.data[i] = v`, `p.data += v`, `p.data = t`, a value written after a method that returns
the tensor itself (`v.data.resize_(x.size()).copy_(x)`, the old way of loading a batch into
a preallocated `Variable`; also in a file that packs sequences, where a read of an unknown
`x.data` may be a `PackedSequence`'s field), and `.data` passed as the tensor an in-place
function fills (`nn.init.normal_(m.weight.data)`, also under the old names without `_`:
`init.xavier_normal(m.weight.data)`; `trunc_normal_(w.data)`).
Also flagged: a shape-only in-place method called on `.data` and its result thrown away
(`feature.data.t_()`, `x.data.unsqueeze_(0)`): `.data` returns a new alias each time, so only
that alias is reshaped and the tensor keeps its shape.
Not flagged: `p.data = p.to(torch.float16)`, `t.data = t.data.clone()` (also through
`.detach()`: `t.data = t.data.detach().clone()`) and similar
assignments that give the tensor a new dtype, device or storage on purpose (as
`Module._apply` does: `p.data = fn(p.data)`; `mask.data = F.fold(mask, ...)`, a slice of
a value computed from the tensor itself, or the tensor indexed, `w.data = w.data[mask == 1]`
in channel pruning, which may change its shape; not one reshaped to the tensor's own sizes,
`param.data = torch.reshape(flat[i:j], param.shape)`, or another tensor expanded to its sizes,
`w3d.data = w2d.data[:, :, None].expand_as(w3d)`, which are flagged), `p.data = p._mp_param` (a tensor kept on `p`
itself swapped in), `a.data = b.data` and its basic slices, `a.data = b.data[1:]` (sharing `b`'s storage), an
item of a dict or list that holds only `.data` values (`dic[name] = p.data`, then `param.data = dic[name]`: SeqGAN's
rollout sharing its generator's embeddings), assignments with a `memory_format`, `p.data = torch.empty(0, ...)`
(freeing the storage of a parameter another rank owns, as ZeRO-3 partitioning does), `p.grad.data = ...` (re-pointing
a gradient at another buffer), and a parameter of a layer a function (not `__init__`) has just
built, before anything runs it, given a tensor made elsewhere (`self.reparam_conv.weight.data =
kernel` in RepVGG's re-parametrisation; `linear_layer.weight.data = ptu.from_numpy(W.T)`, a
helper's tensor of another shape or device), or a value the code makes with a dtype other than
float32 (`kernel = torch.tensor(rows, dtype=float)`, then `deconv.weight.data = kernel`;
`w.data = q.double()`): `copy_` cannot do those. Nor writes to the parameters of a lazy
module (`nn.LazyLinear`, ...) before it first runs: they are uninitialised until its first
forward, the write does nothing, and written without `.data` it raises. Nor `x.data.resize_(...)` of a
name its scope also binds to a model's output (a buffer `AB.data.resize_(n).copy_(pool(AB_tmp))` that
the loop later rebinds, `AB = G_AB(real_A)`): a tensor that requires grad cannot be resized without
`.data`, and the graph it held is gone once backpropagated.

A parameter of a layer a script (or `__init__`) has just built, before anything runs it
(`conv = nn.Conv2d(1, 2, kernel_size=2)`, then `conv.weight.data = k.view(1, 1, 2, 2)`), is reported
with the `copy_` advice for a value of the same shape and, for one of another shape, the new
parameter that takes it (`conv.weight = nn.Parameter(...)`).

`x.data.set_(y)` as a statement is reported on its own: `set_` points only the alias that `.data`
returns at the new storage, and `x` keeps its old values (`emb.weight.data.set_(glove)` loads
nothing); the advice is `x.set_(y)` under `torch.no_grad()`, or, for a value computed with grad,
rebinding the name to the new value.

An in-place method on the `.data` of a value the code computes with grad from other tensors
(`score = torch.exp(score)`, then `score.data.masked_fill_(mask, 0)`: an activation of the graph,
not a parameter; also a layer's output, `out, _ = self.lstm(x)`, `self.fc(x).squeeze(2)`, and a
method chain on a torch operation, `torch.bmm(a, b).squeeze(2)`) is reported with other advice: write it out of place (`score =
score.masked_fill(mask, 0)`), so that autograd records it; `no_grad` around the in-place write
would make backward raise where an operation saved the value (as `exp` saves its result).

## Why is this bad?
`.data` hands out an alias of the tensor with a fresh version counter. Autograd uses the
version counter to notice that a tensor saved for backward was changed in place; a write
through `.data` never bumps it. If any graph still holds `t`, the backward pass silently
uses the new values and computes wrong gradients, with no error and no warning
(`torch.autograd.detect_anomaly()` cannot see it either). Under `torch.no_grad()` the same
write without `.data` is not recorded by autograd, and a stale saved tensor raises
"one of the variables needed for gradient computation has been modified by an inplace
operation" instead of corrupting the result.

## Example
```python
import torch

def sgd_step(model, lr):
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
```

## Use instead
```python
import torch

def sgd_step(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            p.add_(p.grad, alpha=-lr)
```

## Fix safety
For an in-place method, an item assignment or `+=` that is a whole statement, the fix drops
`.data` and wraps the statement (with neighbouring statements the rule also flags, or the
`for` loop whose whole body they are) in `with torch.no_grad():`, or only drops `.data` where
grad is already disabled. For
`p.data = t` it writes `p.copy_(t)`. These fixes are unsafe: where a graph really did save the
tensor, the fixed code raises at backward instead of silently computing wrong gradients, and
`p.copy_(t)` needs `t` to broadcast to `p`'s shape and converts it to `p`'s dtype and device,
where `p.data = t` replaced all three. `p.copy_(t)` also writes into `p`'s own storage, where
`p.data = t` gave `p` another one: a tensor sharing the old storage (a `backup = p.data` or
`p.detach()` taken before, as in an EMA weight swap) kept the old values before the fix and sees
the new ones after it; keep such a backup with `.clone()`. No `copy_` fix is offered where the
write's loop, or another method of its class, keeps the storage that way in an item or an
attribute (`self.backup[name] = param.data`: an EMA teacher's swap, whose message says to clone
first), or a loop around it adds a view of it to a list (`w_list.append(w.data[0])` each epoch of a
hand-written descent), or the written tensor is zipped with a list of the parameters' `.data`
(`old_params = [x.data for x in policy.parameters()]`, then `for w, w_old, step in
zip(policy.parameters(), old_params, steps): w.data = w_old + step` in a line search), nor where the write is part of a larger statement or expression, nor where
the file binds `torch` only under `if __name__ == "__main__":` or in a function (`import
torch.nn as nn` binds `nn`): `with torch.no_grad():` would raise NameError when the module is imported.
For an activation of the graph the fix writes the method out of place (`score = score.masked_fill(mask,
0)`), where the method has an out-of-place twin and the write is a whole statement. It is unsafe: the
gradient then takes the write into account (the masked entries get none), and other names bound to
the same tensor no longer see the new values.
For `nn.init.*_(w.data)` the fix drops `.data` and is safe: every `nn.init` function already
runs under `torch.no_grad()`, so the only change is that the version counter is bumped.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.data_attr import (
    classify,
    drop_data_edit,
    has_comment,
    no_grad_name,
    receiver_text,
)
from gradguard.check.analysis.imports import dotted_name, subscript_root
from gradguard.check.analysis.model import parameterless_layer
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Grad, Kind, Role
from gradguard.check.analysis.vocabulary import (
    FACTORIES,
    GRAD_PRESERVING,
    INPLACE_VALUE_METHODS,
    LIST_ADDING_METHODS,
    META_INPLACE_METHODS,
)
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import occurrences, short

_BODY_FIELDS = ("body", "orelse", "finalbody")


# In-place tensor methods whose out-of-place twin (the name without `_`) computes the same values.
_OUT_OF_PLACE_TWINS = frozenset(
    {
        f"{name}_"
        for name in (
            "masked_fill masked_scatter index_fill index_add index_copy scatter scatter_add clamp clamp_min "
            "clamp_max add sub mul div pow exp log abs neg sigmoid tanh relu sqrt rsqrt floor ceil round sign"
        ).split()
    }
)


def _module_output(ctx, value: ast.AST) -> bool:
    """Whether ``value`` is a call of a module with parameters, or an item of one's result
    (``self.lstm(x)``, ``self.lstm(x)[0]``, ``self.layers[i](x)``)."""
    if isinstance(value, ast.Subscript):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    callee = ctx.model.value(value.func)
    return callee.kind is Kind.MODULE and not callee.weak and not parameterless_layer(callee)


def _computed_with_grad(ctx, name: ast.AST) -> Optional[ast.AST]:
    """The statement binding ``name`` where every binding its use may see computes it from other
    tensors with a torch operation or arithmetic, with grad enabled (``score = torch.exp(score)``):
    a value of the graph, not a leaf (a parameter, a factory's tensor, a buffer)."""
    if not isinstance(name, ast.Name) or ctx.function is None or getattr(ctx.function, "name", "") == "__init__":
        return None
    bindings = ctx.model.definitions(name)
    if not bindings:
        return None
    for binding in bindings:
        value = binding.value
        if not isinstance(binding.node, ast.Assign) or ctx.model.grad_mode(binding.node).off:
            return None
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in GRAD_PRESERVING
            and isinstance(value.func.value, (ast.Call, ast.BinOp))
        ):
            value = value.func.value  # `torch.bmm(a, b).squeeze(2)`: what the method keeps the graph of
        if _module_output(ctx, value if value is not None else binding.node.value):
            continue  # `inp, _ = self.lstm(inp)`, `self.out_lstm(result)[0]`, `self.fc(x).squeeze(2)`: a layer's output
        if isinstance(value, ast.BinOp):
            continue
        if not isinstance(value, ast.Call):
            return None
        qualified = ctx.imports.qualified_name(value.func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if (
            not qualified.startswith("torch.")
            or last in FACTORIES
            or qualified.startswith("torch.nn.")
            and last[:1].isupper()
        ):
            return None
        if any(k.arg == "requires_grad" for k in value.keywords):
            return None
    if not ctx.model.value(name).carries_grad and ctx.model.value(name).grad is Grad.NO:
        return None
    return bindings[-1].node


def _resized_and_rebound_to_a_graph(ctx, data: ast.Attribute) -> bool:
    """Whether ``x.data.resize_(...)`` resizes a name its scope also binds to a value computed with
    grad that is no leaf (a model's output): there the write cannot go without `.data`."""
    name = data.value
    method = ctx.parent(data)
    if not (isinstance(name, ast.Name) and isinstance(method, ast.Attribute) and method.attr == "resize_"):
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    for binding in ctx.model.uses(scope).bindings_of(name.id):
        if binding.value is None or not isinstance(binding.node, ast.Assign):
            continue
        value = ctx.model.value(binding.value)
        if value.grad is Grad.YES and not value.has(Role.LEAF) and not value.has(Role.PARAM):
            return True
    return False


def _out_of_place_fix(ctx, node: ast.Attribute, call: ast.Call, recv: str, method: str) -> Optional[Fix]:
    """``score.data.masked_fill_(mask, 0)`` as a whole statement -> ``score = score.masked_fill(mask, 0)``."""
    statement = _enclosing_statement(ctx, call)
    if (
        method not in _OUT_OF_PLACE_TWINS
        or not isinstance(statement, ast.Expr)
        or statement.value is not call
        or has_comment(ctx, statement)
    ):
        return None
    arguments = ctx.text(call)[len(ctx.text(call.func)) :]
    start, end = ctx.source.node_start(statement), ctx.source.node_end(statement)
    return Fix(
        Applicability.UNSAFE,
        "Write it out of place",
        (Edit(start, end, f"{recv} = {recv}.{method[:-1]}{arguments}"),),
    )


def _enclosing_statement(ctx, node: ast.AST) -> Optional[ast.stmt]:
    while node is not None and not isinstance(node, ast.stmt):
        node = ctx.parent(node)
    return node


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    # (id(owner), id(body)) -> id(statement) -> its run of fixable sibling `.data` writes
    runs: dict = field(default_factory=dict)


class TensorDataWrite(Rule):
    code = "GG102"
    name = "tensor-data-write"
    summary = "writing through `t.data` bypasses autograd's version counter: silently wrong gradients"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.ERROR
    triggers = (".data",)
    function_triggers = (".data",)

    valid = (
        # A plain object's field that a plain class keeps: `.data` is its own attribute.
        Valid(
            """
            import numpy as np


            class Weights:
                def __init__(self):
                    self.weight = np.ones(3)


            class Runner:
                def __init__(self):
                    self.model = Weights()

                def renorm(self):
                    self.model.weight.data = np.ones(3).data
            """
        ),
        # A field of objects the loop's name `model` holds, read as a mapping: nothing shows a tensor.
        Valid(
            """
            import torch


            def summarise(models):
                for model in models:
                    for key, value in model.data.items():
                        print(key, torch.as_tensor(value).shape)
            """
        ),
        # An attribute of something that is not shown to be a module, read by a computed name: a data set's field, maybe.
        Valid(
            """
            import torch


            def blank_out(splits, name, idx):
                # `splits` holds data sets (`splits.train`, `splits.test`): their `data` field is no tensor's
                dataset = getattr(splits, name)
                dataset.data[idx] = 0
            """
        ),
        # A layer given a kernel the code makes in float64 (`dtype=float`): a new dtype on purpose, which `copy_` would convert back.
        Valid(
            """
            import torch
            from torch import nn

            x = torch.tensor([[0, 1], [2, 3]], dtype=float).view(1, 2, 2)
            kernel = torch.tensor([[4, 1], [2, 3]], dtype=float).view(1, 1, 2, 2)
            deconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
            deconv.weight.data = kernel
            print(deconv(x))
            """
        ),
        # An EMA's `restore` gives each parameter back the storage its `store` kept in a dict
        # on `self` that holds only `.data` values: `copy_` would write into the shadow instead.
        Valid(
            """
            import torch.nn as nn


            class EMA:
                def __init__(self, model: nn.Module, decay=0.999):
                    self.model = model
                    self.decay = decay
                    self.shadow = {}
                    self.backup = {}

                def register(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            self.shadow[name] = param.data.clone()

                def store(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            self.backup[name] = param.data

                def restore(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            param.data = self.backup[name]
                    self.backup = {}
            """
        ),
        # A buffer resized through `.data` that the loop also binds to a model's output: without
        # `.data` a tensor that requires grad cannot be resized, and its graph is gone once
        # backpropagated.
        Valid(
            """
            import torch
            from torch import nn

            G = nn.Linear(4, 4)
            optimizer = torch.optim.Adam(G.parameters())
            fake = torch.zeros(1, 4)
            for real in loader:
                pooled = G(real)
                fake.data.resize_(pooled.data.size()).copy_(pooled.data)
                print(fake.sum())
                fake = G(real)
                loss = fake.pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """
        ),
        # `set_` on the parameter itself, under `no_grad`: the parameter gets the new storage.
        Valid(
            """
            import torch

            def load_glove(model, glove):
                with torch.no_grad():
                    model.token_embedding.weight.set_(glove)
            """
        ),
        # SeqGAN's rollout: the other model's `.data` kept in a dict, then shared (as
        # `a.data = b.data` shares it): `copy_` would not share it.
        Valid(
            """
            class Rollout:
                def update_params(self):
                    dic = {}
                    for name, param in self.ori_model.named_parameters():
                        dic[name] = param.data
                    for name, param in self.own_model.named_parameters():
                        if name.startswith("emb"):
                            param.data = dic[name]
            """
        ),
        # A slice of another layer's `.data` (1001 ImageNet classes with background to 1000): the
        # new layer shares the pretrained storage, which `copy_` would not do.
        Valid(
            """
            import torch.nn as nn


            def drop_background_class(model):
                new_last_linear = nn.Linear(1536, 1000)
                new_last_linear.weight.data = model.last_linear.weight.data[1:]
                new_last_linear.bias.data = model.last_linear.bias.data[1:]
                model.last_linear = new_last_linear
                return model
            """
        ),
        # The same initialisation without `.data`: `nn.init` runs under `no_grad` itself.
        Valid(
            """
            import torch.nn as nn
            from torch.nn.init import xavier_uniform_


            def lstm_init_(lstm_unit):
                if isinstance(lstm_unit, nn.LSTM):
                    for l in range(lstm_unit.num_layers):
                        xavier_uniform_(getattr(lstm_unit, "weight_ih_l{}".format(l)))
            """
        ),
        # `_parameters` of something nothing shows to be a module: its items' `data` may be a
        # record's field.
        Valid(
            """
            import torch

            for name, p in settings._parameters.items():
                p.data[0] = 1
            """
        ),
        # RepVGG's re-parametrisation: a new conv built on the CPU takes the fused kernel, which
        # may live on a GPU; nothing has run the conv yet.
        Valid(
            """
            import torch.nn as nn

            class RepBlock(nn.Module):
                def reparameterize(self):
                    kernel, bias = self._get_kernel_bias()
                    self.reparam_conv = nn.Conv2d(self.in_channels, self.out_channels, 3, padding=1, bias=True)
                    self.reparam_conv.weight.data = kernel
                    self.reparam_conv.bias.data = bias
                    for para in self.parameters():
                        para.detach_()
            """
        ),
        # A layer a function builds and fills from a helper's tensor (which may be transposed,
        # or on a GPU): nothing has run the layer yet, and `copy_` could not take that tensor.
        Valid(
            """
            import torch.nn as nn

            from cs285.infrastructure import pytorch_util as ptu


            def create_linear_layer(W, b):
                out_features, in_features = W.shape
                linear_layer = nn.Linear(in_features, out_features)
                linear_layer.weight.data = ptu.from_numpy(W.T)
                linear_layer.bias.data = ptu.from_numpy(b[0])
                return linear_layer
            """
        ),
        # A slice of a record's own `data` field, copied: nothing shows a tensor.
        Valid(
            """
            import torch.nn as nn


            class Batches:
                def __init__(self, data):
                    self.data = data


            def first_rows(batches):
                return batches.data[0:2].copy()
            """
        ),
        # The reshaped alias kept: the tensor it is taken from was not meant to change.
        Valid(
            """
            def evaluate(data_iter, model):
                for batch in data_iter:
                    feature = batch.text.data.t_()
                    logit = model(feature)
            """
        ),
        # Channel pruning: the weight indexed by a mask has another shape, which `copy_` cannot give.
        Valid(
            """
            import torch


            def prune(model, amount=0.3):
                for module in model.modules():
                    if isinstance(module, torch.nn.Conv2d):
                        mask = module.weight.abs().sum((1, 2, 3)) > amount
                        module.weight.data = module.weight.data[mask == 1]
                        module.bias.data = module.bias.data[mask == 1]
            """
        ),
        # A parameter's storage freed on purpose (ZeRO-3: another rank owns it): `copy_` cannot.
        Valid(
            """
            import torch


            def release(module, owner, rank):
                for name, param in module.named_parameters():
                    if owner[name] != rank:
                        param.data = torch.empty(0, dtype=param.dtype, device=param.device)
            """,
        ),
        # A lazy module's parameters are uninitialised until its first forward: the write does
        # nothing, and without `.data` `normal_` raises ValueError (measured on torch 2.13).
        Valid(
            """
            from torch import nn

            class LinearRegression(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.LazyLinear(1)
                    self.net.weight.data.normal_(0, 0.01)
                    self.net.bias.data.fill_(0)

                def forward(self, X):
                    return self.net(X)
            """,
        ),
        Valid(  # a storage of its own, no longer a view into a shared bucket: `copy_` would write into the bucket
            """
            import torch

            def unshare(params):
                for param in params:
                    if not param.requires_grad:
                        param.data = param.data.detach().clone()
                    else:
                        bucket_size = param.numel()
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F
            def fold(mask, shape):
                mask = torch.ones(shape)
                mask.data = F.fold(mask, output_size=(4, 4), kernel_size=2, stride=2)
            """,
        ),
        Valid(
            """
            import torch
            def trim(mask, m2, h, w):
                mask = torch.ones(8, 8)
                mask.data = m2.squeeze().reshape(mask.shape)[:h, :w].contiguous()
            """,
        ),
        Valid(
            """
            import torch
            with torch.no_grad():
                for p in model.parameters():
                    p.mul_(0.5)
            """,
        ),
        Valid(
            """
            import torch

            def to_half(model):
                for p in model.parameters():
                    p.data = p.data.to(torch.float16)
                    if p.grad is not None:
                        p.grad.data = p.grad.to(torch.float16)
                    p.data = p._mp_param
                for q in model.parameters():
                    q.data = fn(q.data)
                model.bn.running_mean.data = other.bn.running_mean.data
                w = model.weight.detach().clone()
                model.weight.data = w.resize_(w.shape, memory_format=torch.channels_last)
            """,
        ),
        Valid(
            """
            import torch
            def f(dataset, args, batch):
                dataset.data[0] = 1
                args.data = None
                batch['image'].data = 3
            """,
        ),
        Valid(
            """
            import torch
            class Store:
                def __init__(self):
                    self.data = {}
                def put(self, k, v):
                    self.data[k] = v
            """,
        ),
        Valid(  # a read: GG101
            """
            import torch
            for p in model.parameters():
                x = p.data.clone()
                x.mul_(2)
            """,
        ),
        Valid(
            """
            import torch
            import numpy as np
            arr = np.zeros(3)
            arr.data = bytearray(24)
            """,
        ),
        Valid(
            """
            import torch
            for p in model.parameters():
                p.data.requires_grad_(False)
            """,
        ),
        Valid(
            # numpy's product takes arrays too: nothing shows `u` or `v` is a tensor
            """
            import numpy as np

            def power_iteration(module, name, steps):
                u = getattr(module, name + "_u")
                v = getattr(module, name + "_v")
                w = getattr(module, name + "_bar")
                for _ in range(steps):
                    v.data = np.dot(w.T, u.data)
                    u.data = np.dot(w, v.data)
                return u, v
            """,
        ),
    )
    invalid = (
        # A parameter of a layer a plain class keeps, written in one of its methods.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Runner:
                def __init__(self):
                    self.model = nn.Embedding(10, 4)

                def renorm(self):
                    norm = torch.norm(self.model.weight.detach(), dim=1, keepdim=True)
                    self.model.weight.data = self.model.weight.detach() / norm
            """,
            line=11,
            column=9,
            message="`self.model.weight.data = ...` replaces `self.model.weight`'s contents behind autograd's back "
            "(no version-counter bump: if a graph has saved `self.model.weight`, its gradients come out silently "
            "wrong); where the new value has the same shape, dtype and device, use `self.model.weight.copy_(...)` "
            "under `torch.no_grad()`",
        ),
        # fp16 training's copy of the master weights into the model's parameters, the loop's name `model`:
        # `.data.copy_` shows a tensor, whatever the name says (a module has no `.data`).
        Invalid(
            """
            import torch


            def master2model(model_params, master_params):
                for model, master in zip(model_params, master_params):
                    model.data.copy_(master.data)
            """,
            line=6,
            column=9,
            message="in-place write through `model.data` bypasses autograd's version counter: if a graph has saved `model`, its gradients come out silently wrong; drop `.data` and write to `model` under `torch.no_grad()`",
            fixed="""
            import torch


            def master2model(model_params, master_params):
                with torch.no_grad():
                    for model, master in zip(model_params, master_params):
                        model.copy_(master.data)
            """,
            unsafe=True,
        ),
        # An LSTM's output, unpacked from its result: an activation of the graph, not a parameter.
        Invalid(
            """
            import torch
            from torch import nn


            class Encoder(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.lstm = nn.LSTM(dim, dim, batch_first=True)

                def forward(self, x, mask):
                    out, _ = self.lstm(x)
                    out.data.masked_fill_(mask.unsqueeze(2), 0)
                    return out
            """,
            line=12,
            column=9,
            message="in-place write through `out.data` hides it from autograd: `out` is computed with grad (line 11), so the backward pass ignores the write, or, where an operation saved `out`, silently uses the new values; write it out of place, `out = out.masked_fill(mask.unsqueeze(2), 0)`, so that autograd records it",
            fixed="""
            import torch
            from torch import nn


            class Encoder(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.lstm = nn.LSTM(dim, dim, batch_first=True)

                def forward(self, x, mask):
                    out, _ = self.lstm(x)
                    out = out.masked_fill(mask.unsqueeze(2), 0)
                    return out
            """,
            unsafe=True,
        ),
        # Attention scores computed by a method chain on a torch operation (`torch.bmm(...).squeeze(2)`, CS224n's NMT step): an activation.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def attend(enc_hiddens_proj, dec_hidden, enc_masks):
                e_t = torch.bmm(enc_hiddens_proj, dec_hidden.unsqueeze(2)).squeeze(2)
                e_t.data.masked_fill_(enc_masks.bool(), -float("inf"))
                return F.softmax(e_t, dim=1)
            """,
            line=7,
            column=5,
            message='in-place write through `e_t.data` hides it from autograd: `e_t` is computed with grad (line 6), so the backward pass ignores the write, or, where an operation saved `e_t`, silently uses the new values; write it out of place, `e_t = e_t.masked_fill(enc_masks.bool(), -float("inf"))`, so that autograd records it',
            fixed="""
            import torch
            import torch.nn.functional as F


            def attend(enc_hiddens_proj, dec_hidden, enc_masks):
                e_t = torch.bmm(enc_hiddens_proj, dec_hidden.unsqueeze(2)).squeeze(2)
                e_t = e_t.masked_fill(enc_masks.bool(), -float("inf"))
                return F.softmax(e_t, dim=1)
            """,
            unsafe=True,
        ),
        # A parameter read from a module by a computed name (`getattr(model.fc, name)`, a finite-difference check): what a module's attribute holds, read through `.data`, is a tensor.
        Invalid(
            """
            import copy

            import torch
            from torch import nn


            def perturbed_losses(model: nn.Module, x, y, loss_fn, eps=1e-4):
                losses = []
                for name in ["weight", "bias"]:
                    for idx in range(len(getattr(model.fc, name))):
                        shifted = copy.deepcopy(model)
                        param = getattr(shifted.fc, name)
                        param.data[idx] += eps
                        losses.append(loss_fn(shifted(x), y).item())
                return losses
            """,
            line=13,
            column=13,
            message="in-place write through `param.data` bypasses autograd's version counter: if a graph has saved `param`, its gradients come out silently wrong; drop `.data` and write to `param` under `torch.no_grad()`",
            fixed="""
            import copy

            import torch
            from torch import nn


            def perturbed_losses(model: nn.Module, x, y, loss_fn, eps=1e-4):
                losses = []
                for name in ["weight", "bias"]:
                    for idx in range(len(getattr(model.fc, name))):
                        shifted = copy.deepcopy(model)
                        param = getattr(shifted.fc, name)
                        with torch.no_grad():
                            param[idx] += eps
                        losses.append(loss_fn(shifted(x), y).item())
                return losses
            """,
            unsafe=True,
        ),
        # A 2D kernel inflated into a 3D layer's weight: expanded to that weight's own sizes (and divided by one of
        # them), so `copy_` takes it.
        Invalid(
            """
            import torch


            def inflate(conv3d, conv):
                conv3d.weight.data = conv.weight.data[:, :, None].expand(conv3d.weight.data.size()) / conv3d.weight.data.shape[2]
            """,
            line=5,
            column=5,
            message="`conv3d.weight.data = ...` replaces `conv3d.weight`'s contents behind autograd's back (no version-counter bump: if a graph has saved `conv3d.weight`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `conv3d.weight.copy_(...)` under `torch.no_grad()`",
            fixed="""
            import torch


            def inflate(conv3d, conv):
                with torch.no_grad():
                    conv3d.weight.copy_(conv.weight.data[:, :, None].expand(conv3d.weight.data.size()) / conv3d.weight.data.shape[2])
            """,
            unsafe=True,
        ),
        # A script's layer given a kernel of another shape right after it is built: a new parameter, not `copy_`.
        Invalid(
            """
            import torch
            import torch.nn as nn

            k = torch.tensor([[1.0, -1.0]])
            conv = nn.Conv2d(in_channels=1, out_channels=2, kernel_size=2, padding=1)
            conv.weight.data = k.view((1, 1) + k.shape)
            print(conv(torch.rand(1, 1, 6, 8)))
            """,
            line=6,
            column=1,
            message="`conv.weight.data = ...` replaces `conv.weight`'s contents behind autograd's back (no version-counter bump: if a graph has saved `conv.weight`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `conv.weight.copy_(...)` under `torch.no_grad()`; nothing has run `conv` (built on line 5) yet, so a value of another shape can be given as a new parameter, `conv.weight = nn.Parameter(...)`",
            unsafe=True,
            fixed="""
            import torch
            import torch.nn as nn

            k = torch.tensor([[1.0, -1.0]])
            conv = nn.Conv2d(in_channels=1, out_channels=2, kernel_size=2, padding=1)
            with torch.no_grad():
                conv.weight.copy_(k.view((1, 1) + k.shape))
            print(conv(torch.rand(1, 1, 6, 8)))
            """,
        ),
        # A line search's backup, a list of the parameters' `.data` zipped with them: it shares their storage,
        # which `copy_` would overwrite (no fix).
        Invalid(
            """
            import torch
            from torch import nn

            policy = nn.Linear(4, 2)
            obs = torch.randn(8, 4)
            steps = [torch.zeros_like(p) for p in policy.parameters()]
            old_params = [x.data for x in policy.parameters()]
            for k in range(10):
                for w, w_old, step in zip(policy.parameters(), old_params, steps):
                    w.data = w_old + step
                if policy(obs).sum() > 0:
                    break
                steps = [0.5 * s for s in steps]
            """,
            line=10,
            column=9,
            message="`w.data = ...` replaces `w`'s contents behind autograd's back (no version-counter bump: if a graph has saved `w`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `w.copy_(...)` under `torch.no_grad()`, after keeping the old values with `.clone()` (`[x.data for x in policy.parameters()]` on line 7 shares a storage with `w`, which `copy_` would overwrite)",
        ),
        # The same kernel in the default float32: `copy_` gives the same result, and checks it.
        Invalid(
            """
            import torch
            from torch import nn

            kernel = torch.tensor([[4.0, 1.0], [2.0, 3.0]]).view(1, 1, 2, 2)
            deconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
            deconv.weight.data = kernel
            print(deconv(torch.ones(1, 2, 2)))
            """,
            line=6,
            column=1,
            message="`deconv.weight.data = ...` replaces `deconv.weight`'s contents behind autograd's back (no version-counter bump: if a graph has saved `deconv.weight`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `deconv.weight.copy_(...)` under `torch.no_grad()`; nothing has run `deconv` (built on line 5) yet, so a value of another shape can be given as a new parameter, `deconv.weight = nn.Parameter(...)`",
            fixed="""
            import torch
            from torch import nn

            kernel = torch.tensor([[4.0, 1.0], [2.0, 3.0]]).view(1, 1, 2, 2)
            deconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
            with torch.no_grad():
                deconv.weight.copy_(kernel)
            print(deconv(torch.ones(1, 2, 2)))
            """,
            unsafe=True,
        ),
        # Rows of the parameters a model method named for them hands out (`final_parameters()`).
        Invalid(
            """
            import torch.nn as nn


            def restore_final_layer(model: nn.Module, saved, known):
                for i, params in enumerate(model.final_parameters()):
                    params.data[known] = saved[i][known]
            """,
            line=6,
            column=9,
            message="in-place write through `params.data` bypasses autograd's version counter: if a graph has saved `params`, its gradients come out silently wrong; drop `.data` and write to `params` under `torch.no_grad()`",
        ),
        # `torch` is bound only when the file runs as a script: no fix writes `torch.no_grad()` into `__init__`.
        Invalid(
            """
            import math

            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)
                    for m in self.modules():
                        if isinstance(m, nn.Conv2d):
                            n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                            m.weight.data.normal_(0, math.sqrt(2.0 / n))


            if __name__ == "__main__":
                import torch

                print(Net()(torch.randn(1, 3, 8, 8)).shape)
            """,
            line=13,
            column=17,
            message="in-place write through `m.weight.data` bypasses autograd's version counter: if a graph has saved `m.weight`, its gradients come out silently wrong; drop `.data` and write to `m.weight` under `torch.no_grad()`",
            unsafe=True,
            fixed="""
            import math

            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)
                    for m in self.modules():
                        if isinstance(m, nn.Conv2d):
                            n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                            m.weight.data.normal_(0, math.sqrt(2.0 / n))


            if __name__ == "__main__":
                import torch

                print(Net()(torch.randn(1, 3, 8, 8)).shape)
            """,
        ),
        # TRPO's line search sets each parameter to a slice of a flat vector reshaped to the
        # parameter's own shape: `param.shape` reads its sizes, so `copy_` takes the value.
        Invalid(
            """
            import numpy as np
            import torch


            def set_params(net, new_flat_params):
                start_idx = 0
                for param in net.parameters():
                    end_idx = start_idx + np.prod(list(param.shape))
                    param.data = torch.reshape(new_flat_params[start_idx:end_idx], param.shape)
                    start_idx = end_idx
            """,
            line=9,
            column=9,
            message="`param.data = ...` replaces `param`'s contents behind autograd's back (no version-counter bump: "
            "if a graph has saved `param`, its gradients come out silently wrong); where the new value has the same "
            "shape, dtype and device, use `param.copy_(...)` under `torch.no_grad()`",
            fixed="""
            import numpy as np
            import torch


            def set_params(net, new_flat_params):
                start_idx = 0
                for param in net.parameters():
                    end_idx = start_idx + np.prod(list(param.shape))
                    with torch.no_grad():
                        param.copy_(torch.reshape(new_flat_params[start_idx:end_idx], param.shape))
                    start_idx = end_idx
            """,
            unsafe=True,
        ),
        # The twin: the dict keeps copies, so `restore` only writes values back, as `copy_` does.
        Invalid(
            """
            import torch.nn as nn


            class EMA:
                def __init__(self, model: nn.Module, decay=0.999):
                    self.model = model
                    self.decay = decay
                    self.shadow = {}
                    self.backup = {}

                def register(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            self.shadow[name] = param.data.clone()

                def store(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            self.backup[name] = param.data.clone()

                def restore(self):
                    for name, param in self.model.named_parameters():
                        if param.requires_grad:
                            param.data = self.backup[name]
                    self.backup = {}
            """,
            line=24,
            column=17,
            message="`param.data = ...` replaces `param`'s contents behind autograd's back (no version-counter bump: "
            "if a graph has saved `param`, its gradients come out silently wrong); where the new value has the same "
            "shape, dtype and device, use `param.copy_(...)` under `torch.no_grad()`",
            fixed=None,
        ),
        # An activation of the graph (the output of `exp`, which saves it for backward) masked
        # through `.data`: `no_grad` around the write would make backward raise; out of place,
        # autograd records the mask.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class DotProductAttention(nn.Module):
                def forward(self, q, k, v, mask=None):
                    score = torch.einsum("ijk,ilk->ijl", (q, k))
                    score = torch.exp(score - score.max(dim=-1, keepdim=True)[0])
                    if mask is not None:
                        score.data.masked_fill_(mask, 0)
                    a = score / torch.sum(score, dim=-1, keepdim=True)
                    return torch.einsum("ijk,ikl->ijl", (a, v))
            """,
            line=10,
            column=13,
            message="in-place write through `score.data` hides it from autograd: `score` is computed with grad "
            "(line 8), so the backward pass ignores the write, or, where an operation saved `score`, silently uses "
            "the new values; write it out of place, `score = score.masked_fill(mask, 0)`, so that autograd records it",
            fixed="""
            import torch
            import torch.nn as nn


            class DotProductAttention(nn.Module):
                def forward(self, q, k, v, mask=None):
                    score = torch.einsum("ijk,ilk->ijl", (q, k))
                    score = torch.exp(score - score.max(dim=-1, keepdim=True)[0])
                    if mask is not None:
                        score = score.masked_fill(mask, 0)
                    a = score / torch.sum(score, dim=-1, keepdim=True)
                    return torch.einsum("ijk,ikl->ijl", (a, v))
            """,
            unsafe=True,
        ),
        # The same write on a tensor a factory made: a leaf without grad, written under `no_grad`.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class DotProductAttention(nn.Module):
                def forward(self, q, k, v, mask=None):
                    score = torch.einsum("ijk,ilk->ijl", (q, k))
                    score = torch.ones(q.size(0), q.size(1), k.size(1))
                    if mask is not None:
                        score.data.masked_fill_(mask, 0)
                    a = score / torch.sum(score, dim=-1, keepdim=True)
                    return torch.einsum("ijk,ikl->ijl", (a, v))
            """,
            line=10,
            column=13,
            message="in-place write through `score.data` bypasses autograd's version counter: if a graph has saved "
            "`score`, its gradients come out silently wrong; drop `.data` and write to `score` under `torch.no_grad()`",
        ),
        # The same swap with the backup cloned: `copy_` keeps the values the backup holds.
        Invalid(
            """
            import torch
            class EMA:
                def apply_shadow(self, model, shadow, backup):
                    for name, param in model.named_parameters():
                        backup[name] = param.data.clone()
                        param.data = shadow[name]
            """,
            line=6,
            column=13,
            message="`param.data = ...` replaces `param`'s contents behind autograd's back (no version-counter "
            "bump: if a graph has saved `param`, its gradients come out silently wrong); where the new value has "
            "the same shape, dtype and device, use `param.copy_(...)` under `torch.no_grad()`",
            fixed="""
            import torch
            class EMA:
                def apply_shadow(self, model, shadow, backup):
                    for name, param in model.named_parameters():
                        backup[name] = param.data.clone()
                        with torch.no_grad():
                            param.copy_(shadow[name])
            """,
            unsafe=True,
        ),
        # An EMA teacher swapping storages: the backup keeps the student's storage, so `copy_` (which
        # writes into `param`'s storage) would overwrite it; no fix is offered.
        Invalid(
            """
            class EMA:
                def __init__(self, model):
                    self.model = model
                    self.shadow = {n: p.detach().clone() for n, p in model.named_parameters()}
                    self.backup = {}

                def apply_shadow(self):
                    for name, param in self.model.named_parameters():
                        self.backup[name] = param.data
                        param.data = self.shadow[name]
            """,
            line=10,
            column=13,
            message="`param.data = ...` replaces `param`'s contents behind autograd's back (no version-counter "
            "bump: if a graph has saved `param`, its gradients come out silently wrong); where the new value has "
            "the same shape, dtype and device, use `param.copy_(...)` under `torch.no_grad()`, after keeping the "
            "old values with `.clone()` (`param.data` on line 9 shares a storage with `param`, which `copy_` would "
            "overwrite)",
            fixed=None,
        ),
        # The same dict filled with copies: `param.data = dic[name]` shares nothing of the other
        # model, and `copy_` writes the same values.
        Invalid(
            """
            class Rollout:
                def update_params(self):
                    dic = {}
                    for name, param in self.ori_model.named_parameters():
                        dic[name] = param.data.clone()
                    for name, param in self.own_model.named_parameters():
                        if name.startswith("emb"):
                            param.data = dic[name]
            """,
            line=8,
            column=17,
            message="`param.data = ...` replaces `param`'s contents behind autograd's back (no version-counter bump: "
            "if a graph has saved `param`, its gradients come out silently wrong); where the new value has the same "
            "shape, dtype and device, use `param.copy_(...)` under `torch.no_grad()`",
        ),
        # A recurrent layer's own parameters (`weight_ih`, and `weight_hh_l0` through `getattr`),
        # shown to be an LSTM's by `isinstance`.
        Invalid(
            """
            import torch.nn as nn
            from torch.nn.init import xavier_uniform_


            def lstm_init_(lstm_unit):
                if isinstance(lstm_unit, nn.LSTM):
                    for l in range(lstm_unit.num_layers):
                        xavier_uniform_(getattr(lstm_unit, "weight_ih_l{}".format(l)).data)
            """,
            line=8,
            column=29,
            message='`getattr(lstm_unit, "weight_ih_l{}".format(l)).data` passed to an initialiser: `nn.init` already '
            "runs under `no_grad`, and `.data` only skips the version counter; pass `getattr(lstm_unit, "
            '"weight_ih_l{}".format(l))`',
            fixed="""
            import torch.nn as nn
            from torch.nn.init import xavier_uniform_


            def lstm_init_(lstm_unit):
                if isinstance(lstm_unit, nn.LSTM):
                    for l in range(lstm_unit.num_layers):
                        xavier_uniform_(getattr(lstm_unit, "weight_ih_l{}".format(l)))
            """,
        ),
        # An LSTM's parameters by name, through its `_parameters` dict: the forget gates' biases
        # set to one through `.data`.
        Invalid(
            """
            import torch.nn as nn

            lstm = nn.LSTM(8, 16)
            for name, p in lstm._parameters.items():
                if "bias" in name:
                    p.data[16:32] = 1
            """,
            line=6,
            column=9,
            message="in-place write through `p.data` bypasses autograd's version counter: if a graph has saved "
            "`p`, its gradients come out silently wrong; drop `.data` and write to `p` under `torch.no_grad()`",
        ),
        # The same local layer filled with a tensor computed there, on the CPU as the layer:
        # `copy_` does the same.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def q_linear(w, b, zero_point, in_features, out_features):
                linear = nn.Linear(in_features, out_features)
                linear.weight.data = (w - zero_point).to(torch.float)
                return linear
            """,
            line=7,
            column=5,
            message="`linear.weight.data = ...` replaces `linear.weight`'s contents behind autograd's back (no "
            "version-counter bump: if a graph has saved `linear.weight`, its gradients come out silently wrong); "
            "where the new value has the same shape, dtype and device, use `linear.weight.copy_(...)` under "
            "`torch.no_grad()`"
            "; nothing has run `linear` (built on line 6) yet, so a value of another shape can be given as a new parameter, `linear.weight = nn.Parameter(...)`",
        ),
        # A layer `__init__` builds is on the CPU, as the kernel it is given: `copy_` does the same.
        Invalid(
            """
            import torch.nn as nn

            class FCN(nn.Module):
                def __init__(self, num_classes):
                    super().__init__()
                    self.upsample = nn.ConvTranspose2d(num_classes, num_classes, 16, 8, 4, bias=False)
                    self.upsample.weight.data = bilinear_kernel(num_classes, num_classes, 16)
            """,
            line=7,
            column=9,
            message="`self.upsample.weight.data = ...` replaces `self.upsample.weight`'s contents behind autograd's "
            "back (no version-counter bump: if a graph has saved `self.upsample.weight`, its gradients come out "
            "silently wrong); where the new value has the same shape, dtype and device, use "
            "`self.upsample.weight.copy_(...)` under `torch.no_grad()`"
            "; nothing has run `self.upsample` (built on line 6) yet, so a value of another shape can be given as a new parameter, `self.upsample.weight = nn.Parameter(...)`",
        ),
        # A layer built, then run, then given new weights: a graph of its first run has saved them.
        Invalid(
            """
            import torch.nn as nn

            conv = nn.Conv2d(1, 1, 3)
            edges = conv(image)
            conv.weight.data = kernel
            """,
            line=5,
            column=1,
            message="`conv.weight.data = ...` replaces `conv.weight`'s contents behind autograd's back (no "
            "version-counter bump: if a graph has saved `conv.weight`, its gradients come out silently wrong); where "
            "the new value has the same shape, dtype and device, use `conv.weight.copy_(...)` under `torch.no_grad()`",
        ),
        # A slice of `.data` written in place: only a tensor's `.data` has slices with in-place
        # methods (an LSTM's forget-gate bias set to one).
        Invalid(
            """
            import torch.nn as nn


            class HighwayBiLSTM(nn.Module):
                def __init__(self, hidden):
                    super().__init__()
                    self.bilstm = nn.LSTM(hidden, hidden, bidirectional=True)
                    self.bilstm.all_weights[0][3].data[hidden : 2 * hidden].fill_(1)
            """,
            line=8,
            column=9,
            message="in-place write through `self.bilstm.all_weights[0][3].data` bypasses autograd's version counter: "
            "if a graph has saved `self.bilstm.all_weights[0][3]`, its gradients come out silently wrong; drop "
            "`.data` and write to `self.bilstm.all_weights[0][3]` under `torch.no_grad()`",
        ),
        # Each epoch keeps a view of `w`'s storage of the time (`w.data[0]`); `w.data = ...` gives
        # `w` a new storage at every step, so `copy_` alone would make every kept value the last.
        Invalid(
            """
            import torch

            w = torch.tensor([1.0], requires_grad=True)
            w_list = []
            for epoch in range(100):
                for x, y in zip(x_data, y_data):
                    l = (x * w - y) ** 2
                    l.backward()
                    w.data = w.data - 0.01 * w.grad.data
                    w.grad.zero_()
                w_list.append(w.data[0])
            """,
            line=9,
            column=9,
            message="`w.data = ...` replaces `w`'s contents behind autograd's back (no version-counter bump: if a graph "
            "has saved `w`, its gradients come out silently wrong); where the new value has the same shape, dtype and "
            "device, use `w.copy_(...)` under `torch.no_grad()`, after keeping the old values with `.clone()` "
            "(`w.data[0]` on line 11 shares a storage with `w`, which `copy_` would overwrite)",
        ),
        # `set_` through `.data` gives the new storage to the alias alone: the embedding keeps its
        # random weights.
        Invalid(
            """
            import torch.nn as nn

            def load_glove(model, glove):
                model.token_embedding.weight.data.set_(glove)
            """,
            line=4,
            column=5,
            message="`model.token_embedding.weight.data.set_(...)` gives the new storage only to the alias that `.data` "
            "returns, which is then thrown away: `model.token_embedding.weight` keeps its old values; drop `.data` and "
            "call `model.token_embedding.weight.set_(...)` under `torch.no_grad()`",
        ),
        # The same under `no_grad`: dropping `.data` is all it takes.
        Invalid(
            """
            import torch

            def load_glove(model, glove):
                with torch.no_grad():
                    model.emb.weight.data.set_(glove)
            """,
            line=5,
            column=9,
            message="`model.emb.weight.data.set_(...)` gives the new storage only to the alias that `.data` returns, "
            "which is then thrown away: `model.emb.weight` keeps its old values; drop `.data` "
            "(`model.emb.weight.set_(...)`; grad is already disabled here)",
        ),
        # An activation of the graph given a masked copy of itself through `.data.set_`: the
        # write is lost; rebinding the name records it.
        Invalid(
            """
            import torch

            def cell(c, f_t, i_t, g_t, mask):
                c_t = torch.mul(c, f_t) + torch.mul(i_t, g_t)
                c_t.data.set_(torch.mul(c_t, mask).data)
                return c_t.tanh()
            """,
            line=5,
            column=5,
            message="`c_t.data.set_(...)` gives the new storage only to the alias that `.data` returns, which is then "
            "thrown away: `c_t` keeps its old values; rebind it, `c_t = torch.mul(c_t, mask)`, so that autograd "
            "records it",
        ),
        # `.data` returns a new alias each time: reshaping it in place leaves the tensor as it was.
        Invalid(
            """
            def evaluate(data_iter, model):
                for batch in data_iter:
                    feature, target = batch.text, batch.label
                    feature.data.t_(), target.sub_(1)
                    logit = model(feature)
            """,
            line=4,
            column=9,
            message="`feature.data.t_()` reshapes only the new alias that `.data` returns, which is then thrown away: "
            "`feature` keeps its shape; drop `.data` (`feature.t_()`) or rebind `feature` to the reshaped tensor",
            fixed="""
            def evaluate(data_iter, model):
                for batch in data_iter:
                    feature, target = batch.text, batch.label
                    feature.t_(), target.sub_(1)
                    logit = model(feature)
            """,
            unsafe=True,
        ),
        # Its own storage given back after an in-place write: only the write is reported.
        Invalid(
            """
            import torch

            noise = torch.zeros(4, 8, requires_grad=True)
            for i in range(10):
                noise.data = noise.data.normal_(0, 1)
            """,
            line=5,
            column=18,
            message="in-place write through `noise.data` bypasses autograd's version counter: if a graph has saved "
            "`noise`, its gradients come out silently wrong; drop `.data` and write to `noise` under `torch.no_grad()`",
        ),
        # Writing into a parameter through its state_dict entry's `.data`.
        Invalid(
            """
            from torch import nn

            model = nn.Linear(1, 1)
            model.state_dict()["weight"].data[0] = -0.2
            """,
            line=4,
            column=1,
            message='in-place write through `model.state_dict()["weight"].data` bypasses autograd\'s version counter: '
            'if a graph has saved `model.state_dict()["weight"]`, its gradients come out silently wrong; drop '
            '`.data` and write to `model.state_dict()["weight"]` under `torch.no_grad()`',
        ),
        # A lazy module once it has run: its first forward made the parameters.
        Invalid(
            """
            import torch
            from torch import nn

            conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
            for i in range(10):
                Y_hat = conv2d(X)
                l = ((Y_hat - Y) ** 2).sum()
                conv2d.zero_grad()
                l.backward()
                conv2d.weight.data[:] -= 3e-2 * conv2d.weight.grad
            """,
            line=10,
            column=5,
            message="in-place write through `conv2d.weight.data` bypasses autograd's version counter: if a graph has "
            "saved `conv2d.weight`, its gradients come out silently wrong; drop `.data` and write to `conv2d.weight` "
            "under `torch.no_grad()`",
        ),
        Invalid(
            """
            import torch
            def reset(mask):
                mask = torch.ones(8, 8)
                mask.data = torch.zeros_like(mask)
            """,
            line=4,
            column=5,
            message="`mask.data = ...` replaces `mask`'s contents behind autograd's back (no version-counter bump: if a graph has saved `mask`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `mask.copy_(...)` under `torch.no_grad()`",
        ),
        Invalid(
            """
            import torch
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)  # step
            """,
            line=3,
            column=5,
            message="in-place write through `p.data` bypasses autograd's version counter: if a graph has saved `p`, its gradients come out silently wrong; drop `.data` and write to `p` under `torch.no_grad()`",
            fixed="""
            import torch
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)  # step
            """,
        ),
        Invalid(
            """
            import torch
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)  # step
            """,
            line=3,
            column=5,
            message="in-place write through `p.data` bypasses autograd's version counter: if a graph has saved `p`, its gradients come out silently wrong; drop `.data` and write to `p` under `torch.no_grad()`",
            fixed="""
            import torch
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-0.1)  # step
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch
            def init(m):
                m.weight.data.copy_(w)
                m.bias.data.zero_()
            """,
            line=3,
            column=5,
            message="in-place write through `m.weight.data` bypasses autograd's version counter: if a graph has saved `m.weight`, its gradients come out silently wrong; drop `.data` and write to `m.weight` under `torch.no_grad()`",
            also=(
                Finding(
                    4,
                    5,
                    "in-place write through `m.bias.data` bypasses autograd's version counter: if a graph has saved `m.bias`, its gradients come out silently wrong; drop `.data` and write to `m.bias` under `torch.no_grad()`",
                ),
            ),
            fixed="""
            import torch
            def init(m):
                with torch.no_grad():
                    m.weight.copy_(w)
                    m.bias.zero_()
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch
            @torch.no_grad()
            def load(layer, t):
                layer.weight.data = t
                layer.bias.data[0] = 1.0
            """,
            line=4,
            column=5,
            message="`layer.weight.data = ...` replaces `layer.weight`'s contents behind autograd's back (no version-counter bump: if a graph has saved `layer.weight`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `layer.weight.copy_(...)`",
            also=(
                Finding(
                    5,
                    5,
                    "in-place write through `layer.bias.data` bypasses autograd's version counter: if a graph has saved `layer.bias`, its gradients come out silently wrong; drop `.data` and write to `layer.bias`",
                ),
            ),
            fixed="""
            import torch
            @torch.no_grad()
            def load(layer, t):
                layer.weight.copy_(t)
                layer.bias[0] = 1.0
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            layer = nn.Linear(3, 2)
            layer.weight.data = torch.tensor([[1., 1., 1.],
                                              [2., 2., 2.]])
            """,
            line=5,
            column=1,
            message="`layer.weight.data = ...` replaces `layer.weight`'s contents behind autograd's back (no version-counter bump: if a graph has saved `layer.weight`, its gradients come out silently wrong); where the new value has the same shape, dtype and device, use `layer.weight.copy_(...)` under `torch.no_grad()`"
            "; nothing has run `layer` (built on line 4) yet, so a value of another shape can be given as a new parameter, `layer.weight = nn.Parameter(...)`",
            fixed="""
            import torch
            import torch.nn as nn

            layer = nn.Linear(3, 2)
            with torch.no_grad():
                layer.weight.copy_(torch.tensor([[1., 1., 1.],
                                                  [2., 2., 2.]]))
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch.nn as nn
            def init(m):
                nn.init.normal_(m.weight.data, 0, 0.02)
            """,
            line=3,
            column=21,
            message="`m.weight.data` passed to an initialiser: `nn.init` already runs under `no_grad`, and `.data` only skips the version counter; pass `m.weight`",
            fixed="""
            import torch.nn as nn
            def init(m):
                nn.init.normal_(m.weight, 0, 0.02)
            """,
        ),
        # The old name without `_` (deprecated, a wrapper of `xavier_normal_`): the same initialiser.
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.init as init

            def initialize_weights(m):
                if isinstance(m, nn.Linear):
                    init.xavier_normal(m.weight.data)
            """,
            line=6,
            column=28,
            message="`m.weight.data` passed to an initialiser: `nn.init` already runs under `no_grad`, and `.data` only skips the version counter; pass `m.weight`",
            fixed="""
            import torch.nn as nn
            import torch.nn.init as init

            def initialize_weights(m):
                if isinstance(m, nn.Linear):
                    init.xavier_normal(m.weight)
            """,
        ),
        Invalid(
            """
            import torch
            def scale(layer, s):
                y = layer.weight.data.mul_(s)
                return y
            """,
            line=3,
            column=9,
            message="in-place write through `layer.weight.data` bypasses autograd's version counter: if a graph has saved `layer.weight`, its gradients come out silently wrong; drop `.data` and write to `layer.weight` under `torch.no_grad()`",
            fixed="""
            import torch
            def scale(layer, s):
                y = layer.weight.data.mul_(s)
                return y
            """,
            unsafe=True,
        ),
        Invalid(
            # a spectral norm's power iteration: `torch.mv` takes only tensors, so `u` and `v`,
            # whose `.data` it is handed, are tensors
            """
            import torch

            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)

            def power_iteration(module, name, steps):
                u = getattr(module, name + "_u")
                v = getattr(module, name + "_v")
                w = getattr(module, name + "_bar")
                for _ in range(steps):
                    v.data = l2normalize(torch.mv(torch.t(w), u.data))
                    u.data = l2normalize(torch.mv(w, v.data))
                return u.dot(w.mv(v))
            """,
            line=11,
            column=9,
            message="`v.data = ...` replaces `v`'s contents behind autograd's back (no version-counter bump: if a graph "
            "has saved `v`, its gradients come out silently wrong); where the new value has the same shape, dtype and "
            "device, use `v.copy_(...)` under `torch.no_grad()`",
            also=(
                Finding(
                    12,
                    9,
                    "`u.data = ...` replaces `u`'s contents behind autograd's back (no version-counter bump: if a "
                    "graph has saved `u`, its gradients come out silently wrong); where the new value has the same "
                    "shape, dtype and device, use `u.copy_(...)` under `torch.no_grad()`",
                ),
            ),
            fixed="""
            import torch

            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)

            def power_iteration(module, name, steps):
                u = getattr(module, name + "_u")
                v = getattr(module, name + "_v")
                w = getattr(module, name + "_bar")
                with torch.no_grad():
                    for _ in range(steps):
                        v.copy_(l2normalize(torch.mv(torch.t(w), u.data)))
                        u.copy_(l2normalize(torch.mv(w, v.data)))
                return u.dot(w.mv(v))
            """,
            unsafe=True,
        ),
    )

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if node.attr != "data":
            return
        access = classify(ctx, node)
        if access is None or access.kind != "write" or _of_a_lazy_module(ctx, node):
            return
        recv = receiver_text(ctx, node)
        how = access.how
        disabled = ctx.grad_disabled
        if how == "init":
            message = (
                f"`{recv}.data` passed to an initialiser: `nn.init` already runs under `no_grad`, "
                f"and `.data` only skips the version counter; pass `{recv}`"
            )
            fix = Fix(Applicability.SAFE, f"Pass `{recv}` itself", (drop_data_edit(ctx, node),))
            ctx.report(self.code, node, message, fix)
            return
        if how == "alias-shape":
            method = access.site.func.attr
            given = "..." if access.site.args or access.site.keywords else ""
            message = (
                f"`{recv}.data.{method}({given})` reshapes only the new alias that `.data` returns, which is then "
                f"thrown away: `{recv}` keeps its shape; drop `.data` (`{recv}.{method}({given})`) or rebind `{recv}` "
                "to the reshaped tensor"
            )
            fix = Fix(Applicability.UNSAFE, "Drop `.data`", (drop_data_edit(ctx, node),))
            ctx.report(self.code, node, message, fix)
            return
        if how == "alias-storage":
            call = access.site
            given = "..." if call.args or call.keywords else ""
            computed = _computed_with_grad(ctx, node.value) if not disabled else None
            if computed is not None and len(call.args) == 1 and not call.keywords:
                value = call.args[0]
                if isinstance(value, ast.Attribute) and value.attr == "data":
                    value = value.value  # `c_t.data.set_(th.mul(c_t, mask).data)`: the new value itself
                advice = f"rebind it, `{recv} = {short(ctx.text(value), 40)}`, so that autograd records it"
            elif disabled:
                advice = f"drop `.data` (`{recv}.set_({given})`; grad is already disabled here)"
            else:
                advice = f"drop `.data` and call `{recv}.set_({given})` under `torch.no_grad()`"
            message = (
                f"`{recv}.data.set_({given})` gives the new storage only to the alias that `.data` returns, which is "
                f"then thrown away: `{recv}` keeps its old values; {advice}"
            )
            ctx.report(self.code, node, message)
            return
        if how == "assign":
            if _swaps_own_storage(ctx, access.site, node.value):
                return  # `p.data = p.to(dtype)`: a new dtype/device/storage on purpose, `copy_` cannot do it
            if _of_a_layer_just_built(ctx, access.site, node.value):
                return  # `conv = nn.Conv2d(...)`, then `conv.weight.data = kernel`: no graph has seen it yet
            if _of_another_dtype(ctx, access.site):
                return  # `kernel = torch.tensor(..., dtype=float)`, then `deconv.weight.data = kernel`
            advice = f"`{recv}.copy_(...)`" + ("" if disabled else " under `torch.no_grad()`")
            message = (
                f"`{recv}.data = ...` replaces `{recv}`'s contents behind autograd's back (no version-counter bump: "
                f"if a graph has saved `{recv}`, its gradients come out silently wrong); where the new value has the "
                f"same shape, dtype and device, use {advice}"
            )
            built = _layer_built_before(ctx, access.site, node.value)
            if built is not None and isinstance(node.value, ast.Attribute):
                # `conv = nn.Conv2d(1, 2, kernel_size=2)`, then `conv.weight.data = k.view(1, 1, 2, 2)` in a
                # script: the value may have another shape, which `copy_` cannot give; a new parameter takes any
                layer = short(ctx.text(node.value.value), 30)
                message += (
                    f"; nothing has run `{layer}` (built on line {built.lineno}) yet, so a value of another shape "
                    f"can be given as a new parameter, `{layer}.{node.value.attr} = nn.Parameter(...)`"
                )
            kept = _old_storage_kept(ctx, access.site, recv) or _aliases_zipped_with_the_parameters(
                ctx, access.site, recv
            )
            if kept is not None:
                # `backup[name] = param.data`, then `param.data = shadow[name]`: an EMA swap of storages;
                # `copy_` would write into the storage the backup (or the shadow) shares: no fix
                ctx.report(
                    self.code,
                    node,
                    f"{message}, after keeping the old values with `.clone()` (`{short(ctx.text(kept), 40)}` on "
                    f"line {kept.lineno} shares a storage with `{recv}`, which `copy_` would overwrite)",
                )
                return
        elif how == "method" and _resized_and_rebound_to_a_graph(ctx, node):
            # `AB.data.resize_(x.size()).copy_(x)` of a buffer the loop later rebinds to a model's
            # output (`AB = G_AB(real_A)`): written without `.data`, a tensor that requires grad
            # cannot be resized, and the graph it held is gone once backpropagated
            return
        elif how == "method" and not disabled and (computed := _computed_with_grad(ctx, node.value)) is not None:
            # `score = torch.exp(score)`, then `score.data.masked_fill_(mask, 0)`: an activation of the
            # graph, not a parameter; `no_grad` around the write would make backward raise where an
            # operation saved it (as `exp` saves its result)
            call = access.site
            method = call.func.attr
            out_of_place = (
                f"{recv} = {recv}.{method[:-1]}({short(ctx.text(call)[len(ctx.text(call.func)) + 1 : -1], 40)})"
            )
            message = (
                f"in-place write through `{recv}.data` hides it from autograd: `{recv}` is computed with grad "
                f"(line {computed.lineno}), so the backward pass ignores the write, or, where an operation saved "
                f"`{recv}`, silently uses the new values; write it out of place, `{out_of_place}`, so that autograd "
                f"records it"
            )
            ctx.report(self.code, node, message, _out_of_place_fix(ctx, node, call, recv, method))
            return
        else:
            advice = f"drop `.data` and write to `{recv}`" + ("" if disabled else " under `torch.no_grad()`")
            message = (
                f"in-place write through `{recv}.data` bypasses autograd's version counter: if a graph has saved "
                f"`{recv}`, its gradients come out silently wrong; {advice}"
            )
        fix = self._statement_fix(ctx, access, disabled)
        ctx.report(self.code, node, message, fix)

    # -- fixes ------------------------------------------------------------------------------
    def _core_edits(self, ctx, access) -> Optional[tuple]:
        """Edits that remove `.data` from a write that is a whole statement, else None."""
        node, site, how = access.node, access.site, access.how
        stmt = _enclosing_statement(ctx, node)
        if how in ("method", "inplace_call"):
            top = site
            while how == "method":  # `w.data.normal_().fmod_(2).mul_(s)`: a chain of writes
                attr, call = ctx.parent(top), ctx.parent(ctx.parent(top))
                if not (
                    isinstance(attr, ast.Attribute)
                    and attr.attr in INPLACE_VALUE_METHODS
                    and isinstance(call, ast.Call)
                    and call.func is attr
                ):
                    break
                top = call
            if not (isinstance(stmt, ast.Expr) and stmt.value is top):
                return None
            return (drop_data_edit(ctx, node),)
        if how == "setitem":
            if (
                isinstance(stmt, ast.Assign)
                and stmt.targets == [site]
                or isinstance(stmt, ast.AugAssign)
                and stmt.target is site
            ):
                return (drop_data_edit(ctx, node),)
            return None
        if how == "augassign":
            return (drop_data_edit(ctx, node),) if stmt is site else None
        if how == "assign":
            if stmt is not site or len(stmt.targets) != 1 or has_comment(ctx, stmt):
                return None
            recv = ctx.text(node.value)
            value = ctx.text(stmt.value)
            if isinstance(stmt.value, (ast.Tuple, ast.Starred)):
                value = f"({value})"
            return (ctx.replace(stmt, f"{recv}.copy_({value})"),)
        return None

    def _statement_fix(self, ctx, access, disabled: bool) -> Optional[Fix]:
        core = self._core_edits(ctx, access)
        if core is None:
            return None
        if disabled:
            what = "Use `copy_`" if access.how == "assign" else "Drop `.data`"
            return Fix(
                Applicability.UNSAFE,
                f"{what} (grad is already disabled here){_SAME_SHAPE if access.how == 'assign' else ''}",
                core,
            )
        no_grad = no_grad_name(ctx)
        stmt = _enclosing_statement(ctx, access.node)
        if no_grad is None or not self._owns_lines(ctx, stmt):
            return None
        run = self._run(ctx, stmt)
        edits = list(core)
        for other, other_core in run:
            if other is not stmt:
                edits.extend(other_core)
        first, last = run[0][0], run[-1][0]
        # `for p in model.parameters(): p.data.add_(...)`: wrap the loop, not each iteration.
        owner = ctx.parent(first)
        while (
            isinstance(owner, ast.For)
            and owner.body[0] is first
            and owner.body[-1] is last
            and not owner.orelse
            and self._owns_lines(ctx, owner, allow_compound=True)
        ):
            first = last = owner
            owner = ctx.parent(owner)
        src = ctx.source
        indent = src.indentation(first.lineno)
        unit = "\t" if "\t" in indent else "    "
        starts = src.line_starts
        edits.append(
            Edit(starts[first.lineno - 1], starts[first.lineno - 1], f"{indent}with {no_grad}():{src.newline}{unit}")
        )
        rewritten = set()  # edits that replace several lines: their new lines are indented too
        for lineno in range(first.lineno + 1, last.end_lineno + 1):
            if src.line(lineno).strip():
                at = starts[lineno - 1]
                inside = next((i for i, e in enumerate(edits) if e.start < at < e.end), None)
                if inside is None:
                    edits.append(Edit(at, at, unit))
                else:
                    rewritten.add(inside)
        for i in rewritten:
            e = edits[i]
            edits[i] = Edit(e.start, e.end, _NEXT_LINE_RE.sub(lambda m: m.group(0) + unit, e.content))
        message = (
            "Wrap in `with torch.no_grad():` and drop `.data`"
            if access.how != "assign"
            else "Use `copy_` under `with torch.no_grad():`"
        )
        why = " (unsafe: a graph that saved the tensor now raises instead of computing wrong gradients)"
        return Fix(Applicability.UNSAFE, message + why + (_SAME_SHAPE if access.how == "assign" else ""), tuple(edits))

    def _owns_lines(self, ctx, stmt: ast.stmt, allow_compound: bool = False) -> bool:
        """The statement starts its first line and ends its last (no `;` neighbours, no
        one-line compound statement), and holds no multi-line string."""
        src = ctx.source
        first = src.line(stmt.lineno)
        before = first[: src.node_start(stmt) - src.line_starts[stmt.lineno - 1]]
        if before.strip():
            return False
        if allow_compound and stmt.body[0].lineno == stmt.lineno:
            return False  # `for p in ps: p.data.add_(1)` on one line
        last = src.line(stmt.end_lineno)
        after = last[src.node_end(stmt) - src.line_starts[stmt.end_lineno - 1] :].strip()
        if after and not after.startswith("#"):
            return False
        if stmt.lineno != stmt.end_lineno:
            for sub in walk_in_order(stmt):
                if isinstance(sub, (ast.Constant, ast.JoinedStr)) and isinstance(
                    getattr(sub, "value", ""), (str, bytes, list)
                ):
                    if sub.lineno != sub.end_lineno:
                        return False
        return True

    def _run(self, ctx, stmt: ast.stmt) -> list:
        """The consecutive sibling statements around ``stmt`` that are fixable `.data`
        writes, each with its core edits, so they share one `with torch.no_grad():`."""
        owner = ctx.parent(stmt)
        body = None
        for name in _BODY_FIELDS:
            block = getattr(owner, name, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                body = block
                break
        if body is None:
            return [(stmt, ())]
        key = (id(owner), id(body))
        all_runs = ctx.state(_State).runs
        runs = all_runs.get(key)
        if runs is None:
            runs = {}
            current: list = []
            for sibling in body:
                core = self._sibling_core(ctx, sibling)
                if core is not None:
                    current.append((sibling, core))
                    continue
                for member, _ in current:
                    runs[id(member)] = current
                current = []
            for member, _ in current:
                runs[id(member)] = current
            all_runs[key] = runs
        return runs.get(id(stmt)) or [(stmt, ())]

    def _sibling_core(self, ctx, stmt: ast.stmt) -> Optional[tuple]:
        if not isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign)) or ".data" not in ctx.text(stmt):
            return None
        if not self._owns_lines(ctx, stmt):
            return None
        edits: list = []
        for sub in walk_in_order(stmt):
            if isinstance(sub, ast.Attribute) and sub.attr == "data":
                access = classify(ctx, sub)
                if access is None or access.kind != "write":
                    continue
                if access.how == "init":
                    return None
                core = self._core_edits(ctx, access)
                if core is None:
                    return None
                edits.extend(core)
        return tuple(edits) or None


# Methods whose result may have a new dtype, device, layout or storage: `x.data = x.to(...)`
# moves `x` itself (as `Module._apply` does), which `x.copy_(...)` cannot do.
_STORAGE_CHANGING = frozenset(
    """to type half float double bfloat16 long int bool cuda cpu clone contiguous pin_memory
    share_memory_ to_dense to_sparse coalesce""".split()
)


# The start of each non-empty line after the first of a text.
_NEXT_LINE_RE = re.compile(r"\n(?=[^\r\n])")
_SAME_SHAPE = "; right only where the new value has the same shape, dtype and device"


# Methods whose one argument gives the result its shape (or dtype and device), not its values.
_SHAPED_LIKE_METHODS = frozenset({"expand_as", "view_as", "reshape_as", "type_as"})


def _derived_reshaped(ctx, value: ast.AST, own: str) -> bool:
    """``p.data = fn(p[.data])`` (as `Module._apply` does, or `mask.data = F.fold(mask, ...)`),
    a slice of a value computed from ``p`` (`m.data = t.reshape(m.shape)[:h]`) or ``p`` indexed
    (`w.data = w.data[mask == 1]`, pruning channels): the new value
    may have another shape, dtype or device, which `copy_` cannot give it. `torch.*_like(p)`
    and `x.expand_as(p)` give the value ``p``'s own shape and stay flagged (`conv3d.weight.data =
    conv.weight.data[:, :, None].expand_as(conv3d.weight) * k`, inflating a 2D kernel)."""
    mentions = False
    sliced = False
    shaped_like = set()  # ids of the arguments that only give the value their shape (`expand_as(p)`)
    sizes = _own_shape_texts(own)
    for sub in walk_in_order(value):
        if (
            isinstance(sub, (ast.Attribute, ast.Call))
            and id(sub) not in shaped_like
            and ctx.text(sub) in sizes
            and _sizes_kept_or_counted(ctx, sub)
        ):
            # `w2d[:, :, None].expand(w3d.data.size()) / w3d.shape[2]`: only `w3d`'s sizes are read
            shaped_like.update(id(n) for n in walk_in_order(sub))
            continue
        if isinstance(sub, ast.Call):
            name = sub.func.attr if isinstance(sub.func, ast.Attribute) else getattr(sub.func, "id", "")
            if name.endswith("_like") or name in _SHAPED_LIKE_METHODS:
                shaped_like.update(id(a) for a in sub.args)
            elif any(ctx.text(a) in (own, own + ".data") for a in sub.args):
                return True
        elif isinstance(sub, ast.Subscript) and (
            any(isinstance(n, ast.Slice) for n in walk_in_order(sub.slice))
            or ctx.text(sub.value) in (own, own + ".data")  # `w.data = w.data[mask == 1]`: pruned
        ):
            sliced = True
        elif isinstance(sub, (ast.Name, ast.Attribute)) and ctx.text(sub) == own and id(sub) not in shaped_like:
            mentions = True
    return mentions and sliced and not _reshaped_to_own_shape(ctx, value, own)


def _sizes_kept_or_counted(ctx, sizes: ast.AST) -> bool:
    """Whether a read of a tensor's sizes gives a value that size (``x.expand(w.size())``) or a
    number (``w.shape[2]``), not a shape something is then sliced from (``t.reshape(w.shape)[:h]``)."""
    parent = ctx.parent(sizes)
    if isinstance(parent, ast.Subscript) and parent.value is sizes and isinstance(parent.slice, ast.Constant):
        return True  # one size: a number
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr == "expand"
        and sizes in parent.args
    )


def _own_shape_texts(own: str) -> tuple:
    """How code spells the sizes of the tensor ``own`` (``w.shape``, ``w.data.size()``)."""
    return (f"{own}.shape", f"{own}.size()", f"{own}.data.shape", f"{own}.data.size()")


def _reshaped_to_own_shape(ctx, value: ast.AST, own: str) -> bool:
    """``torch.reshape(flat[i:j], p.shape)``, ``flat[i:j].view(p.size())``, ``x.view_as(p)``: a
    value made, last, into ``p``'s own shape (TRPO's line search setting each parameter from a
    flat vector), which `copy_` takes as it is."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in ("view_as", "reshape_as"):
        return len(value.args) == 1 and ctx.text(value.args[0]) == own
    if name not in ("reshape", "view"):
        return False
    shape = value.args[-1] if value.args else None
    return (
        len(value.args) == (2 if isinstance(func, ast.Attribute) and ctx.model.is_import(func.value) else 1)
        and shape is not None
        and ctx.text(shape) in _own_shape_texts(own)
    )


def _of_a_layer_just_built(ctx, site: ast.AST, recv: ast.AST) -> bool:
    """Whether ``self.<layer>.<param>.data = ...`` (or ``<layer>.<param>.data = ...`` of a local
    layer), in a function other than ``__init__``, gives a parameter of a torch layer the function
    builds by an earlier statement of the same block, with nothing but such assignments in
    between (``self.reparam_conv = nn.Conv2d(...)``, then ``self.reparam_conv.weight.data =
    kernel`` in RepVGG's re-parametrisation of a model that may already be on a GPU;
    ``linear_layer = nn.Linear(...)``, then ``linear_layer.weight.data = ptu.from_numpy(W.T)``,
    a value a helper makes): no graph can have saved the parameter, and the assignment gives it
    the new tensor's storage, shape and device, which ``copy_`` would not (the layer is built on
    the CPU, the value may live on a GPU). A layer a script or ``__init__`` builds is on the CPU
    as the value given to it: reported as before. So is a value torch makes there
    (``torch.tensor([[1., 1.]])``), or, for a local layer, one computed there (``w.to(torch.float)``):
    ``copy_`` does the same."""
    stmt = _enclosing_statement(ctx, site)
    if not (isinstance(stmt, ast.Assign) and isinstance(recv, ast.Attribute)):
        return False
    function = ctx.function
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__":
        return False
    if isinstance(recv.value, ast.Name):
        # a local layer: only where the value comes from a function that is not torch's
        # (`ptu.from_numpy(W.T)`, which may move it to a GPU), not a tensor computed here
        func = stmt.value.func if isinstance(stmt.value, ast.Call) else None
        qualified = ctx.imports.qualified_name(func) if func is not None else None
        if not (
            (isinstance(func, ast.Name) and qualified is None)
            or (qualified is not None and not qualified.startswith("torch."))
        ):
            return False
    elif not (
        isinstance(recv.value, ast.Attribute)
        and isinstance(recv.value.value, ast.Name)
        and recv.value.value.id == "self"
    ):
        return False
    if isinstance(stmt.value, ast.Call) and (ctx.imports.qualified_name(stmt.value.func) or "").startswith("torch."):
        return False
    return _layer_built_before(ctx, stmt, recv) is not None


def _layer_built_before(ctx, stmt: ast.AST, recv: ast.AST) -> Optional[ast.Assign]:
    """The statement building the torch layer whose parameter ``stmt`` (``<layer>.<param>.data =
    ...``) sets, where it comes earlier in the same block with nothing but such assignments in
    between (``conv = nn.Conv2d(1, 2, kernel_size=2)``, then ``conv.weight.data = k.view(1, 1, 2,
    2)``): nothing has run the layer, so no graph has saved its parameters."""
    if not (isinstance(stmt, ast.Assign) and isinstance(recv, ast.Attribute)):
        return None
    owner = ctx.text(recv.value)
    body = getattr(ctx.parent(stmt), "body", None)
    if not isinstance(body, list) or stmt not in body:
        return None
    for earlier in reversed(body[: body.index(stmt)]):
        if not isinstance(earlier, ast.Assign) or len(earlier.targets) != 1:
            return None
        target = earlier.targets[0]
        if ctx.text(target) == owner:
            built = isinstance(earlier.value, ast.Call) and (
                ctx.imports.qualified_name(earlier.value.func) or ""
            ).startswith("torch.nn.")
            return earlier if built else None
        if not (
            isinstance(target, ast.Attribute)
            and target.attr == "data"
            and isinstance(target.value, ast.Attribute)
            and ctx.text(target.value.value) == owner
        ):
            return None  # something else runs first: it may use the layer
    return None


# Dtypes other than torch's default float32, as code spells them (`dtype=float` is float64).
_OTHER_DTYPES = frozenset(
    """float double float64 torch.float64 torch.double torch.float16 torch.half torch.bfloat16 int long bool
    torch.int8 torch.uint8 torch.int16 torch.int32 torch.int torch.int64 torch.long torch.bool
    torch.complex64 torch.complex128""".split()
)
_OTHER_DTYPE_METHODS = frozenset({"double", "half", "bfloat16", "long", "int", "bool"})


def _of_another_dtype(ctx, site: ast.Assign) -> bool:
    """Whether ``x.data = value`` gives ``x`` a value whose dtype the code makes other than the
    default float32 (``kernel = torch.tensor(rows, dtype=float).view(1, 1, 2, 2)``, then
    ``deconv.weight.data = kernel``; ``w.data = q.double()``): a new dtype on purpose, which
    ``copy_`` would convert back."""
    if isinstance(site.value, ast.Name):
        # the bindings the name's value may come from (the loop's later ones too)
        return any(_made_of_another_dtype(ctx, binding.value) for binding in ctx.model.definitions(site.value))
    return _made_of_another_dtype(ctx, site.value)


def _made_of_another_dtype(ctx, value: Optional[ast.AST]) -> bool:
    """Whether ``value`` converts to another dtype anywhere in its chain of calls, attributes
    and subscripts (``torch.tensor(rows, dtype=float).view(1, 1, 2, 2)``, ``q.double()``)."""
    while isinstance(value, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Call):
            if any(k.arg == "dtype" and ctx.text(k.value) in _OTHER_DTYPES for k in value.keywords):
                return True
            if isinstance(value.func, ast.Attribute) and value.func.attr in _OTHER_DTYPE_METHODS and not value.args:
                return True
            value = value.func
        else:
            value = value.value
    return False


def _data_kept_in_a_container(ctx, value: Optional[ast.AST]) -> bool:
    """Whether ``value`` is an item of a dict or list of the function (or module) into which
    every store puts a tensor's ``.data`` (SeqGAN's rollout: ``dic[name] = param.data`` over one
    model, then ``param.data = dic[name]`` over the other), or of such a container on ``self``
    filled by the methods of the class (an EMA's ``apply_shadow`` keeping ``self.backup[name] =
    param.data``, its ``restore`` writing ``param.data = self.backup[name]``): the storage is
    shared (or given back), as with ``a.data = b.data``."""
    if not isinstance(value, ast.Subscript):
        return False
    container = dotted_name(value.value)
    if container is None:
        return False
    if isinstance(value.value, ast.Name):
        nodes = ctx.model.own_nodes(ctx.function if ctx.function is not None else ctx.tree)
    elif container.startswith("self.") and container.count(".") == 1 and ctx.method_class is not None:
        nodes = [node for node in walk_in_order(ctx.method_class) if isinstance(node, ast.Assign)]
    else:
        return False
    stores = []
    for node in nodes:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and dotted_name(target.value) == container:
                stores.append(node)
            elif dotted_name(target) == container and not _empty_container(node.value):
                return False  # `self.backup = copy.deepcopy(...)`: not only `.data` values
    return bool(stores) and all(isinstance(node.value, ast.Attribute) and node.value.attr == "data" for node in stores)


def _empty_container(value: ast.AST) -> bool:
    """``{}``, ``[]``, ``dict()`` or ``list()``: a container started empty."""
    if isinstance(value, (ast.Dict, ast.List)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list")
        and not value.args
        and not value.keywords
    )


def _swaps_own_storage(ctx, stmt: ast.AST, recv: ast.AST) -> bool:
    """Whether ``recv.data = recv[.data].<method>(...)...`` gives ``recv`` a new storage, dtype or
    device, or swaps in a tensor kept on ``recv`` itself (``p.data = p._mp_param``)."""
    value = getattr(stmt, "value", None)
    own = ctx.text(recv)
    if isinstance(value, ast.Attribute) and value.attr != "data" and ctx.text(value.value) == own:
        return True
    if isinstance(value, ast.Attribute) and value.attr == "data":
        return True  # `a.data = b.data`: `a` now shares `b`'s storage, which `copy_` would not do
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.value, ast.Attribute)
        and value.value.attr == "data"
        and all(isinstance(part, (ast.Slice, ast.Constant)) for part in _index_parts(value.slice))
    ):
        return True  # `a.data = b.data[1:]`: a view, `b`'s storage shared (Cadene's 1001 -> 1000 classes)
    if _data_kept_in_a_container(ctx, value):
        return True  # `dic[name] = p.data` of another model, then `param.data = dic[name]`: shared too
    if isinstance(recv, ast.Attribute) and recv.attr == "grad":
        return True  # `p.grad.data = view`: re-pointing a gradient at a buffer (FSDP, `Module._apply`)
    if value is not None and any(isinstance(k, ast.keyword) and k.arg == "memory_format" for k in walk_in_order(value)):
        return True  # a new memory format: `copy_` keeps the old strides
    if value is not None and _derived_reshaped(ctx, value, own):
        return True
    if isinstance(value, ast.Call) and _empty_tensor(ctx, value):
        return True  # `p.data = torch.empty(0, ...)`: its storage freed (ZeRO-3, offloading), not refilled
    # Down the chain of methods to its receiver: a storage-changing method anywhere in it
    # (`p.data = p.data.detach().clone()`, un-sharing a storage a bucket holds) on ``recv``.
    changes = False
    in_place = True  # every method of the chain writes its receiver and returns it
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        changes = changes or value.func.attr in _STORAGE_CHANGING
        in_place = in_place and value.func.attr in _RETURNING_ITSELF
        value = value.func.value
        if isinstance(value, ast.Attribute) and value.attr == "data":
            value = value.value
        if (changes or in_place) and ctx.text(value) == own:
            # `noisev.data = noisev.data.normal_(0, 1)`: its own storage given back to it (the
            # in-place write is reported where it is)
            return True
    return False


def _index_parts(index: ast.AST) -> list:
    """The parts of a subscript's index (``[1:, :3]`` has two)."""
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


# In-place methods that return their receiver: `x.data.normal_(0, 1)` is `x.data`, written.
_RETURNING_ITSELF = INPLACE_VALUE_METHODS | META_INPLACE_METHODS


def _empty_tensor(ctx, call: ast.Call) -> bool:
    """``torch.empty(0)``, ``torch.zeros(0, dtype=p.dtype)``, ``torch.tensor([])``: a tensor of
    no elements, made to drop the storage it replaces."""
    qual = ctx.imports.qualified_name(call.func) or ""
    if qual not in ("torch.empty", "torch.zeros", "torch.ones", "torch.tensor") or len(call.args) != 1:
        return False
    size = call.args[0]
    if isinstance(size, (ast.List, ast.Tuple)):
        return not size.elts if qual == "torch.tensor" else len(size.elts) == 1 and _zero(size.elts[0])
    return qual != "torch.tensor" and _zero(size)


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def _of_a_lazy_module(ctx, node: ast.Attribute) -> bool:
    """``self.net.weight.data.normal_()`` right after ``self.net = nn.LazyLinear(1)``, before the
    module runs: a lazy module's parameters are uninitialised until its first forward, which
    makes them again (the write does nothing; written without `.data`, `normal_` raises
    ValueError)."""
    target = node.value
    if not isinstance(target, ast.Attribute):
        return False
    owner = ctx.model.value(target.value)
    if owner.kind is not Kind.MODULE or not (owner.ref or "").startswith("torch.nn.Lazy"):
        return False
    # not once the module has run (`conv2d(X)` before the write, in a training loop): its
    # first forward made the parameters
    scope = ctx.function if ctx.function is not None else ctx.tree
    start = ctx.source.line_starts[scope.lineno - 1] if scope is not ctx.tree else 0  # type: ignore[attr-defined]
    before = ctx.source.text[start : ctx.source.line_starts[node.lineno - 1]]
    return f"{ctx.text(target.value)}(" not in before


def _view_added_to_a_list(ctx, call: ast.Call, recv: str, loop: Optional[ast.AST]) -> Optional[ast.AST]:
    """``w_list.append(w.data[0])`` (or ``w.data``, ``w.detach()``, ``w[0]``) in a loop around
    ``loop`` (or in it): a view of ``recv``'s storage of that iteration, kept in a list; where
    ``recv.data = ...`` gives ``recv`` a new storage each time, each item keeps its own values."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in LIST_ADDING_METHODS
        and len(call.args) == 1
        and loop is not None
    ):
        return None
    value = subscript_root(call.args[0])
    if isinstance(value, ast.Call) and not value.args and isinstance(value.func, ast.Attribute):
        value = value.func if value.func.attr == "detach" else value
    base = value.value if isinstance(value, ast.Attribute) and value.attr in ("data", "detach") else value
    if base is call.args[0] or ctx.text(base) != recv:
        return None  # `w_list.append(w)`: the tensor itself, which takes each new storage
    added_in = ctx.innermost_loop(call)
    if added_in is None or not any(ancestor is added_in for ancestor in (loop, *ctx.ancestors(loop))):
        return None
    return call.args[0]


def _aliases_zipped_with_the_parameters(ctx, site: ast.AST, recv: str) -> Optional[ast.AST]:
    """``old_params = [x.data for x in policy.parameters()]`` bound in the scope, and ``recv`` a
    target of a loop over ``zip(policy.parameters(), old_params, ...)`` (a TRPO line search's
    backup, written back with ``w.data = w_old + step``): the list shares each parameter's storage,
    which ``copy_`` would overwrite. The comprehension, if so."""
    loop = ctx.innermost_loop(site)
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return None
    if not (isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "zip"):
        return None
    targets = loop.target.elts if isinstance(loop.target, ast.Tuple) else []
    names = [t.id if isinstance(t, ast.Name) else None for t in targets]
    if recv not in names or len(names) != len(loop.iter.args):
        return None
    zipped = loop.iter.args
    parameters = ctx.text(zipped[names.index(recv)])
    if not parameters.endswith(".parameters()"):
        return None
    # the list comprehensions the zipped names' values come from
    comprehensions = [
        binding.value
        for arg in zipped
        if isinstance(arg, ast.Name)
        for binding in ctx.model.definitions(arg)
        if isinstance(binding.value, ast.ListComp) and len(binding.value.generators) == 1
    ]
    for comprehension in comprehensions:
        generator = comprehension.generators[0]
        element = comprehension.elt
        if isinstance(element, ast.Call) and not element.args and isinstance(element.func, ast.Attribute):
            element = element.func if element.func.attr == "detach" else element
        if (
            ctx.text(generator.iter) == parameters
            and isinstance(generator.target, ast.Name)
            and isinstance(element, ast.Attribute)
            and element.attr in ("data", "detach")
            and ctx.text(element.value) == generator.target.id
        ):
            return comprehension
    return None


def _old_storage_kept(ctx, site: ast.AST, recv: str) -> Optional[ast.AST]:
    """The value of a store that keeps ``recv``'s storage, without copying it, where it outlives
    the statement (an item or an attribute: ``self.backup[name] = param.data``; a view added to a
    list, ``w_list.append(w.data[0])``): in the loop of ``site`` (or its function, outside loops;
    a list in a loop around it), or in another method of its class (an EMA's ``apply_shadow``
    keeps it, its ``restore`` writes it back): storages kept on purpose."""
    function = ctx.function
    owner = ctx.method_class
    here = ctx.innermost_loop(site)
    candidates = []
    candidates.extend((node, True) for node in ctx.model.own_nodes(function if function is not None else ctx.tree))
    if owner is not None:
        # only the methods whose text holds `recv.data` or `recv.detach` (a test class of
        # thousands of methods is not walked for each write)
        text = ctx.source.text
        starts = ctx.source.line_starts
        lines = sorted(
            bisect.bisect_right(starts, at)
            for needle in (f"{recv}.data", f"{recv}.detach")
            for at in occurrences(text, needle)
        )
        candidates.extend(
            (node, False)
            for method in owner.body
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            and method is not function
            and bisect.bisect_left(lines, method.lineno)
            < bisect.bisect_right(lines, method.end_lineno or method.lineno)
            for node in walk_in_order(method)
        )
    for node, same_function in candidates:
        if same_function and type(node) is ast.Call:
            kept = _view_added_to_a_list(ctx, node, recv, here)
            if kept is not None:
                return kept
            continue
        if type(node) is not ast.Assign or node is site or len(node.targets) != 1:
            continue
        if not isinstance(node.targets[0], (ast.Subscript, ast.Attribute)):
            continue
        if same_function and ctx.innermost_loop(node) is not here:
            continue  # another loop's `param`: another tensor
        value = node.value
        if isinstance(value, ast.Call) and not value.args and not value.keywords:
            value = value.func if isinstance(value.func, ast.Attribute) and value.func.attr == "detach" else value
        if isinstance(value, ast.Attribute) and value.attr in ("data", "detach") and ctx.text(value.value) == recv:
            return node.value
    return None
