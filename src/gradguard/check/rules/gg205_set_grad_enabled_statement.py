"""`torch.set_grad_enabled(False)` used as a statement.

## What it does
Flags `torch.set_grad_enabled(False)` (also `torch.autograd.set_grad_enabled(False)` and
imported names) called as a statement rather than used as a context manager, also as a branch
of a conditional expression used as a statement (`torch.set_grad_enabled(True) if phase ==
"train" else torch.set_grad_enabled(False)`: `with torch.set_grad_enabled(phase == "train"):`
is the cure).

Not flagged: a call at the top level of a plain script (no function or class of its own for
another file to import) whose code shows no use of gradients (no backward pass, optimizer step or
`requires_grad`): an analysis of a trained model that runs without grad from its start on, by design.
Nor the context-manager form `with torch.set_grad_enabled(False):`,
`torch.set_grad_enabled(True)`, `torch.set_grad_enabled(prev)` with a non-constant argument
(restoring a saved mode), a call inside a context manager's `__enter__` method (its
`__exit__` switches back), and a call whose block restores grad mode in the `finally` of a
`try` that covers the code after it (the `prev = torch.is_grad_enabled()` / `try` /
`finally: torch.set_grad_enabled(prev)` pattern).

A call that is switched back later in the same function but not in a `finally` is still
flagged, with a message saying so: an exception raised in between skips the switch back. A
call that switches grad back off after a `set_grad_enabled(True)` statement earlier in its
block (grad turned on for a few lines of a Lightning `validation_step`) is flagged with the
advice that fits it: `with torch.enable_grad():` around the lines between; where code follows the switch
back off in its block (a training pass, then a validation pass), `with torch.no_grad():` around that code.

## Why is this bad?
Grad mode is a thread-local switch. As a statement, `set_grad_enabled(False)` turns
autograd off for everything that runs afterwards on this thread (not just the current
block or function) until something turns it back on: later training code then computes
losses without a graph, and `loss.backward()` fails with "element 0 of tensors does not
require grad and does not have a grad_fn" far away from the cause. Even when it is switched
back by hand, an exception in between leaves grad disabled.

## Example
```python
import torch

def predict(model, x):
    torch.set_grad_enabled(False)
    return model(x)
```

## Use instead
```python
import torch

def predict(model, x):
    with torch.set_grad_enabled(False):
        return model(x)
```

## Fix safety
There is no fix: turning the statement into a `with` block means choosing which of the
following statements belong in the block, which only the author knows.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from gradguard.check.analysis.imports import callee_name
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.vocabulary import SET_ENABLED_NAMES, call_argument, constant_of
from gradguard.check.model import FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_SET_ENABLED = SET_ENABLED_NAMES


def _mode_arg(call: ast.Call) -> Optional[ast.AST]:
    return call_argument(call, 0, "mode")


_BLOCKS = ("body", "orelse", "finalbody")


def _block_holding(parent: ast.AST, child: ast.AST, fields: tuple) -> tuple:
    """(the statement list of ``parent`` that holds ``child``, its index there), or ([], -1)."""
    for field in fields:
        block = getattr(parent, field, None)
        if isinstance(block, list) and child in block:
            return block, block.index(child)
    return [], -1


# What code that uses gradients writes: a backward pass, an optimizer step, grad switched back on.
_USES_GRAD_RE = re.compile(
    r"\.backward\(|\.step\(|autograd\.grad\(|requires_grad|enable_grad|set_grad_enabled\((?!\s*False)"
)


def _inference_only_script(ctx) -> bool:
    """Whether the file is a plain script (no function or class of its own for another file to
    import) whose text shows no use of gradients: ``torch.set_grad_enabled(False)`` at its top
    turns grad off for the one thing it runs (an analysis of a trained model), as intended."""
    body = ctx.tree.body
    if any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for stmt in body):
        return False
    return _USES_GRAD_RE.search(ctx.source.text) is None


def _is_false(node: Optional[ast.AST]) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _is_restore(node: ast.AST) -> bool:
    """A call that may switch grad mode back on: ``set_grad_enabled(<not False>)``."""
    if not isinstance(node, ast.Call):
        return False
    return callee_name(node).endswith("set_grad_enabled") and not _is_false(_mode_arg(node))


def _restores(statements: list) -> Optional[ast.AST]:
    for stmt in statements:
        for sub in walk_in_order(stmt):
            if _is_restore(sub):
                return sub
    return None


class SetGradEnabledStatement(Rule):
    code = "GG205"
    name = "set-grad-enabled-statement"
    summary = "`torch.set_grad_enabled(False)` as a statement switches grad off for the whole thread"
    fix_availability = FixAvailability.NONE
    severity = Severity.ERROR
    triggers = ("set_grad_enabled",)
    function_triggers = ("set_grad_enabled",)
    function_names = tuple(sorted(_SET_ENABLED))

    valid = (
        # A script that only analyses a trained model, with nothing of its own to import: grad is
        # off for all it runs, by design.
        Valid(
            """
            import numpy as np
            import torch

            torch.set_grad_enabled(False)
            model = torch.load("model.pt")
            model.eval()
            latents = [model.encode(x) for x in torch.load("sentences.pt")]
            np.save("latents.npy", torch.cat(latents).numpy())
            """
        ),
        # The same choice as a context manager.
        Valid(
            """
            import torch


            def run_epoch(model, loader, phase):
                with torch.set_grad_enabled(phase == "train"):
                    for x, y in loader:
                        model(x)
            """
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.set_grad_enabled(False):
                    return model(x)
            """,
        ),
        Valid(
            """
            import torch
            torch.set_grad_enabled(True)
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                prev = torch.is_grad_enabled()
                torch.set_grad_enabled(False)
                try:
                    return model(x)
                finally:
                    torch.set_grad_enabled(prev)
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                prev = torch.is_grad_enabled()
                try:
                    torch.set_grad_enabled(False)
                    return model(x)
                finally:
                    torch.set_grad_enabled(prev)
            """,
        ),
        Valid(
            """
            import torch

            class frozen:
                def __enter__(self):
                    self.prev = torch.is_grad_enabled()
                    torch.set_grad_enabled(False)

                def __exit__(self, *exc):
                    torch.set_grad_enabled(self.prev)
            """,
        ),
        Valid(
            """
            import torch

            def restore(mode):
                torch.set_grad_enabled(mode)
            """,
        ),
        Valid(
            """
            import torch
            set_grad_enabled(False)
            obj.set_grad_enabled(False)
            """,
        ),
    )
    invalid = (
        # Grad switched on for a training pass and off for the validation pass after it, in one block.
        Invalid(
            """
            import torch


            def fit(net, opt, train_loader, val_loader, epochs):
                for epoch in range(epochs):
                    torch.set_grad_enabled(True)
                    for x, y in train_loader:
                        loss = torch.nn.functional.cross_entropy(net(x), y)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                    torch.set_grad_enabled(False)
                    for x, y in val_loader:
                        print(torch.nn.functional.cross_entropy(net(x), y).item())
            """,
            line=12,
            column=9,
            message="`torch.set_grad_enabled(False)` turns grad off for everything after it on this thread, until "
            "`torch.set_grad_enabled(True)` (line 6) runs again, and an exception in between leaves it off; put the "
            "code after it in `with torch.no_grad():` and drop the two statements",
        ),
        # The mode chosen by a conditional expression, as a statement: off after the evaluation phase.
        Invalid(
            """
            import torch


            def run_epoch(model, loader, phase):
                torch.set_grad_enabled(True) if phase == "train" else torch.set_grad_enabled(False)
                for x, y in loader:
                    model(x)
            """,
            line=5,
            column=59,
            message='`torch.set_grad_enabled(True) if phase == "train" else torch.set_grad_enabled(False)` as a '
            'statement leaves grad off, where `phase == "train"` is false, for everything that runs '
            'afterwards on this thread; use `with torch.set_grad_enabled(phase == "train"):` around the code that needs it',
        ),
        # A notebook's code: grad turned off to look at the model, then training cells later.
        Invalid(
            """
            import torch
            torch.set_grad_enabled(False)
            model = load()
            print(model(x_test).argmax(1))
            loss = model(x_train).sum()
            loss.backward()
            """,
            line=2,
            column=1,
            message="`torch.set_grad_enabled(False)` as a statement turns grad off for everything that runs afterwards on this thread; use `with torch.set_grad_enabled(False):` or `with torch.no_grad():` around the code that needs it",
        ),
        Invalid(
            """
            from torch.autograd import set_grad_enabled

            def f(model, x):
                set_grad_enabled(mode=False)
                return model(x)
            """,
            line=4,
            column=5,
            message="`set_grad_enabled(mode=False)` as a statement turns grad off for everything that runs afterwards on this thread; use `with set_grad_enabled(False):` or `with torch.no_grad():` around the code that needs it",
        ),
        Invalid(
            """
            import torch as th

            def f(model, x):
                th.autograd.set_grad_enabled(False)
                y = model(x)
                th.autograd.set_grad_enabled(True)
                return y
            """,
            line=4,
            column=5,
            message="`th.autograd.set_grad_enabled(False)` as a statement: grad mode is switched back on line 6 only if nothing in between raises; use `with th.autograd.set_grad_enabled(False):` (or `torch.no_grad()`) instead",
        ),
        Invalid(
            """
            import torch

            class ProtoMAML(LightningModule):
                def validation_step(self, batch, batch_idx):
                    torch.set_grad_enabled(True)
                    self.outer_loop(batch, mode="val")
                    torch.set_grad_enabled(False)
            """,
            line=7,
            column=9,
            message="`torch.set_grad_enabled(False)` switches grad back off after `torch.set_grad_enabled(True)` (line 5) only if nothing in between raises; put the lines between in `with torch.enable_grad():` instead of the two statements",
        ),
    )

    def visit_Expr(self, node: ast.Expr, ctx) -> None:
        call = node.value
        if isinstance(call, ast.IfExp):
            self._conditional_statement(ctx, node, call)
            return
        if not isinstance(call, ast.Call) or ctx.imports.qualified_name(call.func) not in _SET_ENABLED:
            return
        if not _is_false(_mode_arg(call)):
            return
        function = ctx.function
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and function.name in (
            "__enter__",
            "__aenter__",
        ):
            return
        if self._restored_in_finally(ctx, node):
            return
        if ctx.function is None and _inference_only_script(ctx):
            return  # a script that runs without grad from its start on, by design
        later = self._restored_later(ctx, node)
        text = ctx.text(call.func)
        earlier = self._enabled_before(ctx, node)
        block, index = _block_holding(ctx.parent(node), node, _BLOCKS)
        runs_after = any(not isinstance(stmt, (ast.Return, ast.Pass)) for stmt in block[index + 1 :])
        if earlier is not None and runs_after:
            # `set_grad_enabled(True)`, a training pass, `set_grad_enabled(False)`, a validation
            # pass: the code after the switch is what needs grad off
            message = (
                f"`{ctx.text(call)}` turns grad off for everything after it on this thread, until "
                f"`{ctx.text(earlier.value)}` (line {earlier.lineno}) runs again, and an exception in between "
                f"leaves it off; put the code after it in `with torch.no_grad():` and drop the two statements"
            )
        elif earlier is not None:
            # `set_grad_enabled(True)` ... `set_grad_enabled(False)`: grad is put back off, as the
            # block was entered (Lightning runs `validation_step` without grad).
            message = (
                f"`{ctx.text(call)}` switches grad back off after `{ctx.text(earlier.value)}` (line "
                f"{earlier.lineno}) only if nothing in between raises; put the lines between in "
                f"`with torch.enable_grad():` instead of the two statements"
            )
        elif later is not None:
            message = (
                f"`{ctx.text(call)}` as a statement: grad mode is switched back on line {later.lineno} only if "
                f"nothing in between raises; use `with {text}(False):` (or `torch.no_grad()`) instead"
            )
        else:
            message = (
                f"`{ctx.text(call)}` as a statement turns grad off for everything that runs afterwards on this thread; "
                f"use `with {text}(False):` or `with torch.no_grad():` around the code that needs it"
            )
        ctx.report(self.code, call, message)

    def _conditional_statement(self, ctx, node: ast.Expr, choice: ast.IfExp) -> None:
        """``torch.set_grad_enabled(True) if phase == "train" else torch.set_grad_enabled(False)``
        as a statement: on the branch that turns grad off it stays off for everything after."""
        modes = []
        for branch in (choice.body, choice.orelse):
            if not (isinstance(branch, ast.Call) and ctx.imports.qualified_name(branch.func) in _SET_ENABLED):
                return
            modes.append(constant_of(_mode_arg(branch), None))
        if modes not in ([True, False], [False, True]) or self._restored_in_finally(ctx, node):
            return
        test = ctx.text(choice.test)
        mode = test if modes == [True, False] else f"not ({test})"
        off = choice.orelse if modes == [True, False] else choice.body
        ctx.report(
            self.code,
            off,
            f"`{short(ctx.text(choice), 100)}` as a statement leaves grad off, where `{test}` is "
            f"{'false' if modes == [True, False] else 'true'}, for everything that runs afterwards on this thread; "
            f"use `with {ctx.text(off.func)}({mode}):` around the code that needs it",  # type: ignore[union-attr]
        )

    @staticmethod
    def _enabled_before(ctx, node: ast.stmt) -> Optional[ast.Expr]:
        """A ``set_grad_enabled(True)`` statement earlier in the same block, if any."""
        block, index = _block_holding(ctx.parent(node), node, _BLOCKS)
        for stmt in reversed(block[:index]):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and ctx.imports.qualified_name(call.func) in _SET_ENABLED
                and constant_of(_mode_arg(call), None) is True
            ):
                return stmt
        return None

    @staticmethod
    def _restored_in_finally(ctx, node: ast.AST) -> bool:
        child = node
        current = ctx.parent(node)
        while current is not None:
            if isinstance(current, ast.Try) or type(current).__name__ == "TryStar":
                if child in current.body and _restores(current.finalbody):
                    return True
            block, index = _block_holding(current, child, _BLOCKS)
            for later in block[index + 1 :]:
                if (isinstance(later, ast.Try) or type(later).__name__ == "TryStar") and _restores(later.finalbody):
                    return True
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
                break
            child = current
            current = ctx.parent(current)
        return False

    @staticmethod
    def _restored_later(ctx, node: ast.AST) -> Optional[ast.AST]:
        child = node
        current = ctx.parent(node)
        while current is not None:
            block, index = _block_holding(current, child, (*_BLOCKS, "handlers"))
            found = _restores(block[index + 1 :])
            if found is not None:
                return found
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
                break
            child = current
            current = ctx.parent(current)
        return None
