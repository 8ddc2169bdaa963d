"""Legacy `torch.autograd.Variable(...)`.

## What it does
Flags calls of `torch.autograd.Variable` under any import spelling
(`from torch.autograd import Variable`, `torch.autograd.variable.Variable`, aliases). A call of a
function of the file that hands its arguments on to `Variable` (`Variable = lambda *a, **k:
autograd.Variable(*a, **k).cuda()`) is reported without a fix; a `def Variable(data, *args,
**kwargs)` that shadows the import and does more than hand them on (a move to the GPU) is the
file's own function: only the legacy call inside it is reported. A call of a class of the file
deriving from `Variable` (`class Variable(autograd.Variable)` whose `__init__` moves the data to the
GPU, as old DQN ports write) is reported without a fix: on torch 2.13 the call hands back a plain
detached tensor and the subclass's `__init__` never runs.

## Why is this bad?
Since torch 0.4 tensors carry autograd state themselves and `Variable` is kept only for old
code. On torch 2.13 `Variable(x)` returns a new tensor that shares `x`'s memory and version
counter but is *detached*: it does not require grad, so a graph through `x` is cut there
(like `x.detach()`). `volatile=True` was removed and has no effect at all (torch only warns
"volatile was removed and now has no effect"): an inference pass written with
`Variable(x, volatile=True)` still records a graph through the model's parameters and keeps
its activations alive.

## Example
```python
import torch
from torch.autograd import Variable

def evaluate(model, images):
    return model(Variable(images, volatile=True))
```

## Use instead
```python
import torch

@torch.no_grad()
def evaluate(model, images):
    return model(images)
```

## Fix safety
The fix is safe and keeps what the call computes: `Variable(x)` becomes `x.detach()` (just
`x` when `x` is a fresh tensor from a torch factory such as `torch.zeros(...)`, possibly
followed by methods with constant arguments, which never requires grad), and `Variable(x, requires_grad=True)` becomes `x.detach().requires_grad_()`,
a new leaf like the one `Variable` made; `x` itself is left unchanged. Where `x` is plain
input data that never requires grad, the `.detach()` can be dropped by hand. With
`volatile=True` there is no fix outside a `no_grad`/`inference_mode` region: the code needs
one, and where to put it is a decision the checker cannot make; except where no model runs on
the value (it, or the name it is bound to, also moved on the way, `Variable(y,
volatile=True).cuda()`, is only handed to library functions, to a loss module or something named
for a loss (`criterion(output, labels)`, also a `criterion` handed in) or to functions of the run
that call nothing they are given: `ssim(Variable(pred, volatile=True), target)`, or read as numbers
or compared: `labels.data.cpu().numpy()`, `labels.data == predicted`, or never read again, nor at a
loop's next turn), where the message says so and the call is fixed as
above; so is one in a loop (or function) that runs a backward pass after it, a training input whose
grad must stay on. A flag there (`volatile=(phase == "val")`, the backward pass under `if phase ==
"train":`) names the phase that needs grad off: the message says to run it under
`torch.set_grad_enabled(phase != "val")`, with no fix. `volatile=volatile` passing on a parameter of a function that defaults to `False` and that
every call of the function in the file leaves out or passes `False` (`def to_var(x, volatile=False)`,
then `to_var(images)`) is never set: the call is the plain legacy wrapper. Inside such a region
`volatile` is redundant and the call is fixed as above. Calls with other arguments or with
comments inside get no fix. The `Variable` import is left in place.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from gradguard.check.analysis.data_attr import has_comment
from gradguard.check.analysis.model import names_a_loss, parameterless_layer
from gradguard.check.analysis.scopes import (
    COMPREHENSION_TYPES,
    FUNCTION_TYPES,
    called_parameters,
    parameter_defaults,
    target_names,
    walk_in_order,
)
from gradguard.check.analysis.values import Kind, Role
from gradguard.check.analysis.vocabulary import (
    FACTORIES,
    GRAPH_ENDING_METHODS,
    LEGACY_TENSOR_TYPES,
    MODULE_MOVES,
    VALUE_COMPARISONS,
    VARIABLE_NAMES,
    call_argument,
)
from gradguard.check.model import Applicability, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid

_VARIABLE_NAMES = tuple(sorted(VARIABLE_NAMES))
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
# torch functions returning a new tensor that requires grad only when asked to.
_FACTORIES = FACTORIES | LEGACY_TENSOR_TYPES


@dataclass
class _State:
    wrappers: Optional[frozenset] = None  # `_wrappers`, found on first use
    subclasses: Optional[frozenset] = None  # `_variable_subclasses`, found on first use


# `Variable(` with `*args` among its arguments: `Variable(*a, **k)`, `Variable(data, *args, **kwargs)`.
_FORWARDING_VARIABLE_RE = re.compile(r"Variable\([^()]*\*")


def _wrappers(ctx) -> frozenset:
    """Names the module binds to a function or lambda whose text hands ``*args`` to
    ``Variable``: the only calls that may be wrapped ``Variable`` calls (also a ``def
    Variable(data, *args, **kwargs)`` that shadows the import it wraps)."""
    state = ctx.state(_State)
    if state.wrappers is None:
        found = set()
        if _FORWARDING_VARIABLE_RE.search(ctx.source.text):
            for stmt in ctx.tree.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if _FORWARDING_VARIABLE_RE.search(ctx.text(stmt)):
                        found.add(stmt.name)
                elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
                    if _FORWARDING_VARIABLE_RE.search(ctx.text(stmt.value)):
                        found.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        state.wrappers = frozenset(found)
    return state.wrappers


def _variable_subclasses(ctx) -> frozenset:
    """Names of the module's classes deriving from ``Variable`` (``class Variable(autograd.Variable)``
    whose ``__init__`` moves its data to the GPU, as old DQN code does), bound once."""
    state = ctx.state(_State)
    if state.subclasses is None:
        state.subclasses = frozenset(
            stmt.name
            for stmt in ctx.tree.body
            if isinstance(stmt, ast.ClassDef)
            and any(ctx.imports.qualified_name(base) in _VARIABLE_NAMES for base in stmt.bases)
            and len(ctx.model.scopes.module.definitions.get(stmt.name, ())) == 1
            and not ctx.model.rebinds(stmt.name)
        )
    return state.subclasses


def _const(node: Optional[ast.AST]):
    return node.value if isinstance(node, ast.Constant) else ...


class LegacyVariable(Rule):
    code = "GG104"
    name = "legacy-variable"
    summary = "legacy `Variable(...)`: detaches its input; `volatile=True` does nothing"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = ("Variable",)
    function_triggers = ("Variable",)
    function_names = _VARIABLE_NAMES

    valid = (
        # A class of the file named `Variable` that derives from nothing of torch's.
        Valid(
            """
            import torch


            class Variable:
                def __init__(self, data):
                    self.data = data


            def wrap(obs):
                return Variable(torch.from_numpy(obs))
            """
        ),
        Valid(
            """
            import torch
            x = torch.randn(3, requires_grad=True)
            y = x.detach()
            """,
        ),
        Valid(
            """
            import torch
            from mylib import Variable
            v = Variable('name')
            """,
        ),
        Valid(
            """
            import torch
            from torch.autograd import Variable
            def f(t):
                return isinstance(t, Variable)
            """,
        ),
        Valid(
            """
            import torch
            from torch.autograd import Variable
            engine = Variable._execution_engine
            """,
        ),
        Valid(
            """
            import torch
            class Variable:
                pass
            v = Variable()
            """,
        ),
        # `map` over another function: no `Variable` in it.
        Valid(
            """
            import torch

            inputs, targets = map(torch.as_tensor, ([0.0, 1.0], [1, 0]))
            """
        ),
    )
    invalid = (
        # A subclass of `Variable` meant to move its data to the GPU: its `__init__` never runs.
        Invalid(
            """
            import torch
            from torch import autograd


            class Variable(autograd.Variable):
                def __init__(self, data, *args, **kwargs):
                    data = data.cuda()
                    super().__init__(data, *args, **kwargs)


            def select_action(model, obs):
                return model(Variable(torch.from_numpy(obs))).argmax(1)
            """,
            line=12,
            column=18,
            message="`Variable(...)` builds a subclass of the legacy `Variable`: since PyTorch 0.4 the call hands back "
            "a plain tensor, detached from its input, and the subclass's `__init__` never runs (what it does, a "
            "`.cuda()` move, never happens); use the tensor directly, moved with `.to(device)` where needed",
        ),
        # The wrapped input moved to the GPU, then trained on when `dynamic` is set: volatile in the
        # other phase, which still records a graph.
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def evaluate(model, batches, criterion, optimizer, dynamic):
                for inputs, targets in batches:
                    inputs = Variable(torch.Tensor(inputs), volatile=(not dynamic)).cuda()
                    loss = criterion(model(inputs), targets)
                    if dynamic:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
            """,
            line=7,
            column=18,
            message="`volatile=(not dynamic)` was removed and does nothing: where it is true, the forward pass on "
            "this input still records a graph for nothing; run that pass under "
            "`with torch.set_grad_enabled(dynamic):` instead",
        ),
        # Labels only a criterion handed in and a comparison read: no model runs on them.
        Invalid(
            """
            from torch.autograd import Variable


            def validate(model, criterion, loader):
                model.eval()
                correct = 0
                for inputs, labels in loader:
                    labels = Variable(labels, volatile=True)
                    output = model(inputs)
                    loss = criterion(output, labels).item()
                    correct += (labels.data == output.max(1)[1]).sum().item()
                return correct
            """,
            line=8,
            column=18,
            message="`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` returns a detached tensor; use the tensor directly",
            fixed="""
            from torch.autograd import Variable


            def validate(model, criterion, loader):
                model.eval()
                correct = 0
                for inputs, labels in loader:
                    labels = labels.detach()
                    output = model(inputs)
                    loss = criterion(output, labels).item()
                    correct += (labels.data == output.max(1)[1]).sum().item()
                return correct
            """,
        ),
        # A `def Variable(...)` that shadows the import and moves to the GPU: its own
        # `autograd.Variable(...)` is the legacy call; the calls of the file's function are not
        # (dropping them would drop the move).
        Invalid(
            """
            import torch
            import torch.autograd as autograd
            from torch.autograd import Variable

            USE_CUDA = torch.cuda.is_available()


            def Variable(data, *args, **kwargs):
                var = autograd.Variable(data, *args, **kwargs)
                if USE_CUDA:
                    var = var.cuda()
                return var


            def penalty(fisher, optpar, params):
                loss = Variable(torch.zeros(1))
                for name, param in params:
                    loss += (Variable(fisher[name]) * (Variable(optpar[name]) - param) ** 2).sum()
                return loss
            """,
            line=9,
            column=11,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its "
            "input (like `.detach()`); use tensors directly",
        ),
        # Labels only a loss module (`from torch.nn import *`) and a read of their values take: no
        # model runs on them.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            from torch.nn import *

            criterion = MultiLabelSoftMarginLoss()


            def validate(net, loader):
                targets = []
                total = 0.0
                for x, y in loader:
                    y = Variable(y, volatile=True)
                    total += criterion(net(x), y).item()
                    targets.append(y.data.cpu().numpy())
                return total, targets
            """,
            line=12,
            column=13,
            message="`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` "
            "returns a detached tensor; use the tensor directly",
            fixed="""
            import torch
            from torch.autograd import Variable
            from torch.nn import *

            criterion = MultiLabelSoftMarginLoss()


            def validate(net, loader):
                targets = []
                total = 0.0
                for x, y in loader:
                    y = y.detach()
                    total += criterion(net(x), y).item()
                    targets.append(y.data.cpu().numpy())
                return total, targets
            """,
        ),
        # The same labels handed to the model too.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            from torch.nn import *

            criterion = MultiLabelSoftMarginLoss()


            def validate(net, loader):
                targets = []
                total = 0.0
                for x, y in loader:
                    y = Variable(y, volatile=True)
                    total += criterion(net(x, y), y).item()
                    targets.append(y.data.cpu().numpy())
                return total, targets
            """,
            line=12,
            column=13,
            message="`volatile=True` was removed and does nothing: a forward pass on this input still records a graph "
            "through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` instead",
        ),
        # Unpacked in one statement: the input runs the model, the label is only read as numbers
        # (its size, `label.data[i].item()`).
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def val(model, loader):
                correct = 0
                for x, label in loader:
                    x, label = Variable(x.cuda(), volatile=True), Variable(label.cuda(), volatile=True)
                    score = model(x)
                    for i in range(label.size(0)):
                        correct += int(score[i].argmax().item() == label.data[i].item())
                return correct
            """,
            line=8,
            column=20,
            message="`volatile=True` was removed and does nothing: a forward pass on this input still records a graph "
            "through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` instead",
            also=(
                Finding(
                    8,
                    55,
                    "`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` "
                    "returns a detached tensor; use the tensor directly",
                ),
            ),
            fixed="""
            import torch
            from torch.autograd import Variable


            def val(model, loader):
                correct = 0
                for x, label in loader:
                    x, label = Variable(x.cuda(), volatile=True), label.cuda().detach()
                    score = model(x)
                    for i in range(label.size(0)):
                        correct += int(score[i].argmax().item() == label.data[i].item())
                return correct
            """,
        ),
        # `volatile=True` on inputs only a metric takes: no model runs on them.
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def ssim(prediction, target):
                prediction = Variable(prediction, volatile=True)
                return torch.mean((prediction - target) ** 2)
            """,
            line=6,
            column=18,
            message="`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` "
            "returns a detached tensor; use the tensor directly",
            fixed="""
            import torch
            from torch.autograd import Variable


            def ssim(prediction, target):
                prediction = prediction.detach()
                return torch.mean((prediction - target) ** 2)
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            for x, y in loader:
                x, y = Variable(x.cuda()), Variable(y)
            """,
            line=4,
            column=12,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
            also=(
                Finding(
                    4,
                    32,
                    "`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
                ),
            ),
            fixed="""
            import torch
            from torch.autograd import Variable
            for x, y in loader:
                x, y = x.cuda().detach(), y.detach()
            """,
        ),
        Invalid(
            """
            import torch
            w = torch.autograd.Variable(torch.zeros(3, 4), requires_grad=True)
            """,
            line=2,
            column=5,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
            fixed="""
            import torch
            w = torch.zeros(3, 4).requires_grad_()
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            t = Variable(torch.rand(5).mul(10).floor().long())
            u = Variable(torch.zeros(3).add(w))
            """,
            line=3,
            column=5,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
            also=(
                Finding(
                    4,
                    5,
                    "`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
                ),
            ),
            fixed="""
            import torch
            from torch.autograd import Variable
            t = torch.rand(5).mul(10).floor().long()
            u = torch.zeros(3).add(w).detach()
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable as V
            def f(a, b):
                return V(a + b, True)
            """,
            line=4,
            column=12,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its input (like `.detach()`); use tensors directly",
            fixed="""
            import torch
            from torch.autograd import Variable as V
            def f(a, b):
                return (a + b).detach().requires_grad_()
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            def evaluate(model, x):
                return model(Variable(x, volatile=True))
            """,
            line=4,
            column=18,
            message="`volatile=True` was removed and does nothing: a forward pass on this input still records a graph through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` instead",
            fixed="""
            import torch
            from torch.autograd import Variable
            def evaluate(model, x):
                return model(Variable(x, volatile=True))
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            @torch.no_grad()
            def evaluate(model, x):
                return model(Variable(x, volatile=True))
            """,
            line=5,
            column=18,
            message="`Variable(..., volatile=True)` is legacy: `volatile` has no effect (grad is already disabled here) and `Variable` returns a detached tensor; use the tensor directly",
            fixed="""
            import torch
            from torch.autograd import Variable
            @torch.no_grad()
            def evaluate(model, x):
                return model(x.detach())
            """,
        ),
        # `volatile=volatile` of a helper every call leaves at its default, False: only the
        # wrapper is legacy (not an inference to run under `no_grad`: these are training inputs).
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def to_var(x, volatile=False):
                if torch.cuda.is_available():
                    x = x.cuda()
                return Variable(x, volatile=volatile)


            def train(model, loader, optimizer):
                for images, labels in loader:
                    loss = model(to_var(images), to_var(labels))
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            line=8,
            column=12,
            message="`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its "
            "input (like `.detach()`); use tensors directly",
            fixed="""
            import torch
            from torch.autograd import Variable


            def to_var(x, volatile=False):
                if torch.cuda.is_available():
                    x = x.cuda()
                return x.detach()


            def train(model, loader, optimizer):
                for images, labels in loader:
                    loss = model(to_var(images), to_var(labels))
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
        ),
        # The same helper, called with `volatile=True` for an evaluation.
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def to_var(x, volatile=False):
                if torch.cuda.is_available():
                    x = x.cuda()
                return Variable(x, volatile=volatile)


            def evaluate(model, loader):
                model.eval()
                for images, labels in loader:
                    print(model(to_var(images, volatile=True)).argmax(1))
            """,
            line=8,
            column=12,
            message="`volatile=True` was removed and does nothing: a forward pass on this input still records a graph "
            "through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` instead",
        ),
        # A label wrapped and never read again: no model runs on it (the input beside it does).
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def test(net, loader):
                for x, y in loader:
                    x, y = Variable(x.cuda(), volatile=True), Variable(y.cuda(), volatile=True)
                    print(net(x).argmax(1))
            """,
            line=7,
            column=16,
            message="`volatile=True` was removed and does nothing: a forward pass on this input still records a graph "
            "through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` instead",
            also=(
                Finding(
                    7,
                    51,
                    "`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` "
                    "returns a detached tensor; use the tensor directly",
                ),
            ),
            fixed="""
            import torch
            from torch.autograd import Variable


            def test(net, loader):
                for x, y in loader:
                    x, y = Variable(x.cuda(), volatile=True), y.cuda().detach()
                    print(net(x).argmax(1))
            """,
        ),
        # Read before it is bound again, at the loop's next turn: it may meet the model there.
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def test(net, loader):
                y = None
                for x, labels in loader:
                    if y is not None:
                        print(net(y).argmax(1))
                    x, y = Variable(x.cuda(), volatile=True), Variable(labels.cuda(), volatile=True)
            """,
            line=10,
            column=16,
            message="`volatile=True` was removed and does nothing, and no model runs on this input here: `Variable` "
            "returns a detached tensor; use the tensor directly",
            also=(
                Finding(
                    10,
                    51,
                    "`volatile=True` was removed and does nothing: a forward pass on this input still records a graph "
                    "through the model's parameters; run inference under `torch.no_grad()` or `torch.inference_mode()` "
                    "instead",
                ),
            ),
            fixed="""
            import torch
            from torch.autograd import Variable


            def test(net, loader):
                y = None
                for x, labels in loader:
                    if y is not None:
                        print(net(y).argmax(1))
                    x, y = x.cuda().detach(), Variable(labels.cuda(), volatile=True)
            """,
        ),
        # `volatile=True` on a training input: no inference to run under `no_grad` (that would break
        # the backward pass); only the wrapper is legacy.
        Invalid(
            """
            import torch
            from torch.autograd import Variable


            def train(autoencoder, loader, criterion, optimizer):
                for images in loader:
                    images = Variable(images.cuda(), volatile=True)
                    reconstructed = autoencoder(images)
                    loss = criterion(reconstructed, images)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            line=7,
            column=18,
            message="`volatile=True` was removed and does nothing, and a backward pass follows in this loop: "
            "`Variable` returns a detached tensor; use the tensor directly",
            fixed="""
            import torch
            from torch.autograd import Variable


            def train(autoencoder, loader, criterion, optimizer):
                for images in loader:
                    images = images.cuda().detach()
                    reconstructed = autoencoder(images)
                    loss = criterion(reconstructed, images)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
        ),
        # `Variable` handed to `map`: called on each item all the same.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            inputs, targets = map(Variable, (torch.randn(4, 3), torch.tensor([0, 1, 2, 0])))
            """,
            line=4,
            column=23,
            message="`map(Variable, ...)` wraps each item in the legacy `Variable`: each comes back a detached "
            "tensor sharing memory with it (like `.detach()`); use the tensors directly",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id == "map"
            and node.args
            and ctx.imports.qualified_name(node.args[0]) in _VARIABLE_NAMES
            and not ctx.model.scopes.module.binds("map")
        ):
            # `inputs, targets = map(Variable, (inputs, targets))`: `Variable` called on each item
            ctx.report(
                self.code,
                node.args[0],
                "`map(Variable, ...)` wraps each item in the legacy `Variable`: each comes back a detached tensor "
                "sharing memory with it (like `.detach()`); use the tensors directly",
                None,
            )
            return
        if isinstance(func, ast.Name) and func.id in _variable_subclasses(ctx):
            ctx.report(
                self.code,
                node,
                f"`{func.id}(...)` builds a subclass of the legacy `Variable`: since PyTorch 0.4 the call hands back a "
                f"plain tensor, detached from its input, and the subclass's `__init__` never runs (what it does, a "
                f"`.cuda()` move, never happens); use the tensor directly, moved with `.to(device)` where needed",
                None,
            )
            return
        if not isinstance(func, ast.Name) and not (isinstance(func, ast.Attribute) and func.attr == "Variable"):
            return  # `autograd.Variable(...)` is spelt so; a wrapper or alias is a plain name
        wrapper = None
        if ctx.imports.qualified_name(func) not in _VARIABLE_NAMES or (
            isinstance(func, ast.Name) and func.id in _wrappers(ctx)  # a `def Variable(...)` shadowing the import
        ):
            # ``Variable = lambda *a, **k: autograd.Variable(*a, **k).cuda()``: a call of a
            # wrapper that hands its arguments on to ``Variable`` is a ``Variable`` call too.
            if not isinstance(func, ast.Name) or func.id not in _wrappers(ctx):
                return
            forwarded = ctx.model.forwarded_call(node)
            if forwarded is None or ctx.imports.qualified_name(forwarded.func) not in _VARIABLE_NAMES:
                return
            wrapper = func.id
        volatile = (
            node.args[2] if len(node.args) > 2 else next((k.value for k in node.keywords if k.arg == "volatile"), None)
        )
        volatile_value = _const(volatile) if volatile is not None else False
        if volatile is not None and volatile_value is ... and _left_false_by_every_caller(ctx, volatile):
            volatile_value = False  # `def to_var(x, volatile=False)`, every call `to_var(images)`
        if volatile is not None and volatile_value is not False:
            if ctx.grad_disabled:
                message = (
                    "`Variable(..., volatile=True)` is legacy: `volatile` has no effect (grad is already "
                    "disabled here) and `Variable` returns a detached tensor; use the tensor directly"
                )
                fix = self._fix(ctx, node)
            elif volatile_value is ... and _backpropagated_after(ctx, node) and _run_by_a_model(ctx, node):
                # `Variable(inputs, volatile=(phase == "val"))`, the backward pass under `if phase ==
                # "train":`: the flag names the evaluation phase, which still records a graph
                message = (
                    f"`volatile={_as_argument(ctx, volatile)}` was removed and does nothing: where it is true, the "
                    f"forward pass on this input still records a graph for nothing; run that pass under "
                    f"`with torch.set_grad_enabled({_negated(ctx, volatile)}):` instead"
                )
                fix = None
            elif _backpropagated_after(ctx, node):
                # `Variable(image_train.cuda(), volatile=True)` in a training loop: no inference to wrap
                message = (
                    "`volatile=True` was removed and does nothing, and a backward pass follows in this loop: "
                    "`Variable` returns a detached tensor; use the tensor directly"
                )
                fix = self._fix(ctx, node)
            elif not _may_reach_a_model(ctx, node):
                # `Variable(prediction, volatile=True)` handed to a metric only: no model runs on it
                message = (
                    "`volatile=True` was removed and does nothing, and no model runs on this input here: "
                    "`Variable` returns a detached tensor; use the tensor directly"
                )
                fix = self._fix(ctx, node)
            else:
                message = (
                    "`volatile=True` was removed and does nothing: a forward pass on this input still records "
                    "a graph through the model's parameters; run inference under `torch.no_grad()` or "
                    "`torch.inference_mode()` instead"
                )
                fix = None
        else:
            message = (
                "`Variable(...)` is a legacy wrapper: it returns a detached tensor that shares memory with its "
                "input (like `.detach()`); use tensors directly"
            )
            fix = self._fix(ctx, node)
        if wrapper is not None:
            message = f"`{wrapper}(...)` hands its arguments to `torch.autograd.Variable`, so: " + message
            fix = None  # the wrapper may do more (a move to the GPU): left as it is
        ctx.report(self.code, node, message, fix)

    def _fix(self, ctx, node: ast.Call) -> Optional[Fix]:
        if not node.args or isinstance(node.args[0], ast.Starred) or len(node.args) > 3 or has_comment(ctx, node):
            return None
        requires_grad: Optional[ast.AST] = node.args[1] if len(node.args) > 1 else None
        for kw in node.keywords:
            if kw.arg == "requires_grad":
                requires_grad = kw.value
            elif kw.arg != "volatile":
                return None
        source = node.args[0]
        text = ctx.text(source)
        rg = _const(requires_grad) if requires_grad is not None else False
        fresh = self._is_fresh_factory(ctx, source)
        if not isinstance(source, _ATOMS):
            text = f"({text})"
        new = text if fresh else f"{text}.detach()"
        if rg is True:
            new += ".requires_grad_()"
        elif rg is not False:
            new += f".requires_grad_({ctx.text(requires_grad)})"
        return Fix(
            Applicability.SAFE,
            f"Replace with `{new}`" if len(new) < 60 else "Drop `Variable`",
            (ctx.replace(node, new),),
        )

    def _is_fresh_factory(self, ctx, node: ast.AST) -> bool:
        """A new tensor that cannot require grad: a torch factory call without
        ``requires_grad``, optionally followed by methods whose arguments are constants
        (``torch.rand(10).mul(10).floor().long()``)."""
        while (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and ctx.imports.qualified_name(node.func) is None
        ):
            if node.func.attr == "requires_grad_":
                return False
            if not all(self._is_constant_arg(ctx, a) for a in list(node.args) + [k.value for k in node.keywords]):
                return False
            node = node.func.value
        if not isinstance(node, ast.Call):
            return False
        qual = ctx.imports.qualified_name(node.func) or ""
        parts = qual.split(".")
        if parts[0] != "torch" or parts[-1] not in _FACTORIES or len(parts) > 3:
            return False
        if len(parts) == 3 and parts[1] != "cuda":
            return False
        return not any(k.arg in ("requires_grad", None) for k in node.keywords)

    def _is_constant_arg(self, ctx, node: ast.AST) -> bool:
        if isinstance(node, ast.UnaryOp):
            node = node.operand
        if isinstance(node, ast.Constant):
            return True
        qual = ctx.imports.qualified_name(node) if isinstance(node, ast.Attribute) else None
        return qual is not None and qual.startswith("torch.")


# Libraries whose functions run no model of the user's (`torch.cat`, `np.mean`).
_NO_MODEL_LIBRARIES = ("torch.", "numpy.", "math.", "scipy.", "sklearn.")


def _computes_a_loss(ctx, call: ast.Call) -> bool:
    """Whether the semantic model takes the call for a loss computed from its arguments (a loss
    module, or something named for a loss, ``criterion(output, labels)`` of a parameter), not
    for a model's output."""
    value = ctx.model.value(call)
    return value.kind is Kind.TENSOR and value.has(Role.LOSS) and not value.has(Role.OUTPUT)


