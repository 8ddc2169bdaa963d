"""Accumulating a loss tensor across loop iterations keeps every iteration's graph alive.

## What it does
Flags `total += loss` (also into a slot of a dict or list made before the loop, `metrics["loss"] +=
loss`), `total = total + loss` (or a running average, `avg = avg * 0.99 + loss`,
an incremental mean, `mean = ((n - 1) * mean + loss) / n`, also kept as a (sum, count) tuple: `avg = (avg[0] * 0.99 + loss, avg[1] * 0.99 + 1)`, or started
by its first term: `ema = loss if ema is None else 0.9 * ema + 0.1 * loss`, whose fix takes the graph
off both branches),
`losses.append(loss)` (also inside a tuple, `history.append((epoch, d_loss))`, reported at the
item), `losses[epoch] = loss`
(a slot per iteration of a tensor, list or dict, indexed by the loop's name) and `losses =
torch.cat((losses, loss.unsqueeze(0)))` (also `torch.stack` and torch's other joins of two tensors) inside a loop, with
grad enabled, where `loss` is a loss (the result of a loss function or criterion, reduced or not
by `torch.mean`/`torch.sum`, a name `.backward()` is called on, a tensor with a graph named for
a loss: `val_loss, n = model(batch)`, or a 0-dim tensor the code shows to carry a graph, whatever its
name: `total_score += dice_score(pred, masks)` of the model's output, also computed by the `__call__` of a plain
class of the file or of the run, `psnr = psnr_metric(hr_img, sr_img)` of a `PSNR()`), the accumulator is defined before the loop (or is a list of the
module's, appended in a function: `Loss_list.append(loss)`; or a list on `self` that `__init__` starts empty,
appended in a method that backpropagates what it appends, a training step its callers run once per iteration, where
the class uses the list for nothing else: `self.losses.append(nll)` then `nll.backward()`, whose fix, `nll.detach()`,
is safe; or a meter: `losses.update(loss, n)`
where `update`, a method of a plain class of the file or of another file of the run, adds its
argument to what the instance keeps, `self.sum += val * n`), and the accumulated
value is never backpropagated itself (a training loop before it, backpropagating a `loss` it binds
afresh, `loss = criterion(out, y)`, takes no evaluation total kept under the same name, `loss = loss +
criterion(net(x), y)`). It reports when either `loss.backward()` runs in each
iteration, on `loss` (also a loss whose graph the check cannot tell otherwise, of a layer it does not
know, or computed by a criterion handed in and run by its `forward`, `loss.forward(a, b)`: the backward
pass shows it has one) or on a total computed from it (`total_loss = policy_loss + 0.5 * value_loss`,
then `total_loss.backward()`; not a loss another loop computes with the same criterion,
`per_step += loss_function(step_logits, step_target)` beside a training loop's
`loss = loss_function(...)`: the term `value_loss`, named for a loss and bound before that pass,
keeps the graph it took; not once it is turned into a number after it, `nll = scalar(nll)`)
(in the loop, or in the function or method of the file that returns the loss:
`cost = model.train_model(X, Y)` whose body calls `self.cost.backward()`, also added as it comes:
`epoch_loss += self.train_batch(x, y)`; a loss it returns in a tuple counts where the item is the name it
backpropagates or differentiates, `grads = torch.autograd.grad(loss, params)`, `return grads, loss`; or on a name unpacked beside it from the same call, which
shares its forward pass: `batch_loss, loss = seq2seq(x, y)`, `avg_loss += batch_loss`, `loss.backward()`), or the loop runs a model and the total is only reported (not returned, or the
function is an evaluation: it calls `.eval()`). An accumulator reset under an `if` of the
loop (`if step % 100 == 0: total = 0`) still keeps the graphs of the iterations in between; one
reset at every iteration keeps none. A model's output's `.loss` (`output = model(**batch)`,
Hugging Face's `ModelOutput`) is a loss. What an object's own `backward()` hands back
(`score += loss_module.backward()`, a legacy loss module returning the loss it keeps on itself)
is not flagged: the module holds that graph anyway (a tensor's `backward()` returns None); nor is
what a method no tensor has gives back (`return loss.get_loss()` of a loss wrapper the code calls
`loss`: a number, whose `.item()` would raise), nor the output of a model known by its name
alone (`loss = model(x, y)` of a parameter) in a run where a module class backpropagates and steps
in its own `forward` (and may return `loss.item()`). The
fix of a meter's argument is `.detach()`: the meter keeps tensors, as before, without graphs.

## Why is this bad?
A loss tensor holds its autograd graph, and through it every activation saved for backward.
Adding it to a running total (or keeping it in a list) keeps all those graphs alive until the
total goes away, so memory grows with every iteration. Measured on torch 2.13 with a
two-convolution CNN and batches of 64 images of 32x32 (`python benchmarks/accumulated_graph_memory.py`):
in a loop that never backpropagates the loss (an evaluation), after 50 iterations of `total += loss`,
801 MiB of tensors saved for backward are still reachable from `total`; with `total += loss.item()`,
none. In a training loop that calls `loss.backward()` at each step, the backward pass frees what the
graphs saved, and `total` keeps their nodes alone (556 nodes after 50 iterations, no saved tensor):
memory grows slowly, and `total` is still a tensor with a graph (`total.numpy()` raises).
Accumulating losses that are then backpropagated together (gradient accumulation,
`torch.stack(losses).sum().backward()`) needs the graphs and is not flagged.

## Example
```python
import torch
import torch.nn.functional as F

def train_epoch(model, loader, optimizer):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss
    return total / len(loader)
```

## Use instead
```python
import torch
import torch.nn.functional as F

def train_epoch(model, loader, optimizer):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
```

## Fix safety
The fix is safe where the semantic model takes the value added for a tensor, or a `.backward()`
of the loop is called on it or on what is computed from it; where only its name and a backward
pass nearby say so, it is unsafe (a hand-written framework's
`model.criterion.forward(out, y)` may hand back a Python float, which has no `.item()`). When the accumulator starts as a number literal (`total = 0.0`), is never
used as a tensor afterwards (no `total.item()`, no torch call on it, not handed to a function of
the file that reads it as a tensor, `get_numpy(total)` of `def get_numpy(x): return
x.data.numpy()`) and is not what the function returns to a caller of the file that uses it as a
tensor (`evaluate_loss(...).detach()`), nor of a function or method whose result another file of the run
reads as one (`meta_loss = learner.train(tasks)`, then `meta_loss.item()`), it accumulates
`loss.item()`: a Python number, so the total stays a number. Otherwise it accumulates
`loss.detach()`: the same values without the graph, so later tensor operations on the total
still work. The accumulated value is not backpropagated (the rule checks this), so dropping
its graph changes no gradient. `.item()` waits for the device each iteration; use
`.detach()` by hand if that matters.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.imports import callee_name, subscript_root
from gradguard.check.analysis.model import names_a_loss, parameterless_layer
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Grad, Kind, Role, Value
from gradguard.check.analysis.vocabulary import JOINING_FUNCTIONS, TENSOR_READING_METHODS
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_BACKWARD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_EVAL_NAME_RE = re.compile(r"(^|_)(val|valid|validate|validation|eval|evaluate|evaluation)(_|$)", re.I)


class AccumulatedGraph(Rule):
    code = "GG301"
    name = "accumulated-graph"
    summary = "Accumulating a loss tensor across iterations keeps every graph alive"
    fix_availability = FixAvailability.SAFE
    severity = Severity.WARNING
    # What makes a value a loss (the semantic model): a loss-like name or call, a loss
    # function, or a `.backward()` on it. The same for the file: a script naming its loss
    # `cost` (`cost = criterian(hypo, Y)` of an `nn.CrossEntropyLoss()`) shows only these. And
    # an evaluation's metrics of the model's output (`total_psnr += psnr_metric(hr, sr)`): the
    # semantic model then decides whether what is summed carries a graph.
    function_triggers = (
        "loss",
        "Loss",
        "LOSS",
        "criterion",
        "Criterion",
        "CRITERION",
        "backward",
        "entropy",
        "kl_div",
        "psnr",
        "ssim",
        "dice",
    )
    triggers = function_triggers

    valid = (
        # The loss each step backpropagates is computed from the running total: the total's graph
        # is backpropagated with it.
        Valid(
            """
            import torch


            def fit(net, loader, criterion, optimizer, epochs, hist):
                for epoch in range(epochs):
                    loss_epoch = torch.tensor(0.0)
                    for x in loader:
                        loss = criterion(net(x), x) + 0.1 * loss_epoch
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        loss_epoch += loss
                    loss = loss_epoch.data / len(loader)
                    hist.append(loss.item())
            """
        ),
        # The steps' losses summed as numbers: no graph to keep.
        Valid(
            """
            def train(model, loader, optimizer, criterion):
                total_loss = 0
                for i, (xs, ys) in enumerate(loader):
                    optimizer.zero_grad()
                    loss = 0
                    for x, y in zip(xs, ys):
                        loss += criterion(model(x), y).item()
                    total_loss += loss
                    optimizer.step()
                    print("loss: %f" % (total_loss / (i + 1)))
            """
        ),
        # The total is what the backward pass after the loop takes.
        Valid(
            """
            import torch
            import torch.nn as nn


            def run(net, loader, opt):
                criterion = nn.BCELoss()
                opt.zero_grad()
                loss = 0
                for x, y in loader:
                    loss = loss + criterion(net(x), y)
                loss.backward()
                opt.step()
            """
        ),
        # The item unpacked from a differentiating method's tuple is another value than the one
        # it differentiates, of no known graph.
        Valid(
            """
            import torch


            class Learner:
                def __init__(self, model, loss_function, meter):
                    self.model = model
                    self.loss_function = loss_function
                    self.meter = meter

                def query_loss(self, x, y):
                    loss = self.loss_function(self.model(x), y)
                    grads = torch.autograd.grad(loss, list(self.model.parameters()))
                    task_loss = self.meter(loss)
                    return grads, task_loss

                def validate(self, tasks):
                    total = 0.0
                    for x, y in tasks:
                        _, task_loss = self.query_loss(x, y)
                        total += task_loss
                    return total
            """
        ),
        # A tracker adding what a helper of the file returns for the outputs (`.item()`): the
        # outputs are handed on, not kept.
        Valid(
            """
            import torch.nn.functional as F


            def correct(preds, labels):
                return preds.argmax(dim=1).eq(labels).sum().item()


            class Epochs:
                def __init__(self):
                    self.num_correct = 0

                def track_num_correct(self, preds, labels):
                    self.num_correct += correct(preds, labels)


            def fit(net, opt, batches):
                e = Epochs()
                for images, labels in batches:
                    preds = net(images)
                    loss = F.cross_entropy(preds, labels)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    e.track_num_correct(preds, labels)
                return e.num_correct
            """
        ),
        # The same slot given the loss's value.
        Valid(
            """
            from collections import defaultdict

            import torch.nn.functional as F


            def train(model, loader, opt, epochs):
                for epoch in range(epochs):
                    metrics = defaultdict(float)
                    for x, y in loader:
                        opt.zero_grad()
                        loss = F.mse_loss(model(x), y)
                        loss.backward()
                        opt.step()
                        metrics["loss"] += loss.item()
                    print(metrics["loss"])
            """
        ),
        # The same in a script whose validation loop binds `loss` again: the statement still shows
        # what the training loop leaves is a leaf.
        Valid(
            """
            import torch

            history = []
            for epoch in range(epochs):
                model.train()
                for x, y in train_batches:
                    loss = rank_loss(y, model(x))
                    optimizer.zero_grad()
                    loss.requires_grad = True
                    loss.backward()
                    optimizer.step()
                history.append(loss)
                model.eval()
                with torch.no_grad():
                    for x, y in val_batches:
                        loss = rank_loss(y, model(x))
            """
        ),
        # `loss.requires_grad = True` (allowed on a leaf alone) shows the loss holds no graph: the
        # list keeps no graph (the training itself is broken, which no rule of this one reports).
        Valid(
            """
            import torch

            def fit(model, optimizer, rank_loss, batches, epochs):
                history = []
                for epoch in range(epochs):
                    for x, y in batches:
                        loss = rank_loss(y, model(x))
                        optimizer.zero_grad()
                        loss.requires_grad = True
                        loss.backward()
                        optimizer.step()
                    history.append(loss)
                return history
            """
        ),
        # The same where the model hands back that loss as a number (`loss.item() / self.batch_sz`).
        Valid(
            """
            import torch
            from torch import nn


            class Seq2Seq(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.batch_sz = 4

                def forward(self, x, y):
                    loss = nn.functional.mse_loss(self.fc(x), y)
                    return loss.item() / self.batch_sz, loss


            def train(seq2seq, loader, optimizer):
                avg_loss = 0.0
                for x, y in loader:
                    optimizer.zero_grad()
                    batch_loss, loss = seq2seq(x, y)
                    avg_loss += batch_loss
                    loss.backward()
                    optimizer.step()
                return avg_loss


            model = Seq2Seq()
            print(train(model, [], torch.optim.SGD(model.parameters(), lr=0.1)))
            """
        ),
        # A score of the predicted classes (`torch.max(...)[1]`) and the labels: no graph, whatever the output carries.
        Valid(
            """
            import torch


            def f1_score(preds, labels):
                n = preds.size(0)
                preds = torch.max(preds, dim=1)[1]
                correct = (preds == labels).sum()
                predicted = preds.sum()
                actual = labels.sum()
                precision = correct / predicted
                recall = correct / actual
                return 2 * precision * recall / (precision + recall)


            def train(model, loader, optimizer, loss_fn):
                total_f1 = 0.0
                for x, y in loader:
                    pred = model(x)
                    loss = loss_fn(pred, y)
                    total_f1 += f1_score(pred, y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return total_f1
            """
        ),
        # The same step handing back the loss as a number.
        Valid(
            """
            import torch
            from torch import nn


            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.criterion = nn.CrossEntropyLoss()
                    self.optimizer = torch.optim.Adam(model.parameters())

                def train_batch(self, inputs, targets):
                    self.optimizer.zero_grad()
                    loss = self.criterion(self.model(inputs), targets)
                    loss.backward()
                    self.optimizer.step()
                    return loss.item()

                def train(self, loader):
                    epoch_loss = 0
                    for inputs, targets in loader:
                        epoch_loss += self.train_batch(inputs, targets)
                    return epoch_loss / len(loader)
            """
        ),
        # The same metric taken as a number.
        Valid(
            """
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = (pred * target).sum()
                return (2 * inter + eps) / (pred.sum() + target.sum() + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred, masks).item()
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """
        ),
        # The same step handing back numbers (`.item()`).
        Valid(
            """
            import torch
            from torch import nn


            class PolicyValueNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(16, 8)
                    self.policy = nn.Linear(8, 4)
                    self.value = nn.Linear(8, 1)
                    self.optimizer = torch.optim.Adam(self.parameters())

                def forward(self, x):
                    h = torch.relu(self.body(x))
                    return torch.softmax(self.policy(h), 1), torch.tanh(self.value(h))

                def train_step(self, x, target_p, target_v):
                    self.optimizer.zero_grad()
                    p, v = self(x)
                    loss_p = -torch.sum(target_p * torch.log(1e-8 + p), 1).mean()
                    loss_v = nn.functional.mse_loss(v, target_v)
                    (loss_p + loss_v).backward()
                    self.optimizer.step()
                    return loss_p.item(), loss_v.item()


            def fit(loader, epochs=10):
                net = PolicyValueNet()
                avg_loss_p = 0
                for _ in range(epochs):
                    for x, target_p, target_v in loader:
                        loss_p, loss_v = net.train_step(x, target_p, target_v)
                        avg_loss_p += loss_p
                return avg_loss_p / epochs
            """
        ),
        # The same mean of the loss's value.
        Valid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            criterion = nn.CrossEntropyLoss()
            mean_loss = 0
            count = 0
            for x, y in loader:
                count += 1
                train_loss = criterion(model(x), y)
                optimizer.zero_grad()
                train_loss.backward()
                optimizer.step()
                mean_loss = ((count - 1) * mean_loss + train_loss.item()) / count
                print(mean_loss)
            """
        ),
        # The same metric summed as a number.
        Valid(
            """
            import torch
            import torch.nn as nn


            class PSNR:
                def __call__(self, x, y):
                    return 10 * torch.log10(1.0 / torch.mean((x - y) ** 2))


            generator = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1))
            generator.load_state_dict(torch.load("g.pt"))
            psnr_metric = PSNR()
            loader = [(torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8))]
            total_psnr = 0
            for lr_img, hr_img in loader:
                sr_img = generator(lr_img)
                psnr = psnr_metric(hr_img, sr_img)
                total_psnr += psnr.item()
                print(f"psnr = {psnr}")
            print(f"total_psnr: {total_psnr}")
            """
        ),
        # One batch's per-step losses summed and read, the sum started again for each batch (the
        # training loop's `loss = loss_function(...)` backpropagated elsewhere says nothing of it).
        Valid(
            """
            import torch.nn as nn

            model = nn.Linear(4, 4)
            loss_function = nn.CrossEntropyLoss()
            for x, y in train_batches:
                loss = loss_function(model(x), y)
                loss.backward()

            val_loss = 0
            for inputs, targets in batches:
                logits = model(inputs)
                per_step = 0
                for step_logits, step_target in zip(logits, targets):
                    per_step += loss_function(step_logits, step_target)
                val_loss += per_step.item()
            """
        ),
        # The epoch's last loss kept as a number beside the epoch in a tuple.
        Valid(
            """
            import torch


            def train(D, G, loader, opt_d, bce, epochs):
                history = []
                for epoch in range(epochs):
                    for x, z in loader:
                        real_loss = bce(D(x), torch.ones(len(x), 1))
                        fake_loss = bce(D(G(z).detach()), torch.zeros(len(z), 1))
                        d_loss = real_loss + fake_loss
                        opt_d.zero_grad()
                        d_loss.backward()
                        opt_d.step()
                    history.append((epoch, d_loss.item()))
                return history
            """
        ),
        # Losses joined into one tensor that is backpropagated at the end of the step.
        Valid(
            """
            import torch


            def train(model, loader, optimizer, criterion, chunks):
                for batch in loader:
                    losses = torch.tensor([])
                    for x, y in batch.split(chunks):
                        losses = torch.cat((losses, criterion(model(x), y).unsqueeze(0)))
                    optimizer.zero_grad()
                    losses.mean().backward()
                    optimizer.step()
            """
        ),
        # Gradient accumulation in a training step: the list's losses are backpropagated together
        # every fourth call, then the list starts again.
        Valid(
            """
            import torch


            class Member:
                def __init__(self):
                    self.model = torch.nn.Linear(1, 1)
                    self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
                    self.losses = []

                def step(self, x, y):
                    nll = torch.nn.functional.mse_loss(self.model(x), y)
                    self.losses.append(nll)
                    if len(self.losses) == 4:
                        self.optimizer.zero_grad()
                        torch.stack(self.losses).mean().backward()
                        self.optimizer.step()
                        self.losses = []
            """
        ),
        # `loss` is a loss wrapper that runs its own backward; `get_loss()`, which no tensor has,
        # gives back a number: nothing with a graph is added up.
        Valid(
            """
            class Trainer:
                def _train_batch(self, inputs, targets, model):
                    loss = self.loss
                    loss.reset()
                    loss.eval_batch(model(inputs), targets)
                    model.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    return loss.get_loss()

                def train_epoch(self, data, model):
                    epoch_loss_total = 0
                    for inputs, targets in data:
                        loss = self._train_batch(inputs, targets, model)
                        epoch_loss_total += loss
                    return epoch_loss_total / len(data)
            """
        ),
        # The same score of the detached output: no graph to keep.
        Valid(
            """
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = torch.sum(pred * target)
                return (2 * inter + eps) / (torch.sum(pred) + torch.sum(target) + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred.detach(), masks)
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """
        ),
        # The same running average of the loss's value.
        Valid(
            """
            import torch

            def train_step(model, x, optimizer):
                optimizer.zero_grad()
                loss = model(x).mean()
                loss.backward()
                optimizer.step()
                return loss

            def train_epoch(model, loader, optimizer):
                loss_ema = None
                for x, _ in loader:
                    train_loss = train_step(model, x, optimizer).item()
                    loss_ema = train_loss if loss_ema is None else 0.9 * loss_ema + 0.1 * train_loss
                    print(f"loss: {loss_ema:.4f}")
            """
        ),
        # The same (sum, count) running average of the loss's value.
        Valid(
            """
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = (0.0, 0.0)
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((model(x) - y) ** 2).mean()
                loss.backward()
                avg_loss = (avg_loss[0] * 0.99 + loss.item(), avg_loss[1] * 0.99 + 1.0)
                optimizer.step()
                print(avg_loss[0] / avg_loss[1])
            """
        ),
        # The same running average of the loss's value.
        Valid(
            """
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = 0.0
            for x, y in loader:
                loss = ((model(x) - y) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                avg_loss = avg_loss * 0.99 + loss.item()
                print(avg_loss)
            """
        ),
        # The same loop keeping the number only.
        Valid(
            """
            import torch

            W = torch.normal(0, 0.01, size=(784, 10), requires_grad=True)


            def cross_entropy(y_hat, y):
                return -torch.log(y_hat[range(len(y_hat)), y])


            loss = cross_entropy
            for epoch in range(10):
                L = 0.0
                for X, y in train_iter:
                    l = loss(torch.softmax(X @ W, 1), y)
                    l.sum().backward()
                    with torch.no_grad():
                        W -= 0.1 * W.grad
                        W.grad.zero_()
                    L += l.sum().item()
                print(L)
            """
        ),
        # The loss term is turned into a number after the backward pass, by a helper, before it
        # is summed: no graph is kept.
        Valid(
            """
            import torch.nn.functional as F
            from utils import scalar


            def train(model, optimizer, data):
                total = 0
                for x, y in data:
                    nll = F.nll_loss(model(x), y)
                    loss = nll + 0.01 * model.penalty()
                    loss.backward()
                    optimizer.step()
                    nll = scalar(nll)
                    total += nll
                return total
            """
        ),
        # A perceptual loss, the training criterion: its terms over the frozen feature extractor's
        # layers make one step's loss, which the caller backpropagates (`.eval()` only keeps the
        # extractor's dropout and batch norm fixed).
        Valid(
            """
            import torch.nn as nn


            class PerceptualLoss:
                def __init__(self, features, ratio=0.005):
                    self.features = features
                    self.ratio = ratio

                def __call__(self, output, target):
                    mse = nn.MSELoss()
                    self.features.eval()
                    output_features = self.features(output)
                    target_features = self.features(target)
                    loss = mse(output, target)
                    for i in range(len(output_features)):
                        loss += self.ratio * mse(output_features[i], target_features[i])
                    return loss
            """
        ),
        # The loss made a Python number by a helper (`.tolist()[0]`) before it is added up.
        Valid(
            """
            import torch.nn.functional as F


            def scalar(x):
                return x.view(-1).data.tolist()[0]


            def train(model, data, optim):
                loss_sum = 0
                for x, y in data:
                    model.zero_grad()
                    loss = F.nll_loss(model(x), y)
                    loss.backward()
                    optim.step()
                    loss = scalar(loss)
                    loss_sum += loss
                return loss_sum / len(data)
            """
        ),
        # A slot per epoch of a numpy array: numpy keeps each loss as a number, not its graph.
        Valid(
            """
            import numpy as np
            import torch


            def train(model, x, y, epochs, loss_fn, optimizer):
                losses = np.zeros(epochs)
                for epoch in range(epochs):
                    loss = loss_fn(model(x), y)
                    losses[epoch] = loss
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return losses
            """
        ),
        # The meter is handed the loss's number, or takes the number out itself.
        Valid(
            """
            import torch


            class AverageMeter:
                def __init__(self):
                    self.sum, self.count = 0, 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n


            class ScalarMeter:
                def __init__(self):
                    self.sum = 0

                def update(self, val):
                    self.sum += val.item()


            class NumberMeter:
                def __init__(self):
                    self.sum, self.n = 0, 0

                def update(self, value, n=1):
                    if isinstance(value, torch.Tensor) and value.dim() == 0:
                        value = value.item()
                    self.sum = self.sum + value * n
                    self.n += n


            def train(model, loader, criterion, optimizer):
                losses, raw, numbers = AverageMeter(), ScalarMeter(), NumberMeter()
                for x, y in loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.update(loss.item(), x.size(0))
                    raw.update(loss)
                    numbers.update(loss, x.size(0))
                return losses.sum / losses.count
            """
        ),
        # The same sum of a model's outputs not named for a loss: what it holds is not known.
        Valid(
            """
            def validate(model, val_dl):
                model.eval()
                total = 0
                for mb in val_dl:
                    scores, n_total = model(mb, use_teacher_forcing=False)
                    total += scores * n_total
                return total
            """
        ),
        # One slot per chunk, all backpropagated together: the graphs are needed.
        Valid(
            """
            import torch


            def step(model, chunks, targets, criterion, optimizer):
                losses = [None] * len(chunks)
                for i in range(len(chunks)):
                    losses[i] = criterion(model(chunks[i]), targets[i])
                torch.stack(losses).sum().backward()
                optimizer.step()
            """,
        ),
        # A legacy loss module's `backward` hands back the loss it keeps on itself (its graph
        # lives as long as the module does): summing those of one step keeps nothing more alive.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class ContentLoss(nn.Module):
                def __init__(self, target, weight):
                    super().__init__()
                    self.target = target.detach() * weight
                    self.weight = weight

                def forward(self, input):
                    self.loss = F.mse_loss(input * self.weight, self.target)
                    return input

                def backward(self, retain_graph=True):
                    self.loss.backward(retain_graph=retain_graph)
                    return self.loss


            content_losses = [ContentLoss(torch.rand(1, 3, 8, 8), 1), ContentLoss(torch.rand(1, 3, 8, 8), 10)]
            model = nn.Sequential(*content_losses)
            image = torch.rand(1, 3, 8, 8).requires_grad_()
            optimizer = torch.optim.Adam([image], lr=0.1)
            for step in range(300):
                optimizer.zero_grad()
                model(image)
                content_score = 0
                for cl in content_losses:
                    content_score += cl.backward()
                print(content_score.item())
                optimizer.step()
            """,
        ),
        Valid(
            """
            import torch

            def train(model, loader, criterion, opt):
                for x, y in loader:
                    step_loss = 0
                    for chunk_x, chunk_y in zip(x.chunk(4), y.chunk(4)):
                        loss = criterion(model(chunk_x), chunk_y)
                        step_loss += loss
                    step_loss.backward()
                    opt.step()
            """,
        ),
        Valid(
            """
            import torch

            def train(model, loader, criterion, opt):
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    opt.step()
                    total += loss.item()
                return total
            """,
        ),
        Valid(
            """
            import torch

            def evaluate(model, loader):
                acc = 0.0
                for x, y in loader:
                    pred = model(x).argmax(1)
                    acc += (pred == y).float().mean()
                return acc
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad
            def evaluate(model, loader, criterion):
                model.eval()
                total = 0.0
                for x, y in loader:
                    total += criterion(model(x), y)
                return total
            """,
        ),
        Valid(
            """
            import torch

            def evaluate(model, loader, criterion):
                total = 0.0
                with torch.inference_mode():
                    for x, y in loader:
                        total += criterion(model(x), y)
                return total
            """,
        ),
        # Gradient accumulation: the total is backpropagated, its graph is wanted.
        Valid(
            """
            import torch

            def step(model, chunks, criterion, opt):
                total_loss = 0
                for x, y in chunks:
                    loss = criterion(model(x), y)
                    total_loss = total_loss + loss
                total_loss.backward()
                opt.step()
            """,
        ),
        Valid(
            """
            import torch

            def step(model, chunks, criterion):
                losses = []
                for x, y in chunks:
                    loss = criterion(model(x), y)
                    losses.append(loss)
                torch.stack(losses).sum().backward()
            """,
        ),
        # A multi-term loss returned to the caller, who backpropagates it.
        Valid(
            """
            import torch

            def multi_scale(model, x, targets, criterion):
                outs = model(x)
                loss = 0
                for out, t in zip(outs, targets):
                    loss += criterion(out, t)
                return loss
            """,
        ),
        # The accumulator is reset in every iteration.
        Valid(
            """
            import torch

            def train(model, loader, criterion):
                for x, y in loader:
                    total = 0
                    loss = criterion(model(x), y)
                    loss.backward()
                    total += loss
            """,
        ),
        Valid(
            # an L1 penalty summed over the parameters, started again at every step: one term built
            # from the parameters (here left out of the loss), not a sum across training steps
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 1)
            optimizer = torch.optim.Adam(model.parameters())
            criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([10.0]))
            for epoch in range(10):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x).squeeze(1), y)
                    l1_loss = 0
                    for param in model.parameters():
                        l1_loss += torch.abs(param).sum()
                    # loss += 1e-3 * l1_loss
                    loss.backward()
                    optimizer.step()
            """
        ),
    )
    invalid = (
        # The epoch's total is named `loss` again only after the loop: the backward pass in the loop
        # takes the loss the loop binds afresh.
        Invalid(
            """
            import torch


            def fit(net, loader, criterion, optimizer, epochs, hist):
                for epoch in range(epochs):
                    loss_epoch = torch.tensor(0.0)
                    for x in loader:
                        loss = criterion(net(x), x)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        loss_epoch += loss
                    loss = loss_epoch.data / len(loader)
                    hist.append(loss.item())
            """,
            line=12,
            column=13,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            import torch


            def fit(net, loader, criterion, optimizer, epochs, hist):
                for epoch in range(epochs):
                    loss_epoch = torch.tensor(0.0)
                    for x in loader:
                        loss = criterion(net(x), x)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        loss_epoch += loss.detach()
                    loss = loss_epoch.data / len(loader)
                    hist.append(loss.item())
            """,
        ),
        # A loss summed over a decoder's steps by an inner loop, backpropagated, then added up.
        Invalid(
            """
            def train(model, loader, optimizer, criterion):
                total_loss = 0
                for i, (xs, ys) in enumerate(loader):
                    optimizer.zero_grad()
                    loss = 0
                    for x, y in zip(xs, ys):
                        loss += criterion(model(x), y)
                    total_loss += loss
                    loss.backward()
                    optimizer.step()
                    print("loss: %f" % (total_loss / (i + 1)))
            """,
            line=8,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.item()`",
            fixed="""
            def train(model, loader, optimizer, criterion):
                total_loss = 0
                for i, (xs, ys) in enumerate(loader):
                    optimizer.zero_grad()
                    loss = 0
                    for x, y in zip(xs, ys):
                        loss += criterion(model(x), y)
                    total_loss += loss.item()
                    loss.backward()
                    optimizer.step()
                    print("loss: %f" % (total_loss / (i + 1)))
            """,
        ),
        # An evaluation total named like the training loop's loss: the training loop's backward
        # pass takes the loss it binds afresh, not the total.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def run(net, loader):
                criterion = nn.BCELoss()
                opt = torch.optim.Adam(net.parameters())
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                net.eval()
                loss = 0
                for x, y in loader:
                    loss = loss + criterion(net(x), y)
                print(loss.item())
            """,
            line=16,
            column=9,
            message="Accumulating `criterion(net(x), y)` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `criterion(net(x), y).detach()`",
            fixed="""
            import torch
            import torch.nn as nn


            def run(net, loader):
                criterion = nn.BCELoss()
                opt = torch.optim.Adam(net.parameters())
                for x, y in loader:
                    opt.zero_grad()
                    loss = criterion(net(x), y)
                    loss.backward()
                    opt.step()
                net.eval()
                loss = 0
                for x, y in loader:
                    loss = loss + criterion(net(x), y).detach()
                print(loss.item())
            """,
        ),
        # The loss comes back in a tuple from a method that differentiates it (`autograd.grad`):
        # the item unpacked carries the graph that differentiation took.
        Invalid(
            """
            import torch


            class Learner:
                def __init__(self, model, loss_function):
                    self.model = model
                    self.loss_function = loss_function

                def query_loss(self, x, y):
                    loss = self.loss_function(self.model(x), y)
                    grads = torch.autograd.grad(loss, list(self.model.parameters()))
                    return grads, loss

                def validate(self, tasks):
                    total = 0.0
                    for x, y in tasks:
                        _, task_loss = self.query_loss(x, y)
                        total += task_loss
                    return total
            """,
            line=18,
            column=13,
            message="Accumulating `task_loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `task_loss.item()`",
            fixed="""
            import torch


            class Learner:
                def __init__(self, model, loss_function):
                    self.model = model
                    self.loss_function = loss_function

                def query_loss(self, x, y):
                    loss = self.loss_function(self.model(x), y)
                    grads = torch.autograd.grad(loss, list(self.model.parameters()))
                    return grads, loss

                def validate(self, tasks):
                    total = 0.0
                    for x, y in tasks:
                        _, task_loss = self.query_loss(x, y)
                        total += task_loss.item()
                    return total
            """,
        ),
        # A running total kept in a slot of a dict made before the loop.
        Invalid(
            """
            from collections import defaultdict

            import torch.nn.functional as F


            def train(model, loader, opt, epochs):
                for epoch in range(epochs):
                    metrics = defaultdict(int)
                    for x, y in loader:
                        opt.zero_grad()
                        loss = F.mse_loss(model(x), y)
                        loss.backward()
                        opt.step()
                        metrics["loss"] += loss
                    print(metrics["loss"].item())
            """,
            line=14,
            column=13,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            from collections import defaultdict

            import torch.nn.functional as F


            def train(model, loader, opt, epochs):
                for epoch in range(epochs):
                    metrics = defaultdict(int)
                    for x, y in loader:
                        opt.zero_grad()
                        loss = F.mse_loss(model(x), y)
                        loss.backward()
                        opt.step()
                        metrics["loss"] += loss.detach()
                    print(metrics["loss"].item())
            """,
        ),
        # A loss unpacked beside the one backpropagated each step, from the same forward pass: it holds that graph.
        Invalid(
            """
            import torch
            from torch import nn


            class Seq2Seq(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.batch_sz = 4

                def forward(self, x, y):
                    loss = nn.functional.mse_loss(self.fc(x), y)
                    return loss / self.batch_sz, loss


            def train(seq2seq, loader, optimizer):
                avg_loss = 0.0
                for x, y in loader:
                    optimizer.zero_grad()
                    batch_loss, loss = seq2seq(x, y)
                    avg_loss += batch_loss
                    loss.backward()
                    optimizer.step()
                return avg_loss


            model = Seq2Seq()
            print(train(model, [], torch.optim.SGD(model.parameters(), lr=0.1)))
            """,
            line=21,
            column=9,
            message="Accumulating `batch_loss` across iterations keeps every iteration's autograd graph alive; accumulate `batch_loss.item()`",
            fixed="""
            import torch
            from torch import nn


            class Seq2Seq(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.batch_sz = 4

                def forward(self, x, y):
                    loss = nn.functional.mse_loss(self.fc(x), y)
                    return loss / self.batch_sz, loss


            def train(seq2seq, loader, optimizer):
                avg_loss = 0.0
                for x, y in loader:
                    optimizer.zero_grad()
                    batch_loss, loss = seq2seq(x, y)
                    avg_loss += batch_loss.item()
                    loss.backward()
                    optimizer.step()
                return avg_loss


            model = Seq2Seq()
            print(train(model, [], torch.optim.SGD(model.parameters(), lr=0.1)))
            """,
        ),
        # The same score of the probabilities: their sum carries the output's graph.
        Invalid(
            """
            import torch


            def f1_score(preds, labels):
                n = preds.size(0)
                preds = torch.softmax(preds, dim=1)
                correct = (preds == labels).sum()
                predicted = preds.sum()
                actual = labels.sum()
                precision = correct / predicted
                recall = correct / actual
                return 2 * precision * recall / (precision + recall)


            def train(model, loader, optimizer, loss_fn):
                total_f1 = 0.0
                for x, y in loader:
                    pred = model(x)
                    loss = loss_fn(pred, y)
                    total_f1 += f1_score(pred, y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return total_f1
            """,
            line=20,
            column=9,
            message="Accumulating `f1_score(pred, y)` across iterations keeps every iteration's autograd graph alive; accumulate `f1_score(pred, y).item()`",
            fixed="""
            import torch


            def f1_score(preds, labels):
                n = preds.size(0)
                preds = torch.softmax(preds, dim=1)
                correct = (preds == labels).sum()
                predicted = preds.sum()
                actual = labels.sum()
                precision = correct / predicted
                recall = correct / actual
                return 2 * precision * recall / (precision + recall)


            def train(model, loader, optimizer, loss_fn):
                total_f1 = 0.0
                for x, y in loader:
                    pred = model(x)
                    loss = loss_fn(pred, y)
                    total_f1 += f1_score(pred, y).item()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return total_f1
            """,
        ),
        # The loss a method of the file backpropagates and returns, added as it comes (not bound to a name first).
        Invalid(
            """
            import torch
            from torch import nn


            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.criterion = nn.CrossEntropyLoss()
                    self.optimizer = torch.optim.Adam(model.parameters())

                def train_batch(self, inputs, targets):
                    self.optimizer.zero_grad()
                    loss = self.criterion(self.model(inputs), targets)
                    loss.backward()
                    self.optimizer.step()
                    return loss

                def train(self, loader):
                    epoch_loss = 0
                    for inputs, targets in loader:
                        epoch_loss += self.train_batch(inputs, targets)
                    return epoch_loss / len(loader)
            """,
            line=21,
            column=13,
            message="Accumulating `self.train_batch(inputs, targets)` across iterations keeps every iteration's autograd graph alive; accumulate `self.train_batch(inputs, targets).item()`",
            fixed="""
            import torch
            from torch import nn


            class Trainer:
                def __init__(self, model):
                    self.model = model
                    self.criterion = nn.CrossEntropyLoss()
                    self.optimizer = torch.optim.Adam(model.parameters())

                def train_batch(self, inputs, targets):
                    self.optimizer.zero_grad()
                    loss = self.criterion(self.model(inputs), targets)
                    loss.backward()
                    self.optimizer.step()
                    return loss

                def train(self, loader):
                    epoch_loss = 0
                    for inputs, targets in loader:
                        epoch_loss += self.train_batch(inputs, targets).item()
                    return epoch_loss / len(loader)
            """,
        ),
        # A metric of the file reduced with the method `.sum()`, its `eps` left to its default: a 0-dim tensor with the model output's graph.
        Invalid(
            """
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = (pred * target).sum()
                return (2 * inter + eps) / (pred.sum() + target.sum() + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred, masks)
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """,
            line=15,
            column=9,
            message="Accumulating `dice_score(pred, masks)` across iterations keeps every iteration's autograd graph alive; accumulate `dice_score(pred, masks).item()`",
            fixed="""
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = (pred * target).sum()
                return (2 * inter + eps) / (pred.sum() + target.sum() + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred, masks).item()
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """,
        ),
        # A hand-written loss a method of the file returns after backpropagating a sum holding it
        # (an AlphaZero-style policy-value step): a tensor with a graph named for a loss.
        Invalid(
            """
            import torch
            from torch import nn


            class PolicyValueNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(16, 8)
                    self.policy = nn.Linear(8, 4)
                    self.value = nn.Linear(8, 1)
                    self.optimizer = torch.optim.Adam(self.parameters())

                def forward(self, x):
                    h = torch.relu(self.body(x))
                    return torch.softmax(self.policy(h), 1), torch.tanh(self.value(h))

                def train_step(self, x, target_p, target_v):
                    self.optimizer.zero_grad()
                    p, v = self(x)
                    loss_p = -torch.sum(target_p * torch.log(1e-8 + p), 1).mean()
                    loss_v = nn.functional.mse_loss(v, target_v)
                    (loss_p + loss_v).backward()
                    self.optimizer.step()
                    return loss_p, loss_v


            def fit(loader, epochs=10):
                net = PolicyValueNet()
                avg_loss_p = 0
                for _ in range(epochs):
                    for x, target_p, target_v in loader:
                        loss_p, loss_v = net.train_step(x, target_p, target_v)
                        avg_loss_p += loss_p
                return avg_loss_p.item() / epochs
            """,
            line=33,
            column=13,
            message="Accumulating `loss_p` across iterations keeps every iteration's autograd graph alive; accumulate `loss_p.detach()`",
            fixed="""
            import torch
            from torch import nn


            class PolicyValueNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(16, 8)
                    self.policy = nn.Linear(8, 4)
                    self.value = nn.Linear(8, 1)
                    self.optimizer = torch.optim.Adam(self.parameters())

                def forward(self, x):
                    h = torch.relu(self.body(x))
                    return torch.softmax(self.policy(h), 1), torch.tanh(self.value(h))

                def train_step(self, x, target_p, target_v):
                    self.optimizer.zero_grad()
                    p, v = self(x)
                    loss_p = -torch.sum(target_p * torch.log(1e-8 + p), 1).mean()
                    loss_v = nn.functional.mse_loss(v, target_v)
                    (loss_p + loss_v).backward()
                    self.optimizer.step()
                    return loss_p, loss_v


            def fit(loader, epochs=10):
                net = PolicyValueNet()
                avg_loss_p = 0
                for _ in range(epochs):
                    for x, target_p, target_v in loader:
                        loss_p, loss_v = net.train_step(x, target_p, target_v)
                        avg_loss_p += loss_p.detach()
                return avg_loss_p.item() / epochs
            """,
        ),
        # An incremental mean of the loss, `((n - 1) * mean + loss) / n`: each step's mean keeps the last one.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            criterion = nn.CrossEntropyLoss()
            mean_loss = 0
            count = 0
            for x, y in loader:
                count += 1
                train_loss = criterion(model(x), y)
                optimizer.zero_grad()
                train_loss.backward()
                optimizer.step()
                mean_loss = ((count - 1) * mean_loss + train_loss) / count
                print(mean_loss.item())
            """,
            line=15,
            column=5,
            message="Accumulating `train_loss` across iterations keeps every iteration's autograd graph alive; accumulate `train_loss.detach()`",
            fixed="""
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            criterion = nn.CrossEntropyLoss()
            mean_loss = 0
            count = 0
            for x, y in loader:
                count += 1
                train_loss = criterion(model(x), y)
                optimizer.zero_grad()
                train_loss.backward()
                optimizer.step()
                mean_loss = ((count - 1) * mean_loss + train_loss.detach()) / count
                print(mean_loss.item())
            """,
        ),
        # A metric of the model's output, computed by the `__call__` of a plain class of the file and summed
        # over a test loop that only reports it: each PSNR keeps its graph.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class PSNR:
                def __call__(self, x, y):
                    return 10 * torch.log10(1.0 / torch.mean((x - y) ** 2))


            generator = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1))
            generator.load_state_dict(torch.load("g.pt"))
            psnr_metric = PSNR()
            loader = [(torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8))]
            total_psnr = 0
            for lr_img, hr_img in loader:
                sr_img = generator(lr_img)
                psnr = psnr_metric(hr_img, sr_img)
                total_psnr += psnr
                print(f"psnr = {psnr}")
            print(f"total_psnr: {total_psnr}")
            """,
            line=18,
            column=5,
            message="Accumulating `psnr` across iterations keeps every iteration's autograd graph alive; accumulate `psnr.item()`",
            fixed="""
            import torch
            import torch.nn as nn


            class PSNR:
                def __call__(self, x, y):
                    return 10 * torch.log10(1.0 / torch.mean((x - y) ** 2))


            generator = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1))
            generator.load_state_dict(torch.load("g.pt"))
            psnr_metric = PSNR()
            loader = [(torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8))]
            total_psnr = 0
            for lr_img, hr_img in loader:
                sr_img = generator(lr_img)
                psnr = psnr_metric(hr_img, sr_img)
                total_psnr += psnr.item()
                print(f"psnr = {psnr}")
            print(f"total_psnr: {total_psnr}")
            """,
        ),
        # A criterion handed in and run by its `forward` (`loss.forward(...)`): a loss, with the model's graph.
        Invalid(
            """
            import torch


            def val(val_loader, model, loss):
                model.eval()
                tot_loss = 0
                for image, text in val_loader:
                    image_features, text_features = model(image, text)
                    targets = torch.arange(len(image), dtype=torch.long)
                    val_loss = loss.forward(image_features, text_features, targets)
                    tot_loss += val_loss.cpu()
                return tot_loss / len(val_loader)
            """,
            line=11,
            column=9,
            message="Accumulating `val_loss.cpu()` across iterations keeps every iteration's autograd graph alive; accumulate `val_loss.cpu().item()`",
            fixed="""
            import torch


            def val(val_loader, model, loss):
                model.eval()
                tot_loss = 0
                for image, text in val_loader:
                    image_features, text_features = model(image, text)
                    targets = torch.arange(len(image), dtype=torch.long)
                    val_loss = loss.forward(image_features, text_features, targets)
                    tot_loss += val_loss.cpu().item()
                return tot_loss / len(val_loader)
            """,
        ),
        # A loss of a layer the check does not know (its graph not known to the flow), which the loop
        # then backpropagates: `loss.backward()` shows the graph the total keeps.
        Invalid(
            """
            import torch
            from torch_geometric.nn import SAGEConv


            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = SAGEConv(4, 1)

                def forward(self, x, edge_index):
                    out = self.conv(x, edge_index)
                    return out, torch.sigmoid(out)

                def class_weights(self, y):
                    return torch.where(y > 0, 10.0, 1.0)

                def fit(self, loader, optimizer, epochs):
                    criterion = torch.nn.BCEWithLogitsLoss()
                    for epoch in range(epochs):
                        total_loss = 0
                        for batch in loader:
                            optimizer.zero_grad()
                            out, out_sig = self(batch.x, batch.edge_index)
                            criterion.register_buffer("weight", self.class_weights(batch.y))
                            loss = criterion(out, batch.y)
                            total_loss += loss
                            loss.backward()
                            optimizer.step()
                        print(f"{total_loss / len(loader):.3f}")
            """,
            line=26,
            column=17,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate `loss.item()`",
            fixed="""
            import torch
            from torch_geometric.nn import SAGEConv


            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = SAGEConv(4, 1)

                def forward(self, x, edge_index):
                    out = self.conv(x, edge_index)
                    return out, torch.sigmoid(out)

                def class_weights(self, y):
                    return torch.where(y > 0, 10.0, 1.0)

                def fit(self, loader, optimizer, epochs):
                    criterion = torch.nn.BCEWithLogitsLoss()
                    for epoch in range(epochs):
                        total_loss = 0
                        for batch in loader:
                            optimizer.zero_grad()
                            out, out_sig = self(batch.x, batch.edge_index)
                            criterion.register_buffer("weight", self.class_weights(batch.y))
                            loss = criterion(out, batch.y)
                            total_loss += loss.item()
                            loss.backward()
                            optimizer.step()
                        print(f"{total_loss / len(loader):.3f}")
            """,
        ),
        # A total appended to a list the function returns, whose items a caller reads as tensors:
        # the fix keeps them tensors (`.item()` would make `plot[i].item()` raise).
        Invalid(
            """
            import torch


            def train(model, loader, cost, optimizer, epochs):
                plot = []
                for e in range(epochs):
                    running_loss = 0
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = cost(model(x), y)
                        running_loss += loss
                        loss.backward()
                        optimizer.step()
                    plot.append(running_loss / len(loader))
                return plot


            def run(model, loader, cost, optimizer):
                plot = train(model, loader, cost, optimizer, 3)
                return [plot[i].item() for i in range(len(plot))]
            """,
            line=11,
            column=13,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            import torch


            def train(model, loader, cost, optimizer, epochs):
                plot = []
                for e in range(epochs):
                    running_loss = 0
                    for x, y in loader:
                        optimizer.zero_grad()
                        loss = cost(model(x), y)
                        running_loss += loss.detach()
                        loss.backward()
                        optimizer.step()
                    plot.append(running_loss / len(loader))
                return plot


            def run(model, loader, cost, optimizer):
                plot = train(model, loader, cost, optimizer, 3)
                return [plot[i].item() for i in range(len(plot))]
            """,
        ),
        # A tuple appended each epoch keeps its loss, and that loss's graph, alive.
        Invalid(
            """
            import torch


            def train(D, G, loader, opt_d, bce, epochs):
                history = []
                for epoch in range(epochs):
                    for x, z in loader:
                        real_loss = bce(D(x), torch.ones(len(x), 1))
                        fake_loss = bce(D(G(z).detach()), torch.zeros(len(z), 1))
                        d_loss = real_loss + fake_loss
                        opt_d.zero_grad()
                        d_loss.backward()
                        opt_d.step()
                    history.append((epoch, d_loss))
                return history
            """,
            line=14,
            column=32,
            message="Accumulating `d_loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`d_loss.detach()`",
            fixed="""
            import torch


            def train(D, G, loader, opt_d, bce, epochs):
                history = []
                for epoch in range(epochs):
                    for x, z in loader:
                        real_loss = bce(D(x), torch.ones(len(x), 1))
                        fake_loss = bce(D(G(z).detach()), torch.zeros(len(z), 1))
                        d_loss = real_loss + fake_loss
                        opt_d.zero_grad()
                        d_loss.backward()
                        opt_d.step()
                    history.append((epoch, d_loss.detach()))
                return history
            """,
        ),
        # The total goes back to the caller in a tuple, which calls `.item()` on it: the fix keeps it
        # a tensor (`.detach()`), as `.item()` would make it a float, which has no `.item()`.
        Invalid(
            """
            import torch


            def train_epoch(model, loader, optimizer, criterion):
                total_loss = 0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    total_loss += loss
                return total_loss / len(loader), len(loader)


            def fit(model, loader, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    train_loss, batches = train_epoch(model, loader, optimizer, criterion)
                    print(train_loss.item(), batches)
            """,
            line=11,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            import torch


            def train_epoch(model, loader, optimizer, criterion):
                total_loss = 0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    total_loss += loss.detach()
                return total_loss / len(loader), len(loader)


            def fit(model, loader, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    train_loss, batches = train_epoch(model, loader, optimizer, criterion)
                    print(train_loss.item(), batches)
            """,
        ),
        Invalid(
            """
            import torch


            def train(model, loader, optimizer, criterion, epochs):
                epoch_losses = torch.tensor([])
                for epoch in range(epochs):
                    for x, y in loader:
                        loss = criterion(model(x), y)
                        epoch_losses = torch.cat((epoch_losses, loss.unsqueeze(0)))
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    print(epoch_losses.mean().item())
                    epoch_losses = torch.tensor([])
            """,
            line=9,
            column=13,
            message="Accumulating `loss.unsqueeze(0)` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `loss.unsqueeze(0).detach()`",
            fixed="""
            import torch


            def train(model, loader, optimizer, criterion, epochs):
                epoch_losses = torch.tensor([])
                for epoch in range(epochs):
                    for x, y in loader:
                        loss = criterion(model(x), y)
                        epoch_losses = torch.cat((epoch_losses, loss.unsqueeze(0).detach()))
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    print(epoch_losses.mean().item())
                    epoch_losses = torch.tensor([])
            """,
        ),
        # A training step of a plain class appends the loss it backpropagates to a list its
        # `__init__` starts empty and nothing reads: every call's graph is kept.
        Invalid(
            """
            import torch


            class Member:
                def __init__(self):
                    self.model = torch.nn.Linear(1, 1)
                    self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
                    self.losses = []

                def step(self, x, y):
                    nll = torch.nn.functional.mse_loss(self.model(x), y)
                    self.losses.append(nll)
                    self.optimizer.zero_grad()
                    nll.backward()
                    self.optimizer.step()
            """,
            line=12,
            column=9,
            message="Accumulating `nll` in `self.losses` at every call of `step` (which backpropagates it) keeps "
            "every call's autograd graph alive; accumulate `nll.detach()`",
            fixed="""
            import torch


            class Member:
                def __init__(self):
                    self.model = torch.nn.Linear(1, 1)
                    self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
                    self.losses = []

                def step(self, x, y):
                    nll = torch.nn.functional.mse_loss(self.model(x), y)
                    self.losses.append(nll.detach())
                    self.optimizer.zero_grad()
                    nll.backward()
                    self.optimizer.step()
            """,
        ),
        # A DQN's step function backpropagates its loss and hands it back: the loss had a graph
        # (backward takes no other), and the caller adds each one to a running total it prints.
        Invalid(
            """
            import torch.nn.functional as F


            def train_step(q, batch, optimizer):
                s, a, y = batch
                q_value = q(s).gather(1, a)
                loss = F.smooth_l1_loss(q_value, y).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss


            def main(q, memory, optimizer):
                loss = 0.0
                for step in range(1000):
                    loss += train_step(q, memory.sample(32), optimizer)
                    if step % 100 == 0:
                        print("loss: %.2f" % (loss / 100))
                        loss = 0.0
            """,
            line=17,
            column=9,
            message="Accumulating `train_step(q, memory.sample(32), opti...` across iterations keeps every iteration's "
            "autograd graph alive; accumulate `train_step(q, memory.sample(32), opti....item()`",
            fixed="""
            import torch.nn.functional as F


            def train_step(q, batch, optimizer):
                s, a, y = batch
                q_value = q(s).gather(1, a)
                loss = F.smooth_l1_loss(q_value, y).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss


            def main(q, memory, optimizer):
                loss = 0.0
                for step in range(1000):
                    loss += train_step(q, memory.sample(32), optimizer).item()
                    if step % 100 == 0:
                        print("loss: %.2f" % (loss / 100))
                        loss = 0.0
            """,
        ),
        # A script that calls its loss `cost` (TensorFlow's word) and its criterion by another
        # name: the loss module's call and the backward pass show what `cost` is.
        Invalid(
            """
            import torch
            from torch import nn

            model = nn.Linear(784, 10)
            crit = nn.CrossEntropyLoss()
            optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
            for epoch in range(15):
                avg_cost = 0
                for X, Y in data_loader:
                    cost = crit(model(X), Y)
                    optimizer.zero_grad()
                    cost.backward()
                    optimizer.step()
                    avg_cost += cost / total_batch
                print("[Epoch: {:>4}] cost = {:>.9}".format(epoch + 1, avg_cost))
            """,
            line=14,
            column=9,
            message="Accumulating `cost / total_batch` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `(cost / total_batch).item()`",
            fixed="""
            import torch
            from torch import nn

            model = nn.Linear(784, 10)
            crit = nn.CrossEntropyLoss()
            optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
            for epoch in range(15):
                avg_cost = 0
                for X, Y in data_loader:
                    cost = crit(model(X), Y)
                    optimizer.zero_grad()
                    cost.backward()
                    optimizer.step()
                    avg_cost += (cost / total_batch).item()
                print("[Epoch: {:>4}] cost = {:>.9}".format(epoch + 1, avg_cost))
            """,
        ),
        # A metric with a graph (a dice score of the model's output, not named for a loss)
        # summed across training steps.
        Invalid(
            """
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = torch.sum(pred * target)
                return (2 * inter + eps) / (torch.sum(pred) + torch.sum(target) + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred, masks)
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """,
            line=15,
            column=9,
            message="Accumulating `dice_score(pred, masks)` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `dice_score(pred, masks).item()`",
            fixed="""
            import torch


            def dice_score(pred, target, eps=1e-6):
                inter = torch.sum(pred * target)
                return (2 * inter + eps) / (torch.sum(pred) + torch.sum(target) + eps)


            def train(model, loader, optimizer, criterion):
                total_score = 0.0
                for images, masks in loader:
                    optimizer.zero_grad()
                    pred = torch.sigmoid(model(images))
                    loss = criterion(pred, masks)
                    total_score += dice_score(pred, masks).item()
                    loss.backward()
                    optimizer.step()
                return total_score / len(loader)
            """,
        ),
        # A total handed back in a dict whose item a caller of the file uses as a tensor
        # (`metrics["train_loss"].cpu()`): it stays a tensor, without the graphs.
        Invalid(
            """
            import torch

            def train_step(model, loader, loss_fn, optimizer):
                train_loss = 0
                for X, y in loader:
                    loss = loss_fn(model(X), y)
                    train_loss += loss
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return {"train_loss": train_loss / len(loader)}

            def train(model, loader, loss_fn, optimizer, epochs):
                history = []
                for epoch in range(epochs):
                    metrics = train_step(model, loader, loss_fn, optimizer)
                    history.append(metrics["train_loss"].cpu().numpy())
                return history
            """,
            line=7,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `loss.detach()`",
            fixed="""
            import torch

            def train_step(model, loader, loss_fn, optimizer):
                train_loss = 0
                for X, y in loader:
                    loss = loss_fn(model(X), y)
                    train_loss += loss.detach()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return {"train_loss": train_loss / len(loader)}

            def train(model, loader, loss_fn, optimizer, epochs):
                history = []
                for epoch in range(epochs):
                    metrics = train_step(model, loader, loss_fn, optimizer)
                    history.append(metrics["train_loss"].cpu().numpy())
                return history
            """,
        ),
        # A running average started by its first term (`None` before the loop): the fix takes
        # the graph off both branches.
        Invalid(
            """
            import torch

            def train_step(model, x, optimizer):
                optimizer.zero_grad()
                loss = model(x).mean()
                loss.backward()
                optimizer.step()
                return loss

            def train_epoch(model, loader, optimizer):
                loss_ema = None
                for x, _ in loader:
                    train_loss = train_step(model, x, optimizer)
                    loss_ema = train_loss if loss_ema is None else 0.9 * loss_ema + 0.1 * train_loss
                    print(f"loss: {loss_ema:.4f}")
            """,
            line=14,
            column=9,
            message="Accumulating `0.1 * train_loss` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `(0.1 * train_loss).detach()`",
            fixed="""
            import torch

            def train_step(model, x, optimizer):
                optimizer.zero_grad()
                loss = model(x).mean()
                loss.backward()
                optimizer.step()
                return loss

            def train_epoch(model, loader, optimizer):
                loss_ema = None
                for x, _ in loader:
                    train_loss = train_step(model, x, optimizer)
                    loss_ema = train_loss.detach() if loss_ema is None else 0.9 * loss_ema + (0.1 * train_loss).detach()
                    print(f"loss: {loss_ema:.4f}")
            """,
        ),
        # A running average kept as a (sum, count) tuple.
        Invalid(
            """
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = (0.0, 0.0)
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((model(x) - y) ** 2).mean()
                loss.backward()
                avg_loss = (avg_loss[0] * 0.99 + loss, avg_loss[1] * 0.99 + 1.0)
                optimizer.step()
                print(avg_loss[0] / avg_loss[1])
            """,
            line=10,
            column=5,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `loss.detach()`",
            fixed="""
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = (0.0, 0.0)
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((model(x) - y) ** 2).mean()
                loss.backward()
                avg_loss = (avg_loss[0] * 0.99 + loss.detach(), avg_loss[1] * 0.99 + 1.0)
                optimizer.step()
                print(avg_loss[0] / avg_loss[1])
            """,
        ),
        # A running average of the loss: each new value keeps the previous one, and with it every
        # iteration's graph, as a sum does.
        Invalid(
            """
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = 0.0
            for x, y in loader:
                loss = ((model(x) - y) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                avg_loss = avg_loss * 0.99 + loss
                print(avg_loss)
            """,
            line=11,
            column=5,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `loss.item()`",
            fixed="""
            import torch

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            avg_loss = 0.0
            for x, y in loader:
                loss = ((model(x) - y) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                avg_loss = avg_loss * 0.99 + loss.item()
                print(avg_loss)
            """,
        ),
        # A course's own loss function (the name `loss` bound again later, to torch's): what each
        # iteration backpropagates is its loss.
        Invalid(
            """
            import torch

            W = torch.normal(0, 0.01, size=(784, 10), requires_grad=True)


            def cross_entropy(y_hat, y):
                return -torch.log(y_hat[range(len(y_hat)), y])


            loss = cross_entropy
            for epoch in range(10):
                L = 0.0
                for X, y in train_iter:
                    l = loss(torch.softmax(X @ W, 1), y)
                    l.sum().backward()
                    with torch.no_grad():
                        W -= 0.1 * W.grad
                        W.grad.zero_()
                    L += l.sum()
                print(L)

            # the next section: torch's loss, the same loop
            loss = torch.nn.CrossEntropyLoss(reduction="none")
            for X, y in train_iter:
                l = loss(X @ W, y)
                l.mean().backward()
                with torch.no_grad():
                    W -= 0.1 * W.grad
                    W.grad.zero_()
            """,
            line=19,
            column=9,
            message="Accumulating `l.sum()` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `l.sum().item()`",
        ),
        # The builtin `abs` of a loss is the tensor's own `abs()`: the graph stays.
        Invalid(
            """
            import torch


            def train_model(model, batches, optimizer, criterion=torch.nn.MSELoss()):
                total_loss = 0
                for inputs, targets in batches:
                    loss = criterion(model(inputs), targets)
                    total_loss += abs(loss)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return total_loss
            """,
            line=8,
            column=9,
            message="Accumulating `abs(loss)` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `abs(loss).item()`",
        ),
        # PPO's loss terms summed beside the total they make: the backward pass takes its graph
        # from them, and each running sum keeps every mini-batch's.
        Invalid(
            """
            import torch.nn.functional as F


            def update(policy, vf, optimizer, batches):
                sum_total, sum_value = 0, 0
                for obs, ret, adv, old_log_prob in batches:
                    value_loss = F.mse_loss(vf(obs), ret)
                    ratio = (policy.log_prob(obs) - old_log_prob).exp()
                    policy_loss = -(ratio * adv).mean()
                    total_loss = policy_loss + 0.5 * value_loss
                    optimizer.zero_grad()
                    total_loss.backward()
                    optimizer.step()
                    sum_total += total_loss.item()
                    sum_value += value_loss
                return sum_total, sum_value.item()
            """,
            line=15,
            column=9,
            message="Accumulating `value_loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `value_loss.detach()`",
            fixed="""
            import torch.nn.functional as F


            def update(policy, vf, optimizer, batches):
                sum_total, sum_value = 0, 0
                for obs, ret, adv, old_log_prob in batches:
                    value_loss = F.mse_loss(vf(obs), ret)
                    ratio = (policy.log_prob(obs) - old_log_prob).exp()
                    policy_loss = -(ratio * adv).mean()
                    total_loss = policy_loss + 0.5 * value_loss
                    optimizer.zero_grad()
                    total_loss.backward()
                    optimizer.step()
                    sum_total += total_loss.item()
                    sum_value += value_loss.detach()
                return sum_total, sum_value.item()
            """,
        ),
        # The same slots in a torch tensor: each copy into it joins the loss's graph.
        # The same helper keeping the tensor (`x.view(-1)[0]`): its graph is added up.
        Invalid(
            """
            import torch.nn.functional as F


            def scalar(x):
                return x.view(-1)[0]


            def train(model, data, optim):
                loss_sum = 0
                for x, y in data:
                    model.zero_grad()
                    loss = F.nll_loss(model(x), y)
                    loss.backward()
                    optim.step()
                    loss = scalar(loss)
                    loss_sum += loss
                return loss_sum / len(data)
            """,
            line=16,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.item()`",
        ),
        Invalid(
            """
            import numpy as np
            import torch


            def train(model, x, y, epochs, loss_fn, optimizer):
                losses = torch.zeros(epochs)
                for epoch in range(epochs):
                    loss = loss_fn(model(x), y)
                    losses[epoch] = loss
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return losses
            """,
            line=9,
            column=9,
            message="Storing `loss` across iterations keeps every iteration's autograd graph alive; store "
            "`loss.detach()`",
        ),
        # A loss handed to a meter of the file whose `update` adds it to what the instance keeps.
        Invalid(
            """
            class AverageMeter:
                def __init__(self):
                    self.sum, self.count = 0, 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n


            def train(model, loader, criterion, optimizer):
                losses = AverageMeter()
                for x, y in loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.update(loss, x.size(0))
                return losses.sum / losses.count
            """,
            line=17,
            column=9,
            message="`losses.update(...)` adds `loss` to what `losses` keeps across iterations, keeping every "
            "iteration's autograd graph alive; pass `loss.detach()`",
            fixed="""
            class AverageMeter:
                def __init__(self):
                    self.sum, self.count = 0, 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n


            def train(model, loader, criterion, optimizer):
                losses = AverageMeter()
                for x, y in loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.update(loss.detach(), x.size(0))
                return losses.sum / losses.count
            """,
        ),
        # A model that returns its own loss, named for one, accumulated with grad on.
        Invalid(
            """
            def validate(model, val_dl):
                model.eval()
                val_loss_sum, val_total = 0, 0
                for mb in val_dl:
                    val_loss, n_total = model(mb, use_teacher_forcing=False)
                    val_loss_sum += val_loss * n_total
                    val_total += n_total
                return val_loss_sum / val_total
            """,
            line=6,
            column=9,
            message="Accumulating `val_loss * n_total` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `(val_loss * n_total).item()`",
        ),
        # A loss reduced by a torch function is still the loss, with its graph.
        Invalid(
            """
            import torch
            def train(model, loader, opt):
                loss_avg = 0
                for sentence, tags in loader:
                    model.zero_grad()
                    loss = model.neg_log_likelihood(sentence, tags)
                    loss_avg += torch.mean(loss)
                    loss.backward()
                    opt.step()
                return loss_avg / len(loader)
            """,
            line=7,
            column=9,
            message="Accumulating `torch.mean(loss)` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `torch.mean(loss).item()`",
            fixed="""
            import torch
            def train(model, loader, opt):
                loss_avg = 0
                for sentence, tags in loader:
                    model.zero_grad()
                    loss = model.neg_log_likelihood(sentence, tags)
                    loss_avg += torch.mean(loss).item()
                    loss.backward()
                    opt.step()
                return loss_avg / len(loader)
            """,
        ),
        # A list of the module's, appended in a function's training loop.
        Invalid(
            """
            import torch
            from torch import nn, optim

            model = nn.Linear(2, 1)
            opt = optim.SGD(model.parameters(), lr=0.0001)
            criterion = nn.MSELoss()

            Loss_list = []


            def train_model(epochs):
                for epoch in range(epochs):
                    for x, y in train_loader:
                        loss = criterion(model(x), y)
                        Loss_list.append(loss)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
            """,
            line=15,
            column=13,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `loss.detach()`",
            fixed="""
            import torch
            from torch import nn, optim

            model = nn.Linear(2, 1)
            opt = optim.SGD(model.parameters(), lr=0.0001)
            criterion = nn.MSELoss()

            Loss_list = []


            def train_model(epochs):
                for epoch in range(epochs):
                    for x, y in train_loader:
                        loss = criterion(model(x), y)
                        Loss_list.append(loss.detach())
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
            """,
        ),
        # A training function handing back its last loss in a tuple, appended by the caller.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(8, 1)
            loss_fn = nn.MSELoss()
            optimizer = torch.optim.Adam(model.parameters())


            def train(loader):
                for x, y in loader:
                    optimizer.zero_grad()
                    pred = model(x)
                    loss = loss_fn(pred, y)
                    loss.backward()
                    optimizer.step()
                return loss, pred


            losses = []
            for epoch in range(100):
                loss, h = train(loader)
                losses.append(loss)
            """,
            line=22,
            column=5,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            import torch
            import torch.nn as nn

            model = nn.Linear(8, 1)
            loss_fn = nn.MSELoss()
            optimizer = torch.optim.Adam(model.parameters())


            def train(loader):
                for x, y in loader:
                    optimizer.zero_grad()
                    pred = model(x)
                    loss = loss_fn(pred, y)
                    loss.backward()
                    optimizer.step()
                return loss, pred


            losses = []
            for epoch in range(100):
                loss, h = train(loader)
                losses.append(loss.detach())
            """,
        ),
        # A loss whose sum is backpropagated (`(loss_func.sum()).backward()`) is a loss with a graph.
        Invalid(
            """
            import torch

            w = torch.tensor(0.0, requires_grad=True)
            total_loss = []
            for epoch in range(100):
                loss_func = ((y - w * X) ** 2).mean()
                total_loss.append(loss_func)
                (loss_func.sum()).backward()
                with torch.no_grad():
                    w -= 0.005 * w.grad
                w.grad.zero_()
            """,
            line=7,
            column=5,
            message="Accumulating `loss_func` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `loss_func.detach()`",
            fixed="""
            import torch

            w = torch.tensor(0.0, requires_grad=True)
            total_loss = []
            for epoch in range(100):
                loss_func = ((y - w * X) ** 2).mean()
                total_loss.append(loss_func.detach())
                (loss_func.sum()).backward()
                with torch.no_grad():
                    w -= 0.005 * w.grad
                w.grad.zero_()
            """,
        ),
        # The last batch's loss appended after the batch loop, before a test loss rebinds the name.
        Invalid(
            """
            import torch

            train_losses = []
            for epoch in range(10):
                for x, y in train_loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                train_losses.append(loss)
                with torch.no_grad():
                    loss = criterion(model(x_test), y_test)
            """,
            line=10,
            column=5,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate "
            "`loss.detach()`",
            fixed="""
            import torch

            train_losses = []
            for epoch in range(10):
                for x, y in train_loader:
                    loss = criterion(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                train_losses.append(loss.detach())
                with torch.no_grad():
                    loss = criterion(model(x_test), y_test)
            """,
        ),
        # A slot per epoch of a tensor made before the loop: the copies chain every graph.
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
            lossfun = nn.CrossEntropyLoss()
            optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
            losses = torch.zeros(1000)
            for epochi in range(1000):
                loss = lossfun(net(data), labels)
                losses[epochi] = loss
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=10,
            column=5,
            message="Storing `loss` across iterations keeps every iteration's autograd graph alive; store "
            "`loss.detach()`",
            fixed="""
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
            lossfun = nn.CrossEntropyLoss()
            optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
            losses = torch.zeros(1000)
            for epochi in range(1000):
                loss = lossfun(net(data), labels)
                losses[epochi] = loss.detach()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
        ),
        # The total is handed to a function of the file that reads it as a tensor: `.detach()`.
        Invalid(
            """
            import torch


            def get_numpy(x):
                return x.data.numpy()


            def validate(net, loader, criterion):
                total, count = 0, 0
                for xb, yb in loader:
                    loss = criterion(net(xb), yb)
                    total += loss * len(xb)
                    count += len(xb)
                return get_numpy(total / count)
            """,
            line=12,
            column=9,
            message="Accumulating `loss * len(xb)` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `(loss * len(xb)).detach()`",
            fixed="""
            import torch


            def get_numpy(x):
                return x.data.numpy()


            def validate(net, loader, criterion):
                total, count = 0, 0
                for xb, yb in loader:
                    loss = criterion(net(xb), yb)
                    total += (loss * len(xb)).detach()
                    count += len(xb)
                return get_numpy(total / count)
            """,
        ),
        # The total is what the function returns: its callers may use it as a tensor.
        Invalid(
            """
            import torch

            def evaluate_loss(data_iter, net, loss):
                l_sum, n = 0.0, 0
                for features, labels in data_iter:
                    l = loss(net(features), labels)
                    l_sum += l.sum()
                    n += labels.numel()
                return l_sum / n

            def report(valid_iter, net, loss):
                print(evaluate_loss(valid_iter, net, loss).detach().cpu())
            """,
            line=7,
            column=9,
            message="Accumulating `l.sum()` across iterations keeps every iteration's autograd graph alive; "
            "accumulate `l.sum().detach()`",
            fixed="""
            import torch

            def evaluate_loss(data_iter, net, loss):
                l_sum, n = 0.0, 0
                for features, labels in data_iter:
                    l = loss(net(features), labels)
                    l_sum += l.sum().detach()
                    n += labels.numel()
                return l_sum / n

            def report(valid_iter, net, loss):
                print(evaluate_loss(valid_iter, net, loss).detach().cpu())
            """,
        ),
        Invalid(
            """
            import torch

            def train(model, loader, opt):
                train_loss = 0
                for step, batch in enumerate(loader):
                    output = model(**batch)
                    output.loss.backward()
                    opt.step()
                    opt.zero_grad()
                    train_loss += output.loss
                    if step % 100 == 99:
                        print(train_loss / 100)
                        train_loss = 0
            """,
            line=10,
            column=9,
            message="Accumulating `output.loss` across iterations keeps every iteration's autograd graph alive; accumulate `output.loss.item()`",
            fixed="""
            import torch

            def train(model, loader, opt):
                train_loss = 0
                for step, batch in enumerate(loader):
                    output = model(**batch)
                    output.loss.backward()
                    opt.step()
                    opt.zero_grad()
                    train_loss += output.loss.item()
                    if step % 100 == 99:
                        print(train_loss / 100)
                        train_loss = 0
            """,
        ),
        Invalid(
            """
            import torch

            def train(model, loader, criterion, opt):
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    opt.step()
                    total += loss
                return total
            """,
            line=9,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate `loss.item()`",
            fixed="""
            import torch

            def train(model, loader, criterion, opt):
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    opt.step()
                    total += loss.item()
                return total
            """,
        ),
        Invalid(
            """
            import torch

            def evaluate(model, loader, criterion):
                model.eval()
                val_loss = 0
                for x, y in loader:
                    out = model(x)
                    val_loss = val_loss + criterion(out, y) * x.size(0)
                return val_loss / len(loader)
            """,
            line=8,
            column=9,
            message="Accumulating `criterion(out, y) * x.size(0)` across iterations keeps every iteration's autograd graph alive; accumulate `(criterion(out, y) * x.size(0)).item()`",
            fixed="""
            import torch

            def evaluate(model, loader, criterion):
                model.eval()
                val_loss = 0
                for x, y in loader:
                    out = model(x)
                    val_loss = val_loss + (criterion(out, y) * x.size(0)).item()
                return val_loss / len(loader)
            """,
        ),
        Invalid(
            """
            import torch

            def train(model, loader, criterion, opt):
                losses = []
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    losses.append(loss)
                return torch.stack(losses).mean()
            """,
            line=8,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate `loss.detach()`",
            fixed="""
            import torch

            def train(model, loader, criterion, opt):
                losses = []
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    losses.append(loss.detach())
                return torch.stack(losses).mean()
            """,
        ),
        # The total is used as a tensor later: `.detach()`, not `.item()`.
        Invalid(
            """
            import torch

            def train(model, loader, criterion):
                total = 0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    total += loss
                print(total.item())
            """,
            line=8,
            column=9,
            message="Accumulating `loss` across iterations keeps every iteration's autograd graph alive; accumulate `loss.detach()`",
            fixed="""
            import torch

            def train(model, loader, criterion):
                total = 0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
                    total += loss.detach()
                print(total.item())
            """,
        ),
        Invalid(
            # the sum over the parameters outlives the epoch loop: every step's terms are kept
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 1)
            optimizer = torch.optim.Adam(model.parameters())
            criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([10.0]))
            l1_history = 0
            for epoch in range(10):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x).squeeze(1), y)
                    for param in model.parameters():
                        l1_history += torch.abs(param).sum()
                    loss.backward()
                    optimizer.step()
            print(l1_history)
            """,
            line=13,
            column=13,
            message="Accumulating `torch.abs(param).sum()` across iterations keeps every iteration's autograd graph "
            "alive; accumulate `torch.abs(param).sum().item()`",
            fixed="""
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 1)
            optimizer = torch.optim.Adam(model.parameters())
            criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([10.0]))
            l1_history = 0
            for epoch in range(10):
                for x, y in train_loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x).squeeze(1), y)
                    for param in model.parameters():
                        l1_history += torch.abs(param).sum().item()
                    loss.backward()
                    optimizer.step()
            print(l1_history)
            """,
        ),
    )

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        if not isinstance(node.op, ast.Add):
            return
        target = node.target
        if isinstance(target, ast.Name):
            self._check(node, target.id, node.value, ctx, "augment")
        elif (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, (str, int))
        ):
            # `metrics["loss"] += loss`: a running total kept in a slot of a dict (or list) made
            # before the loop
            self._check(node, target.value.id, node.value, ctx, "augment")

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        value = node.value
        if len(node.targets) == 1 and _stored_per_iteration(ctx, node.targets[0]):
            # `losses[epochi] = loss`: a slot per iteration of a tensor, list or dict made before the loop
            store = ctx.model.value(node.targets[0].value)  # type: ignore[attr-defined]
            if store.kind is Kind.OTHER and store.ref is None:
                return  # a numpy array (`np.zeros(epochs)`): it keeps the value as a number, not the graph
            self._check(node, node.targets[0].value.id, value, ctx, "store")  # type: ignore[attr-defined]
            return
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        name = node.targets[0].id
        # `total = total + loss`; `avg_loss = (avg_loss[0] * 0.99 + loss, avg_loss[1] * 0.99 + 1.0)`,
        # a running average kept as a (sum, count) tuple: each item adds to its own slot
        if isinstance(value, ast.IfExp):
            # `ema = loss if ema is None else 0.9 * ema + 0.1 * loss`: a running average started by
            # its first term; the fix also takes the graph off that start
            for branch, start in ((value.orelse, value.body), (value.body, value.orelse)):
                term = _added_term(branch, name)
                if term is not None:
                    also = start if _names(start) & _names(term) - {name} else None
                    self._check(node, name, term, ctx, "augment", also=also)
                    return
            return
        joined = _joined_term(ctx, value, name)
        if joined is not None:
            # `losses = torch.cat((loss.cpu().unsqueeze(0), losses))`: a tensor grown by each term
            self._check(node, name, joined, ctx, "append")
            return
        items = enumerate(value.elts) if isinstance(value, ast.Tuple) else [(None, value)]
        for index, item in items:
            term = _added_term(item, name, index)
            if term is not None:
                self._check(node, name, term, ctx, "augment")

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and isinstance(func.value, ast.Name)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(ctx.parent(node), ast.Expr)
        ):
            appended = node.args[0]
            if isinstance(appended, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in appended.elts):
                # `history.append((d_real_loss, d_fake_loss, d_loss))`: each item kept, each reported at itself
                for item in appended.elts:
                    self._check(item, func.value.id, item, ctx, "append")
            else:
                self._check(node, func.value.id, appended, ctx, "append")
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and len(node.args) == 1
            and not node.keywords
            and isinstance(ctx.parent(node), ast.Expr)
            and _instance_list(func.value) is not None
        ):
            self._check_instance_list(node, _instance_list(func.value), node.args[0], ctx)  # type: ignore[arg-type]
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and node.args
            and not ctx.grad_disabled
            and func.attr in ctx.model.accumulating_methods()
            and isinstance(ctx.parent(node), ast.Expr)
        ):
            # `losses.update(loss, n)` of an `AverageMeter` whose `update` does `self.sum += val * n`
            for position in ctx.model.accumulated_arguments(ctx.model.value(func.value), func.attr):
                if position < len(node.args) and not isinstance(node.args[position], ast.Starred):
                    self._check(node, func.value.id, node.args[position], ctx, "update")

    def _check_instance_list(self, node: ast.Call, attr: str, value: ast.AST, ctx) -> None:
        """``self.losses.append(loss)`` in a method that backpropagates ``loss`` (a training step,
        run once per iteration by its callers), into a list the class's ``__init__`` starts empty
        and nothing backpropagates: the list keeps the graph of every call."""
        method = ctx.function
        owner = ctx.method_class
        if (
            not isinstance(value, ast.Name)
            or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            or owner is None
            or method.name == "__init__"
            or ctx.grad_disabled
            or not _started_empty_in_init(owner, attr)
        ):
            return
        own = ctx.model.own_nodes(method)
        if not any(
            type(sub) is ast.Call
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "backward"
            and isinstance(sub.func.value, ast.Name)
            and sub.func.value.id == value.id
            and not sub.args
            for sub in own
        ):
            return  # not the step's own loss
        added = ctx.model.value(value)
        if not (added.carries_grad and added.has(Role.LOSS)) or ctx.model.grad_mode(node) is not GradMode.ENABLED:
            return
        if _instance_list_read(ctx, owner, attr):
            return  # `torch.stack(self.losses).mean().backward()` later, or read anywhere: not asked further
        message = (
            f"Accumulating `{value.id}` in `self.{attr}` at every call of `{method.name}` (which backpropagates it) "
            f"keeps every call's autograd graph alive; accumulate `{value.id}.detach()`"
        )
        ctx.report(self.code, node, message, _fix(ctx, value, ".detach()"))

    def _check(self, node: ast.AST, acc: str, value: ast.AST, ctx, how: str, also: Optional[ast.AST] = None) -> None:
        """``also``: another expression of the statement the fix gives the same suffix (the first
        term of a running average started by it)."""
        model = ctx.model
        scope = ctx.function if ctx.function is not None else ctx.tree
        if isinstance(scope, ast.Lambda) or ctx.grad_disabled:
            return
        loop = _innermost_loop(ctx, node, scope)
        if loop is None:
            return
        if model.grad_mode(node) is not GradMode.ENABLED:
            return
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "backward":
            # `score += loss_module.backward()`: a tensor's backward returns None; an object's own
            # (a legacy loss module) hands back the loss it keeps, whose graph it holds anyway
            return
        added = model.value(value)
        uses = model.uses(scope)
        if not (added.carries_grad and added.has(Role.LOSS)) and isinstance(value, ast.Name):
            added = _left_by_inner_loop(ctx, uses, value.id, node, loop) or added
        if (added.kind is Kind.TENSOR and added.has(Role.LEAF)) or (
            isinstance(value, ast.Name) and _made_a_leaf_in(loop, value.id)
        ):
            # a leaf holds no graph (`loss.requires_grad = True`, which torch allows on a leaf
            # alone, shows the loss never had one)
            return
        # `total_loss = policy_loss + 0.5 * value_loss`, `total_loss.backward()`: the terms added
        # elsewhere carry the graph that backward pass takes, whatever the flow knows of them
        # (not through the name of what it calls: `loss_function(ls, ts)` in an evaluation, where
        # the training loop backpropagates another `loss = loss_function(...)`)
        feeds_backward = any(uses.derived(name) & uses.backpropagated for name in _operand_names(value))
        # The term a backward pass of this iteration took its graph from, or its sum or mean:
        # `value_loss` summed into `total_loss` before `total_loss.backward()` (named for a loss),
        # `l.sum().backward()` then `L += l.sum()` (a course's own `cross_entropy`: it carries a graph).
        reduced = _reduced_name(value)
        backpropagated_term = (
            reduced is not None
            and (added.carries_grad or (isinstance(value, ast.Name) and names_a_loss(value.id)))
            and feeds_backward
            and _backward_since_bound(ctx, uses, reduced, node, loop)
        )
        # A loss whose graph the flow could not tell (`out, out_sig = self(batch.x, ...)`), which the
        # loop backpropagates itself: `loss.backward()` shows it has one.
        backpropagated_loss = (
            isinstance(value, ast.Name)
            and added.kind is Kind.TENSOR
            and added.has(Role.LOSS)
            and added.grad is Grad.MAYBE
            and _backward_called_on(uses, {value.id}, loop)
        )
        # `batch_loss, loss = seq2seq(x, y)`, then `loss.backward()`: a loss of the same forward
        # pass as the one backpropagated, whatever the flow knows of the model's outputs
        sibling_backpropagated = _sibling_backpropagated(ctx, uses, value, loop)
        sibling_loss = (
            sibling_backpropagated
            and isinstance(value, ast.Name)
            and added.grad is not Grad.NO
            and names_a_loss(value.id)
        )
        if (
            not (added.carries_grad and (added.has(Role.LOSS) or _named_loss_in(ctx, value)))
            and not backpropagated_term
            and not backpropagated_loss
            and not sibling_loss
            and not _scalar_with_graph(added)
        ):
            return
        if not _defined_before_loop(ctx, uses, acc, loop):
            return
        if added.weak and added.has(Role.OUTPUT) and model.run_defines_backpropagating_modules:
            # `loss = model(x, y)` of a model known by its name alone, in a run whose module
            # classes backpropagate and step in their own `forward` (and may return `loss.item()`)
            return
        if _over_parameters(ctx, loop):
            # `for p in model.parameters(): l1 += p.abs().sum()`: one penalty built from the
            # parameters, its graph theirs, unless the sum also outlives the loop around it
            outer = _innermost_loop(ctx, loop, scope)
            if outer is None or not _defined_before_loop(ctx, uses, acc, outer) or _bound_afresh_in(outer, acc, loop):
                return
        derived = _derived_through_slots(ctx, uses, scope, acc)
        if derived & uses.backpropagated and not _backpropagated_only_fresh_before(
            ctx, derived & uses.backpropagated, loop, scope, derived
        ):
            return
        backward_each_step = (
            feeds_backward
            or _returned_after_backward(ctx, uses, _names(value), loop)
            or _called_to_backpropagate(ctx, value)
            or sibling_backpropagated
        )
        if not backward_each_step:
            if not _runs_model(ctx, loop):
                return
            evaluates = uses.calls_eval or bool(_EVAL_NAME_RE.search(getattr(scope, "name", "")))
            if derived & uses.escaping and not evaluates:
                return
        suffix = _suffix(ctx, uses, acc, how, derived)
        shown = ctx.text(value)
        if how == "update":
            method = node.func.attr  # type: ignore[attr-defined]
            message = (
                f"`{acc}.{method}(...)` adds `{short(shown)}` to what `{acc}` keeps across iterations, keeping "
                f"every iteration's autograd graph alive; pass `{_suffixed(value, short(shown), suffix)}`"
            )
        else:
            verb = ("Storing", "store") if how == "store" else ("Accumulating", "accumulate")
            message = (
                f"{verb[0]} `{short(shown)}` across iterations keeps every iteration's autograd graph alive; "
                f"{verb[1]} `{_suffixed(value, short(shown), suffix)}`"
            )
        fix = _fix(ctx, value, suffix)
        if also is not None:
            fix = Fix(fix.applicability, fix.message, (*_fix(ctx, also, suffix).edits, *fix.edits))
        if not _backward_called_on(uses, _names(value), loop) and not _shown_a_tensor(ctx, value):
            # only its name and a backward pass nearby say it is a tensor: a hand-written
            # framework's `criterion.forward(out, y)` may hand back a float, which has no `.item()`
            fix = Fix(Applicability.UNSAFE, fix.message, fix.edits)
        ctx.report(self.code, node, message, fix)


def _instance_list(node: ast.AST) -> Optional[str]:
    """``losses`` of ``self.losses``; None for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _started_empty_in_init(owner: ast.ClassDef, attr: str) -> bool:
    """Whether the class's ``__init__`` binds ``self.<attr> = []``."""
    for method in owner.body:
        if isinstance(method, ast.FunctionDef) and method.name == "__init__":
            return any(
                isinstance(node, ast.Assign)
                and any(_instance_list(target) == attr for target in node.targets)
                and isinstance(node.value, ast.List)
                and not node.value.elts
                for node in walk_in_order(method)
            )
    return False


