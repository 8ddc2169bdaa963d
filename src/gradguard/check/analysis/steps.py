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
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from gradguard.check.analysis.imports import callee_name, held_name
from gradguard.check.analysis.project import current as current_project
from gradguard.check.analysis.scopes import COMPREHENSION_TYPES, own_nodes, walk_in_order
from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import (
    BACKWARD_CALL_NAMES,
    BACKWARD_FUNCTIONS,
    GRAD_DROPPING,
    GRAPH_FREE_FACTORIES,
    WEIGHT_ONLY_MODULES,
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
    if isinstance(func, ast.Subscript):
        if held_name(func) is None:
            return None  # `layers[i](x)`: which entry runs is not shown
    elif not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    if ctx.imports.qualified_name(func) is not None:
        return None  # a class or function of a library, not an instance
    return func if ctx.model.value(func).kind is Kind.MODULE else None


def module_name(ctx, module: ast.expr) -> str:
    """How a module is named for comparing calls, steps and freezes: its text, with a
    string-keyed entry of a dict written one way (``models['D']`` as ``models["D"]``)."""
    return held_name(module) or ctx.text(module)


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
                stored = _stored_on_self(ctx, node, seen)
                stack.append(stored if stored is not None else node.value)
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
    return sorted((c for c in found.values() if c is not None), key=lambda c: (c.lineno, c.col_offset))


def _call(ctx, node: ast.Call, stack: list, found: dict) -> None:
    func = node.func
    arguments = [*node.args, *(k.value for k in node.keywords)]
    if isinstance(func, ast.Attribute) and func.attr in GRAD_DROPPING:
        return  # `.detach()`, `.item()`, `.argmax()`: no graph beyond this point
    qual = ctx.imports.qualified_name(func)
    if qual is not None:
        if qual.startswith("torch.") and last_name(qual) in GRAD_DROPPING:
            return
        if qual.startswith("torch.") and last_name(qual) in GRAPH_FREE_FACTORIES:
            return  # `torch.zeros_like(preds)`: a new tensor of its shape, without its graph
        stack.extend(arguments)
        return
    if module_receiver(ctx, node) is not None:
        found[id(node)] = node
        stack.extend(arguments)
        return
    returned = _returned_by_own_function(ctx, node)
    if returned is not None and id(returned) not in found:
        # `D_loss = self.train_D(images)`: the loss a method of the file builds, followed into it
        found[id(returned)] = None
        stack.append(returned)
    if isinstance(func, ast.Attribute):
        stack.append(func.value)
    stack.extend(arguments)


def _stored_on_self(ctx, node: ast.Attribute, seen: set) -> Optional[ast.expr]:
    """For ``self.<attr>`` read in a method (``self.loss_D.backward()``): the value the last
    ``self.<attr> = ...`` of that method before it stores (``self.loss_D = loss_D_A + loss_D_B``),
    once per question; else None."""
    if not (isinstance(node.value, ast.Name) and node.value.id == "self" and isinstance(node.ctx, ast.Load)):
        return None
    method = next(
        (s for s in ctx.model.enclosing(node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))), None
    )
    if method is None:
        return None
    at = (node.lineno, node.col_offset)
    last = None
    for sub in ctx.model.own_nodes(method):
        if (
            type(sub) is ast.Assign
            and len(sub.targets) == 1
            and isinstance(sub.targets[0], ast.Attribute)
            and sub.targets[0].attr == node.attr
            and isinstance(sub.targets[0].value, ast.Name)
            and sub.targets[0].value.id == "self"
            and (sub.lineno, sub.col_offset) < at
            and (last is None or (sub.lineno, sub.col_offset) > (last.lineno, last.col_offset))
        ):
            last = sub
    if last is None or id(last) in seen:
        return None
    seen.add(id(last))
    return last.value