def _through_moves(ctx, node: ast.Call) -> ast.Call:
    """The outermost call of a chain of moves or casts made on ``node``'s result
    (``Variable(x, volatile=True).cuda()``): the same values, bound or handed on as the chain."""
    while True:
        attribute = ctx.parent(node)
        call = ctx.parent(attribute) if isinstance(attribute, ast.Attribute) else None
        if not (
            isinstance(call, ast.Call) and call.func is attribute and attribute.attr in MODULE_MOVES  # type: ignore[union-attr]
        ):
            return node
        node = call


def _run_by_a_model(ctx, node: ast.Call) -> bool:
    """Whether the name a ``Variable(...)`` call's value is bound to is handed, later in its
    scope, straight to a module that holds parameters (``outputs = self.model(inputs)``; not
    labels handed to a loss module)."""
    node = _through_moves(ctx, node)
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    scope = ctx.function if ctx.function is not None else ctx.tree
    for sub in ctx.model.own_nodes(scope):
        if (
            isinstance(sub, ast.Call)
            and (sub.lineno, sub.col_offset) > (parent.end_lineno, parent.end_col_offset)  # type: ignore[operator]
            and any(isinstance(arg, ast.Name) and arg.id == name for arg in sub.args)
            and not names_a_loss(ctx.text(sub.func).rpartition(".")[2])
        ):
            callee = ctx.model.value(sub.func)
            if callee.kind is Kind.MODULE and not parameterless_layer(callee):
                return True
    return False


