"""`torch.tensor(t)` on a tensor.

## What it does
Flags `torch.tensor(t)` (also `from torch import tensor`, and the method form `ref.new_tensor(t)`, whose
advice is `t.detach().to(ref, copy=True)`, the receiver's dtype and device, with no fix) whose first argument
is known to be a tensor: a parameter, a `.weight`/`.bias`/`.grad`, a name bound to a torch call, a model output
or a loss. Lists of tensors (`torch.tensor([t1, t2])`) are not flagged: that is a different
call (it fails for multi-element tensors and converts one-element tensors to numbers). Nor is
a value only guessed to be a tensor that carries no graph: a batch of a data loader (or an item
of a data set iterated directly, `for left, label in train_set:`, whose `__getitem__` may hand
back lists and numbers), an item of it, a name unpacked from it or a builtin reduction of one (`torch.tensor(batch["tokens"])`,
`torch.tensor(sum(lengths))`: `default_collate` makes a list field of the dataset's items a list of
tensors, and a custom collate may hand back lists), unless a dataset class of the file, or of another
file of the run that the file imports, builds its items as tensors (`torch.from_numpy`, a `transform`), a batch of a loader known by its
name, an argument of `forward` (`T.tensor(observation)` there converts a gym observation, an
array), the `targets` of a `CIFAR10` (a list; only the MNIST family's are tensors), nor the label of
an item of a torchvision classification data set without a `target_transform` (`image, label =
train_set[0]`: `int(self.targets[i])`, a Python int). An attribute a method assigned just before, in
its own body, holds what it assigned there (`self.x = df[cols].values`, then `self.x =
torch.tensor(self.x)`: an array, whatever the class stores in `self.x` afterwards).

## Why is this bad?
`torch.tensor` is meant for Python data. Given a tensor it copies it and silently drops the
autograd graph: the result never requires grad unless `requires_grad=True` is passed, and then
it is a new leaf, not connected to `t`. torch warns at run time ("To copy construct from a
tensor, it is recommended to use sourceTensor.detach().clone() ..."). Code that meant to keep
gradients flowing loses them without an error; code that meant a copy says so more clearly
with `t.detach().clone()`.

## Example
```python
import torch

def target(model, x):
    out = model(x)
    return torch.tensor(out)
```

## Use instead
```python
import torch

def target(model, x):
    out = model(x)
    return out.detach().clone()
```

## Fix safety
The fix writes `t.detach().clone()`, which is what `torch.tensor(t)` computes, and is safe.
Keyword arguments are carried over: `dtype=` and `device=` become
`.to(dtype=..., device=...)` after the clone, `requires_grad=True` becomes
`.requires_grad_()`, `requires_grad=False` is dropped. Calls with other arguments
(`pin_memory=`, `**kwargs`, more positional arguments) and calls with a comment inside get no fix. The result may keep `t`'s
strides where `torch.tensor` could return a contiguous copy; values, dtype, device and grad
state are the same.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from gradguard.check.analysis.data_attr import has_comment
from gradguard.check.analysis.imports import assigned_names
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Grad, Kind, tensor
from gradguard.check.analysis.vocabulary import TENSOR_MAKING_RE
from gradguard.check.model import Applicability, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid

_TENSOR_FUNCTIONS = ("torch.tensor",)
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


# What the copied value may be written as to be a tensor (a literal or a comprehension never is).
_SOURCES = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.BinOp, ast.UnaryOp)


def _a_tensor_to_report(ctx, source: ast.AST, value) -> bool:
    """Whether the copied value is a tensor the code shows well enough: not a weak guess with no
    graph of its own (a batch of a loader known only by its name, an argument of `forward`, mostly
    tensors, but one converted there is an array: `T.tensor(observation)`), nor a field of a
    loader's batch (`torch.tensor(batch["tokens"])`: no graph, and `default_collate` makes a list
    field a list of tensors, which `.detach()` cannot take) unless a data set of the file or run
    builds its items as tensors."""
    if not value.is_tensor or (value.weak and value.grad is not Grad.YES):
        return False
    return not (value.grad is Grad.NO and not _datasets_make_tensors(ctx) and _item_of_a_batch(ctx, source))


def _shown(ctx, source: ast.AST) -> tuple:
    """The copied value as a message shows it (``t`` when long), and as the receiver of a method."""
    text = ctx.text(source)
    short = text if len(text) <= 30 and "\n" not in text else "t"
    return short, short if short == "t" or isinstance(source, _ATOMS) else f"({short})"


def _guarded_not_tensor(ctx, node: ast.AST, name: str) -> bool:
    """Inside ``if not isinstance(name, ...)`` (or its ``else``): not a tensor there, unless the
    branch binds the name anew before the call (``if isinstance(x, np.ndarray): x =
    torch.from_numpy(x); x = torch.tensor(x)``)."""
    child, cur = node, ctx.parent(node)
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(cur, (ast.If, ast.IfExp)) and child is not cur.test:
            for sub in walk_in_order(cur.test):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "isinstance":
                    if sub.args and isinstance(sub.args[0], ast.Name) and sub.args[0].id == name:
                        return not _bound_before(cur, child, name)
        child, cur = cur, ctx.parent(cur)
    return False


def _moved(ctx, node: ast.AST) -> bool:
    """``x.to(device)``, ``x.cuda()``, ``x.cpu()`` of a value the code does not otherwise show:
    what torch moves between devices is a tensor or a module, and a module is no data."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr not in ("to", "cuda", "cpu"):
        return False
    return ctx.model.value(node.func.value).kind in (Kind.UNKNOWN, Kind.TENSOR)