def _returned_by_own_function(ctx, call: ast.Call, tuples: bool = False) -> Optional[ast.expr]:
    """The one value a function or method of the file returns where ``call`` runs it (``f(x)``
    of a module-level ``def f``, ``self.train_D(x)`` of a method of the caller's class), one
    ``return`` of one value (or, with ``tuples``, of a tuple), undecorated; else None."""
    func = call.func
    definition: Optional[ast.AST] = None
    if isinstance(func, ast.Name):
        definitions = ctx.model.scopes.module.definitions.get(func.id, ())
        definition = definitions[0] if len(definitions) == 1 else None
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = next((s for s in ctx.model.enclosing(call) if isinstance(s, ast.ClassDef)), None)
        methods = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == func.attr] if cls else []
        definition = methods[0] if len(methods) == 1 else None
    if not isinstance(definition, ast.FunctionDef) or definition.decorator_list:
        return None
    returns = [n for n in own_nodes(definition) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None or (isinstance(returns[0].value, ast.Tuple) and not tuples):
        return None
    return returns[0].value


def _unpacked_return(ctx, node: ast.AST, name: str) -> Optional[ast.expr]:
    """In ``d_loss, g_loss = gan_losses(G, D, x)`` of a function of the file returning ``d_loss,
    g_loss``: the returned item the name takes (what each loss is computed from)."""
    if not (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Tuple)
        and isinstance(node.value, ast.Call)
    ):
        return None
    targets = node.targets[0].elts
    position = next((i for i, t in enumerate(targets) if isinstance(t, ast.Name) and t.id == name), None)
    returned = _returned_by_own_function(ctx, node.value, tuples=True) if position is not None else None
    if not isinstance(returned, ast.Tuple) or len(returned.elts) != len(targets):
        return None
    return returned.elts[position]  # type: ignore[index]


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
        item = _unpacked_return(ctx, node, name.id)
        if item is not None:
            stack.append(item)
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.withitem)) or binding.value is None:
            continue  # loop variables come from the data; `with` targets from context managers
        stack.append(binding.value)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            stack.append(node.target)


def frozen_global(ctx, function: ast.AST, name: str, code_text: Optional[Callable[[], str]] = None) -> bool:
    """Whether ``name`` is a global the function reads (never binds, not a parameter) whose
    module-level code froze every parameter before the function's definition and thaws none
    later (``for param in VGG16.parameters(): param.requires_grad = False``, then ``def
    VGG16_predict(path)``), and gives it no new layer anywhere (``given_a_layer``; where
    ``code_text`` gives the file's text without its multi-line strings, a layer given only in
    the raw text is no layer): the function runs it frozen wherever it is called from."""
    if function is ctx.tree or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    spec = function.args
    if name in {a.arg for a in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs, spec.vararg, spec.kwarg) if a}:
        return False  # a parameter: what its callers hand it
    if ctx.model.body_binds(function, name) or not ctx.model.scopes.module.binds(name):
        return False
    if given_a_layer(ctx.source.text, name) and (code_text is None or given_a_layer(code_text(), name)):
        return False  # `model.fc = nn.Linear(...)`: a new layer trains
    definition = ctx.model.enclosing(function)[-1]  # the module-level statement holding it
    last = ctx.tree.body[-1]
    end = ast.Pass(lineno=last.end_lineno + 1, col_offset=0)
    return name in frozen_models(ctx, ctx.tree, definition) and name in frozen_models(ctx, ctx.tree, end)


def given_a_layer(text: str, name: str) -> bool:
    """Whether the code assigns an attribute of ``name``, or an item of one, something other than
    a constant (``model.fc = nn.Linear(...)``, ``vggnet.classifier[6] = nn.Linear(...)``: a new
    layer, which trains; not ``model.aux_logits = False``),
    outside comments and strings, or makes the model's inputs require grad
    (``model.enable_input_require_grads()``, Hugging Face's: a frozen model records graphs then)."""
    if next(code_occurrences(text, f"{name}.enable_input_require_grads("), None) is not None:
        return True
    return bool(given_layer_offsets(text, name))


def given_layer_offsets(text: str, name: str) -> list:
    """Where ``text`` gives ``name`` a new layer (``model.fc = nn.Linear(...)``; see
    ``given_a_layer``): the offsets of those assignments, in order."""
    constant = r"""[ \t]*(?:True|False|None|-?[\d.]+|"[^"\n]*"|'[^'\n]*')[ \t]*(?:#|$)"""
    assignments = re.finditer(rf"\b{re.escape(name)}(?:\.\w+)+(?:\[[^\]\n]*\])*[ \t]*=(?!=)(?!{constant})", text, re.M)
    return [match.start() for match in assignments if in_code(text, match.start())]