def _instance_list_read(ctx, owner: ast.ClassDef, attr: str) -> bool:
    """Whether the class uses ``self.<attr>`` other than to append to it or start it again
    (``self.losses = []``): a read may hand the items on to a backward pass or to a caller."""
    for node in walk_in_order(owner):
        if _instance_list(node) != attr:
            continue
        parent = ctx.parent(node)
        if isinstance(node.ctx, ast.Store):  # type: ignore[attr-defined]
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "append":
            continue
        return True
    return False


def _derived_through_slots(ctx, uses, scope: ast.AST, name: str) -> set:
    """``uses.derived(name)``, and the names whose items are given values computed from those
    (``loss_replay[i] = predL_r[i]``, then ``loss_total = sum(loss_replay)``): a container filled
    with them hands their graphs on as a name bound from them does."""
    found = set(uses.derived(name))
    stores = [
        node
        for node in ctx.model.own_nodes(scope)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets)
    ]
    changed = bool(stores)
    while changed:
        changed = False
        for node in stores:
            if not (_names(node.value) & found):
                continue
            for target in node.targets:
                root = subscript_root(target)
                if isinstance(root, ast.Name) and root.id not in found:
                    found |= uses.derived(root.id)
                    changed = True
    return found


def _reduced_name(value: ast.AST) -> Optional[str]:
    """The name a value is, or reduces whole (``l``, ``l.sum()``, ``l.mean()``); None otherwise."""
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in ("sum", "mean"):
            value = func.value
    return value.id if isinstance(value, ast.Name) else None


