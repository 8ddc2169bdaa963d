"""Custom ``torch.autograd.Function`` classes: which classes they are, and what their
``forward`` / ``setup_context`` methods call the context, the inputs and the outputs.

Shared by the rules about custom Functions (GG501, GG502). Facts come from the file alone:
a class is a custom Function when it subclasses ``torch.autograd.Function`` (any import
spelling) or another such class of the same file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

_ONCE_DIFFERENTIABLE = frozenset({"torch.autograd.function.once_differentiable", "torch.autograd.once_differentiable"})


def function_classes(ctx) -> frozenset:
    """Names of the classes of this file that subclass ``torch.autograd.Function``."""
    if "Function" not in ctx.source.text:
        return frozenset()
    return ctx.model.autograd_function_classes()


@dataclass
class FunctionMethod:
    """``forward`` (with a ctx argument) or ``setup_context`` of a custom Function."""

    kind: str  # "forward" or "setup_context"
    node: ast.AST
    cls: ast.ClassDef
    ctx_name: str
    inputs: set = field(default_factory=set)  # names bound to the Function's inputs
    outputs: set = field(default_factory=set)  # names bound to the Function's outputs
    forward: Optional[ast.AST] = None  # the class's forward method
    input_positions: dict = field(default_factory=dict)  # input name -> position in forward's args


def _method(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def _positional(fn: ast.AST) -> list:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def _returned_names(fn: ast.AST) -> set:
    out: set[str] = set()
    for node in _own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else [node.value]
            for value in values:
                if isinstance(value, ast.Name):
                    out.add(value.id)
    return out


def _own_nodes(fn: ast.AST):
    """Nodes of a function body (comprehensions included), not descending into nested
    functions, classes or lambdas."""
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def own_nodes(fn: ast.AST):
    return _own_nodes(fn)


def function_method(ctx) -> Optional[FunctionMethod]:
    """The custom-Function method the current node is directly in, if any."""
    fn = ctx.function
    cls = ctx.method_class
    if fn is None or cls is None or fn.name not in ("forward", "setup_context"):
        return None
    if cls.name not in function_classes(ctx):
        return None
    key = ("autograd_function_method", id(fn))
    if key in ctx.cache:
        return ctx.cache[key]
    info = _describe(fn, cls)
    ctx.cache[key] = info
    return info


def _is_staticmethod(decorator: ast.AST) -> bool:
    return (isinstance(decorator, ast.Name) and decorator.id == "staticmethod") or (
        isinstance(decorator, ast.Attribute) and decorator.attr == "staticmethod"
    )


def _describe(fn: ast.AST, cls: ast.ClassDef) -> Optional[FunctionMethod]:
    params = _positional(fn)
    has_setup = _method(cls, "setup_context") is not None
    if fn.name == "forward":
        if has_setup or not params:
            return None  # setup_context style: forward has no ctx
        if not any(_is_staticmethod(d) for d in fn.decorator_list):
            return None  # a legacy Function (forward on an instance): torch 2.x refuses to run it
        info = FunctionMethod("forward", fn, cls, params[0], forward=fn)
        info.inputs = set(params[1:])
        info.input_positions = {name: i for i, name in enumerate(params[1:])}
        if fn.args.vararg is not None:
            info.inputs.discard(fn.args.vararg.arg)
        info.outputs = _returned_names(fn) - info.inputs
        return info
    if len(params) < 3:
        return None
    forward = _method(cls, "forward")
    info = FunctionMethod("setup_context", fn, cls, params[0], forward=forward)
    inputs_name, output_name = params[1], params[2]
    info.outputs = {output_name}
    for node in _own_nodes(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            if node.value.id == inputs_name:
                for target in node.targets:
                    if isinstance(target, (ast.Tuple, ast.List)):
                        for i, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Name):
                                info.inputs.add(elt.id)
                                info.input_positions[elt.id] = i
            elif node.value.id == output_name:
                for target in node.targets:
                    if isinstance(target, (ast.Tuple, ast.List)):
                        info.outputs.update(e.id for e in target.elts if isinstance(e, ast.Name))
                    elif isinstance(target, ast.Name):
                        info.outputs.add(target.id)
    return info


def is_once_differentiable(ctx, cls: ast.ClassDef) -> bool:
    """Whether the class's ``backward`` is decorated ``@once_differentiable``."""
    backward = _method(cls, "backward")
    if backward is None:
        return False
    for deco in backward.decorator_list:
        qual = ctx.imports.qualified_name(deco)
        if qual in _ONCE_DIFFERENTIABLE or (isinstance(deco, ast.Name) and deco.id == "once_differentiable"):
            return True
    return False
