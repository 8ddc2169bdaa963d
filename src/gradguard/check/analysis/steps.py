"""Training steps as the code shows them: backward calls, optimizer steps, and the model calls a
loss's graph runs through (`loss = crit(D(G(z)))` runs through `D(...)` and `G(z)`).

Shared by GG207 (is the discriminator's loss built from the generator's output without a
detach?), GG208 (do two backward passes share a graph?) and GG303 (does a loop step without
zeroing?). Names are followed to the
bindings they read (``SemanticModel.definitions``); what detaches a value (`.detach()`,
`.data`, `.item()`, integer results) ends the path; a model call is any call of a value the
semantic model knows to be a module (`D(x)`, `self.netD(x)`, `D.forward(x)`).
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.scopes import COMPREHENSION_TYPES
from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import (
    BACKWARD_CALL_NAMES,
    BACKWARD_FUNCTIONS,
    GRAD_DROPPING,
    call_argument,
    constant_of,
    last_name,
)

_LIMIT = 2000  # nodes visited per question: enough for a training step, bounded for generated code


def module_receiver(ctx, call: ast.Call) -> Optional[ast.expr]:
    """The module a call runs (``D`` in ``D(x)`` and ``D.forward(x)``), or None when the
    semantic model does not know the callee to be a module."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    if ctx.imports.qualified_name(func) is not None:
        return None  # a class or function of a library, not an instance
    return func if ctx.model.value(func).kind is Kind.MODULE else None


def backward_roots(ctx, call: ast.Call) -> Optional[list]:
    """For a backward pass (``loss.backward(...)``, ``torch.autograd.backward(losses)``,
    ``torch.autograd.grad(outputs, inputs)``): the expressions it differentiates; else None."""
    func = call.func
    if not ctx.imports.may_name(func, BACKWARD_CALL_NAMES):
        return None
    qual = ctx.imports.qualified_name(func)
    if isinstance(func, ast.Attribute) and func.attr == "backward" and qual is None:
        return [func.value]
    if qual in BACKWARD_FUNCTIONS:
        first = call_argument(call, 0, "outputs" if last_name(qual) == "grad" else "tensors")
        return [first] if first is not None else []
    return None


def retains_graph(call: ast.Call) -> bool:
    """A backward pass that keeps its graph: ``retain_graph=True`` (or the removed
    ``retain_variables=True``), or ``create_graph=True`` without ``retain_graph``."""
    for keyword in ("retain_graph", "retain_variables"):
        given = call_argument(call, None, keyword)
        if given is not None:
            return constant_of(given, default=None) is True
    return constant_of(call_argument(call, None, "create_graph"), default=None) is True


def stepped_optimizer(ctx, call: ast.Call) -> Optional[ast.expr]:
    """For ``opt.step()`` or ``scaler.step(opt)``: the optimizer expression; else None."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "step":
        return None
    if ctx.model.value(func.value).kind is Kind.OPTIMIZER:
        return func.value
    if call.args and ctx.model.value(call.args[0]).kind is Kind.OPTIMIZER:
        return call.args[0]
    return None


def graph_sources(ctx, roots: list) -> list:
    """The model calls whose outputs reach ``roots`` (expressions) undetached, in source order."""
    found: dict = {}
    seen: set = set()
    stack = list(roots)
    visited = 0
    while stack and visited < _LIMIT:
        node = stack.pop()
        visited += 1
        if isinstance(node, ast.Attribute):
            if node.attr not in ("data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf"):
                stack.append(node.value)
        elif isinstance(node, ast.Call):
            _call(ctx, node, stack, found)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) or _aug_target(ctx, node):
                _follow(ctx, node, stack, seen)
        elif isinstance(node, COMPREHENSION_TYPES):
            stack.extend(g.iter for g in node.generators)
            stack.extend([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
        elif isinstance(node, (ast.Lambda, ast.Constant, ast.JoinedStr, ast.Compare)):
            continue  # a function, a constant, a string; comparisons give booleans
        else:
            stack.extend(ast.iter_child_nodes(node))
    return sorted(found.values(), key=lambda c: (c.lineno, c.col_offset))


def _call(ctx, node: ast.Call, stack: list, found: dict) -> None:
    func = node.func
    arguments = [*node.args, *(k.value for k in node.keywords)]
    if isinstance(func, ast.Attribute) and func.attr in GRAD_DROPPING:
        return  # `.detach()`, `.item()`, `.argmax()`: no graph beyond this point
    qual = ctx.imports.qualified_name(func)
    if qual is not None:
        if qual.startswith("torch.") and last_name(qual) in GRAD_DROPPING:
            return
        stack.extend(arguments)
        return
    if module_receiver(ctx, node) is not None:
        found[id(node)] = node
        stack.extend(arguments)
        return
    if isinstance(func, ast.Attribute):
        stack.append(func.value)
    stack.extend(arguments)


def _aug_target(ctx, node: ast.Name) -> bool:
    """``loss`` in ``loss += x``: its earlier value is part of the new one."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node


def _follow(ctx, name: ast.Name, stack: list, seen: set) -> None:
    for binding in ctx.model.definitions(name):
        key = id(binding.node)
        if key in seen:
            continue
        seen.add(key)
        node = binding.node
        if isinstance(node, (ast.For, ast.AsyncFor, ast.withitem)) or binding.value is None:
            continue  # loop variables come from the data; `with` targets from context managers
        stack.append(binding.value)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            stack.append(node.target)