def _backward_since_bound(ctx, uses, name: str, node: ast.AST, loop: ast.AST) -> bool:
    """Whether a backward pass runs in the loop between ``name``'s last binding before ``node``
    and ``node`` (``value_loss = ...``, ``total_loss.backward()``, then ``total += value_loss``):
    the value added is the loss term that pass took its graph from, not a number it was turned
    into after (``loss = loss.item()``)."""
    bound = [
        b.node.lineno for b in uses.bindings_of(name) if b.node.lineno < node.lineno and _inside(ctx, b.node, loop)
    ]
    if not bound:
        return False
    since = max(bound)
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "backward"
        and since < sub.lineno < node.lineno
        # not a hand-written layer's `criterion.backward(loss)`: autograd's takes a gradient, not the loss
        and not any(isinstance(arg, ast.Name) and arg.id == name for arg in sub.args)
        for sub in walk_in_order(loop)
    )


def _scalar_with_graph(added: Value) -> bool:
    """A 0-dim tensor the code shows to carry a graph, whatever it is named
    (``train_dice_score += dice_score(pred_masks, masks)``, a metric computed from the model's
    output with grad on): summed across iterations, it keeps each one's graph as a loss would."""
    return added.kind is Kind.TENSOR and added.grad is Grad.YES and added.has(Role.SCALAR) and not added.weak


