"""Flow-sensitive facts: what each name holds, and the grad mode, before every statement.

``ScopeFlow`` interprets one scope's body abstractly, statement by statement, the way
pyright's code flow does on its control-flow graph: branches are analysed separately and
joined, loops are run to a fixpoint, ``with`` regions set the grad mode of their body,
``return``/``raise``/``break``/``continue`` end a path, and ``try`` handlers start from what
any point of the body may have left. The state before each statement is kept, so a query at
any node is answered with the facts that hold there.
"""

from __future__ import annotations

import ast
import bisect
import enum
from typing import TYPE_CHECKING, Optional

from gradguard.check.analysis.grad_mode import RegionKind, classify_grad_mode
from gradguard.check.analysis.scopes import target_names, walk_in_order
from gradguard.check.analysis.values import UNKNOWN, Grad, Kind, Role, Value, container, join, placeholders
from gradguard.check.analysis.vocabulary import LIST_ADDING_METHODS, SET_ENABLED_NAMES, call_argument

if TYPE_CHECKING:
    from gradguard.check.analysis.model import Frame, SemanticModel


class GradMode(enum.Enum):
    """The grad mode in force at a point of the code."""

    ENABLED = "enabled"
    DISABLED = "disabled"  # no_grad, set_grad_enabled(False)
    INFERENCE = "inference"  # inference_mode
    MAYBE = "maybe"  # depends on a value or a path the code does not show

    @property
    def off(self) -> bool:
        """Grad is certainly disabled."""
        return self is GradMode.DISABLED or self is GradMode.INFERENCE


def join_modes(a: GradMode, b: GradMode) -> GradMode:
    if a is b:
        return a
    if a.off and b.off:
        return GradMode.DISABLED
    return GradMode.MAYBE


_REGION_MODES = {
    RegionKind.NO_GRAD: GradMode.DISABLED,
    RegionKind.INFERENCE: GradMode.INFERENCE,
    RegionKind.ENABLE: GradMode.ENABLED,
    RegionKind.MAYBE: GradMode.MAYBE,
}


def region_mode(kind: Optional[RegionKind]) -> Optional[GradMode]:
    return None if kind is None else _REGION_MODES.get(kind)


class State:
    """Names' values and the grad mode at one point; never changed once recorded.

    ``switched`` holds the modules of the instance this scope switched to eval or train mode
    (``self.model.eval()``: attribute name -> the module with its new mode), until the scope
    assigns that attribute or calls a method that may switch it back; None when there are none.
    """

    __slots__ = ("env", "mode", "switched")

    def __init__(self, env: dict, mode: GradMode, switched: Optional[dict] = None):
        self.env = env
        self.mode = mode
        self.switched = switched

    def bind(self, names: dict) -> "State":
        env = dict(self.env)
        env.update(names)
        return State(env, self.mode, self.switched)

    def with_mode(self, mode: GradMode) -> "State":
        return self if mode is self.mode else State(self.env, mode, self.switched)

    def with_switched(self, switched: Optional[dict]) -> "State":
        return State(self.env, self.mode, switched or None)

    def same(self, other: "State") -> bool:
        return self.mode is other.mode and self.env == other.env and self.switched == other.switched


