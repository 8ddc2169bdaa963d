"""Which names of a function may hold values computed with grad disabled.

Scope facts (gradguard.check.analysis.kinds) are flow-insensitive: ``out = model(x)`` is a model output
wherever it is bound. When that binding sits inside ``with torch.no_grad():`` (or
``inference_mode``, or a region that may disable grad) the value carries no graph, even
where it is used after the block. Rules that report graph-carrying values use this set to
stay quiet about such names and about names computed from them.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.grad_mode import ENABLE, classify_grad_mode
from gradguard.check.analysis.kinds import _scope_statements, _target_names


def _binding_values(scope: ast.AST):
    """(target name, value or None, binding node) for each binding in the scope."""
    for node in _scope_statements(scope):
        t = type(node)
        if t is ast.Assign:
            for target in node.targets:
                for name in _target_names(target):
                    yield name, node.value, node
        elif t is ast.AnnAssign and node.value is not None:
            for name in _target_names(node.target):
                yield name, node.value, node
        elif t is ast.AugAssign:
            for name in _target_names(node.target):
                yield name, node.value, node
        elif t is ast.NamedExpr:
            yield node.target.id, node.value, node
        elif t is ast.For or t is ast.AsyncFor:
            for name in _target_names(node.target):
                yield name, node.iter, node


def _under_grad_off(ctx, node: ast.AST, scope: ast.AST, imports) -> bool:
    """Whether a node lies in a ``with`` region of the scope that (maybe) disables grad."""
    child = node
    current = ctx.parent(node)
    while current is not None and current is not scope:
        if isinstance(current, (ast.With, ast.AsyncWith)) and child in current.body:
            for item in current.items:
                kind = classify_grad_mode(item.context_expr, imports)
                if kind is not None and kind != ENABLE:
                    return True
        child = current
        current = ctx.parent(current)
    return False


def names_without_grad(ctx, scope: ast.AST) -> frozenset:
    """Names of the scope bound (at least once) where grad may be off, and names computed from them."""
    key = ("names_without_grad", id(scope))
    cached = ctx.cache.get(key)
    if cached is not None:
        return cached
    bindings = list(_binding_values(scope))
    found: set[str] = set()
    if any(isinstance(n, (ast.With, ast.AsyncWith)) for n in _scope_statements(scope)):
        for name, _value, node in bindings:
            if _under_grad_off(ctx, node, scope, ctx.imports):
                found.add(name)
    if found:
        changed = True
        while changed:
            changed = False
            for name, value, _node in bindings:
                if name in found or value is None:
                    continue
                if any(isinstance(n, ast.Name) and n.id in found for n in ast.walk(value)):
                    found.add(name)
                    changed = True
    result = frozenset(found)
    ctx.cache[key] = result
    return result


def mentions(node: ast.AST, names) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _binds(node: ast.AST, name: str) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
        or (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name)
        for n in ast.walk(node)
    )


def reaching_plain_value(ctx, scope: ast.AST, name: str, node: ast.AST):
    """The value of ``name = value``, when that is the one binding of ``name`` that reaches ``node``
    for certain: the last statement of the scope's own body before the one holding ``node``
    that binds ``name``, with no binding of ``name`` in the statement holding ``node``.
    None when that is not known (the facts of gradguard.check.analysis.kinds then stand)."""
    body = getattr(scope, "body", None)
    if not isinstance(body, list):
        return None
    child, current = node, ctx.parent(node)
    while current is not None and current is not scope:
        child, current = current, ctx.parent(current)
    if current is None or child not in body:
        return None
    index = body.index(child)
    if _binds(child, name):
        return None
    for stmt in reversed(body[:index]):
        if not _binds(stmt, name):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.value
        return None
    return None