def _may_reach_a_model(ctx, node: ast.Call) -> bool:
    """Whether the value a ``Variable(...)`` call makes may be handed to a model: it is an
    argument, or the name it is bound to is, of a call of a module, of something the check does
    not know, or of a function of the run that calls what it is handed; not only of library
    functions or of functions of the run that run nothing they are given
    (``pytorch_ssim.ssim(prediction, target)``)."""
    node = _through_moves(ctx, node)  # `Variable(y, volatile=True).cuda()`: what is bound is the moved tensor
    parent = ctx.parent(node)
    target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
    if (
        isinstance(parent, ast.Tuple)
        and isinstance(ctx.parent(parent), ast.Assign)
        and len(ctx.parent(parent).targets) == 1
        and isinstance(ctx.parent(parent).targets[0], ast.Tuple)
        and len(ctx.parent(parent).targets[0].elts) == len(parent.elts)
    ):
        # `title, label = Variable(title), Variable(label)`: each name its own value
        target = ctx.parent(parent).targets[0].elts[parent.elts.index(node)]
        parent = ctx.parent(parent)
    if isinstance(target, ast.Name):
        name = target.id
        scope = ctx.function if ctx.function is not None else ctx.tree
        uses = [
            sub
            for sub in ctx.model.own_nodes(scope)
            if isinstance(sub, ast.Name)
            and sub.id == name
            and isinstance(sub.ctx, ast.Load)
            and (sub.lineno, sub.col_offset) > (parent.end_lineno, parent.end_col_offset)  # type: ignore[operator]
        ]
    else:
        uses = [node]
    if not uses:
        # read nowhere after it: only an earlier line of an enclosing loop may see it, at its next turn
        return target is None or _read_on_a_later_turn(ctx, target.id, parent)
    for use in uses:
        if use is not node and _turned_into_numbers(ctx, use):
            continue  # `targets.append(val_y.data.cpu().numpy())`: its values only
        argument: ast.AST = use
        call = ctx.parent(use)
        while isinstance(call, (ast.BinOp, ast.UnaryOp)):  # `torch.mean((prediction - target) ** 2)`
            argument, call = call, ctx.parent(call)
        if not (isinstance(call, ast.Call) and argument in call.args):
            return True  # stored, returned, called: it may meet a model anywhere
        qualified = ctx.imports.qualified_name(call.func) or ""
        if qualified.startswith(_NO_MODEL_LIBRARIES):
            continue
        if not qualified and parameterless_layer(ctx.model.value(call.func)):
            continue  # `criterion(val_output, val_y)` of a loss module: no parameters to record a graph for
        if not qualified and _computes_a_loss(ctx, call):
            continue  # a loss handed in (`def validate(model, criterion, loader)`): no model
        if qualified and not _runs_what_it_is_handed(ctx, qualified):
            continue
        return True
    return False