def join_states(a: Optional[State], b: Optional[State]) -> Optional[State]:
    """None is an unreachable path."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    env = dict(a.env)
    for name, value in b.env.items():
        mine = env.get(name)
        if mine is None:
            env[name] = value
        elif mine is not value:
            env[name] = join(mine, value) or UNKNOWN
    switched = None
    if a.switched and b.switched:
        # a mode switch holds after the join only where both paths made it
        switched = {attr: value for attr, value in a.switched.items() if b.switched.get(attr) == value} or None
    return State(env, join_modes(a.mode, b.mode), switched)


_LOOP_ROUNDS = 4  # then values that still change become unknown


class ScopeFlow:
    """The abstract interpretation of one scope body (module, class or function)."""

    def __init__(self, model: "SemanticModel", frame: "Frame", entry: State):
        self.model = model
        self.frame = frame
        self.before: dict = {}  # id(stmt) -> State before the statement
        self.after: dict = {}  # id(stmt) -> State after a simple statement
        self.returns: list = []  # (Return node, Value)
        self._loops: list = []  # (break states, continue states) of the enclosing loops
        self._handlers: list = []  # states the current try bodies may leave
        if model.cell_starts and frame.kind.startswith("module"):
            self.exit = self._cells(frame.body, entry, model.cell_starts)
        else:
            self.exit = self.block(frame.body, entry)

    # -- blocks -----------------------------------------------------------------------------
    def block(self, body: list, state: Optional[State]) -> Optional[State]:
        for stmt in body:
            if state is None:
                break  # unreachable code after return/raise/break/continue
            self.before[id(stmt)] = state
            switched = state.switched
            state = self.statement(stmt, state)
            if (
                switched
                and state is not None
                and state.switched is switched
                and _may_switch_back(stmt, switched, self.model.mode_keeping_calls(self.frame.node))
            ):
                state = state.with_switched(None)
            if self._handlers and state is not None:
                self._handlers[-1].append(state)
        return state

    def _cells(self, body: list, state: Optional[State], cell_starts: tuple) -> Optional[State]:
        """A notebook's code: an exception ends its cell, not the program (an assignment's
        ``raise NotImplementedError`` placeholder): the next cell runs from the state the
        statement that raised found."""
        resume = state
        ended_at = 0  # the last row of the statement after which nothing of its cell runs
        for stmt in body:
            if state is None:
                if bisect.bisect_right(cell_starts, stmt.lineno) == bisect.bisect_right(cell_starts, ended_at):
                    continue  # the rest of the cell that raised
                state = resume
            resume = state
            self.before[id(stmt)] = state
            state = self.statement(stmt, state)
            if state is None:
                ended_at = stmt.end_lineno or stmt.lineno
        return state

    def statement(self, stmt: ast.stmt, state: State) -> Optional[State]:
        handler = _STATEMENTS.get(type(stmt))
        if handler is not None:
            return handler(self, stmt, state)
        # Simple statements without bindings (`assert`, `pass`, `global`): nothing to keep.
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self._discard(child, state)
        return state

    def _discard(self, node: ast.expr, state: State) -> None:
        """An expression whose value no state keeps (``SemanticModel.discard``)."""
        self.model.discard(node, state, self.frame)

    # -- simple statements ------------------------------------------------------------------
    def _expr(self, stmt: ast.Expr, state: State) -> State:
        value = stmt.value
        self._discard(value, state)
        if isinstance(value, ast.Call):
            state = self._call_effect(value, state)
        elif isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            state = self._comprehension_effect(value, state)
        self.after[id(stmt)] = state
        return state

    def _comprehension_effect(self, comp: ast.AST, state: State) -> State:
        """``[net.eval() for net in nets]`` as a statement: every module the list holds is
        switched to eval (or train) mode."""
        generators = comp.generators  # type: ignore[attr-defined]
        call = comp.elt  # type: ignore[attr-defined]
        if len(generators) != 1 or generators[0].ifs or not isinstance(call, ast.Call):
            return state
        target, iterated = generators[0].target, generators[0].iter
        func = call.func
        if not (
            isinstance(target, ast.Name)
            and isinstance(iterated, ast.Name)
            and isinstance(func, ast.Attribute)
            and func.attr in ("eval", "train")
            and isinstance(func.value, ast.Name)
            and func.value.id == target.id
        ):
            return state
        current = state.env.get(iterated.id)
        if current is None or current.kind is not Kind.CONTAINER or current.elem is None:
            return state

        def switched(value: Value) -> Value:
            return _in_new_mode(value, call) if value.kind is Kind.MODULE else value

        items = tuple(switched(item) for item in current.items) if current.items is not None else None
        return state.bind({iterated.id: current.with_(elem=switched(current.elem), items=items)})

    def _call_effect(self, call: ast.Call, state: State) -> State:
        """What a call statement changes: grad mode, a module's train/eval mode, requires_grad,
        what a list may hold."""
        func = call.func
        model = self.model
        qual = model.imports.qualified_name(func)
        if qual in SET_ENABLED_NAMES:
            kind = classify_grad_mode(call, model.imports)
            mode = region_mode(kind) or GradMode.MAYBE
            return state.with_mode(mode)
        if not isinstance(func, ast.Attribute):
            return state
        if func.attr in ("eval", "train") and _instance_attribute(func.value):
            return self._switch_attribute(call, func.value.attr, state)  # type: ignore[attr-defined]
        if not isinstance(func.value, ast.Name):
            return state
        name = func.value.id
        current = state.env.get(name)
        method = func.attr
        if method in ("eval", "train") and (current is None or current.kind in (Kind.MODULE, Kind.UNKNOWN)):
            base = current if current is not None and current.kind is Kind.MODULE else None
            if base is None:
                # A module of an enclosing scope (a script's `model`, switched in `train()`), or
                # one its uses show (`model = Imported(...)`, then `model.parameters()`).
                looked = model.lookup(name, state, self.frame)
                base = looked if looked.kind is Kind.MODULE else None
            if base is None:
                return state
            return state.bind({name: _in_new_mode(base, call)})
        if method in LIST_ADDING_METHODS and current is not None and current.kind is Kind.CONTAINER:
            # `outputs.append(out)`: the list now may hold what was appended.
            added_node = call.args[-1] if call.args else None
            if added_node is None or call.keywords:
                return state
            added = model.evaluate(added_node, state, self.frame)
            if method == "extend":
                added = model.element_of(added, added_node)
            elem = added if current.elem is None else (join(current.elem, added) or UNKNOWN)
            return state.bind({name: current.with_(elem=elem, items=None)})
        if method == "backward" and not call.args and all(k.arg in _BACKWARD_SETTINGS for k in call.keywords):
            # `train_loss.backward()` with no gradient: autograd takes that only of a one-element
            # output with a graph, a reduced loss (0-dim, as every reduced loss since PyTorch 0.4)
            loss = current if current is not None else model.lookup(name, state, self.frame)
            # (not a reduction over named dimensions, `-torch.mean(logp, 0)`: one element, of
            # shape (1,) where `logp` is (B, 1))
            reduced_loss = Role.LOSS if loss.has(Role.UNREDUCED) else Role.LOSS | Role.SCALAR
            if loss.kind is Kind.TENSOR and (loss.grad is not Grad.YES or loss.roles & reduced_loss != reduced_loss):
                # (a reduced loss whose graph the flow could not tell, `.mean()` of what a
                # parameter gives: the call shows it has one)
                return state.bind({name: loss.with_(grad=Grad.YES, roles=loss.roles | reduced_loss)})
            return state
        if method == "requires_grad_" and current is not None and current.kind is Kind.TENSOR:
            flag = call.args[0] if call.args else call_argument(call, None, "requires_grad")
            if flag is None or (isinstance(flag, ast.Constant) and flag.value is True):
                return state.bind({name: model.make_leaf(current)})
            if isinstance(flag, ast.Constant) and flag.value is False:
                return state.bind({name: current.with_(grad=Grad.NO)})  # a leaf that no longer requires grad
        return state

    def _switch_attribute(self, call: ast.Call, attr: str, state: State) -> State:
        """``self.model.eval()`` / ``self.model.train(...)``: the instance's module, in its new
        mode, for the rest of the scope (``State.switched``)."""
        receiver = call.func.value  # type: ignore[attr-defined]
        current = self.model.evaluate(receiver, state, self.frame)
        if current.kind is not Kind.MODULE:
            return state
        switched = dict(state.switched) if state.switched else {}
        switched[attr] = _in_new_mode(current, call)
        return state.with_switched(switched)

    def _assign(self, stmt: ast.Assign, state: State) -> State:
        filled = self._filled_placeholders(stmt, state)
        if filled is not None:
            state = state.bind(filled) if filled else state
            self.after[id(stmt)] = state
            return state
        if all(isinstance(target, (ast.Attribute, ast.Subscript)) for target in stmt.targets):
            # `self.x = ...`, `a[i] = ...`: no name bound, the value is kept nowhere (but a
            # tensor written into takes the graph of what it is given)
            written = self._written_into_tensor(stmt, state)
            if written is None:
                self._discard(stmt.value, state)
            else:
                state = state.bind(written)
            value = UNKNOWN
        else:
            value = self.model.evaluate(stmt.value, state, self.frame)
        names: dict = {}
        for target in stmt.targets:
            self._bind_target(target, value, stmt.value, names, state)
        for name, bound in names.items():
            if bound.kind is Kind.TENSOR and bound.grad is not Grad.NO and not bound.has(Role.LOSS):
                names[name] = self.model.backpropagated_binding(self.frame.node, name, stmt, bound)
        state = state.bind(names) if names else state
        state = self._attribute_effects(stmt.targets, stmt.value, state)
        self.after[id(stmt)] = state
        return state

    def _written_into_tensor(self, stmt: ast.Assign, state: State) -> Optional[dict]:
        """``states[i] = hidden`` into ``states = torch.zeros(n, b, h)``, with grad on: the
        tensor written into records the copy and carries the graph of what it is given (its
        name bound again, to a tensor with a graph); None where nothing changes."""
        name = _slot_of_a_name(stmt) if not state.mode.off else None
        current = state.env.get(name) if name is not None else None
        if current is None or current.kind is not Kind.TENSOR or current.grad is not Grad.NO:
            return None
        stored = self.model.evaluate(stmt.value, state, self.frame)
        if stored.kind not in (Kind.TENSOR, Kind.UNKNOWN) or stored.grad is Grad.NO:
            return None
        # what is given carries a graph, or may (a recurrent step of a model handed in)
        return {name: current.with_(grad=stored.grad)}

    def _filled_placeholders(self, stmt: ast.Assign, state: State) -> Optional[dict]:
        """``actors[i] = Actor(...)`` into ``actors = [None] * n`` (a list of placeholders):
        the list holds what is stored into it (as ``SemanticModel._attribute_items`` for
        ``self.actors[i]``); nothing new where what is stored is not known; None for any other
        assignment."""
        name = _slot_of_a_name(stmt)
        current = state.env.get(name) if name is not None else None
        if current is None:
            return None
        if _numbers(current):
            return self._refilled_numbers(name, stmt, state)
        if not placeholders(current):
            return None
        self._discard(stmt.targets[0].slice, state)  # type: ignore[attr-defined]
        stored = self.model.evaluate(stmt.value, state, self.frame)
        if stored.kind in (Kind.UNKNOWN, Kind.NONE):
            return {}
        return {name: container(stored)}

    def _refilled_numbers(self, name: str, stmt: ast.Assign, state: State) -> Optional[dict]:
        """``top[b] = h[:, b]`` into ``top = [0] * n``: zeros used as placeholders; the list
        holds what is stored into it where that is not a number (None where it is: a list of
        counts stays one)."""
        stored = self.model.evaluate(stmt.value, state, self.frame)
        if stored.kind is Kind.NUMBER:
            return None
        self._discard(stmt.targets[0].slice, state)  # type: ignore[attr-defined]
        return {name: container(stored if stored.kind is Kind.TENSOR else UNKNOWN)}

    def _attribute_effects(self, targets: list, value_node: ast.AST, state: State) -> State:
        """``x.requires_grad = True`` makes ``x`` a leaf that requires grad; ``= False``, a
        tensor that does not (torch allows it on leaves only)."""
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == "requires_grad"
                and isinstance(target.value, ast.Name)
                and isinstance(value_node, ast.Constant)
                and isinstance(value_node.value, bool)
            ):
                current = state.env.get(target.value.id)
                if current is not None and current.kind is Kind.TENSOR:
                    changed = self.model.make_leaf(current) if value_node.value else current.with_(grad=Grad.NO)
                    state = state.bind({target.value.id: changed})
        return state

    def _ann_assign(self, stmt: ast.AnnAssign, state: State) -> State:
        if not isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                self._discard(stmt.value, state)
            return state
        annotated = self.model.annotation_value(stmt.annotation)
        value = None
        if stmt.value is not None:
            value = self.model.evaluate(stmt.value, state, self.frame)
        if value is None or value.kind is Kind.UNKNOWN:
            value = annotated if annotated is not None else value
        if value is None:
            return state
        state = state.bind({stmt.target.id: value})
        self.after[id(stmt)] = state
        return state

    def _aug_assign(self, stmt: ast.AugAssign, state: State) -> State:
        if not isinstance(stmt.target, ast.Name):
            # `self.total += x`: no name bound, nothing kept.
            self._discard(stmt.target, state)
            self._discard(stmt.value, state)
            self.after[id(stmt)] = state
            return state
        combined = self.model.evaluate_binop(stmt.target, stmt.op, stmt.value, state, self.frame)
        current = state.env.get(stmt.target.id)
        if current is not None and current.kind is Kind.TENSOR and combined.kind is Kind.TENSOR:
            # `w -= x` changes the tensor in place: it is still the same leaf or parameter, and
            # one that requires grad still does (also under no_grad).
            combined = combined.with_(
                grad=Grad.YES if current.grad is Grad.YES else combined.grad,
                roles=combined.roles | (current.roles & (Role.LEAF | Role.PARAM)),
            )
        state = state.bind({stmt.target.id: combined})
        self.after[id(stmt)] = state
        return state

    def _bind_target(self, target: ast.AST, value: Value, value_node: Optional[ast.AST], names: dict, state) -> None:
        if isinstance(target, ast.Name):
            names[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if any(isinstance(e, ast.Starred) for e in elts):
                parts = [None] * len(elts)
            else:
                parts = self.model.unpack(value, len(elts), value_node)
            for elt, part in zip(elts, parts):
                if isinstance(elt, ast.Starred):
                    for name in target_names(elt):
                        names[name] = UNKNOWN
                else:
                    if part is not None and isinstance(elt, ast.Name):
                        part = self.model.unpacked_part(value, part, elt.id)
                    self._bind_target(elt, part if part is not None else UNKNOWN, None, names, state)
        else:
            # Attributes and subscripts bind no name, and no state keeps their value.
            self._discard(target, state)

    def _delete(self, stmt: ast.Delete, state: State) -> State:
        removed = [name for target in stmt.targets for name in target_names(target)]
        if not removed:
            return state
        env = {k: v for k, v in state.env.items() if k not in removed}
        return State(env, state.mode, state.switched)

    def _return(self, stmt: ast.Return, state: State) -> None:
        value = self.model.evaluate(stmt.value, state, self.frame) if stmt.value is not None else None
        self.returns.append((stmt, value))
        return None

    def _raise(self, stmt: ast.Raise, state: State) -> None:
        if stmt.exc is not None:
            self._discard(stmt.exc, state)
        return None

    def _break(self, stmt: ast.stmt, state: State) -> None:
        if self._loops:
            self._loops[-1][0].append(state)
        return None

    def _continue(self, stmt: ast.stmt, state: State) -> None:
        if self._loops:
            self._loops[-1][1].append(state)
        return None

    def _import(self, stmt: ast.stmt, state: State) -> State:
        names = {}
        for alias in stmt.names:  # type: ignore[attr-defined]
            if alias.name == "*":
                continue
            local = alias.asname or alias.name.split(".")[0]
            names[local] = self.model.import_value(stmt, alias)
        return state.bind(names)

    def _definition(self, stmt: ast.stmt, state: State) -> State:
        value = self.model.definition_value(stmt, self.frame)
        state = state.bind({stmt.name: value})  # type: ignore[attr-defined]
        self.after[id(stmt)] = state
        return state

    def _assert(self, stmt: ast.Assert, state: State) -> State:
        """``assert isinstance(x, PackedSequence)``: past it, the test holds (narrowing)."""
        self._discard(stmt.test, state)
        if stmt.msg is not None:
            self._discard(stmt.msg, state)
        narrowed = self.model.narrowed_by(stmt.test, state, self.frame)
        return state.bind(narrowed) if narrowed else state

    # -- compound statements ----------------------------------------------------------------
    def _if(self, stmt: ast.If, state: State) -> Optional[State]:
        self._discard(stmt.test, state)
        narrowed = self.model.narrowed_by(stmt.test, state, self.frame)
        then = self.block(stmt.body, state.bind(narrowed) if narrowed else state)
        other = self.block(stmt.orelse, state) if stmt.orelse else state
        return join_states(then, other)

    def _loop(self, stmt: ast.AST, state: State) -> Optional[State]:
        is_for = isinstance(stmt, (ast.For, ast.AsyncFor))
        if is_for:
            iterated = self.model.evaluate(stmt.iter, state, self.frame)
            element = self.model.element_of(iterated, stmt.iter)
        else:
            self._discard(stmt.test, state)  # type: ignore[attr-defined]  # a while loop
        head = state
        exit_states: list = []
        for round_ in range(_LOOP_ROUNDS + 1):
            entry = head
            if is_for:
                names: dict = {}
                self._bind_target(stmt.target, element, None, names, entry)
                entry = entry.bind(names)
            self._loops.append(([], []))
            end = self.block(stmt.body, entry)
            breaks, continues = self._loops.pop()
            back = end
            for extra in continues:
                back = join_states(back, extra)
            exit_states = breaks
            new_head = join_states(state, back)
            if new_head is None or new_head.same(head):
                break
            if round_ == _LOOP_ROUNDS - 1:
                new_head = _widen(head, new_head)
            head = new_head
        # The loop may run zero times (for) or its test may be false at once (while).
        after = head
        if isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and stmt.test.value:
            after = None  # ``while True`` leaves only through break
        if stmt.orelse:
            after = self.block(stmt.orelse, after) if after is not None else None
        for extra in exit_states:
            after = join_states(after, extra)
        return after

    def _with(self, stmt: ast.AST, state: State) -> Optional[State]:
        outer_mode = state.mode
        mode = outer_mode
        names: dict = {}
        for item in stmt.items:  # type: ignore[attr-defined]
            new = region_mode(classify_grad_mode(item.context_expr, self.model.imports))
            if new is not None:
                mode = new
            if item.optional_vars is not None:
                value = self.model.evaluate(item.context_expr, state, self.frame)
                self._bind_target(item.optional_vars, self.model.entered_value(value), None, names, state)
            else:
                self._discard(item.context_expr, state)
        body_state = state.bind(names) if names else state
        body_state = body_state.with_mode(mode)
        end = self.block(stmt.body, body_state)  # type: ignore[attr-defined]
        if end is None:
            return None
        return end.with_mode(outer_mode) if mode is not outer_mode else end

    def _try(self, stmt: ast.AST, state: State) -> Optional[State]:
        self._handlers.append([state])
        body_end = self.block(stmt.body, state)  # type: ignore[attr-defined]
        reached = self._handlers.pop()
        anywhere = None
        for seen in reached:
            anywhere = join_states(anywhere, seen)
        result = self.block(stmt.orelse, body_end) if stmt.orelse and body_end is not None else body_end  # type: ignore[attr-defined]
        for handler in stmt.handlers:  # type: ignore[attr-defined]
            start = anywhere
            if start is not None and handler.name:
                start = start.bind({handler.name: UNKNOWN})
            if handler.type is not None and start is not None:
                self._discard(handler.type, start)
            result = join_states(result, self.block(handler.body, start))
        if stmt.finalbody:  # type: ignore[attr-defined]
            final_in = join_states(result, anywhere)
            final_end = self.block(stmt.finalbody, final_in)  # type: ignore[attr-defined]
            return final_end if result is not None else None
        return result

    def _match(self, stmt: ast.Match, state: State) -> Optional[State]:
        self._discard(stmt.subject, state)
        result = None
        for case in stmt.cases:
            start = state
            bound = {
                n.name: UNKNOWN
                for n in walk_in_order(case.pattern)
                if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name
            }
            if bound:
                start = start.bind(bound)
            result = join_states(result, self.block(case.body, start))
        return join_states(result, state)


def _mode_switch(call: ast.Call) -> Optional[bool]:
    """Whether ``m.eval()`` / ``m.train(mode)`` switches to eval mode (True) or training mode
    (False); None when the mode is a value the code does not show."""
    if call.func.attr == "eval":  # type: ignore[attr-defined]
        return True
    flag = call_argument(call, 0, "mode")
    if flag is None:
        return False
    if isinstance(flag, ast.Constant) and isinstance(flag.value, bool):
        return not flag.value
    return None


# Keywords of `Tensor.backward` other than the gradient it is handed.
_BACKWARD_SETTINGS = frozenset({"retain_graph", "create_graph", "inputs", "retain_variables"})


def _in_new_mode(module: Value, call: ast.Call) -> Value:
    """A module after ``call``, its ``.eval()`` or ``.train(...)``: in eval mode, in training mode,
    or (``.train(flag)`` of a flag the code does not show) in neither known mode."""
    evaluating = _mode_switch(call)
    roles = module.roles & ~(Role.TRAINING | Role.EVALUATING)
    if evaluating is not None:
        roles |= Role.EVALUATING if evaluating else Role.TRAINING
    return module.with_(roles=roles)


def _instance_attribute(node: ast.AST) -> bool:
    """``self.model``."""
    return type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self"  # type: ignore[attr-defined]


def _may_switch_back(stmt: ast.stmt, switched: dict, keeping: frozenset = frozenset()) -> bool:
    """Whether a statement may change the mode of a switched module of the instance: it assigns
    that attribute, calls a method of the instance or hands the instance on (which may call
    ``.train()`` again); running the switched module itself (``self.model(x)``) does not, nor
    does a call ``keeping`` names (``SemanticModel.mode_keeping_calls``: ``self.accuracy(out,
    y)``, ``self.criterion(out, y)``). Compound statements are judged by their own statements."""
    if type(stmt) not in _SIMPLE_STATEMENTS:
        return False
    for node in walk_in_order(stmt):
        t = type(node)
        if t is ast.Attribute and _instance_attribute(node) and node.attr in switched:  # type: ignore[attr-defined]
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                return True  # `self.model = ...`
        elif t is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if (
                type(func) is ast.Attribute
                and type(func.value) is ast.Name
                and func.value.id == "self"
                and func.attr not in switched  # `self.model(x)` runs the module, switching nothing
                and func.attr not in keeping
            ):
                return True  # `self.train_epoch()`
            if any(type(arg) is ast.Name and arg.id == "self" for arg in node.args):  # type: ignore[attr-defined]
                return True  # `run(self)`
    return False


_SIMPLE_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Delete})


def _widen(previous: State, current: State) -> State:
    """Names whose values still change after several rounds become unknown."""
    env = dict(current.env)
    for name, value in current.env.items():
        if previous.env.get(name) != value:
            env[name] = UNKNOWN
    switched = current.switched if current.switched == previous.switched else None
    return State(env, current.mode, switched)


_STATEMENTS = {
    ast.Expr: ScopeFlow._expr,
    ast.Assert: ScopeFlow._assert,
    ast.Assign: ScopeFlow._assign,
    ast.AnnAssign: ScopeFlow._ann_assign,
    ast.AugAssign: ScopeFlow._aug_assign,
    ast.Delete: ScopeFlow._delete,
    ast.Return: ScopeFlow._return,
    ast.Raise: ScopeFlow._raise,
    ast.Break: ScopeFlow._break,
    ast.Continue: ScopeFlow._continue,
    ast.Import: ScopeFlow._import,
    ast.ImportFrom: ScopeFlow._import,
    ast.FunctionDef: ScopeFlow._definition,
    ast.AsyncFunctionDef: ScopeFlow._definition,
    ast.ClassDef: ScopeFlow._definition,
    ast.If: ScopeFlow._if,
    ast.For: ScopeFlow._loop,
    ast.AsyncFor: ScopeFlow._loop,
    ast.While: ScopeFlow._loop,
    ast.With: ScopeFlow._with,
    ast.AsyncWith: ScopeFlow._with,
    ast.Try: ScopeFlow._try,
    ast.Match: ScopeFlow._match,
}
if hasattr(ast, "TryStar"):
    _STATEMENTS[ast.TryStar] = ScopeFlow._try


def _numbers(value: Value) -> bool:
    """A list of numbers (``[0] * n``): its items may be placeholders for what is stored later."""
    return value.kind is Kind.CONTAINER and value.elem is not None and value.elem.kind is Kind.NUMBER


def _slot_of_a_name(stmt: ast.Assign) -> Optional[str]:
    """The name whose item an assignment's one target stores into (``states`` of ``states[i] = h``)."""
    if len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return target.value.id
    return None
