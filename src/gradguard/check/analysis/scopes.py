"""Scopes and bindings of one module, as pyflakes and ruff's semantic model see them.

Every module, class, function and lambda body is a ``Scope``; a scope knows the names it
binds (assignments, parameters, imports, loop and ``with`` targets, nested definitions) and
which names it declares ``global``/``nonlocal``. Comprehensions bind their targets in a scope
of their own, which the evaluator handles where it meets them. Scopes are built on first
use, one at a time: most functions of a file are never asked about.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
ScopeNode = Union[ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
SCOPE_TYPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def target_names(target: ast.AST) -> Iterator[str]:
    """Names bound by an assignment target (``a``, ``a, (b, *c)``); attributes and subscripts bind none."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node of a scope's own code: not the bodies of nested functions, classes, lambdas
    or comprehensions (their headers' defaults and decorators are the scope's own)."""
    if isinstance(scope, ast.Lambda):
        stack: list = [scope.body]
    else:
        stack = list(reversed(scope.body))  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            if isinstance(node, FUNCTION_TYPES):
                stack.extend(node.decorator_list)
                stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            elif isinstance(node, ast.ClassDef):
                stack.extend(node.decorator_list + node.bases + [k.value for k in node.keywords])
            elif isinstance(node, ast.Lambda):
                stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, _COMPREHENSIONS):
            # Only the first iterable is evaluated in the enclosing scope.
            stack.append(node.generators[0].iter)
            continue
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)):
                stack.append(child)


def parameters(fn: Union[FunctionNode, ast.Lambda]) -> list:
    """The ``ast.arg`` nodes of a function in call order (positional-only, positional,
    ``*args``, keyword-only, ``**kwargs``)."""
    args = fn.args
    out = list(args.posonlyargs) + list(args.args)
    if args.vararg is not None:
        out.append(args.vararg)
    out.extend(args.kwonlyargs)
    if args.kwarg is not None:
        out.append(args.kwarg)
    return out


@dataclass
class Scope:
    node: ast.AST
    parent: Optional["Scope"]
    bound: set = field(default_factory=set)  # names this scope binds
    declared_global: set = field(default_factory=set)  # ``global`` / ``nonlocal`` names
    definitions: dict = field(default_factory=dict)  # name -> FunctionDef / ClassDef nodes bound here

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))

    @property
    def is_module(self) -> bool:
        return isinstance(self.node, ast.Module)

    def binds(self, name: str) -> bool:
        return name in self.bound and name not in self.declared_global


def build_scope(node: ast.AST, parent: Optional[Scope]) -> Scope:
    scope = Scope(node, parent)
    bound = scope.bound
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        bound.update(arg.arg for arg in parameters(node))
    if isinstance(node, ast.Lambda):
        return scope
    for sub in own_nodes(node):
        t = type(sub)
        if t is ast.Name:
            if not isinstance(sub.ctx, ast.Load):
                bound.add(sub.id)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound.add(sub.name)
            scope.definitions.setdefault(sub.name, []).append(sub)
        elif t is ast.Import or t is ast.ImportFrom:
            for alias in sub.names:
                if alias.name != "*":
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif t is ast.ExceptHandler and sub.name:
            bound.add(sub.name)
        elif t is ast.Global or t is ast.Nonlocal:
            scope.declared_global.update(sub.names)
        elif t is ast.NamedExpr and isinstance(sub.target, ast.Name):
            bound.add(sub.target.id)
        elif t in (ast.MatchAs, ast.MatchStar) and sub.name:
            bound.add(sub.name)
    return scope


class ScopeIndex:
    """Scopes of one module, built on demand."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self._scopes: dict = {}
        self.module = self.scope(tree, None)

    def scope(self, node: ast.AST, parent: Optional[Scope]) -> Scope:
        found = self._scopes.get(id(node))
        if found is None:
            found = self._scopes[id(node)] = build_scope(node, parent)
        return found

    def get(self, node: ast.AST) -> Optional[Scope]:
        return self._scopes.get(id(node))