def _backpropagated_after(ctx, node: ast.Call) -> bool:
    """Whether what the call makes feeds, with its graph, a backward pass that follows it in the
    innermost loop around it (else its function): a training input (`images = Variable(x,
    volatile=True)`, `loss = criterion(model(images), y)`, `loss.backward()`), whose grad must stay
    on; not one cut from that pass on the way (`Variable(netG(noisev).data)` of a GAN's critic step,
    a DQN's target computed from `next_state` and taken `.data`)."""
    block = ctx.loops[-1] if ctx.loops else ctx.function
    if block is None or isinstance(block, ast.Lambda):
        return False
    node = _through_moves(ctx, node)
    parent = ctx.parent(node)
    if isinstance(parent, ast.Tuple):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.ListComp):
        parent = ctx.parent(parent)  # `targets = [Variable(ann, volatile=True) for ann in targets]`
    if not isinstance(parent, ast.Assign):
        return False
    found = {name for target in parent.targets for name in target_names(target)}
    at = (node.lineno, node.col_offset)
    statements = [
        sub for sub in walk_in_order(block) if isinstance(sub, ast.stmt) and (sub.lineno, sub.col_offset) > at
    ]
    statements.sort(key=lambda sub: (sub.lineno, sub.col_offset))
    for statement in statements:
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
            if _graph_names(statement.value) & found:
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                found.update(name for target in targets for name in target_names(target))
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if (
                isinstance(call.func, ast.Attribute)
                and call.func.attr == "backward"
                and _graph_names(call.func.value) & found
            ):
                return True
    return False