def _named_loss_in(ctx, value: ast.AST) -> bool:
    """Whether what is added reads, outside any call, a tensor with a graph named for a loss
    (``val_loss, n = model(batch)``, then ``total += val_loss * n``): a model that returns its
    own loss, which the code shows to carry a graph and names a loss."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if names_a_loss(node.id) and ctx.model.value(node).carries_grad:
                return True
        elif isinstance(node, (ast.BinOp, ast.UnaryOp)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _made_a_leaf_in(loop: ast.AST, name: str) -> bool:
    """Whether the loop sets ``name.requires_grad = True``: torch allows that on a leaf alone
    (a tensor with a graph raises), so what the name holds there has no graph."""
    return any(
        isinstance(sub, ast.Assign)
        and isinstance(sub.value, ast.Constant)
        and sub.value.value is True
        and any(
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Name)
            and target.value.id == name
            for target in sub.targets
        )
        for sub in ast.walk(loop)
    )


def _left_by_inner_loop(ctx, uses, name: str, node: ast.AST, loop: ast.AST):
    """What ``name`` holds after a ``for`` loop over data that ends right before ``node`` in the
    same loop body and binds it last (``for x, y in train_loader: loss = ...`` then
    ``train_losses.append(loss)``): the flow also keeps the value of the previous iteration, for a
    loop that would run zero times; a loop over batches runs. None where that is not the shape."""
    before = sorted(
        (b for b in uses.bindings_of(name) if b.node.lineno < node.lineno and _inside(ctx, b.node, loop)),
        key=lambda b: (b.node.lineno, b.node.col_offset),
    )
    if not before:
        return None
    last = before[-1]
    if isinstance(last.node, ast.AugAssign) and isinstance(last.node.op, ast.Add):
        # `loss = 0`, then `for x, y in zip(xs, ys): loss += criterion(model(x), y)`: a sum of losses
        term = last.node.value
    elif isinstance(last.node, ast.Assign) and last.value is not None:
        term = last.value
    else:
        return None
    inner = ctx.parent(last.node)
    while inner is not None and inner is not loop and not isinstance(inner, (ast.For, ast.AsyncFor)):
        inner = ctx.parent(inner)
    if inner is None or inner is loop or ctx.parent(inner) is not loop or inner.end_lineno >= node.lineno:
        return None
    return ctx.model.value(term)


def _stored_per_iteration(ctx, target: ast.AST) -> bool:
    """``acc[i] = ...`` where the index reads the name a ``for`` loop around it binds
    (``losses[epochi]``): each iteration stores into a slot of its own."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return False
    index = _names(target.slice)
    if not index:
        return False
    current = ctx.parent(target)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(current, (ast.For, ast.AsyncFor)) and _names(current.target) & index:
            return True
        current = ctx.parent(current)
    return False


