"""Evaluation with grad enabled.

## What it does
Flags evaluation code that runs a model while grad is enabled: a function that calls
`.eval()` on a model, or loops over a validation/test loader (`val_loader`, `valid_dl`,
`test_loader`, `eval_dataloader`, `loader_eval`, `dev_iter`, `self.val_dataloader()`, ...), and then calls
the model outside any `no_grad`/`inference_mode` region, without any sign of gradient use in
that function. A model is something named like one (`model`, `net`, `self.backbone`,
`teacher`, `ema_model`, `netD`, `model.module`, ...): a module without parameters (pooling,
dropout) records no graph, and nothing else in the code tells the two apart (`backward`, `torch.autograd`, an optimizer `step`, `.grad`, `requires_grad`,
`grad_fn`), and no `torch.jit.freeze` (a frozen module holds its weights as constants). It is reported at the first such model call. In a function that does train (a
training loop followed by a validation loop), the validation loop alone is checked: a loop
over an evaluation loader whose body shows no gradient use.

Not flagged: functions under a decorator or inside a caller region that may disable grad;
module-level functions that this file calls only where grad is disabled
(`with torch.no_grad(): validate(model, loader)`);
functions that only switch the model to eval mode and return; functions that return a loss
(the caller may call `backward` on it); `forward` / `__call__`; and the hooks PyTorch Lightning
already runs without grad or with its own loss handling (`training_step`, `validation_step`,
`test_step`, `predict_step`, `*_epoch_end`, `on_validation_*`, `on_test_*`, `on_predict_*`).

## Why is this bad?
`model.eval()` only changes layers such as dropout and batch norm; it does not turn autograd
off. Every forward call still records a graph and keeps the activations it needs for a
backward pass that never comes: evaluation uses several times the memory it needs and runs
slower. Anything accumulated from the outputs (`total += criterion(out, y)`) keeps those
graphs alive across iterations.

## Example
```python
import torch

def evaluate(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
```

## Use instead
```python
import torch

@torch.no_grad()
def evaluate(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
```

## Fix safety
The fix decorates the function with `@torch.no_grad()` (using the file's name for torch)
and is unsafe: a caller may rely on the outputs carrying gradients (for example to
backpropagate through a model kept in eval mode). No fix is offered for `async def`
functions (the decorator would not cover the coroutine's body), for functions with a
`torch.jit` decorator, for files that do not bind a name to torch, for module-level code, and
for validation loops inside training functions (decorating those would disable training).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.imports import dotted_name
from gradguard.check.analysis.kinds import MODEL_NAME_RE, is_loss
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability
from gradguard.check.rules.base import Invalid, Rule, Valid

_LOADER_RE = re.compile(
    r"^(?:(?:val|valid|validation|test|testing|eval|evaluation|dev)_?(?:data_?)?(?:loader|dataloader|dl|iter|iterator)s?"
    r"|(?:data_?)?loader_?(?:val|valid|validation|test|eval))$",
    re.I,
)
_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "zip", "track", "islice", "trange", "progress_bar"})
_GRAD_USE = (
    "backward",
    "autograd",
    ".step(",
    "grad_fn",
    "requires_grad",
    ".grad",
    "zero_grad",
    "torch.func",
    "functorch",
    "gradcheck",
    "jacobian",
    "hessian",
    "vjp",
    "jvp",
    # frozen TorchScript modules hold their parameters as constants: no graph is recorded
    "jit.freeze",
    "optimize_for_inference",
)
_SKIP_FUNCTIONS = frozenset(
    {
        "forward",
        "__call__",
        "training_step",
        "validation_step",
        "test_step",
        "predict_step",
        "validation_step_end",
        "test_step_end",
        "validation_epoch_end",
        "test_epoch_end",
    }
)
_SKIP_PREFIXES = ("on_validation", "on_test", "on_predict")
_FACTORY_PREFIXES = ("create_", "build_", "get_", "load_", "make_", "init_", "_")


def _module_functions(ctx) -> frozenset:
    state = ctx.state(_State)
    if state.module_functions is None:
        state.module_functions = frozenset(
            n.name for n in ctx.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
    return state.module_functions


@dataclass
class _Unit:
    """What one function body (or the module) has shown so far."""

    eval_call: Optional[ast.AST] = None
    eval_receivers: set = field(default_factory=set)
    loader_loops: dict = field(default_factory=dict)  # id(loop) -> (loop, loader text)
    model_calls: list = field(default_factory=list)  # (call, id of innermost loader loop or None)


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    module_functions: Optional[frozenset] = None  # names of the module's functions and classes
    units: dict = field(default_factory=dict)  # id(function) (0: the module) -> _Unit
    calls: dict = field(default_factory=dict)  # function name -> grad states where it is called
    pending: list = field(default_factory=list)  # (_Unit, module-level function) decided at the end


def _loader_name(expr: ast.AST) -> Optional[str]:
    """The evaluation loader a ``for`` iterates, if its name says so."""
    node = expr
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _ITER_WRAPPERS:
            for arg in node.args:
                found = _loader_name(arg)
                if found:
                    return found
            return None
        if not node.args and isinstance(func, ast.Attribute) and _LOADER_RE.match(func.attr):
            return func.attr + "()"
        return None
    last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if last and _LOADER_RE.match(last):
        return last
    return None


def _called_in(ctx, functions: list, name: str) -> bool:
    """Whether ``name(...)`` may be called in one of these functions (ones the walk skipped:
    such a call runs where grad is not known to be off)."""
    if not functions:
        return False
    call = re.compile(r"(?<![\w.])" + re.escape(name) + r"\s*\(")
    return any(call.search(ctx.text(function)) for function in functions)


def _uses_grad(text: str) -> bool:
    return any(marker in text for marker in _GRAD_USE)


class EvalWithGrad(Rule):
    code = "GG201"
    name = "eval-with-grad"
    summary = "evaluation (`.eval()` or a validation loader loop) runs the model with grad enabled"
    fix_availability = FixAvailability.SOMETIMES
    triggers = (".eval(", "loader", "_dl", "_iter")
    # A unit with findings calls `.eval()` or loops over a loader named like the triggers; the calls
    # of module-level functions that skipped functions make are looked for in leave_Module.
    function_triggers = ("eval", "loader", "Loader", "_dl", "_iter")

    valid = (
        Valid(
            """
            import torch

            @torch.no_grad()
            def evaluate(model, val_loader):
                model.eval()
                return [model(x) for x, _ in val_loader]
            """,
        ),
        Valid(
            """
            import torch

            class Wrapper:
                def eval(self):
                    self.model.eval()
                    return self
            """,
        ),
        Valid(
            """
            import torch

            def finetune(model, x, y, optimizer):
                model.eval()
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                optimizer.step()
            """,
        ),
        Valid(
            """
            import torch
            import lightning as L

            class M(L.LightningModule):
                def validation_step(self, batch, idx):
                    self.model.eval()
                    out = self.model(batch)
                    self.log('val', out.mean())
            """,
        ),
        Valid(
            """
            import torch

            def outer(model, val_loader):
                with torch.no_grad():
                    def run():
                        model.eval()
                        return [model(x) for x in val_loader]
                    return run()
            """,
        ),
        Valid(
            """
            import torch

            def saliency(model, x):
                model.eval()
                x.requires_grad_()
                out = model(x)
                out.max().backward()
                return x.grad
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F

            def eval_loss(model, x, y):
                model.eval()
                return F.cross_entropy(model(x), y)
            """,
        ),
        Valid(
            """
            import torch

            def train(model, train_loader, val_loader, opt):
                for x, y in train_loader:
                    model(x).sum().backward()
                    opt.step()
                model.eval()
                with torch.no_grad():
                    for x, y in val_loader:
                        model(x)
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            def test_pool(x):
                pool = nn.MaxPool2d(2)
                pool.eval()
                assert pool(x).shape[-1] == x.shape[-1] // 2
            """,
        ),
        Valid(
            """
            import torch

            def validation(model, testloader):
                model.eval()
                return [model(x) for x in testloader]

            def validation_2(model, test_loader):
                for x, y in test_loader:
                    model(x)

            def train(model, loader, testloader, opt):
                for x in loader:
                    model(x).sum().backward()
                    opt.step()
                    model.eval()
                    with torch.no_grad():
                        validation(model, testloader)
                        validation_2(model, testloader)
                    model.train()
            """,
        ),
        Valid(
            """
            import torch

            def export(model, x):
                frozen = torch.jit.freeze(torch.jit.script(model.eval()))
                frozen(x)
                return frozen
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch

            def evaluate(model, val_loader):
                model.eval()
                for x, y in val_loader:
                    out = model(x)
            """,
            line=6,
            column=15,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 4), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch

            @torch.no_grad()
            def evaluate(model, val_loader):
                model.eval()
                for x, y in val_loader:
                    out = model(x)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch as th

            class Runner:
                @staticmethod
                def predict(net, batch):
                    net.eval()
                    return net(batch)
            """,
            line=7,
            column=16,
            message="`net(...)` runs with grad enabled after `net.eval()` (line 6), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch as th

            class Runner:
                @staticmethod
                @th.no_grad()
                def predict(net, batch):
                    net.eval()
                    return net(batch)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch

            def fit(model, train_dl, valid_dl, opt):
                for x, y in train_dl:
                    model(x).sum().backward()
                    opt.step()
                for x, y in enumerate(valid_dl):
                    preds = model(x)
            """,
            line=8,
            column=17,
            message="`model(...)` runs with grad enabled in the loop over `valid_dl` (line 7), which never uses gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            from torch import nn

            model = nn.Linear(2, 2)
            model.eval()
            y = model(x)
            """,
            line=5,
            column=5,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 4), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
    )

    # -- collecting ----------------------------------------------------------------------------
    def _unit(self, ctx) -> Optional[_Unit]:
        function = ctx.function
        if isinstance(function, ast.Lambda):
            return None
        units = ctx.state(_State).units
        key = id(function) if function is not None else 0
        unit = units.get(key)
        if unit is None:
            unit = units[key] = _Unit()
        return unit

    def visit_For(self, node: ast.AST, ctx) -> None:
        name = _loader_name(node.iter)
        if name is not None:
            unit = self._unit(ctx)
            if unit is not None:
                unit.loader_loops[id(node)] = (node, name)

    visit_AsyncFor = visit_For

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "eval" and not node.args and not node.keywords:
            receiver = dotted_name(func.value)
            if receiver is not None and ctx.imports.qualified_name(func.value) is None:
                unit = self._unit(ctx)
                if unit is not None:
                    unit.eval_receivers.add(receiver)
                    if unit.eval_call is None:
                        unit.eval_call = node
            return
        if isinstance(func, ast.Name):
            # Where each module-level function is called: a function called only where grad is
            # disabled (``with torch.no_grad(): validate(...)``) already runs without grad.
            ctx.state(_State).calls.setdefault(func.id, set()).add(ctx.grad_state())
        unit = ctx.state(_State).units.get(id(ctx.function) if ctx.function is not None else 0)
        if unit is None:
            return
        loop_id = None
        for loop in reversed(ctx.loops):
            if id(loop) in unit.loader_loops:
                loop_id = id(loop)
                break
        if unit.eval_call is None and loop_id is None:
            return
        if not self._is_model_call(ctx, unit, node):
            return
        if ctx.grad_state() != "enabled":
            return
        unit.model_calls.append((node, loop_id))

    @staticmethod
    def _is_model_call(ctx, unit: _Unit, node: ast.Call) -> bool:
        """A call of something named like a model (``model``, ``self.net``, ``teacher.module``).

        Names alone decide: a module without parameters (pooling, dropout) records no graph,
        and what ``.eval()`` was called on is not enough to tell the two apart.
        """
        func = node.func
        target = func.value if isinstance(func, ast.Attribute) and func.attr == "forward" else func
        if isinstance(target, ast.Attribute) and target.attr == "module":
            target = target.value
        if ctx.imports.qualified_name(target) is not None:
            return False
        last = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else None
        if last is None or MODEL_NAME_RE.match(last) is None or last.startswith(_FACTORY_PREFIXES):
            return False
        if isinstance(target, ast.Name) and (target.id in ctx.imports.names or target.id in _module_functions(ctx)):
            return False  # ``create_model(...)``, ``_create_fx_model(...)``: a function, not a model
        return True

    # -- deciding ------------------------------------------------------------------------------
    def leave_FunctionDef(self, node: ast.AST, ctx) -> None:
        state = ctx.state(_State)
        unit = state.units.pop(id(node), None)
        if unit is None or not unit.model_calls:
            return
        if node.name in _SKIP_FUNCTIONS or node.name.startswith(_SKIP_PREFIXES):
            return
        if any(
            isinstance(sub, ast.Return) and sub.value is not None and is_loss(ctx, ctx.facts(node), sub.value)
            for sub in ast.walk(node)
        ):
            return
        if ctx.parent(node) is ctx.tree:
            # Decided at the end of the module, once its calls of this function are known.
            state.pending.append((unit, node))
            return
        self._decide(ctx, unit, node, ctx.text(node))

    leave_AsyncFunctionDef = leave_FunctionDef

    def leave_Module(self, node: ast.Module, ctx) -> None:
        state = ctx.state(_State)
        calls = state.calls
        pending_functions, state.pending = state.pending, []
        for pending, function in pending_functions:
            if calls.get(function.name) == {"disabled"} and not _called_in(ctx, ctx.skipped_functions, function.name):
                continue  # every call of it in this file is under no_grad / inference_mode
            self._decide(ctx, pending, function, ctx.text(function))
        unit = state.units.pop(0, None)
        if unit is None or not unit.model_calls:
            return
        self._decide(ctx, unit, None, ctx.source.text)

    def _decide(self, ctx, unit: _Unit, function: Optional[ast.AST], text: str) -> None:
        if not _uses_grad(text):
            call = unit.model_calls[0][0]
            if unit.eval_call is not None and (unit.model_calls[0][1] is None or unit.eval_call.lineno <= call.lineno):
                why = f"after `{ctx.text(unit.eval_call)}` (line {unit.eval_call.lineno})"
            else:
                loop, loader = unit.loader_loops[unit.model_calls[0][1]]
                why = f"in the loop over `{loader}` (line {loop.lineno})"
            where = "this function" if function is not None else "this module"
            ctx.report(
                self.code,
                call,
                f"`{ctx.text(call.func)}(...)` runs with grad enabled {why}, and nothing in {where} uses gradients: "
                f"autograd records a graph for every call, wasting memory and time; run evaluation under "
                f"`torch.no_grad()` or `torch.inference_mode()`",
                self._fix(ctx, function),
            )
            return
        # A function that trains: check its evaluation loops on their own.
        reported = set()
        for call, loop_id in unit.model_calls:
            if loop_id is None or loop_id in reported:
                continue
            loop, loader = unit.loader_loops[loop_id]
            outer = self._outermost_loader_loop(ctx, unit, loop)
            if id(outer) in reported or _uses_grad(ctx.text(outer)):
                continue
            reported.add(id(outer))
            reported.add(loop_id)
            ctx.report(
                self.code,
                call,
                f"`{ctx.text(call.func)}(...)` runs with grad enabled in the loop over `{loader}` (line {loop.lineno}), "
                f"which never uses gradients: autograd records a graph for every call, wasting memory and time; "
                f"wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`)",
            )

    @staticmethod
    def _outermost_loader_loop(ctx, unit: _Unit, loop: ast.AST) -> ast.AST:
        best = loop
        current = ctx.parent(loop)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if id(current) in unit.loader_loops:
                best = current
            current = ctx.parent(current)
        return best

    def _fix(self, ctx, function: Optional[ast.AST]) -> Optional[Fix]:
        torch_name = ctx.imports.torch_name
        if function is None or torch_name is None or not isinstance(function, ast.FunctionDef):
            return None
        if any("jit" in ctx.text(d) for d in function.decorator_list):
            return None
        src = ctx.source
        line_start = src.line_starts[function.lineno - 1]
        indent = src.indentation(function.lineno)
        if not src.line(function.lineno)[len(indent) :].startswith("def "):
            return None
        return Fix(
            Applicability.UNSAFE,
            f"Decorate `{function.name}` with `@{torch_name}.no_grad()`",
            (Edit(line_start, line_start, f"{indent}@{torch_name}.no_grad(){src.newline}"),),
        )
