"""Reading a tensor through `.data`.

## What it does
Flags reads of `t.data` where `t` is known to be a tensor: a parameter from `parameters()`,
`named_parameters()` or an optimizer's `param_groups`, a `.weight`, `.bias` or `.grad`, a name
bound to a torch call, a model output or a loss; or where the method right after `.data` exists
only on tensors (`x.data.cpu()`, `x.data.numpy()`, `x.data.clone()`). Writes through `.data`
are GG102. Attributes that merely happen to be called `data` (`dataset.data`, `args.data`,
`batch["image"].data`, `self.data` on your own classes, `torch.utils.data`) are not flagged.

## Why is this bad?
`t.data` returns a tensor that shares `t`'s memory but has a fresh version counter and no
connection to autograd. If the result (or `t`) is later changed in place while a graph still
needs the old values, autograd cannot notice and the backward pass silently computes wrong
gradients. `t.detach()` shares memory *and* the version counter, so the same mistake raises
"one of the variables needed for gradient computation has been modified by an inplace
operation" instead. For reading values the two are otherwise the same.

## Example
```python
import torch

def accuracy(model, x, y):
    out = model(x)
    _, pred = torch.max(out.data, 1)
    return (pred == y).float().mean().item()
```

## Use instead
```python
import torch

def accuracy(model, x, y):
    out = model(x)
    _, pred = torch.max(out.detach(), 1)
    return (pred == y).float().mean().item()
```

## Fix safety
The fix replaces `.data` by `.detach()`. It is safe where the value is only read: consumed
by a method or attribute that copies or reduces it (`.clone()`, `.item()`, `.sum()`,
`.shape`), passed to a tensor method or to a reading torch function (`torch.max`,
`torch.cat`), compared, used in arithmetic or printed. It is unsafe where the value escapes
(bound to a name, returned, stored, passed to an unknown function): if that value is later
changed in place while a graph needs it, the fixed code raises a RuntimeError where the
original silently produced wrong gradients.
"""

from __future__ import annotations

import ast

from gradguard.check.model import Edit, Fix
from gradguard.check.analysis.data_attr import classify, data_name_span
from gradguard.check.rules.base import FIX_SOMETIMES, Invalid, Rule, Valid


class TensorDataRead(Rule):
    code = "GG101"
    name = "tensor-data-read"
    summary = "reading `t.data` bypasses autograd's version counter: use `t.detach()`"
    fix_availability = FIX_SOMETIMES
    triggers = (".data",)
    function_triggers = (".data",)

    valid = (
        Valid(
            "import torch\nfrom torch.utils.data import DataLoader\nimport torch.utils.data\nds = torch.utils.data.TensorDataset(x)\n"
        ),
        Valid(
            "import torch\ndef f(dataset, args, response, batch):\n    a = dataset.data.cpu()\n    b = args.data\n    c = response.data\n    d = batch['image'].data\n    return a, b, c, d\n"
        ),
        Valid("import torch\nimport numpy as np\narr = np.zeros(3)\nbuf = arr.data\n"),
        Valid(
            "import torch\nfrom torchvision import datasets\ntrainset = datasets.MNIST('.', download=True)\nmnist = trainset\nimgs = trainset.data.numpy(), mnist.data.clone()\n"
        ),
        Valid(
            "import torch\nimport numpy as np\nclass Edge:\n    def __init__(self):\n        self.weight = np.ones(3)\n    def raw(self):\n        return self.weight.data\n"
        ),
        Valid(
            "import torch\nclass Holder:\n    def __init__(self, data):\n        self.data = data\n    def get(self):\n        return self.data.clone()\n"
        ),
        Valid(
            "import torch\nimport torch.nn as nn\nclass M(nn.Module):\n    def __init__(self, w):\n        super().__init__()\n        self.w = nn.Parameter(w.weight.data)\n"
        ),
        Valid("import torch\nfor p in model.parameters():\n    p.data.mul_(0.5)\n"),  # a write: GG102
        Valid(
            "import torch\nfrom torch.nn.utils.rnn import pack_padded_sequence\ndef f(model, x, n):\n    out, h = model(pack_padded_sequence(x, n))\n    return out.data.sum()\n"
        ),
        Valid("import torch\nfor p in model.parameters():\n    print(p.detach().norm())\n"),
    )
    invalid = (
        Invalid(
            "import torch\nfor p in model.parameters():\n    print(p.data.norm())\n",
            fixed="import torch\nfor p in model.parameters():\n    print(p.detach().norm())\n",
        ),
        Invalid(
            "import torch\ndef f(model, x):\n    out = model(x)\n    return out.data.cpu().numpy()\n",
            fixed="import torch\ndef f(model, x):\n    out = model(x)\n    return out.detach().cpu().numpy()\n",
        ),
        Invalid(
            "import torch\ndef f(model, x):\n    out = model(x)\n    y = out.data\n    return y\n",
            fixed="import torch\ndef f(model, x):\n    out = model(x)\n    y = out.data\n    return y\n",
        ),
        Invalid(
            "import torch\ndef f(model, x):\n    out = model(x)\n    y = out.data\n    return y\n",
            fixed="import torch\ndef f(model, x):\n    out = model(x)\n    y = out.detach()\n    return y\n",
            unsafe=True,
        ),
        Invalid(  # metadata read through `.data` does not escape: a safe fix
            "import torch\ndef specs(model):\n    return {n: p.data.placements for n, p in model.named_parameters()}\n",
            fixed="import torch\ndef specs(model):\n    return {n: p.detach().placements for n, p in model.named_parameters()}\n",
        ),
        Invalid(
            "import torch\ndef snapshot(layer):\n    return layer.weight.data.clone()\n",
            fixed="import torch\ndef snapshot(layer):\n    return layer.weight.detach().clone()\n",
        ),
        Invalid(
            "import torch\ndef f(loss):\n    loss.backward()\n    return loss.data.item() > 0\n",
            fixed="import torch\ndef f(loss):\n    loss.backward()\n    return loss.detach().item() > 0\n",
        ),
    )

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if node.attr != "data" or not isinstance(node.ctx, ast.Load):
            return
        access = classify(ctx, ctx.facts(), node)
        if access is None or access.kind != "read":
            return
        recv = ctx.text(node.value)
        if "\n" in recv:
            recv = "t"
        start, end = data_name_span(ctx, node)
        edit = (Edit(start, end, "detach()"),)
        if access.safe:
            fix = Fix("safe", f"Use `{recv}.detach()`", edit)
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter; "
                f"`{recv}.detach()` reads the same values and keeps in-place checks"
            )
        else:
            fix = Fix(
                "unsafe",
                f"Use `{recv}.detach()` (the value escapes: an in-place change to it while a graph still needs "
                "the old values then raises instead of silently corrupting gradients)",
                edit,
            )
            message = (
                f"`{recv}.data` escapes here: it shares memory with `{recv}` but not its version counter, "
                "so an in-place change to it while a backward graph still needs the old values goes unnoticed and "
                "gives wrong gradients; use `.detach()`"
            )
        ctx.report(self.code, node, message, fix)