def code_occurrences(text: str, needle: str) -> Iterator[int]:
    """Offsets of ``needle`` in ``text`` that start a name (not ``xnet.parameters(``) and that
    no ``#`` or open quote before it on its line puts in a comment or a string."""
    i = text.find(needle)
    while i >= 0:
        if (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")) and in_code(text, i):
            yield i
        i = text.find(needle, i + len(needle))


def in_code(text: str, at: int) -> bool:
    """Whether no ``#`` or open quote before offset ``at`` on its line puts it in a comment or a string."""
    before = text[text.rfind("\n", 0, at) + 1 : at]
    return "#" not in before and before.count('"') % 2 == 0 and before.count("'") % 2 == 0


def frozen_models(ctx, scope: ast.AST, node: ast.AST) -> frozenset:
    """The modules (by text) whose parameters the code of ``scope`` last froze before ``node``,
    in source order: ``G.requires_grad_(False)``, ``for p in G.parameters(): p.requires_grad =
    False``, ``G = load(fp).requires_grad_(False)``, or a helper of the file, or of another file of
    the run, doing that loop for its argument (``requires_grad(G, False)``,
    ``self.set_requires_grad([D_A, D_B], False)``, ``freeze.frozon(G)``), or bound from a
    function of the file that returns it frozen (``fe, head = split(model)``). A call of a
    frozen module on inputs without grad records no graph."""
    return frozenset(module for module, (_, frozen) in _latest_freezes(ctx, scope, node).items() if frozen)


def frozen_since(ctx, scope: ast.AST, node: ast.AST, module: str) -> Optional[tuple]:
    """(line, column) of the statement of ``scope`` that last froze ``module`` before ``node``
    (see ``frozen_models``); None where none did, or a later one thawed it."""
    latest = _latest_freezes(ctx, scope, node).get(module)
    return latest[0] if latest is not None and latest[1] else None


def _latest_freezes(ctx, scope: ast.AST, node: ast.AST) -> dict:
    """module -> (position, frozen) of the last freeze or thaw of it in ``scope`` before ``node``."""
    at = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    latest: dict = {}
    known = ctx.state(_FreezeEffects).by_scope
    effects = known.get(id(scope))
    if effects is None:
        effects = known[id(scope)] = _freeze_effects(ctx, scope)
    for position, module, frozen, statement in effects:
        if position < at and (module not in latest or latest[module][0] < position):
            if not _exclusive_branches(ctx, statement, node):
                latest[module] = (position, frozen)
    return latest


def _exclusive_branches(ctx, first: ast.AST, second: ast.AST) -> bool:
    """Whether two nodes sit in the two branches of one ``if`` that no loop around it repeats:
    what the first does never happens before the second (``if single: freeze(model)`` /
    ``else: model = Ensemble(); ...; model(x)``)."""
    around = [statement for statement in ctx.model.enclosing(first) if statement is not first]
    if any(isinstance(s, (ast.For, ast.AsyncFor, ast.While)) and in_block([s], second) for s in around):
        return False  # a loop around both: a later round may run the other branch after this one
    for statement in around:
        if isinstance(statement, ast.If) and statement.orelse:
            first_in_body = in_block(statement.body, first)
            if in_block(statement.orelse if first_in_body else statement.body, second):
                return True
    return False


def in_block(block: list, node: ast.AST) -> bool:
    """Whether ``node`` lies within the statements ``block`` (an ``if``'s body or ``orelse``), by position."""
    if not block:
        return False
    at = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return (block[0].lineno, block[0].col_offset) <= at <= (block[-1].end_lineno, block[-1].end_col_offset)  # type: ignore[operator]


@dataclass
class _FreezeEffects:
    """Each scope's freeze and thaw statements (``_freeze_effects``), kept per file, and the
    names of the file's functions whose text may set ``requires_grad``."""

    by_scope: dict = field(default_factory=dict)
    helper_names: Optional[frozenset] = None
    imported_helpers: Optional[dict] = None  # spelling -> (module, function) of the run's freezing functions
    may_freeze: Optional[bool] = None  # `may_freeze`


_DEF_RE = re.compile(r"\bdef\s+(\w+)")


def _may_freeze(ctx, call: ast.Call) -> bool:
    """Whether a call may be of a helper of the file that sets ``requires_grad`` (a cheap
    test before ``_helper_freezes``): its name is that of a function whose text, up to the next
    definition, mentions ``requires_grad``; or it calls one of the run's (``_imported_helpers``)."""
    name = callee_name(call)
    if not name:
        return False
    if ctx.text(call.func) in _imported_helpers(ctx):
        return True
    state = ctx.state(_FreezeEffects)
    if state.helper_names is None:
        text = ctx.source.text
        definitions = [(m.start(), m.group(1)) for m in _DEF_RE.finditer(text)]
        names = set()
        for i, (start, def_name) in enumerate(definitions):
            end = definitions[i + 1][0] if i + 1 < len(definitions) else len(text)
            if "requires_grad" in text[start:end]:
                names.add(def_name)
                if i:
                    names.add(definitions[i - 1][1])  # a helper whose loop follows a nested def
        state.helper_names = frozenset(names)
    return name in state.helper_names


def _freeze_effects(ctx, scope: ast.AST) -> list:
    """(position, module text, frozen, node) for each statement of ``scope`` that freezes or
    thaws every parameter of a module."""
    effects = []
    for node in own_nodes(scope):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            module = _parameters_of(node.iter)
            flag = _loop_sets_requires_grad(node)
            if module is not None and isinstance(flag, bool):
                effects.append(((node.lineno, node.col_offset), ctx.text(module), not flag, node))
            for listed, flag in _listed_modules_frozen(ctx, node):
                effects.append(((node.lineno, node.col_offset), ctx.text(listed), not flag, node))
        elif isinstance(node, ast.Assign):
            flag = _weight_flag_of_single_weight_layer(ctx, node)
            if flag is not None:
                # `embed.weight.requires_grad = False` of an `nn.Embedding`: its only parameter
                layer = node.targets[0].value.value  # type: ignore[attr-defined]
                effects.append(((node.lineno, node.col_offset), ctx.text(layer), not flag, node))
                continue
            flag = _chained_freeze(node.value)
            if flag is not None:
                # `G = load(fp)["G_ema"].requires_grad_(False).to(device)`: bound frozen
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        effects.append(((node.lineno, node.col_offset), target.id, flag, node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "requires_grad_":
                flag = constant_of(node.args[0]) if node.args else True
                if isinstance(flag, bool):
                    effects.append(((node.lineno, node.col_offset), ctx.text(node.func.value), not flag, node))
                continue
        if isinstance(node, ast.Call) and _may_freeze(ctx, node):
            for module, flag in _helper_freezes(ctx, node):
                effects.append(((node.lineno, node.col_offset), ctx.text(module), not flag, node))
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
        ):
            frozen = _returned_frozen(ctx, node.value.func.id)
            target = node.targets[0]
            names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
            if frozen is not None and len(frozen) == len(names):
                for name, is_frozen in zip(names, frozen):
                    if is_frozen and isinstance(name, ast.Name):
                        effects.append(((node.lineno, node.col_offset), name.id, True, node))
    return effects


def _listed_modules_frozen(ctx, loop: ast.For | ast.AsyncFor) -> list:
    """(module, flag) for each module of a list the loop walks, whose body sets ``requires_grad``
    of every parameter of each: ``models = [graphSage, classification]``, then ``for model in
    models: for param in model.parameters(): param.requires_grad = False``."""
    if not isinstance(loop.target, ast.Name):
        return []
    items = loop.iter
    if isinstance(items, ast.Name):
        bound = ctx.model.definitions(items)
        items = bound[0].value if len(bound) == 1 else None
    if not isinstance(items, (ast.List, ast.Tuple)) or not items.elts:
        return []
    for statement in loop.body:
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            module = _parameters_of(statement.iter)
            flag = _loop_sets_requires_grad(statement)
            if isinstance(module, ast.Name) and module.id == loop.target.id and isinstance(flag, bool):
                return [(item, flag) for item in items.elts]
    return []


def _returned_frozen(ctx, name: str) -> Optional[tuple]:
    """For a module-level function of the file, whether each value it returns is a module whose
    parameters it froze (``fe.eval(); for p in fe.parameters(): p.requires_grad = False``, then
    ``return fe, head_constructor``: ``(True, False)``); None where it returns nothing or its
    returns differ in shape."""
    definitions = ctx.model.scopes.module.definitions.get(name) or ()
    if len(definitions) != 1 or not isinstance(definitions[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    function = definitions[0]
    if "requires_grad" not in ctx.text(function):
        return None
    known = ctx.state(_FreezeEffects).by_scope
    if id(function) not in known:
        known[id(function)] = []  # a function binding its own result (recursion) sees no effect
        known[id(function)] = _freeze_effects(ctx, function)
    shapes = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Return) and node.value is not None:
            frozen = frozen_models(ctx, function, node)
            parts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            shapes.add(tuple(isinstance(part, ast.Name) and part.id in frozen for part in parts))
    return shapes.pop() if len(shapes) == 1 else None


def _weight_flag_of_single_weight_layer(ctx, node: ast.Assign) -> Optional[bool]:
    """The constant flag of ``layer.weight.requires_grad = <bool>`` where ``layer`` is a torch
    layer whose one parameter is ``weight`` (``nn.Embedding``); None otherwise."""
    if len(node.targets) != 1:
        return None
    target = node.targets[0]
    if not (
        isinstance(target, ast.Attribute)
        and target.attr == "requires_grad"
        and isinstance(target.value, ast.Attribute)
        and target.value.attr == "weight"
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, bool)
    ):
        return None
    layer = ctx.model.value(target.value.value)
    ref = layer.ref or ""
    if layer.kind is not Kind.MODULE or not ref.startswith("torch.nn.") or last_name(ref) not in WEIGHT_ONLY_MODULES:
        return None
    return node.value.value


def _chained_freeze(value: ast.expr) -> Optional[bool]:
    """True when a chain of method calls holds ``.requires_grad_(False)`` (``load(fp).requires_grad_(
    False).to(device)``), False when it ends by ``.requires_grad_(True)``; None otherwise."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr == "requires_grad_":
            flag = constant_of(value.args[0]) if value.args else True
            return (not flag) if isinstance(flag, bool) else None
        value = value.func.value
    return None


def _parameters_of(iterable: ast.expr) -> Optional[ast.expr]:
    """``G`` in ``G.parameters()``."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "parameters"
        and not iterable.args
    ):
        return iterable.func.value
    return None


def requires_grad_value(statement: ast.stmt, name: str) -> Optional[ast.expr]:
    """What a statement sets ``requires_grad`` of ``name`` to: V of ``name.requires_grad = V`` or
    of ``name.requires_grad_(V)`` (``True`` where the call gives none); None for another statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Name)
            and target.value.id == name
        ):
            return statement.value
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "requires_grad_"
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == name
        ):
            return call_argument(call, 0, "requires_grad") or ast.Constant(True)
    return None


def _loop_sets_requires_grad(loop: ast.For | ast.AsyncFor):
    """What ``for p in ...: p.requires_grad = V`` (or ``p.requires_grad_(V)``) sets: V's node
    value (a bool, or the Name it reads); None if the loop does not set it."""
    if not isinstance(loop.target, ast.Name):
        return None
    variable = loop.target.id
    statements = list(loop.body)
    for statement in loop.body:
        if (
            isinstance(statement, ast.If)
            and not statement.orelse
            and isinstance(statement.test, ast.Attribute)
            and statement.test.attr == "requires_grad"
            and isinstance(statement.test.value, ast.Name)
            and statement.test.value.id == variable
        ):
            # `if p.requires_grad: p.requires_grad = False`: the others are frozen already
            statements.extend(statement.body)
    for statement in statements:
        value = requires_grad_value(statement, variable)
        if value is None:
            continue
        constant = constant_of(value)
        if isinstance(constant, bool):
            return constant
        return value.id if isinstance(value, ast.Name) else None
    return None


def _helper_freezes(ctx, call: ast.Call) -> list:
    """(module argument, flag) for a call of the file's function (or of the enclosing class's
    method, through ``self``) whose body sets ``requires_grad`` of every parameter of an argument
    to another argument: ``def requires_grad(model, flag=True): for p in model.parameters():
    p.requires_grad = flag``; a list of modules (``for net in nets: for p in net.parameters()``)
    gives each."""
    definition = _local_function(ctx, call)
    if definition is None:
        return []
    names = [a.arg for a in [*definition.args.posonlyargs, *definition.args.args]]
    if isinstance(call.func, ast.Attribute) and names[:1] == ["self"]:
        names = names[1:]
    for loop in walk_in_order(definition):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        owner = _parameters_of(loop.iter)
        flag = _loop_sets_requires_grad(loop)
        if not isinstance(owner, ast.Name) or flag is None:
            continue
        module_parameter = owner.id
        for outer in walk_in_order(definition):  # `for net in nets:` around it
            if (
                isinstance(outer, ast.For)
                and isinstance(outer.target, ast.Name)
                and outer.target.id == owner.id
                and isinstance(outer.iter, ast.Name)
            ):
                module_parameter = outer.iter.id
        module = _argument(call, definition, names, module_parameter)
        value = flag if isinstance(flag, bool) else constant_of(_argument(call, definition, names, flag))
        if module is None or not isinstance(value, bool):
            return []
        modules = module.elts if isinstance(module, (ast.List, ast.Tuple)) else [module]
        return [(m, value) for m in modules if isinstance(m, (ast.Name, ast.Attribute))]
    return []


def may_freeze(ctx) -> bool:
    """Whether the file's text may freeze a module (a cheap test before ``frozen_models``): it
    mentions ``requires_grad``, or calls a function of the run that sets it (``freeze.frozon(net)``).
    Made once per file."""
    state = ctx.state(_FreezeEffects)
    if state.may_freeze is None:
        text = ctx.source.text
        state.may_freeze = "requires_grad" in text or any(f"{spelled}(" in text for spelled in _imported_helpers(ctx))
    return state.may_freeze


def _imported_helpers(ctx) -> dict:
    """How the file spells the run's functions that may freeze a module (``freeze.frozon`` of
    ``from Tool import freeze``): ``ProjectIndex.freezing_functions``."""
    state = ctx.state(_FreezeEffects)
    if state.imported_helpers is None:
        project = current_project()
        state.imported_helpers = (
            project.spelled_functions(ctx.filename, ctx.imports.names, project.freezing_functions)
            if project is not None
            else {}
        )
    return state.imported_helpers


def _project_function(ctx, call: ast.Call) -> Optional[ast.FunctionDef]:
    """The definition of the run's freezing function a call names, parsed from its text (once per run)."""
    spelled = _imported_helpers(ctx).get(ctx.text(call.func))
    project = current_project()
    if spelled is None or project is None:
        return None
    parsed = project.__dict__.setdefault("_parsed_freezing_functions", {})
    if spelled not in parsed:
        module, name = spelled
        try:
            tree = ast.parse(project.freezing_functions[module][name])
        except (SyntaxError, ValueError):
            tree = None
        found = tree.body[0] if tree is not None and tree.body else None
        parsed[spelled] = found if isinstance(found, ast.FunctionDef) and found.name == name else None
    return parsed[spelled]


def _local_function(ctx, call: ast.Call) -> Optional[ast.FunctionDef]:
    func = call.func
    if ctx.text(func) in _imported_helpers(ctx):
        return _project_function(ctx, call)
    if isinstance(func, ast.Name):
        definitions = ctx.model.scopes.module.definitions.get(func.id) or ()
        found = [d for d in definitions if isinstance(d, ast.FunctionDef)]
        return found[0] if len(found) == 1 else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        for ancestor in ctx.ancestors(call):
            if isinstance(ancestor, ast.ClassDef):
                found = [s for s in ancestor.body if isinstance(s, ast.FunctionDef) and s.name == func.attr]
                return found[0] if len(found) == 1 else None
    return None


def _argument(call: ast.Call, definition: ast.FunctionDef, names: list, parameter: str) -> Optional[ast.expr]:
    """The expression ``call`` binds to ``parameter`` of ``definition``: by keyword, by
    position, else the parameter's default."""
    if parameter not in names:
        return call_argument(call, None, parameter)
    index = names.index(parameter)
    given = call_argument(call, index, parameter)
    if given is not None:
        return given
    defaults = definition.args.defaults
    offset = len(names) - len(defaults)
    return defaults[index - offset] if index >= offset else None
