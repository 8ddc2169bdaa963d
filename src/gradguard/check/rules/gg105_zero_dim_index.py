"""Indexing a 0-dim tensor: `loss.data[0]`.

## What it does
Flags `[0]` (and `[-1]`) on a tensor that has no dimensions: a loss from a criterion or a
loss function (unless built with `reduction="none"`), a full reduction (`x.sum()`,
`(pred == y).sum()`, `torch.mean(x)`), arithmetic on those (also torch's element-wise functions of two
such values or numbers, `torch.div(loss, len(loader))`, and comparisons of such values, `(loss == loss)`); directly (`loss[0]`) or through
`.data`, `.cpu()`, `.detach()` or `.numpy()` (`loss.data[0]`, `loss.cpu().data.numpy()[0]`; a full reduction of
a value the code does not show, where the chain shows a tensor: `x.long().sum().data.cpu()[0]`);
a tensor the code calls `backward()` on without a gradient (`train_loss = model(batch,
is_train=True)`, then `train_loss.backward()`: autograd takes that only of a one-element output;
not where the tensor is a reduction over named dimensions, `-torch.mean(logp, 0)`, whose one
element of a `(B, 1)` output has shape (1,));
also what a function of the file or of another file of the run returns that way
(`check_acc(scores, labels)[0]` of `return torch.mean(...)`), and such a value made a numpy
array (`loss, q = self.optimize(...)` of `return loss.data.cpu().numpy(), q`, then `loss[0]`:
a 0-dim array).
Where a value is known only from its name (`loss = loss_fn(out, y)` with `loss_fn` a
parameter), only the `.data[0]` / `.numpy()[0]` forms are flagged: `compute_loss(...)[0]` may
take the first item of a tuple; but a name the code only sets to a number and adds to
(`total_loss = 0`, then `total_loss += loss.data`) holds a sum, never a tuple, and its `[0]` is
flagged. A tensor that keeps a dimension (`out.max(1)[0]`,
`loss_per_sample[0]`, `torch.zeros(1)[0]`) is not flagged, nor a loss computed by an instance of
a class imported from a package other than torch (warp-ctc's `CTCLoss()(...)` has shape (1,),
whose `[0]` is its value; also where the function is handed it by the file's calls, `loss_fn =
CTCLoss()`, then `train(model, loader, loss_fn)`): GG101 advises `.item()` there, right for
either shape.

## Why is this bad?
Before PyTorch 0.4 a reduced loss was a 1-element tensor and `loss.data[0]` read its value;
tutorials of that time use it on every logging line. Since 0.4 reductions return 0-dim
tensors; indexing one warned in 0.4 ("This will be an error in PyTorch 0.5") and raises since
1.0: `IndexError: invalid index of a 0-dim tensor. Use tensor.item() in Python`
(`.numpy()[0]`: `IndexError: too many indices for array`), usually after the first training
step has run.

## Example
```python
import torch.nn as nn

criterion = nn.CrossEntropyLoss()

def train_step(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.data[0]
```

## Use instead
```python
import torch.nn as nn

criterion = nn.CrossEntropyLoss()

def train_step(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
```

## Fix safety
The fix replaces the index and the `.data` / `.cpu()` / `.numpy()` before it with `.item()`
and is safe: the original expression raises every time it runs, and `.item()` returns the
Python number that `loss.data[0]` returned before PyTorch 0.4.
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.project import current as current_project
from gradguard.check.analysis.vocabulary import RETURNS_A_REDUCTION_RE
from gradguard.check.analysis.zero_dim import ZERO_DIM_HINTS, reducing_functions, zero_dim_index
from gradguard.check.model import Applicability, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.check.triggers import TextSearch
from gradguard.common.text import short

_PLAIN = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


class ZeroDimIndex(Rule):
    code = "GG105"
    name = "zero-dim-index"
    summary = "`loss.data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `.item()`"
    fix_availability = FixAvailability.SAFE
    severity = Severity.ERROR
    # `.data[0]` / `.numpy()[0]`, or a plain `x[0]` where the function shows a 0-dim value made.
    triggers = (".data", "numpy", *ZERO_DIM_HINTS)
    function_triggers = triggers

    def applies_to(self, text: str, search: Optional[TextSearch] = None) -> bool:
        """One of ``triggers`` occurs, a function of the file returns a full reduction, or the
        file calls one of the run's (``check_acc(scores, labels)[0]`` in a file whose own text
        shows none)."""
        if super().applies_to(text, search):
            return True
        if ("mean(" in text or "sum(" in text) and RETURNS_A_REDUCTION_RE.search(text) is not None:
            return True  # a function of the file returns one
        project = current_project()
        return project is not None and any(f"{name}(" in text for name in project.reducing_function_names())

    def file_function_triggers(self, ctx) -> frozenset:
        """Calls of the functions, the file's or the run's, that return a full reduction
        (``checkAcc(model, x, y)[0]`` of ``return torch.mean(...)``)."""
        return frozenset(f"{name}(" for name in reducing_functions(ctx))

    valid = (
        # A comparison of per-sample predictions keeps their dimension.
        Valid(
            """
            from torch import nn


            def step(model, x, y):
                loss = nn.functional.mse_loss(model(x), y)
                correct = model(x).argmax(1) == y
                print(correct.data[0])
                loss.backward()
            """
        ),
        # `torch.div` of a tensor of one value per sample keeps its dimension.
        Valid(
            """
            import torch


            def accuracy(pred, label):
                acc = torch.eq(pred, label).float()
                acc = torch.div(acc, len(label))
                print(acc.data.numpy()[0])
            """
        ),
        # `flatten()` gives a 0-dim loss the shape (1,): its `[0]` is its value.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def train(model, optimizer, loader):
                losses = []
                for x, y in loader:
                    loss = F.cross_entropy(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.append(loss.detach().flatten()[0])
                return torch.stack(losses)
            """
        ),
        # The same reduction of a parameter nothing shows is a tensor (an array's `.data` is a memoryview).
        Valid(
            """
            import torch


            def overlap(input, target):
                inter = (input * target).sum().data[0]
                return inter / input.numel()
            """
        ),
        # warp-ctc's loss handed in by the file's caller (`loss_fn = CTCLoss()`, then `train(..., loss_fn, ...)`).
        Valid(
            """
            import torch
            from warpctc_pytorch import CTCLoss


            def train(model, loader, loss_fn, optimizer):
                total = 0.0
                for inputs, targets, input_sizes, target_sizes in loader:
                    loss = loss_fn(model(inputs), targets, input_sizes, target_sizes)
                    loss /= inputs.size(0)
                    total += loss.data[0]
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return total


            def main(model, loader):
                loss_fn = CTCLoss()
                optimizer = torch.optim.Adam(model.parameters())
                return train(model, loader, loss_fn, optimizer)
            """
        ),
        # A mean over a named dimension, of a (B, 1) output: shape (1,), whose `[0]` is its value
        # (`backward()` without a gradient takes one element of any shape).
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def discriminator_loss(discriminator, real, fake):
                logp_real = F.logsigmoid(discriminator(real))
                logp_fake = F.logsigmoid(-discriminator(fake))
                return -torch.mean(logp_real, 0) - torch.mean(logp_fake, 0)


            def train(discriminator, batches, fake, optimizer, losses):
                for real in batches:
                    loss = discriminator_loss(discriminator, real, fake)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.append(loss.data.cpu().numpy()[0])
            """
        ),
        # warp-ctc's loss, a tensor of shape (1,): its `[0]` is its value (GG101 advises
        # `.item()`, right for either shape).
        Valid(
            """
            import torch
            from warpctc_pytorch import CTCLoss

            ctc = CTCLoss().type(torch.FloatTensor)


            def train(model, batches, optimizer):
                total = 0.0
                for images, targets, image_lengths, target_lengths in batches:
                    optimizer.zero_grad()
                    loss = ctc(model(images), targets, image_lengths, target_lengths) / len(images)
                    loss.backward()
                    optimizer.step()
                    total += loss.data[0]
                return total
            """
        ),
        # The same with per-element losses (`reduction="none"`): an array with a dimension.
        Valid(
            """
            import torch.nn.functional as F


            class Agent:
                def optimize(self, q, target):
                    loss = F.smooth_l1_loss(q, target, reduction="none")
                    loss.mean().backward()
                    return loss.cpu().numpy(), q.mean()

                def train(self, q, target, losses):
                    loss, q_mean = self.optimize(q, target)
                    losses.append(loss[0])
            """
        ),
        # A helper handing back a list holding the mean: its first item is the tensor.
        Valid(
            """
            import torch


            def accuracy(scores, labels):
                predicted = torch.as_tensor(scores).argmax(1)
                return [torch.mean((predicted == torch.as_tensor(labels)).float())]


            def report(scores, labels):
                print("accuracy:", accuracy(scores, labels)[0])
            """
        ),
        Valid(
            """
            import torch.nn as nn

            criterion = nn.CrossEntropyLoss()

            def step(model, x, y):
                loss = criterion(model(x), y)
                return loss.item()
            """,
        ),
        # A loss per sample keeps its batch dimension.
        Valid(
            """
            import torch.nn as nn

            criterion = nn.CrossEntropyLoss(reduction="none")

            def hardest(model, x, y):
                losses = criterion(model(x), y)
                return losses[0], losses.data[0]
            """,
        ),
        Valid(
            """
            import torch

            def best(out):
                values = out.max(1)[0]
                first = torch.zeros(1)[0]
                return values[0], first
            """,
        ),
        # A loss function known only by its name may return a tuple.
        Valid(
            """
            def step(compute_loss, pred, targets):
                loss = compute_loss(pred, targets)[0]
                return loss
            """,
        ),
        Valid(
            """
            import torch

            def f(x):
                total = x.sum()
                return total[None], total[...]
            """,
        ),
        Valid(
            # `.tolist()[0]` of a batch of ids: the first row
            """
            import torch

            def first_ids(batch: torch.Tensor):
                return batch.data.tolist()[0]
            """
        ),
    )
    invalid = (
        # A comparison of a 0-dim loss with itself (a NaN check) is 0-dim too.
        Invalid(
            """
            from torch import nn


            def step(model, x, y):
                loss = nn.functional.mse_loss(model(x), y)
                assert (loss == loss).data[0]
                loss.backward()
            """,
            line=6,
            column=12,
            message="`(loss == loss).data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use "
            "`(loss == loss).item()`",
            fixed="""
            from torch import nn


            def step(model, x, y):
                loss = nn.functional.mse_loss(model(x), y)
                assert (loss == loss).item()
                loss.backward()
            """,
        ),
        # A mean computed with `torch.div` of a sum by a count is 0-dim too.
        Invalid(
            """
            import torch


            def accuracy(pred, label):
                acc = torch.eq(pred, label).float()
                acc = torch.div(acc.sum(), len(label))
                print(acc.data.numpy()[0])
            """,
            line=7,
            column=11,
            message="`acc.data.numpy()[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `acc.item()`",
            fixed="""
            import torch


            def accuracy(pred, label):
                acc = torch.eq(pred, label).float()
                acc = torch.div(acc.sum(), len(label))
                print(acc.item())
            """,
        ),
        # A loss kept on `self` by one method and read by another (a GAN trainer's error report).
        Invalid(
            """
            import torch

            class GenModel:
                def __init__(self):
                    self.criterionL1 = torch.nn.L1Loss()

                def backward_G(self):
                    self.loss_G_L1 = self.criterionL1(self.fakes, self.reals)
                    self.loss_G_L1.backward()

                def get_current_errors(self):
                    return {"G_L1": self.loss_G_L1.data[0]}
            """,
            line=12,
            column=25,
            message="`self.loss_G_L1.data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use "
            "`self.loss_G_L1.item()`",
            fixed="""
            import torch

            class GenModel:
                def __init__(self):
                    self.criterionL1 = torch.nn.L1Loss()

                def backward_G(self):
                    self.loss_G_L1 = self.criterionL1(self.fakes, self.reals)
                    self.loss_G_L1.backward()

                def get_current_errors(self):
                    return {"G_L1": self.loss_G_L1.item()}
            """,
        ),
        # A full reduction of values the code shows are a tensor (`.long()`, `.cpu()`), whatever the
        # parameter holds: 0-dim.
        Invalid(
            """
            import torch


            def overlap(input, target):
                inter = (input * target).long().sum().data.cpu()[0]
                return inter / input.numel()
            """,
            line=5,
            column=13,
            message="`(input * target).long().sum().data.cpu()[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `(input * target).long().sum().item()`",
            fixed="""
            import torch


            def overlap(input, target):
                inter = (input * target).long().sum().item()
                return inter / input.numel()
            """,
        ),
        # A model that returns its own loss: `train_loss.backward()`, called without a gradient,
        # shows a one-element output, a reduced loss.
        Invalid(
            """
            def train(model, batches, optimizer):
                for i, batch in enumerate(batches):
                    optimizer.zero_grad()
                    train_loss = model(batch, is_train=True)
                    train_loss.backward()
                    optimizer.step()
                    if i % 100 == 0:
                        print(i, train_loss.data[0])
            """,
            line=8,
            column=22,
            message="`train_loss.data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `train_loss.item()`",
            fixed="""
            def train(model, batches, optimizer):
                for i, batch in enumerate(batches):
                    optimizer.zero_grad()
                    train_loss = model(batch, is_train=True)
                    train_loss.backward()
                    optimizer.step()
                    if i % 100 == 0:
                        print(i, train_loss.item())
            """,
        ),
        # A criterion handed in, named `crit` (an older spelling of `criterion`), read the 0.3 way.
        Invalid(
            """
            def eval_split(model, crit, loader):
                total = 0.0
                for x, y in loader:
                    total += crit(model(x), y).data[0]
                return total
            """,
            line=4,
            column=18,
            message="`crit(model(x), y).data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use "
            "`crit(model(x), y).item()`",
            fixed="""
            def eval_split(model, crit, loader):
                total = 0.0
                for x, y in loader:
                    total += crit(model(x), y).item()
                return total
            """,
        ),
        # A method handing back its loss as an array (`loss.data.cpu().numpy()`), unpacked by the
        # caller: a 0-dim array, whose `[0]` raises too.
        Invalid(
            """
            import torch.nn.functional as F


            class Agent:
                def optimize(self, q, target):
                    loss = F.smooth_l1_loss(q, target)
                    loss.backward()
                    return loss.cpu().numpy(), q.mean()

                def train(self, q, target, losses):
                    loss, q_mean = self.optimize(q, target)
                    losses.append(loss[0])
            """,
            line=12,
            column=23,
            message="`loss[0]` indexes a 0-dim array: IndexError since PyTorch 1.0; use `loss.item()`",
            fixed="""
            import torch.nn.functional as F


            class Agent:
                def optimize(self, q, target):
                    loss = F.smooth_l1_loss(q, target)
                    loss.backward()
                    return loss.cpu().numpy(), q.mean()

                def train(self, q, target, losses):
                    loss, q_mean = self.optimize(q, target)
                    losses.append(loss.item())
            """,
        ),
        # A helper of the file returning a mean, indexed where it is called (in a function whose own
        # text shows no 0-dim value).
        Invalid(
            """
            import torch


            def accuracy(scores, labels):
                predicted = torch.as_tensor(scores).argmax(1)
                return torch.mean((predicted == torch.as_tensor(labels)).float())


            def report(scores, labels):
                print("accuracy:", accuracy(scores, labels)[0])
            """,
            line=10,
            column=24,
            message="`accuracy(scores, labels)[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use "
            "`accuracy(scores, labels).item()`",
            fixed="""
            import torch


            def accuracy(scores, labels):
                predicted = torch.as_tensor(scores).argmax(1)
                return torch.mean((predicted == torch.as_tensor(labels)).float())


            def report(scores, labels):
                print("accuracy:", accuracy(scores, labels).item())
            """,
        ),
        # `torch.dot` of two vectors is 0-dim, like a full reduction.
        Invalid(
            """
            import torch

            diff = model(x) - model(y)
            dot = torch.dot(diff, diff)
            print("mse: ", dot.data[0])
            """,
            line=5,
            column=16,
            message="`dot.data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `dot.item()`",
            fixed="""
            import torch

            diff = model(x) - model(y)
            dot = torch.dot(diff, diff)
            print("mse: ", dot.item())
            """,
        ),
        Invalid(
            """
            import torch.nn as nn
            from torch.autograd import Variable

            crit = nn.KLDivLoss(size_average=False)

            def loss(predict, target):
                return crit(Variable(predict.log()),
                            Variable(target)).data[0]
            """,
            line=7,
            column=12,
            message="`crit(Variable(predict.log()), Variable(target)).data[0]` indexes a 0-dim tensor: "
            "IndexError since PyTorch 1.0; use `crit(Variable(predict.log()), Variable(target)).item()`",
            fixed="""
            import torch.nn as nn
            from torch.autograd import Variable

            crit = nn.KLDivLoss(size_average=False)

            def loss(predict, target):
                return crit(Variable(predict.log()),
                            Variable(target)).item()
            """,
        ),
        Invalid(
            """
            import torch.nn as nn

            criterion = nn.CrossEntropyLoss()

            def step(model, x, y):
                loss = criterion(model(x), y)
                print(loss.data[0])
            """,
            line=7,
            column=11,
            message="`loss.data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `loss.item()`",
            fixed="""
            import torch.nn as nn

            criterion = nn.CrossEntropyLoss()

            def step(model, x, y):
                loss = criterion(model(x), y)
                print(loss.item())
            """,
        ),
        Invalid(
            """
            import torch

            def accuracy(model, x, y):
                correct = (model(x).argmax(1) == y).sum()
                return correct[0] / len(y)
            """,
            line=5,
            column=12,
            message="`correct[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; use `correct.item()`",
            fixed="""
            import torch

            def accuracy(model, x, y):
                correct = (model(x).argmax(1) == y).sum()
                return correct.item() / len(y)
            """,
        ),
        Invalid(
            """
            import torch.nn.functional as F

            def log(model, x, y, losses, loss_fn):
                losses.append(F.mse_loss(model(x), y).cpu().data.numpy()[0])
                other = loss_fn(model(x), y)
                print((other * 2).data[0])
            """,
            line=4,
            column=19,
            message="`F.mse_loss(model(x), y).cpu().data.numpy()[0]` indexes a 0-dim tensor: IndexError since "
            "PyTorch 1.0; use `F.mse_loss(model(x), y).item()`",
            also=(
                Finding(
                    6,
                    11,
                    "`(other * 2).data[0]` indexes a 0-dim tensor: IndexError since PyTorch 1.0; "
                    "use `(other * 2).item()`",
                ),
            ),
            fixed="""
            import torch.nn.functional as F

            def log(model, x, y, losses, loss_fn):
                losses.append(F.mse_loss(model(x), y).item())
                other = loss_fn(model(x), y)
                print((other * 2).item())
            """,
        ),
        Invalid(
            # the 0.3 idiom through `.tolist()`: a one-element list then, a float now
            """
            import torch.nn as nn

            loss_function = nn.CrossEntropyLoss()

            def train(model, loader, optimizer):
                losses = []
                for inputs, targets in loader:
                    loss = loss_function(model(inputs), targets)
                    losses.append(loss.data.tolist()[0])
                    loss.backward()
                    optimizer.step()
                return losses
            """,
            line=9,
            column=23,
            message="`loss.data.tolist()[0]` indexes the `.tolist()` of a 0-dim tensor, a Python number: TypeError "
            "since PyTorch 0.4; use `loss.item()`",
            fixed="""
            import torch.nn as nn

            loss_function = nn.CrossEntropyLoss()

            def train(model, loader, optimizer):
                losses = []
                for inputs, targets in loader:
                    loss = loss_function(model(inputs), targets)
                    losses.append(loss.item())
                    loss.backward()
                    optimizer.step()
                return losses
            """,
        ),
    )

    def visit_Subscript(self, node: ast.Subscript, ctx) -> None:
        found = zero_dim_index(ctx, node)
        if found is None:
            return
        tensor_text = ctx.text(found.tensor)
        if not isinstance(found.tensor, _PLAIN):
            tensor_text = f"({tensor_text})"
        item = f"{tensor_text}.item()"
        fix = None
        if "#" not in tensor_text and "\\" not in tensor_text:
            # A receiver over several lines sits in brackets: the same text with `.item()` parses.
            fix = Fix(Applicability.SAFE, "Use `.item()`", (ctx.replace(node, item),))
        shown = short(ctx.text(node), 60)
        one_line = short(item, 1_000)
        advice = f"`{one_line}`" if len(one_line) <= 60 else f"`.item()` on `{short(tensor_text, 40)}`"
        if found.listed:
            message = (
                f"`{shown}` indexes the `.tolist()` of a 0-dim tensor, a Python number: TypeError since PyTorch "
                f"0.4; use {advice}"
            )
        else:
            message = (
                f"`{shown}` indexes a 0-dim {'array' if found.array else 'tensor'}: IndexError since PyTorch 1.0; "
                f"use {advice}"
            )
        ctx.report(self.code, node, message, fix)