def _needs_parens(value: ast.AST) -> bool:
    return not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))


def _suffixed(value: ast.AST, text: str, suffix: str) -> str:
    return f"({text}){suffix}" if _needs_parens(value) else text + suffix


def _innermost_loop(ctx, node: ast.AST, fn: ast.AST) -> Optional[ast.AST]:
    child = node
    current = ctx.parent(node)
    while current is not None and current is not fn:
        if isinstance(current, _LOOPS) and child in current.body:
            return current
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        child = current
        current = ctx.parent(current)
    return None


_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})


def _over_parameters(ctx, loop: ast.AST) -> bool:
    """Whether a ``for`` loop iterates over a model's parameters (``model.parameters()``,
    ``model.named_parameters()``, or what the model knows to be parameters)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterated = loop.iter
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute):
        if iterated.func.attr in _PARAMETER_METHODS:
            return True
    element = ctx.model.value(iterated).elem
    return element is not None and element.has(Role.PARAM)


def _bound_afresh_in(outer: ast.AST, name: str, loop: ast.AST) -> bool:
    """Whether ``outer`` binds ``name`` anew before ``loop`` (``loss = loss_fn(pred, y)`` ahead of
    ``for param in model.parameters(): loss += ...``): each of its iterations starts another sum."""
    return any(
        isinstance(stmt, ast.Assign)
        and stmt.lineno < loop.lineno
        and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        and name not in _names(stmt.value)
        for stmt in walk_in_order(outer)
    )


def _backpropagated_only_fresh_before(ctx, names: set, loop: ast.AST, scope: ast.AST, derived: set) -> bool:
    """Whether each backward pass of the scope taking one of ``names`` runs before the loop or in
    it, on a value its own loop binds afresh before it from nothing derived from the total: the
    training loop's ``loss = criterion(out, y)``, ``loss.backward()``, ahead of an evaluation loop
    adding up ``loss = loss + criterion(...)`` under the same name; or in the loop itself, before
    ``loss_epoch += loss``, where only a statement after the loop binds ``loss = loss_epoch.data / n``.
    The total is no value that pass takes."""
    found = False
    for node in walk_in_order(scope):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            receiver = func.value
            if not (isinstance(receiver, ast.Name) and receiver.id in names):
                continue
            if node.lineno > (loop.end_lineno or loop.lineno) and not _inside(ctx, node, loop):
                return False  # after the loop: it may take the total
            own = _innermost_loop(ctx, node, scope)
            if own is None or not any(
                isinstance(stmt, ast.Assign)
                and stmt.lineno < node.lineno
                and any(isinstance(t, ast.Name) and t.id == receiver.id for t in stmt.targets)
                and not (_names(stmt.value) & (derived | {receiver.id}))
                for stmt in walk_in_order(own)
            ):
                return False
            found = True
        elif ctx.imports.qualified_name(func) in _BACKWARD_CALLS and any(
            _names(arg) & names for arg in [*node.args, *(k.value for k in node.keywords)]
        ):
            return False
    return found


def _inside(ctx, node: ast.AST, ancestor: ast.AST) -> bool:
    current = ctx.parent(node)
    while current is not None:
        if current is ancestor:
            return True
        current = ctx.parent(current)
    return False


def _joins_itself(value: ast.AST, name: str) -> bool:
    """Whether ``value`` is ``cat((name, x))`` or ``cat([x, name])`` (any join of two tensors, one
    of them ``name``), syntactically: the accumulator grown by one more term."""
    if not (isinstance(value, ast.Call) and value.args and isinstance(value.args[0], (ast.Tuple, ast.List))):
        return False
    parts = value.args[0].elts
    return (
        len(parts) == 2
        and f"torch.{callee_name(value)}" in JOINING_FUNCTIONS
        and sum(isinstance(part, ast.Name) and part.id == name for part in parts) == 1
    )


def _joined_term(ctx, value: ast.AST, name: str) -> Optional[ast.AST]:
    """The term a torch join adds to the accumulator ``name`` (``loss.cpu().unsqueeze(0)`` of
    ``losses = torch.cat((loss.cpu().unsqueeze(0), losses), 0)``), or None."""
    if not _joins_itself(value, name) or ctx.imports.qualified_name(value.func) not in JOINING_FUNCTIONS:  # type: ignore[attr-defined]
        return None
    parts = value.args[0].elts  # type: ignore[attr-defined]
    return next(part for part in parts if not (isinstance(part, ast.Name) and part.id == name))


def _added_term(value: ast.AST, name: str, index: Optional[int] = None) -> Optional[ast.AST]:
    """What ``value`` adds to the accumulator ``name`` (its item ``index``), kept or decayed:
    ``loss`` in ``total + loss`` or ``ema * 0.99 + loss``; None where it adds nothing to it."""
    if (
        isinstance(value, ast.BinOp)
        and isinstance(value.op, (ast.Div, ast.Mult))
        and name not in _names(value.right)
        and _plain_factor(value.right)
    ):
        # `mean = ((n - 1) * mean + loss) / n`: an incremental mean, a sum scaled at each step
        return _added_term(value.left, name, index)
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    if _decayed(value.left, name, index):
        return value.right
    if _decayed(value.right, name, index):
        return value.left
    return None


def _decayed(node: ast.AST, name: str, index: Optional[int] = None) -> bool:
    """Whether ``node`` is the accumulator ``name`` itself (its item ``index`` where it is a
    tuple: ``avg_loss[0]``), or it scaled by a factor that is no part of it (``ema * 0.99``,
    ``beta * running``: a running average keeps every term's graph as a sum does)."""

    def own(expr: ast.AST) -> bool:
        if index is None:
            return isinstance(expr, ast.Name) and expr.id == name
        return (
            isinstance(expr, ast.Subscript)
            and isinstance(expr.value, ast.Name)
            and expr.value.id == name
            and isinstance(expr.slice, ast.Constant)
            and expr.slice.value == index
        )

    if own(node):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for accumulator, factor in ((node.left, node.right), (node.right, node.left)):
            if own(accumulator) and name not in _names(factor):
                return _plain_factor(factor)
    return False


def _plain_factor(node: ast.AST) -> bool:
    """A number as code writes one: a constant, a name, an attribute, or arithmetic of those
    (``0.99``, ``beta``, ``(count - 1)``), no call."""
    if isinstance(node, (ast.Constant, ast.Name, ast.Attribute)):
        return True
    if isinstance(node, ast.UnaryOp):
        return _plain_factor(node.operand)
    return isinstance(node, ast.BinOp) and _plain_factor(node.left) and _plain_factor(node.right)


def _is_accumulation(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.AugAssign):
        return True
    if isinstance(node, ast.Assign) and _joins_itself(node.value, name):
        return True  # `losses = torch.cat((losses, loss.unsqueeze(0)))`
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp):
        # `ema = loss if ema is None else 0.9 * ema + 0.1 * loss`
        return any(_added_term(branch, name) is not None for branch in (node.value.body, node.value.orelse))
    if isinstance(node, ast.Assign) and isinstance(node.value, (ast.BinOp, ast.Tuple)):
        return name in _names(node.value)  # `total = total + loss`, `avg = (avg[0] * 0.99 + loss, ...)`
    return False


