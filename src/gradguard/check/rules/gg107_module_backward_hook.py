"""`Module.register_backward_hook`, whose hooks can see the wrong gradients.

## What it does
Flags calls of `module.register_backward_hook(hook)` and of the global
`torch.nn.modules.module.register_module_backward_hook(hook)`. A receiver that the code shows
is not a module (an instance of a class of the file that is not an `nn.Module`) is not flagged,
nor the fallback for a torch too old to have the full hook (the `else:` of
`if hasattr(m, "register_full_backward_hook"):`, or the `except` of a `try` that uses it).

## Why is this bad?
These hooks are deprecated. They are attached to the autograd node of the *last* operation of
the module's forward, not to the module: for a module whose forward runs more than one
operation (`nn.Sequential`, a block with an activation, your own `forward`), the hook's
`grad_input` holds the gradients of that last operation's inputs, not of the module's inputs,
and its `grad_output` may miss outputs. Grad-CAM and saliency code built on them silently
reads the wrong tensors. `register_full_backward_hook` (PyTorch 1.8) is called with the
gradients of the module's own inputs and outputs.

## Example
```python
import torch.nn as nn

def attach(layer: nn.Module, store: list):
    def hook(module, grad_input, grad_output):
        store.append(grad_output[0])
    return layer.register_backward_hook(hook)
```

## Use instead
```python
import torch.nn as nn

def attach(layer: nn.Module, store: list):
    def hook(module, grad_input, grad_output):
        store.append(grad_output[0])
    return layer.register_full_backward_hook(hook)
```

## Fix safety
The fix renames the call to `register_full_backward_hook` (and
`register_module_backward_hook` to `register_module_full_backward_hook`). It is unsafe: the
hook is then called with different tensors (those of the module's inputs and outputs, with
`None` for inputs that do not require grad), a hook that returns a replacement `grad_input`
must match the new shapes, and full hooks refuse modules whose forward changes its inputs in
place.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Kind
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_METHOD = "register_backward_hook"
_GLOBAL = frozenset(
    {"torch.nn.modules.module.register_module_backward_hook", "torch.nn.modules.register_module_backward_hook"}
)
_GLOBAL_NEW = "register_module_full_backward_hook"


def _fallback_for_old_torch(ctx, call: ast.Call) -> bool:
    """The call is the fallback of a branch or ``try`` that uses the full hook where torch has
    it (``if hasattr(m, "register_full_backward_hook"): ... else: m.register_backward_hook(h)``):
    it runs only on a torch too old to have the new one."""
    child: ast.AST = call
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, ast.If) and child in ancestor.orelse:
            if "register_full_backward_hook" in ctx.text(ancestor.test) or any(
                "register_full_backward_hook" in ctx.text(stmt) for stmt in ancestor.body
            ):
                return True
        elif isinstance(ancestor, ast.Try) and child in ancestor.handlers:
            if any("register_full_backward_hook" in ctx.text(stmt) for stmt in ancestor.body):
                return True
        child = ancestor
    return False


class ModuleBackwardHook(Rule):
    code = "GG107"
    name = "module-backward-hook"
    summary = "`register_backward_hook` hooks the module's last operation: use `register_full_backward_hook`"
    fix_availability = FixAvailability.UNSAFE
    severity = Severity.WARNING
    triggers = ("backward_hook",)
    function_triggers = ("backward_hook",)

    valid = (
        Valid(
            """
            import torch.nn as nn

            def watch(layer: nn.Module, hook):
                if hasattr(layer, "register_full_backward_hook"):
                    layer.register_full_backward_hook(hook)
                else:
                    layer.register_backward_hook(hook)
            """,
        ),
        Valid(
            """
            import torch.nn as nn

            def watch(layer: nn.Module, hook):
                try:
                    layer.register_full_backward_hook(hook)
                except AttributeError:
                    layer.register_backward_hook(hook)
            """,
        ),
        Valid(
            """
            import torch.nn as nn

            def attach(layer, hook):
                return layer.register_full_backward_hook(hook)
            """,
        ),
        Valid(
            """
            import torch

            def attach(x, hook):
                return x.register_hook(hook)
            """,
        ),
        # A class of the file with a method of that name: not a module.
        Valid(
            """
            class Recorder:
                def register_backward_hook(self, fn):
                    self.fn = fn

            rec = Recorder()
            rec.register_backward_hook(print)
            """,
        ),
    )
    invalid = (
        Invalid(
            """
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
            handle = net.register_backward_hook(lambda m, gi, go: print(gi))
            """,
            line=4,
            column=10,
            message="`net.register_backward_hook` hooks the last operation of the module's forward, not the module: "
            "`grad_input` can be the wrong tensors; use `register_full_backward_hook`",
            fixed="""
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
            handle = net.register_full_backward_hook(lambda m, gi, go: print(gi))
            """,
            unsafe=True,
        ),
        Invalid(
            """
            from torch.nn.modules.module import register_module_backward_hook

            register_module_backward_hook(print)
            """,
            line=3,
            column=1,
            message="`register_module_backward_hook` hooks the last operation of every module's forward, not the "
            "module: `grad_input` can be the wrong tensors; use `register_module_full_backward_hook`",
            fixed="""
            from torch.nn.modules.module import register_module_backward_hook, register_module_full_backward_hook

            register_module_full_backward_hook(print)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch.nn as nn

            class GradCam:
                def __init__(self, model):
                    model.features.register_backward_hook(self.save)

                def save(self, module, grad_in, grad_out):
                    self.grad = grad_out[0]
            """,
            line=5,
            column=9,
            message="`model.features.register_backward_hook` hooks the last operation of the module's forward, not "
            "the module: `grad_input` can be the wrong tensors; use `register_full_backward_hook`",
            fixed="""
            import torch.nn as nn

            class GradCam:
                def __init__(self, model):
                    model.features.register_full_backward_hook(self.save)

                def save(self, module, grad_in, grad_out):
                    self.grad = grad_out[0]
            """,
            unsafe=True,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == _METHOD:
            qual = ctx.imports.qualified_name(func)
            if qual is not None and qual not in _GLOBAL and not qual.startswith("torch.nn."):
                return  # a function of another library
            if qual is None or qual not in _GLOBAL:  # `module.register_backward_hook(...)`, `nn.Module.register_...`
                receiver = ctx.model.value(func.value)
                if qual is None and receiver.kind not in (Kind.MODULE, Kind.UNKNOWN):
                    return
                if _fallback_for_old_torch(ctx, node):
                    return
                end = ctx.source.node_end(func)
                fix = Fix(
                    Applicability.UNSAFE,
                    "Use `register_full_backward_hook` (the hook then sees the module's own input and output gradients)",
                    (Edit(end - len(_METHOD), end, "register_full_backward_hook"),),
                )
                ctx.report(
                    self.code,
                    node,
                    f"`{short(ctx.text(func))}` hooks the last operation of the module's forward, not the module: "
                    "`grad_input` can be the wrong tensors; use `register_full_backward_hook`",
                    fix,
                )
                return
        if ctx.imports.qualified_name(func) not in _GLOBAL or _fallback_for_old_torch(ctx, node):
            return
        ctx.report(
            self.code,
            node,
            f"`{short(ctx.text(func))}` hooks the last operation of every module's forward, not the module: "
            f"`grad_input` can be the wrong tensors; use `{_GLOBAL_NEW}`",
            self._global_fix(ctx, func),
        )

    @staticmethod
    def _global_fix(ctx, func: ast.AST):
        end = ctx.source.node_end(func)
        old = "register_module_backward_hook"
        edits = [Edit(end - len(old), end, _GLOBAL_NEW)]
        if isinstance(func, ast.Name):
            # `from ... import register_module_backward_hook`: import the new name next to it.
            found = _import_of(ctx.tree, func.id)
            if found is None:
                return None
            stmt, alias = found
            if alias.asname is not None:
                return None
            alias_end = ctx.source.node_end(alias)
            if any(a.name == _GLOBAL_NEW for a in stmt.names):
                pass
            else:
                edits.append(Edit(alias_end, alias_end, f", {_GLOBAL_NEW}"))
        return Fix(
            Applicability.UNSAFE,
            f"Use `{_GLOBAL_NEW}` (hooks then see each module's own input and output gradients)",
            tuple(edits),
        )


def _import_of(tree: ast.Module, name: str):
    for stmt in walk_in_order(tree):
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    return stmt, alias
    return None