def _graph_names(expr: ast.AST) -> set:
    """The names an expression computes from with their graph: not those under `.data`, a
    detaching method or `Variable(...)`."""
    found: set = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            if node.attr != "data":
                todo.append(node.value)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in GRAPH_ENDING_METHODS:
                todo.extend(node.args)
            elif isinstance(func, ast.Name) and func.id == "Variable":
                continue
            else:
                todo.append(func)
                todo.extend(node.args)
                todo.extend(k.value for k in node.keywords)
        elif isinstance(node, (ast.Lambda, *COMPREHENSION_TYPES)):
            continue
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _read_on_a_later_turn(ctx, name: str, statement: ast.AST) -> bool:
    """Whether a read of ``name`` in the scope may see the value ``statement`` binds (a read
    earlier in an enclosing loop, reached at the loop's next turn)."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    for sub in ctx.model.own_nodes(scope):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            if any(binding.node is statement for binding in ctx.model.definitions(sub)):
                return True
    return False


def _as_argument(ctx, flag: ast.AST) -> str:
    """The flag's text as an argument is written: parenthesised unless a name or an attribute."""
    text = ctx.text(flag)
    return text if isinstance(flag, (ast.Name, ast.Attribute)) else f"({text})"


def _negated(ctx, flag: ast.AST) -> str:
    """The text of ``not flag``: ``dynamic`` for ``not dynamic``, ``phase != "val"`` for
    ``phase == "val"``."""
    if isinstance(flag, ast.UnaryOp) and isinstance(flag.op, ast.Not):
        return ctx.text(flag.operand)
    if isinstance(flag, ast.Compare) and len(flag.ops) == 1 and isinstance(flag.ops[0], (ast.Eq, ast.NotEq)):
        op = "!=" if isinstance(flag.ops[0], ast.Eq) else "=="
        return f"{ctx.text(flag.left)} {op} {ctx.text(flag.comparators[0])}"
    if isinstance(flag, (ast.Name, ast.Attribute, ast.Call)):
        return f"not {ctx.text(flag)}"
    return f"not ({ctx.text(flag)})"