def _names(node: ast.AST) -> set:
    return {n.id for n in walk_in_order(node) if isinstance(n, ast.Name)}


def _operand_names(node: ast.AST) -> set:
    """The names an expression computes with, less those it only calls (``criterion`` of
    ``criterion(out, y)``; ``self.net`` is no name)."""
    called = {
        sub.func.id for sub in walk_in_order(node) if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
    }
    operands = {n.id for n in walk_in_order(node) if isinstance(n, ast.Name)}
    return operands - (called - _argument_names(node))


def _argument_names(node: ast.AST) -> set:
    """The names handed to a call somewhere in the expression (``f`` in ``g(f)`` too)."""
    found: set = set()
    for sub in walk_in_order(node):
        if isinstance(sub, ast.Call):
            for arg in [*sub.args, *(k.value for k in sub.keywords)]:
                found |= _names(arg)
    return found


def _names_in(nodes) -> set:
    out: set[str] = set()
    for node in nodes:
        out |= _names(node)
    return out


def _defined_before_loop(ctx, uses, acc: str, loop: ast.AST) -> bool:
    outside = acc in uses.parameters
    bindings = uses.bindings_of(acc)
    if not bindings and not outside and ctx.function is not None and ctx.model.scopes.module.binds(acc):
        return True  # a list of the module's (`Loss_list = []` above `def train_model(epochs):`)
    for binding in bindings:
        node = binding.node
        if _inside(ctx, node, loop):
            if not _is_accumulation(node, acc) and not _conditional_in(ctx, node, loop):
                return False  # reset at every iteration
            # (a reset under an `if` of the loop, `if step % 100 == 0: total = 0`, keeps the
            # graphs of the iterations in between)
        else:
            outside = True
    return outside