def _bound_before(branching: ast.AST, statement: ast.AST, name: str) -> bool:
    """Whether a statement of the branch holding ``statement`` binds ``name`` before it."""
    for branch in (getattr(branching, "body", None), getattr(branching, "orelse", None)):
        if isinstance(branch, list) and statement in branch:
            return name in assigned_names(branch[: branch.index(statement)])
    return False


class TensorCopyConstruct(Rule):
    code = "GG103"
    name = "tensor-copy-construct"
    summary = "`torch.tensor(t)` on a tensor silently detaches: use `t.detach().clone()`"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = ("tensor(",)
    function_triggers = ("tensor(",)
    function_names = _TENSOR_FUNCTIONS

    valid = (
        # `new_tensor` of Python data: what it is for.
        Valid(
            """
            def restore_order(lengths, order):
                positions = lengths.new_tensor(list(range(len(lengths))))
                return positions.index_select(0, order)
            """
        ),
        # Items of a data set iterated directly, whose `__getitem__` hands back what `json.load` made: lists and ints.
        Valid(
            """
            import json

            import torch
            from torch.utils.data import Dataset


            class PathDataset(Dataset):
                def __init__(self, path):
                    with open(path) as f:
                        self.paths, self.labels = json.load(f)

                def __getitem__(self, i):
                    return self.paths[i], self.labels[i]

                def __len__(self):
                    return len(self.labels)


            def train(model, optimizer):
                for paths, label in PathDataset("train.json"):
                    paths = torch.tensor(paths)
                    label = torch.tensor(label)
                    loss = torch.nn.functional.cross_entropy(model(paths), label[None])
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """
        ),
        # An array the method stored in `self.x` just before (the class holds a tensor there afterwards).
        Valid(
            """
            import torch
            from torch.utils.data import Dataset


            class HousesDataset(Dataset):
                def __init__(self, df, cols):
                    self.x = df[cols].values
                    self.x = torch.tensor(self.x, dtype=torch.float)

                def __len__(self):
                    return len(self.x)

                def __getitem__(self, i):
                    return self.x[i]
            """
        ),
        # Fields of a data loader's batch: no graph, and a list field of the dataset's items comes
        # out of `default_collate` as a list of tensors, which `.detach()` cannot take.
        Valid(
            """
            import torch
            from torch.utils.data import DataLoader, Dataset


            class Pairs(Dataset):
                def __init__(self, data):
                    self.data = data

                def __len__(self):
                    return len(self.data)

                def __getitem__(self, idx):
                    return self.data[idx]


            def train(model, iterator, optimizer, criterion):
                for batch in iterator:
                    src = torch.tensor(batch["src_tokens"], dtype=torch.long)
                    trg = torch.tensor(batch["trg_tokens"], dtype=torch.long)
                    loss = criterion(model(src), trg)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            train(model, DataLoader(Pairs(pairs), batch_size=1), optimizer, criterion)
            """
        ),
        # A tokenizer's own encoding method hands back lists of ids: `prepare_for_model` names a
        # method that prepares inputs, not a model held in an attribute.
        Valid(
            """
            import torch
            from transformers import BertJapaneseTokenizer

            class NERTokenizer(BertJapaneseTokenizer):
                def encode_plus_tagged(self, text, labels, max_length):
                    ids = self.convert_tokens_to_ids(self.tokenize(text))
                    encoding = self.prepare_for_model(ids, max_length=max_length, padding="max_length")
                    encoding["labels"] = labels
                    return encoding

            tokenizer = NERTokenizer.from_pretrained("cl-tohoku/bert-base-japanese")
            for sample in data:
                encoding = tokenizer.encode_plus_tagged(sample["text"], sample["labels"], max_length=32)
                encoding = {k: torch.tensor(v) for k, v in encoding.items()}
            """
        ),
        # A loss's class weights, a list its class stores under `weight`: not a layer's parameter.
        Valid(
            """
            import torch
            import torch.nn as nn


            class SoftBCEDiceLoss(nn.Module):
                def __init__(self, weight=[0.2, 0.8]):
                    super().__init__()
                    self.weight = weight
                    self.bce_loss = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(self.weight[1]))
            """
        ),
        # `.item()` gives a Python number, whatever the model's `forward` (here a stub) returns.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Captioner(nn.Module):
                def forward(self, images, captions):
                    loss = 0.0
                    return loss

            model = Captioner()
            loss = model(images, captions).item()
            print(torch.tensor(loss) - torch.tensor(150.6))
            """
        ),
        # A data set class of the file holding the arrays it is handed: `self.y` is what its
        # `__init__` assigns, not a torch data set's `y` tensor.
        Valid(
            """
            import torch
            from torch.utils.data import Dataset


            class IMDBDataset(Dataset):
                def __init__(self, X, y):
                    self.X = X
                    self.y = y

                def __getitem__(self, index):
                    label = self.y[index]
                    return {"text": self.X[index], "labels": torch.tensor(label, dtype=torch.long)}

                def __len__(self):
                    return len(self.y)
            """,
        ),
        # Arrays made by one comprehension, masked by another whose name is also used elsewhere
        # with tensor methods: the name's uses in the other comprehension say nothing of these.
        Valid(
            """
            import torch
            from torchvision.ops import nms


            def boxes(model, x, candidates):
                with torch.no_grad():
                    probs = model(x)
                    confs, classes = torch.max(probs, -1)
                confs, classes = [t.detach().cpu().numpy() for t in [confs, classes]]
                keep = classes != 0
                confs, candidates = [t[keep] for t in [confs, candidates]]
                return nms(torch.tensor(candidates), torch.tensor(confs), 0.05)
            """,
        ),
        # An array converted in place: the later `.numpy()` uses are of the tensor it became.
        Valid(
            """
            import numpy as np
            import torch

            def make(x, sig):
                return np.sin(x) + np.random.randn(x.shape[0]) * sig

            train_x = np.linspace(0, 5, 50)
            train_y = make(train_x, sig=0.25)
            train_y = torch.tensor(train_y)
            with torch.no_grad():
                print(train_y.numpy())
            """,
        ),
        # A module bound to a name (`d2l = sys.modules[__name__]`), whatever its uses look like:
        # what its functions return is not a tensor for that.
        Valid(
            """
            import sys
            import torch

            d2l = sys.modules[__name__]

            to = lambda x, *args, **kwargs: x.to(*args, **kwargs)
            numpy = lambda x, *args, **kwargs: x.detach().numpy(*args, **kwargs)


            def cpu():
                return torch.device('cpu')


            def show(value):
                print(d2l.numpy(d2l.to(value, d2l.cpu())))


            def truncate_pad(line, num_steps, padding_token):
                if len(line) > num_steps:
                    return line[:num_steps]
                return line + [padding_token] * (num_steps - len(line))


            def encode(src_tokens, num_steps, device):
                src_tokens = d2l.truncate_pad(src_tokens, num_steps, 0)
                return torch.tensor(src_tokens, dtype=torch.long, device=device)
            """,
        ),
        Valid(
            """
            import torch
            x = torch.tensor([1.0, 2.0])
            y = torch.tensor(3.0, requires_grad=True)
            """,
        ),
        Valid(
            """
            import torch
            import numpy as np
            a = np.zeros(3)
            t = torch.tensor(a)
            """,
        ),
        Valid(
            """
            import torch
            def f(values):
                return torch.tensor(values)
            """,
        ),
        Valid(
            """
            import torch
            def f(model, x):
                out = model(x)
                return torch.tensor([out.item(), 1.0])
            """,
        ),
        Valid(
            """
            import torch
            x = torch.randn(3)
            y = torch.as_tensor(x)
            z = torch.tensor(x.tolist())
            """,
        ),
        Valid(
            """
            import torch
            def f(x, n):
                x = torch.tensor(x)
                n = torch.tensor(n, dtype=torch.float32)
                return x, n
            """,
        ),
        Valid(
            """
            import torch
            v = torch.zeros(1)
            if not isinstance(v, torch.Tensor):
                v = torch.tensor(v)
            """,
        ),
        # The type check's branch converts the value it saw: no earlier binding there.
        Valid(
            """
            import numpy as np
            import torch
            def to_tensor(sample, device):
                if isinstance(sample, np.ndarray):
                    sample = sample.astype(np.int64)
                if not isinstance(sample, torch.Tensor):
                    sample = torch.tensor(sample, device=device)
                return sample
            """,
        ),
        # An array's own conversion moves nothing to a device.
        Valid(
            """
            import numpy as np
            import torch
            batch = torch.tensor(img.astype(np.float32)).unsqueeze(0)
            """,
        ),
        Valid(
            """
            import torch
            class A:
                def tensor(self, t):
                    return t
            x = torch.zeros(2)
            y = A().tensor(x)
            """,
        ),
    )
    invalid = (
        # The method form: `new_tensor` copies a tensor into the receiver's dtype and device.
        Invalid(
            """
            import torch


            def restore_order(lengths, order):
                positions = lengths.new_tensor(torch.arange(0, len(lengths)))
                return positions.index_select(0, order)
            """,
            line=5,
            column=17,
            message="`lengths.new_tensor(torch.arange(0, len(lengths)))` copies a tensor and silently drops its "
            "autograd graph; write `torch.arange(0, len(lengths)).detach().to(lengths, copy=True)` to say so (same "
            "dtype and device as `lengths`)",
        ),
        # The same over a data set of the file that builds its items as tensors.
        Invalid(
            """
            import torch
            from torch.utils.data import Dataset


            class PathDataset(Dataset):
                def __init__(self, paths, labels):
                    self.paths = torch.as_tensor(paths)
                    self.labels = torch.as_tensor(labels)

                def __getitem__(self, i):
                    return self.paths[i], self.labels[i]

                def __len__(self):
                    return len(self.labels)


            def train(model, optimizer, paths, labels):
                for x, label in PathDataset(paths, labels):
                    x = torch.tensor(x)
                    loss = torch.nn.functional.cross_entropy(model(x), label[None])
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            line=19,
            column=13,
            message="`torch.tensor(x)` copies a tensor and silently drops its autograd graph; write `x.detach().clone()` to say so",
            fixed="""
            import torch
            from torch.utils.data import Dataset


            class PathDataset(Dataset):
                def __init__(self, paths, labels):
                    self.paths = torch.as_tensor(paths)
                    self.labels = torch.as_tensor(labels)

                def __getitem__(self, i):
                    return self.paths[i], self.labels[i]

                def __len__(self):
                    return len(self.labels)


            def train(model, optimizer, paths, labels):
                for x, label in PathDataset(paths, labels):
                    x = x.detach().clone()
                    loss = torch.nn.functional.cross_entropy(model(x), label[None])
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
        ),
        # A tensor the method stored in `self.x` just before.
        Invalid(
            """
            import torch
            from torch.utils.data import Dataset


            class HousesDataset(Dataset):
                def __init__(self, features):
                    self.x = torch.as_tensor(features).float()
                    self.x = torch.tensor(self.x)

                def __len__(self):
                    return len(self.x)

                def __getitem__(self, i):
                    return self.x[i]
            """,
            line=8,
            column=18,
            message="`torch.tensor(self.x)` copies a tensor and silently drops its autograd graph; write `self.x.detach().clone()` to say so",
            fixed="""
            import torch
            from torch.utils.data import Dataset


            class HousesDataset(Dataset):
                def __init__(self, features):
                    self.x = torch.as_tensor(features).float()
                    self.x = self.x.detach().clone()

                def __len__(self):
                    return len(self.x)

                def __getitem__(self, i):
                    return self.x[i]
            """,
        ),
        # The neural style tutorial's `Normalization`: the file constructs it only with tensors,
        # so its `__init__`'s `mean` is one.
        Invalid(
            """
            import torch
            import torch.nn as nn

            cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])


            class Normalization(nn.Module):
                def __init__(self, mean):
                    super(Normalization, self).__init__()
                    self.mean = torch.tensor(mean).view(-1, 1, 1)


            normalization = Normalization(cnn_normalization_mean)
            """,
            line=10,
            column=21,
            message="`torch.tensor(mean)` copies a tensor and silently drops its autograd graph; write "
            "`mean.detach().clone()` to say so",
            fixed="""
            import torch
            import torch.nn as nn

            cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])


            class Normalization(nn.Module):
                def __init__(self, mean):
                    super(Normalization, self).__init__()
                    self.mean = mean.detach().clone().view(-1, 1, 1)


            normalization = Normalization(cnn_normalization_mean)
            """,
        ),
        # A batch of a loader over a dataset of the file that builds its items as tensors
        # (`torch.from_numpy`): a copy of a tensor.
        Invalid(
            """
            import numpy as np
            import torch
            from torch.utils.data import DataLoader, Dataset


            class Diabetes(Dataset):
                def __init__(self, xy):
                    self.x_data = torch.from_numpy(xy[:, :-1])
                    self.y_data = torch.from_numpy(xy[:, [-1]])

                def __len__(self):
                    return len(self.x_data)

                def __getitem__(self, index):
                    return self.x_data[index], self.y_data[index]


            loader = DataLoader(Diabetes(np.zeros((10, 9), dtype=np.float32)), batch_size=2)
            for inputs, labels in loader:
                inputs = torch.tensor(inputs)
                print(inputs.shape, labels.shape)
            """,
            line=20,
            column=14,
            message="`torch.tensor(inputs)` copies a tensor and silently drops its autograd graph; write "
            "`inputs.detach().clone()` to say so",
            fixed="""
            import numpy as np
            import torch
            from torch.utils.data import DataLoader, Dataset


            class Diabetes(Dataset):
                def __init__(self, xy):
                    self.x_data = torch.from_numpy(xy[:, :-1])
                    self.y_data = torch.from_numpy(xy[:, [-1]])

                def __len__(self):
                    return len(self.x_data)

                def __getitem__(self, index):
                    return self.x_data[index], self.y_data[index]


            loader = DataLoader(Diabetes(np.zeros((10, 9), dtype=np.float32)), batch_size=2)
            for inputs, labels in loader:
                inputs = inputs.detach().clone()
                print(inputs.shape, labels.shape)
            """,
        ),
        # In the same loop, a copy of the model's output.
        Invalid(
            """
            import torch
            from torch.utils.data import DataLoader, Dataset


            class Pairs(Dataset):
                def __init__(self, data):
                    self.data = data

                def __len__(self):
                    return len(self.data)

                def __getitem__(self, idx):
                    return self.data[idx]


            def train(model, iterator, optimizer, criterion):
                for batch in iterator:
                    src = torch.tensor(batch["src_tokens"], dtype=torch.long)
                    trg = torch.tensor(model(batch["trg_tokens"]))
                    loss = criterion(model(src), trg)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            train(model, DataLoader(Pairs(pairs), batch_size=1), optimizer, criterion)
            """,
            line=19,
            column=15,
            message='`torch.tensor(model(batch["trg_tokens"]))` copies a tensor and silently drops its autograd graph; '
            'write `model(batch["trg_tokens"]).detach().clone()` to say so',
            fixed="""
            import torch
            from torch.utils.data import DataLoader, Dataset


            class Pairs(Dataset):
                def __init__(self, data):
                    self.data = data

                def __len__(self):
                    return len(self.data)

                def __getitem__(self, idx):
                    return self.data[idx]


            def train(model, iterator, optimizer, criterion):
                for batch in iterator:
                    src = torch.tensor(batch["src_tokens"], dtype=torch.long)
                    trg = model(batch["trg_tokens"]).detach().clone()
                    loss = criterion(model(src), trg)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            train(model, DataLoader(Pairs(pairs), batch_size=1), optimizer, criterion)
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.randn(3)
            y = torch.tensor(x)
            """,
            line=3,
            column=5,
            message="`torch.tensor(x)` copies a tensor and silently drops its autograd graph; write `x.detach().clone()` to say so",
            fixed="""
            import torch
            x = torch.randn(3)
            y = x.detach().clone()
            """,
        ),
        # What moves between devices is a tensor (a module is no data), whatever made it.
        Invalid(
            """
            import torch
            img = transforms(img)
            batch = torch.tensor(img.to(device)).unsqueeze(0)
            """,
            line=3,
            column=9,
            message="`torch.tensor(img.to(device))` copies a tensor and silently drops its autograd graph; write `img.to(device).detach().clone()` to say so",
            fixed="""
            import torch
            img = transforms(img)
            batch = img.to(device).detach().clone().unsqueeze(0)
            """,
        ),
        # A comparison of a padded batch is a tensor of booleans.
        Invalid(
            """
            import torch
            from torch.nn.utils.rnn import pad_sequence
            def collate(sentences):
                sentence = pad_sequence(sentences, batch_first=True, padding_value=1)
                mask = sentence != 1
                return sentence, torch.tensor(mask, dtype=torch.float)
            """,
            line=6,
            column=22,
            message="`torch.tensor(mask)` copies a tensor and silently drops its autograd graph; write `mask.detach().clone()` to say so",
            fixed="""
            import torch
            from torch.nn.utils.rnn import pad_sequence
            def collate(sentences):
                sentence = pad_sequence(sentences, batch_first=True, padding_value=1)
                mask = sentence != 1
                return sentence, mask.detach().clone().to(dtype=torch.float)
            """,
        ),
        # The array a type check saw is replaced by a tensor before the call.
        Invalid(
            """
            import numpy as np
            import torch
            def to_tensor(sample, device):
                if isinstance(sample, np.ndarray):
                    sample = torch.from_numpy(sample).long()
                    sample = torch.tensor(sample, device=device)
                return sample
            """,
            line=6,
            column=18,
            message="`torch.tensor(sample)` copies a tensor and silently drops its autograd graph; write `sample.detach().clone()` to say so",
            fixed="""
            import numpy as np
            import torch
            def to_tensor(sample, device):
                if isinstance(sample, np.ndarray):
                    sample = torch.from_numpy(sample).long()
                    sample = sample.detach().clone().to(device=device)
                return sample
            """,
        ),
        Invalid(
            """
            import torch
            from torch import tensor
            def f(model, x):
                out = model(x)
                return tensor(out, dtype=torch.float16, device='cuda')  # half copy
            """,
            line=5,
            column=12,
            message="`torch.tensor(out)` copies a tensor and silently drops its autograd graph; write `out.detach().clone()` to say so",
            fixed="""
            import torch
            from torch import tensor
            def f(model, x):
                out = model(x)
                return out.detach().clone().to(dtype=torch.float16, device='cuda')  # half copy
            """,
        ),
        Invalid(
            """
            import torch
            for p in model.parameters():
                q = torch.tensor(p * 2, requires_grad=True)
            """,
            line=3,
            column=9,
            message="`torch.tensor(p * 2)` copies a tensor and silently drops its autograd graph; write `(p * 2).detach().clone()` to say so",
            fixed="""
            import torch
            for p in model.parameters():
                q = (p * 2).detach().clone().requires_grad_()
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.randn(3)
            y = torch.tensor(x, pin_memory=True)
            """,
            line=3,
            column=5,
            message="`torch.tensor(x)` copies a tensor and silently drops its autograd graph; write `x.detach().clone()` to say so",
            fixed="""
            import torch
            x = torch.randn(3)
            y = torch.tensor(x, pin_memory=True)
            """,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "new_tensor" and node.args:
            self._new_tensor(node, func, ctx)
            return
        if not node.args or (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) != "tensor":
            return
        if ctx.imports.qualified_name(func) not in _TENSOR_FUNCTIONS:
            return
        source = node.args[0]
        if not isinstance(source, _SOURCES):
            return  # a literal, a comprehension: never a tensor
        value = ctx.model.value(source)
        if not value.is_tensor and _moved(ctx, source):
            value = tensor(Grad.MAYBE)  # `torch.tensor(img.to(device))`: only a tensor (or a module) moves
        if not _a_tensor_to_report(ctx, source, value):
            return
        if isinstance(source, ast.Name) and _guarded_not_tensor(ctx, node, source.id):
            return
        text = ctx.text(source)
        short, receiver = _shown(ctx, source)
        message = (
            f"`torch.tensor({short})` copies a tensor and silently drops its autograd graph; "
            f"write `{receiver}.detach().clone()` to say so"
        )
        ctx.report(self.code, node, message, self._fix(ctx, node, text))

    def _new_tensor(self, node: ast.Call, func: ast.Attribute, ctx) -> None:
        """``lengths.new_tensor(torch.arange(n))``: the method form, which copies a tensor given to it
        and drops its graph as ``torch.tensor`` does (torch warns the same), into the receiver's dtype
        and device: ``t.detach().to(lengths, copy=True)`` says so. No fix: the receiver's expression
        would be evaluated a second time."""
        source = node.args[0]  # (only a tensor has `new_tensor`: the receiver is one)
        if not isinstance(source, _SOURCES) or not _a_tensor_to_report(ctx, source, ctx.model.value(source)):
            return
        short, inner = _shown(ctx, source)
        recv = ctx.text(func.value)
        recv = recv if len(recv) <= 30 and "\n" not in recv else "ref"
        ctx.report(
            self.code,
            node,
            f"`{recv}.new_tensor({short})` copies a tensor and silently drops its autograd graph; write "
            f"`{inner}.detach().to({recv}, copy=True)` to say so (same dtype and device as `{recv}`)",
        )

    def _fix(self, ctx, node: ast.Call, text: str):
        if len(node.args) != 1 or has_comment(ctx, node):
            return None
        if not isinstance(node.args[0], _ATOMS):
            text = f"({text})"
        to_args = []
        tail = ""
        for kw in node.keywords:
            if kw.arg in ("dtype", "device"):
                to_args.append(f"{kw.arg}={ctx.text(kw.value)}")
            elif kw.arg == "requires_grad":
                value = kw.value
                if isinstance(value, ast.Constant) and value.value is False:
                    continue
                if isinstance(value, ast.Constant) and value.value is True:
                    tail = ".requires_grad_()"
                else:
                    tail = f".requires_grad_({ctx.text(value)})"
            else:
                return None
        new = f"{text}.detach().clone()"
        if to_args:
            new += f".to({', '.join(to_args)})"
        new += tail
        return Fix(
            Applicability.SAFE,
            f"Replace with `{new}`" if len(new) < 60 else "Replace with `.detach().clone()`",
            (ctx.replace(node, new),),
        )


def _item_of_a_batch(ctx, source: ast.AST, depth: int = 0) -> bool:
    """Whether ``source`` is a batch of a data loader (or an item of a data set iterated
    directly), or an item, attribute or builtin reduction of one (``batch["tokens"]``,
    ``sum(lengths)``): its name is bound only by ``for`` loops over a loader (``for batch in
    tqdm(iterator)``) or a data set, or by unpacking such a batch (``x, y, lengths = data``)."""
    root = source
    while True:
        if isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        elif (
            isinstance(root, ast.Call)
            and isinstance(root.func, ast.Name)
            and root.func.id in _BUILTIN_REDUCTIONS
            and len(root.args) == 1
        ):
            root = root.args[0]  # `sum(input_lengths)`
        else:
            break
    if not isinstance(root, ast.Name):
        return False
    bindings = ctx.model.definitions(root)
    if not bindings:
        return False
    for binding in bindings:
        node = binding.node
        if isinstance(node, (ast.For, ast.AsyncFor)):
            # a loader's batches, or a data set's items iterated directly (`for left, label in
            # train_dataset:`, what its `__getitem__` returns: lists and numbers as often as tensors)
            if ctx.model.value(node.iter).kind not in (Kind.LOADER, Kind.DATASET):
                return False
        elif not (
            depth < 2
            and isinstance(node, ast.Assign)
            and isinstance(node.value, (ast.Name, ast.Subscript))
            and _item_of_a_batch(ctx, node.value, depth + 1)
        ):
            return False
    return True


_BUILTIN_REDUCTIONS = frozenset({"sum", "max", "min", "len", "list", "tuple"})


def _datasets_make_tensors(ctx) -> bool:
    """Whether a ``Dataset`` class of the file, or one of another file of the run that the file
    imports, builds its items as tensors (``self.x_data = from_numpy(xy)``, a ``transform``): then
    its loader's batches hold tensors, not lists."""
    state = ctx.state(_Found)
    found = state.datasets_make_tensors
    if found is None:
        found = (
            any(
                isinstance(node, ast.ClassDef)
                and any("Dataset" in ctx.text(base) for base in node.bases)
                and TENSOR_MAKING_RE.search(ctx.text(node)) is not None
                for node in ctx.tree.body
            )
            or ctx.model.imports_tensor_making_dataset()
        )
        state.datasets_make_tensors = found
    return found


@dataclass
class _Found:
    """What the rule works out once per file."""

    datasets_make_tensors: Optional[bool] = None
