"""Calls whose result is only read: bound to names that are then used only as values.

``prediction = net(x)`` followed only by ``prediction.data.numpy()``, ``print(prediction)``,
``prediction.argmax(1) == y`` or ``prediction.item()`` records a graph that nothing
backpropagates. This module finds such calls in one scope from the syntax alone (no values):

- the call is the whole value of an assignment to names (``out = f(x)``,
  ``out, hidden = rnn(x, hidden)``), and its values are read (not only its shape: printing
  ``y.shape`` checks a model, it evaluates nothing);
- every later use of those names (and, in a loop, every use in that loop) is a read: an
  attribute or method that drops the graph (``.data``, ``.shape``, ``.item()``,
  ``.detach()``, ``.argmax()``), a comparison, ``print``/``len``/``float``/``str``, a
  formatted string, or an argument of another such call (the output fed back into the next
  step of a generation loop, ``rnn(inp, hidden)``), through indexing (``out[0].data``);
- none of the names is used in a nested function, lambda or comprehension (not followed);
- no backward pass comes after the call in its loop (or, outside loops, in the scope):
  a forward hook may hand the graph to a loss the syntax does not show.

Anything else (returned, stored, appended, passed to a function, computed with) makes the
call's result one that may be backpropagated: the answer errs towards "not only read".
"""

from __future__ import annotations

import ast
from typing import Optional

from gradguard.check.analysis.scopes import own_nodes
from gradguard.check.analysis.vocabulary import GRAD_DROPPING, PYTHON_VALUE_METHODS, READ_ATTRIBUTES

# Methods whose result never carries a graph (on a tensor): reading through them is a read.
_READING_METHODS = (GRAD_DROPPING | PYTHON_VALUE_METHODS | {"argmax", "argmin", "detach"}) - {"data", "shape"}
_READING_ATTRIBUTES = READ_ATTRIBUTES | {"data"}
# Builtins that turn a value into text or a number, or only look at it.
_READING_BUILTINS = frozenset({"print", "len", "float", "int", "bool", "str", "repr", "format", "type", "isinstance"})
# Reads of a tensor's metadata alone: a call whose output is only measured (``print(y.shape)``
# after ``y = net(torch.randn(1, 3, 32, 32))``) checks shapes; it evaluates nothing.
_METADATA_ATTRIBUTES = READ_ATTRIBUTES - {"requires_grad", "grad_fn", "is_leaf"}
_METADATA_METHODS = frozenset({"size", "dim", "numel", "nelement", "element_size", "stride", "is_contiguous"})
_METADATA_BUILTINS = frozenset({"len", "type", "isinstance"})
_VALUE, _METADATA = 1, 2  # kinds of read (a fed call is named by its id, never 1 or 2)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def read_only_calls(scope: ast.AST, parent, qualified_name) -> frozenset:
    """ids of the calls of ``scope``'s own code (a module, function or class body) whose
    result is only read. ``parent(node)`` gives a node's parent; ``qualified_name(expr)``
    the imported name an expression spells (``torch.argmax``), or None."""
    own = list(own_nodes(scope))
    owned = {id(n) for n in own}
    bound: dict = {}  # id(call) -> (assignment, names)
    for node in own:
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.value) is ast.Call:
            names = _target_names(node.targets[0])
            if names:
                bound[id(node.value)] = (node, names)
    if not bound:
        return frozenset()
    wanted = {name for _, names in bound.values() for name in names}
    uses: dict = {name: [] for name in wanted}  # name -> Name nodes read (and augmented targets)
    backward_lines: list = []
    for node in own:
        t = type(node)
        if t is ast.Name and node.id in wanted and not isinstance(node.ctx, ast.Store):
            uses[node.id].append(node)
        elif t is ast.AugAssign and type(node.target) is ast.Name and node.target.id in wanted:
            uses[node.target.id].append(node.target)
        elif t is ast.Call and _is_backward(node, qualified_name):
            backward_lines.append(node.lineno)
    # Names also used in nested code (functions, lambdas, comprehensions): not followed.
    nested = {
        n.id
        for n in ast.walk(scope)
        if type(n) is ast.Name and n.id in wanted and id(n) not in owned and n is not scope
    }
    edges: dict = {}  # id(call) -> ids of the bound calls its result feeds
    alive: set = set()
    valued: set = set()  # calls whose values (not only their shape) are read directly
    for key, (assignment, names) in bound.items():
        if nested & set(names):
            continue
        loop = _enclosing_loop(assignment, parent, scope)
        end = (loop.end_lineno or loop.lineno) if loop is not None else None
        if any(line > assignment.lineno and (end is None or line <= end) for line in backward_lines):
            continue
        # The uses that may see the result: after the assignment, and in a loop, anywhere in
        # it (the next round reads this round's result).
        if loop is not None:
            first = (loop.lineno, loop.col_offset)
        else:
            first = (assignment.end_lineno or assignment.lineno, assignment.end_col_offset or 0)
        feeds: set = set()
        ok = True
        values_read = False
        for name in names:
            for use in uses[name]:
                if (use.lineno, use.col_offset) < first:
                    continue
                fed = _read_use(use, parent, qualified_name, bound)
                if fed is None:
                    ok = False
                    break
                if fed == _VALUE:
                    values_read = True
                elif fed != _METADATA:
                    feeds.add(fed)
            if not ok:
                break
        if ok:
            alive.add(key)
            edges[key] = feeds
            if values_read:
                valued.add(key)
    changed = True
    while changed:  # a result fed into a call whose result is not only read is not only read
        changed = False
        for key in list(alive):
            if any(fed not in alive for fed in edges[key]):
                alive.discard(key)
                changed = True
    # Kept: the calls whose values are read, directly or through the calls they feed.
    kept = set(valued & alive)
    changed = True
    while changed:
        changed = False
        for key in alive - kept:
            if edges[key] & kept:
                kept.add(key)
                changed = True
    return frozenset(kept)


