"""`Module.register_backward_hook`, whose hooks can see the wrong gradients.

## What it does
Flags calls of `module.register_backward_hook(hook)` and of the global
`torch.nn.modules.module.register_module_backward_hook(hook)`. A receiver that the code shows
is not a module (an instance of a class of the file that is not an `nn.Module`) is not flagged,
nor the fallback for a torch too old to have the full hook (the `else:` of
`if hasattr(m, "register_full_backward_hook"):`, or the `except` of a `try` that uses it), nor
a hook that acts only on activations run as one autograd operation (guided backpropagation's
`if isinstance(module, nn.ReLU):`, around the registration or as the hook's whole body): there
the legacy hook sees the module's own gradients, and a full hook refuses an in-place
`nn.ReLU(inplace=True)`.

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
from typing import Optional

from gradguard.check.analysis.scopes import FUNCTION_TYPES, walk_in_order
from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import SINGLE_OPERATION_MODULES
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


def _single_operation_test(ctx, test: ast.AST) -> Optional[str]:
    """The text of what ``isinstance(x, nn.ReLU)`` tests when its class (or every class of its
    tuple) is a torch activation run as one autograd operation; None otherwise."""
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
    ):
        return None
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    for cls in classes:
        qual = ctx.imports.qualified_name(cls) or ""
        if not (qual.startswith("torch.nn.") and qual.rsplit(".", 1)[-1] in SINGLE_OPERATION_MODULES):
            return None
    return ctx.text(test.args[0])


def _hook_function(ctx, hook: ast.AST) -> Optional[ast.AST]:
    """The definition a hook argument names: a function of the enclosing function or module, or a
    method of the enclosing class (``self.save``)."""
    if isinstance(hook, ast.Attribute) and isinstance(hook.value, ast.Name) and hook.value.id == "self":
        cls, name = ctx.method_class, hook.attr
        found = [s for s in cls.body if isinstance(s, FUNCTION_TYPES) and s.name == name] if cls is not None else []
        return found[-1] if found else None
    if not isinstance(hook, ast.Name):
        return None
    for scope in (ctx.function, ctx.tree):
        if isinstance(scope, (*FUNCTION_TYPES, ast.Module)):
            found = [s for s in walk_in_order(scope) if isinstance(s, FUNCTION_TYPES) and s.name == hook.id]
            if found:
                return found[-1]
    return None


def _only_single_operation_modules(ctx, call: ast.Call) -> bool:
    """The legacy hook acts only on activations run as one operation, where it sees the module's
    own gradients and a full hook refuses an in-place one (``nn.ReLU(inplace=True)``): guided
    backpropagation registering it under ``if isinstance(module, nn.ReLU):``, or a hook whose
    whole body is such a test of the module it is called with."""
    receiver = ctx.text(call.func.value)  # type: ignore[attr-defined]
    child: ast.AST = call
    for ancestor in ctx.ancestors(call):
        if (
            isinstance(ancestor, ast.If)
            and child in ancestor.body
            and _single_operation_test(ctx, ancestor.test) == receiver
        ):
            return True
        if isinstance(ancestor, (*FUNCTION_TYPES, ast.ClassDef)):
            break
        child = ancestor
    hook = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
    definition = _hook_function(ctx, hook) if hook is not None else None
    if definition is None:
        return False
    params = [a.arg for a in definition.args.args]  # type: ignore[attr-defined]
    if params and params[0] == "self":
        params = params[1:]
    body = [
        s
        for s in definition.body  # type: ignore[attr-defined]
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return (
        bool(params)
        and len(body) == 1
        and isinstance(body[0], ast.If)
        and not body[0].orelse
        and _single_operation_test(ctx, body[0].test) == params[0]
    )


class ModuleBackwardHook(Rule):
    code = "GG107"
    name = "module-backward-hook"
    summary = "`register_backward_hook` hooks the module's last operation: use `register_full_backward_hook`"
    fix_availability = FixAvailability.UNSAFE
    severity = Severity.WARNING
    triggers = ("backward_hook",)
    function_triggers = ("backward_hook",)

    valid = (
        # Guided backpropagation: the hook acts on `nn.ReLU` alone, one autograd operation, whose
        # legacy hook sees the module's own gradients (a full hook refuses `ReLU(inplace=True)`).
        Valid(
            """
            import torch.nn as nn
            import torch.nn.functional as F

            class GuidedBackprop:
                def __init__(self, model):
                    def backward_hook(module, grad_in, grad_out):
                        if isinstance(module, nn.ReLU):
                            return (F.relu(grad_in[0]),)

                    for _, module in model.named_modules():
                        module.register_backward_hook(backward_hook)
            """
        ),
        Valid(
            """
            from torch.nn import ReLU

            def hook_relus(model, hook):
                for module in model.features:
                    if isinstance(module, ReLU):
                        module.register_backward_hook(hook)
            """
        ),
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
        # The same test of a class of the file: its forward may run many operations.
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F

            class Block(nn.Module):
                pass

            class GuidedBackprop:
                def __init__(self, model):
                    def backward_hook(module, grad_in, grad_out):
                        if isinstance(module, Block):
                            return (F.relu(grad_in[0]),)

                    for _, module in model.named_modules():
                        module.register_backward_hook(backward_hook)
            """,
            line=14,
            column=13,
            message="`module.register_backward_hook` hooks the last operation of the module's forward, not the "
            "module: `grad_input` can be the wrong tensors; use `register_full_backward_hook`",
            fixed="""
            import torch.nn as nn
            import torch.nn.functional as F

            class Block(nn.Module):
                pass

            class GuidedBackprop:
                def __init__(self, model):
                    def backward_hook(module, grad_in, grad_out):
                        if isinstance(module, Block):
                            return (F.relu(grad_in[0]),)

                    for _, module in model.named_modules():
                        module.register_full_backward_hook(backward_hook)
            """,
            unsafe=True,
        ),
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
                if _fallback_for_old_torch(ctx, node) or _only_single_operation_modules(ctx, node):
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