def _left_false_by_every_caller(ctx, volatile: ast.AST) -> bool:
    """Whether ``volatile=volatile`` passes on a parameter of the enclosing function that
    defaults to False and that every call of the function in the file leaves out or passes False
    (``def to_var(x, volatile=False)``, then ``to_var(images)``): it is never set."""
    function = ctx.function
    if not isinstance(volatile, ast.Name) or not isinstance(function, FUNCTION_TYPES):
        return False
    default = parameter_defaults(function).get(volatile.id)
    if not (isinstance(default, ast.Constant) and default.value in (False, None)):
        return False
    if ctx.model.body_binds(function, volatile.id):
        return False
    positional = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    if isinstance(ctx.parent(function), ast.ClassDef):
        return False  # a method: its calls are not all known
    sites = ctx.model.callers(function)
    if sites is None:
        return False
    index = positional.index(volatile.id) if volatile.id in positional else None
    for call in (site.call for site in sites):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return False
        given = call_argument(call, index, volatile.id)
        if given is not None and not (isinstance(given, ast.Constant) and given.value in (False, None)):
            return False
    return True


# Methods ending a chain in Python numbers or a numpy array (`y.data.cpu().numpy()`).
_TO_NUMBERS = GRAPH_ENDING_METHODS - {"detach"}
# Methods a chain may pass through on its way there.
_TO_NUMBERS_ON_THE_WAY = frozenset({"data", "cpu", "detach", "clone", "contiguous", "view", "reshape", "squeeze"})
# Methods and properties reading a size or a flag: numbers, whatever the tensor holds.
_SIZE_READS = frozenset({"size", "dim", "numel", "nelement"})
_PROPERTY_READS = frozenset({"shape", "grad", "requires_grad", "volatile", "is_leaf", "grad_fn", "dtype", "device"})