_CONDITIONAL = (ast.If, ast.IfExp, ast.Match, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler)


def _conditional_in(ctx, node: ast.AST, loop: ast.AST) -> bool:
    """Whether ``node`` runs only on some iterations of ``loop``: under an ``if`` or
    ``match`` of the loop's body, or in a loop nested in it, rather than in the body itself
    (or a ``with`` or ``try`` block of it)."""
    current = ctx.parent(node)
    while current is not None and current is not loop:
        if isinstance(current, _CONDITIONAL):
            return True
        current = ctx.parent(current)
    return False


def _called_to_backpropagate(ctx, value: ast.AST) -> bool:
    """Whether what is added is the call of a function or method of the file that returns its loss
    after calling ``backward`` on it (``epoch_loss += self.train_batch(x, y)``): a loss
    backpropagated each step, added as it comes."""
    if not isinstance(value, ast.Call):
        return False
    fn = ctx.model.callee(value)
    summary = ctx.model.function_summary(fn) if fn is not None else None
    return summary is not None and summary.calls_backward and summary.returns.has(Role.LOSS)


def _sibling_backpropagated(ctx, uses, value: ast.AST, loop: ast.AST) -> bool:
    """Whether a name unpacked in the loop from the same call as what is added is backpropagated
    there (``batch_loss, loss = seq2seq(x, y)``, ``avg_loss += batch_loss``, ``loss.backward()``):
    one forward pass each step, whose graph the added term shares."""
    if not isinstance(value, ast.Name):
        return False
    for binding in uses.bindings:
        node = binding.node
        if (
            binding.name == value.id
            and isinstance(node, ast.Assign)
            and isinstance(binding.value, ast.Call)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple)
            and _inside(ctx, node, loop)
        ):
            siblings = {
                elt.id for elt in node.targets[0].elts if isinstance(elt, ast.Name) and elt.id not in (value.id, "_")
            }
            if siblings and _backward_called_on(uses, siblings, loop):
                return True
    return False