def _target_names(target: ast.AST) -> Optional[tuple]:
    if type(target) is ast.Name:
        return (target.id,)
    if type(target) in (ast.Tuple, ast.List) and all(type(e) is ast.Name for e in target.elts):  # type: ignore[attr-defined]
        return tuple(e.id for e in target.elts)  # type: ignore[attr-defined]
    return None


def _is_backward(call: ast.Call, qualified_name) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "backward":
        return True
    return qualified_name(func) in ("torch.autograd.grad", "torch.autograd.backward")


def _enclosing_loop(node: ast.AST, parent, scope: ast.AST) -> Optional[ast.AST]:
    current = parent(node)
    while current is not None and current is not scope:
        if isinstance(current, _LOOPS):
            return current
        current = parent(current)
    return None


def _read_use(use: ast.Name, parent, qualified_name, bound: dict):
    """How a use reads the value: ``_VALUE`` (its values), ``_METADATA`` (its shape alone),
    the id of the bound call it is an argument of (a read if that call's result is only read),
    or None (not a read)."""
    current: ast.AST = use
    up = parent(current)
    while type(up) is ast.Subscript and up.value is current:  # type: ignore[attr-defined]
        current, up = up, parent(up)
    t = type(up)
    if t is ast.Attribute:
        attr = up.attr  # type: ignore[attr-defined]
        if attr in _READING_ATTRIBUTES:
            return _METADATA if attr in _METADATA_ATTRIBUTES else _VALUE
        call = parent(up)
        if attr in _READING_METHODS and type(call) is ast.Call and call.func is up:  # type: ignore[attr-defined]
            return _METADATA if attr in _METADATA_METHODS else _VALUE
        return None
    if t is ast.Compare or t is ast.FormattedValue:
        return _VALUE
    if t is ast.keyword:
        current, up = up, parent(up)
        t = type(up)
    if t is ast.Call and up.func is not current:  # type: ignore[attr-defined]
        func = up.func  # type: ignore[attr-defined]
        if type(func) is ast.Name and func.id in _READING_BUILTINS:
            return _METADATA if func.id in _METADATA_BUILTINS else _VALUE
        qual = qualified_name(func)
        if qual is not None and qual.startswith("torch.") and qual.rsplit(".", 1)[1] in _READING_METHODS:
            return _VALUE  # torch.argmax(out, 1)
        if id(up) in bound:
            return id(up)
        return None
    return None