def _turned_into_numbers(ctx, use: ast.AST) -> bool:
    """Whether a name is read only as numbers at once: ``y.data.cpu().numpy()``, ``y.item()``,
    ``y.data[i].item()``, compared (``y.data == predicted``), its size or a property
    (``y.size(0)``, ``len(y)``, ``x.requires_grad``)."""
    current = use
    up = ctx.parent(use)
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "len" and up.args == [use]:
        return True
    while True:
        parent = ctx.parent(current)
        if isinstance(parent, ast.Subscript) and parent.value is current:
            current = parent  # `y.data[i].item()`: an item of it
            continue
        if isinstance(parent, ast.Compare) and all(isinstance(op, VALUE_COMPARISONS) for op in parent.ops):
            return True  # `labels.data == predicted`: booleans, without a graph
        if not (isinstance(parent, ast.Attribute) and parent.value is current):
            return False
        call = ctx.parent(parent)
        called = isinstance(call, ast.Call) and call.func is parent
        if parent.attr in _TO_NUMBERS and called:
            return True
        if parent.attr in _SIZE_READS if called else parent.attr in _PROPERTY_READS:
            return True
        if parent.attr not in _TO_NUMBERS_ON_THE_WAY:
            return False
        current = call if called else parent


def _runs_what_it_is_handed(ctx, qualified: str) -> bool:
    """Whether a function of another file of the run calls one of its parameters (a model it is
    handed); True where the check cannot read it."""
    found = ctx.model.project_function(qualified)
    if found is None:
        return True
    _tree, function = found
    return bool(called_parameters(function, ast.walk(function)))