def _returned_after_backward(ctx, uses, names: set, loop: ast.AST) -> bool:
    """Whether one of ``names`` is bound in the loop to what a function or method of the
    file returns after calling ``backward`` (``cost = model.train_model(X, Y)`` whose body
    runs ``self.cost.backward()`` and returns ``self.cost``): a loss backpropagated each step."""
    model = ctx.model
    for binding in uses.bindings:
        if binding.name in names and isinstance(binding.value, ast.Call) and _inside(ctx, binding.node, loop):
            fn = model.callee(binding.value)
            summary = model.function_summary(fn) if fn is not None else None
            if summary is None or not summary.calls_backward:
                continue
            returned = summary.returns
            if returned.items is not None and isinstance(binding.node, ast.Assign):
                # `loss, pred = train(loader)` of `return loss, pred`: the item the name takes
                target = binding.node.targets[0]
                position = next(
                    (
                        i
                        for i, elt in enumerate(getattr(target, "elts", ()))
                        if isinstance(elt, ast.Name) and elt.id == binding.name
                    ),
                    None,
                )
                if position is None or len(returned.items) != len(target.elts):  # type: ignore[attr-defined]
                    continue
                returned = returned.items[position]
                if not returned.carries_grad:
                    continue
                if returned.weak and not _returns_backpropagated_at(model, fn, position):
                    continue  # `return running_loss / n, acc` of a total of `.data[0]`: no graph known
            if returned.has(Role.LOSS):
                return True  # (`return loss.data[0] / n` returns no loss: it keeps no graph)
            if names_a_loss(binding.name) and returned.kind is Kind.TENSOR and returned.grad is Grad.YES:
                # `loss_p, loss_v = net.train_step(...)` of a hand-written `loss_p` the method
                # backpropagates within `loss_p + loss_v`: a tensor with a graph named for a loss
                return True
    return False


def _returns_backpropagated_at(model, fn: ast.AST, position: int) -> bool:
    """Whether every ``return`` of ``fn`` with a tuple hands back, at ``position``, a name the body
    backpropagates or differentiates (``grads = torch.autograd.grad(loss, params)``, ``return grads,
    loss``): the item carries the graph that pass took, whatever the flow knows of how it was made."""
    backpropagated = model.uses(fn).backpropagated
    found = False
    for node in walk_in_order(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            elts = node.value.elts
            item = elts[position] if position < len(elts) else None
            if not (isinstance(item, ast.Name) and item.id in backpropagated):
                return False
            found = True
    return found


def _runs_model(ctx, loop: ast.AST) -> bool:
    """Whether the loop runs a model: a call of a module with parameters, or one giving a model's
    output. A loss module alone (``mse(of[i], tf[i])`` over a perceptual loss's feature layers)
    runs none: its terms make one step's loss, not iterations of evaluation."""
    model = ctx.model
    for node in walk_in_order(loop):
        if isinstance(node, ast.Call):
            if model.value(node).has(Role.OUTPUT):
                return True
            func = model.value(node.func)
            if func.is_module and not parameterless_layer(func):
                return True
    return False


def _starts_as_number(uses, acc: str) -> bool:
    found = False
    for binding in uses.bindings_of(acc):
        value, node = binding.value, binding.node
        if _is_accumulation(node, acc):
            continue
        value = _element_for(node, acc, value)
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
            value = value.operand
        if not (isinstance(value, ast.Constant) and type(value.value) in (int, float)):
            return False
        found = True
    return found


def _element_for(node: ast.AST, name: str, value: ast.AST) -> Optional[ast.AST]:
    """In ``total, n = 0.0, 0`` the value bound to ``total`` is ``0.0``."""
    if not isinstance(value, ast.Tuple) or not isinstance(node, ast.Assign):
        return value
    for target in node.targets:
        if isinstance(target, ast.Tuple) and len(target.elts) == len(value.elts):
            for elt, item in zip(target.elts, value.elts):
                if isinstance(elt, ast.Name) and elt.id == name:
                    return item
    return None


def _suffix(ctx, uses, acc: str, how: str, derived: set) -> str:
    # `plot.append(running_loss / n)`, `return plot`: the lists the total goes into go where it goes
    derived = derived | _lists_appended_with(ctx, uses, {acc} | derived)
    use_item = (
        how == "augment"
        and _starts_as_number(uses, acc)
        and not (derived & uses.receivers)
        # a total the function returns stays a tensor where a caller of the file uses it as one
        # (`evaluate_loss(...).detach().cpu()`)
        and not (({acc} | derived) & uses.escaping and _callers_use_as_tensor(ctx, ctx.function))
        # nor where it is handed to a function of the file that uses it as one (`get_numpy(total)`
        # of `def get_numpy(x): return x.data.numpy()`)
        and not _handed_to_tensor_use(ctx, uses, {acc} | derived)
    )
    return ".item()" if use_item else ".detach()"


def _lists_appended_with(ctx, uses, names: set) -> set:
    """The names of the lists the scope appends a value computed from ``names`` to
    (``plot.append(running_loss / len(loader))``), and what the scope computes from them."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    found: set = set()
    for node in ctx.model.own_nodes(scope):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
            and len(node.args) == 1
            and _names(node.args[0]) & names
        ):
            found |= uses.derived(node.func.value.id)
    return found


def _handed_to_tensor_use(ctx, uses, names: set) -> bool:
    """Whether one of ``names`` (or arithmetic on it) is a positional argument of a function of the
    file that reads that parameter as only a tensor can be read (``.data``, ``.numpy()``...)."""
    definitions = ctx.model.scopes.module.definitions
    for call in uses.calls:
        func = call.func
        if not isinstance(func, ast.Name) or func.id not in definitions:
            continue
        for index, arg in enumerate(call.args):
            # the total itself, or computed from it by arithmetic (`get_numpy(total / count)`)
            if not (isinstance(arg, (ast.Name, ast.BinOp, ast.UnaryOp)) and _names(arg) & names):
                continue
            for fn in definitions[func.id]:
                params = getattr(fn, "args", None)
                positional = [a.arg for a in (*params.posonlyargs, *params.args)] if params is not None else []
                if index < len(positional) and any(
                    isinstance(sub, ast.Attribute)
                    and sub.attr in _TENSOR_ONLY_METHODS | {"data"}
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == positional[index]
                    for sub in walk_in_order(fn)
                ):
                    return True
    return False


# Methods a Python number lacks: a caller calling one on a function's result needs a tensor.
_TENSOR_ONLY_METHODS = TENSOR_READING_METHODS | {"to"}


def _callers_use_as_tensor(ctx, fn: Optional[ast.AST]) -> bool:
    """Whether code of the file calls a method only tensors have on what ``fn`` returns:
    ``evaluate_loss(...).detach()``, or ``v = evaluate_loss(...)`` then ``v.cpu()`` (or
    ``v["loss"].cpu()``, an item of a dict it returns; or ``loss, ppl = train_epoch(e)`` then
    ``loss.item()``, a part of a tuple it returns)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    name = fn.name
    run = ctx.model.project
    if run is not None and run.reads_result_as_tensor(name, run.module_of(ctx.model.filename)):
        return True  # another file reads it so (`meta_loss = learner.train(...)`, `meta_loss.item()`)
    if name not in ctx.source.text.replace(f"def {name}", "", 1):
        return False
    results: set = set()
    tensor_uses: list = []
    for node in walk_in_order(ctx.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _calls(node.value, name):
            results.update(t.id for t in node.targets if isinstance(t, ast.Name))
            # `train_loss, perplexity = train_epoch(epoch)`: the parts of a tuple it returns
            results.update(
                e.id
                for t in node.targets
                if isinstance(t, (ast.Tuple, ast.List))
                for e in t.elts
                if isinstance(e, ast.Name)
            )
        elif isinstance(node, ast.Attribute) and node.attr in _TENSOR_ONLY_METHODS:
            tensor_uses.append(node.value)
    for use in tensor_uses:
        used = subscript_root(use)  # `metrics[f"train_{metric}"].cpu()`: an item of a dict it returns
        if (isinstance(used, ast.Name) and used.id in results) or (isinstance(used, ast.Call) and _calls(used, name)):
            return True
    return False


def _calls(call: ast.Call, name: str) -> bool:
    func = call.func
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def _backward_called_on(uses, names: set, loop: ast.AST) -> bool:
    """Whether the loop calls ``.backward()`` on one of ``names`` or on a name computed from
    them (``total_loss = policy_loss + value_loss``, then ``total_loss.backward()``): autograd's
    backward pass, which only a tensor has (not a hand-written layer's ``criterion.backward(loss)``,
    which takes the loss as an argument)."""
    derived = set()
    for name in names:
        derived |= uses.derived(name)
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "backward"
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id in derived
        for sub in walk_in_order(loop)
    )


def _shown_a_tensor(ctx, value: ast.AST) -> bool:
    """Whether the model takes what is added for a tensor (or, for arithmetic, one of its
    operands), from the code or from a name it gives a loss (``criterion(out, y)``)."""

    def shown(node: ast.AST) -> bool:
        return ctx.model.value(node).kind is Kind.TENSOR

    if shown(value):
        return True
    return isinstance(value, (ast.BinOp, ast.UnaryOp)) and any(
        isinstance(sub, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and shown(sub)
        for sub in ast.walk(value)
        if sub is not value
    )


def _fix(ctx, value: ast.AST, suffix: str) -> Fix:
    start = ctx.source.node_start(value)
    end = ctx.source.node_end(value)
    if _needs_parens(value):
        edits = (Edit(start, start, "("), Edit(end, end, ")" + suffix))
    else:
        edits = (Edit(end, end, suffix),)
    return Fix(Applicability.SAFE, f"Accumulate without the graph: `{suffix}`", edits)
