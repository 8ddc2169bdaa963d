"""Calls whose result is only read: bound to names that are then used only as values.

``prediction = net(x)`` followed only by ``prediction.data.numpy()``, ``print(prediction)``,
``prediction.argmax(1) == y`` or ``prediction.item()`` records a graph that nothing
backpropagates. This module finds such calls in one scope from the syntax alone (no values):

- the call is the value of an assignment to names (``out = f(x)``,
  ``out, hidden = rnn(x, hidden)``), or the value is a part or view of its result
  (``logits = net(x)[:5]``, ``viewed_call``), and its values are read (not only its shape: printing
  ``y.shape`` checks a model, it evaluates nothing);
- every later use of those names (and, in a loop, every use in that loop) is a read: an
  attribute or method that drops the graph (``.data``, ``.shape``, ``.item()``,
  ``.detach()``, ``.argmax()``, a distribution's ``.sample()``), a comparison, ``print``/``len``/``float``/``str``, a
  formatted string, a cell's last expression (displayed), an index (``classes[pred[j]]``:
  an index's graph goes nowhere), an argument of a drawing or logging call (``ax.matshow``,
  ``plt.imshow``, ``writer.add_image``, torch_snippets' ``show``), or part of the value of another
  assignment whose result is only read in turn (the output fed back into the next step of a
  generation loop, ``rnn(inp, hidden)``; ``samples = samples.mul(0.5)``), through indexing,
  views or copies and reductions (``out[0].data``, ``out.view(-1).cpu().data``,
  ``l.mean().item()``), or handed to a parameter that a function of the file (or, through
  ``parameters_read``, of another file of the run) only reads or first copies without graph
  (``parameters_only_read``); a use read on the way into another value
  (``pred = np.argmax(softmax(out).data.numpy())``, ``a = Categorical(out).sample().item()``)
  is a read wherever that value goes, also in a store into a slot or an augmented assignment
  (``losses[epoch] = crit(out, y).item()``), an expression statement or a return; a field of a
  model's output is a part of it (``logits = model(x).logits``); a name assigned again
  later in the same block holds another value from there on (in a loop, only when simple
  statements lead to that assignment);
- a `for` loop over the result (`for fm in out:`, or its place in `zip(axes, out)` or
  `enumerate(out)`) reads it when every use of its name in the loop is a read and the loop
  does not assign that name again; so does a comprehension of one generator over it whose
  every use of its element is a read (`[np.argmax(p.detach().numpy()) for p in out]`), and
  both read a function's parameter in ``parameters_only_read`` as well; an operand of
  arithmetic in a ``with torch.no_grad():`` block is read (the result holds no graph);
- none of the names is used in a nested function or lambda (not followed); a comprehension
  that binds none of them and holds no function is followed like the scope's own code (its
  first iterable runs in the scope itself), otherwise it is not followed;
- no backward pass comes after the call in its loop (or, outside loops, in a simple statement
  of its block before its names are assigned again): a forward hook may hand the graph to a
  loss the syntax does not show; unless the loop (outside loops, the scope) calls the same callee again
  elsewhere (the step's training forward pass beside a validation one or a sample: the
  backward passes take their graphs from that call), or every such backward pass backpropagates
  a loss computed from another call that runs a model (``graph_source``: a target network's
  output detached beside the critic's ``critic(s)``) or, in a function, from one of its
  parameters as an operand (``policy``, ``value`` handed in from the caller's forward pass; not
  a size, an index, a callee or a dict read by key). What a backward pass is handed
  (``torch.autograd.grad([loss], params)``) is not read.

Anything else (returned, stored, appended, passed to a function, computed with) makes the
call's result one that may be backpropagated: the answer errs towards "not only read".
"""

from __future__ import annotations

import ast
from typing import Callable, Optional

from gradguard.check.analysis.imports import dotted_name
from gradguard.check.analysis.scopes import (
    COMPREHENSION_TYPES,
    FUNCTION_TYPES,
    comprehension_nodes,
    own_nodes,
    walk_in_order,
)
from gradguard.check.analysis.vocabulary import (
    ALIAS_METHODS,
    GRAD_DROPPING,
    GRAPH_ENDING_STEPS,
    INFERENCE_NAMES,
    NO_GRAD_NAMES,
    OPERAND_METHODS,
    PYTHON_VALUE_METHODS,
    READ_ATTRIBUTES,
    SHAPE_FACTORIES,
    VALUE_COMPARISONS,
    VALUES_AND_INDICES_ALONG_A_DIMENSION,
    VALUES_AND_INDICES_METHODS,
    returns_values_and_indices,
)

# Methods whose result never carries a graph (on a tensor): reading through them is a read.
# (`requires_grad_()` hands back the tensor itself, a model's output with its graph:
# `loss_func(model(x).log_softmax(2).requires_grad_(), y)` is backpropagated through it.)
_READING_METHODS = (GRAD_DROPPING | PYTHON_VALUE_METHODS | {"argmax", "argmin", "detach", "sample", "sample_n"}) - {
    "data",
    "shape",
    "requires_grad_",
}
_READING_ATTRIBUTES = READ_ATTRIBUTES | {"data"}
# Builtins that turn a value into text or a number, or only look at it.
_READING_BUILTINS = frozenset({"print", "len", "float", "int", "bool", "str", "repr", "format", "type", "isinstance"})
# Reads of a tensor's metadata alone: a call whose output is only measured (``print(y.shape)``
# after ``y = net(torch.randn(1, 3, 32, 32))``) checks shapes; it evaluates nothing.
_METADATA_ATTRIBUTES = READ_ATTRIBUTES - {"requires_grad", "grad_fn", "is_leaf"}
_METADATA_METHODS = frozenset({"size", "dim", "numel", "nelement", "element_size", "stride", "is_contiguous"})
_METADATA_BUILTINS = frozenset({"len", "type", "isinstance"})
# Views and copies of a tensor (graph kept): a read through them reads the tensor.
# Reductions, element-wise maths and selections keep the graph too: ``l.mean().detach().numpy()``
# reads ``l``, and ``target_net(s).gather(1, a).detach()`` the target network's output.
_PASSING_METHODS = (ALIAS_METHODS - {"data", "detach"}) | frozenset(
    "clone sum mean max min norm abs sqrt exp log pow prod std var softmax log_softmax sigmoid tanh clamp"
    " gather index_select masked_select take_along_dim"
    # in place, on a value computed from the output: the same tensor, handed on
    " abs_ sqrt_ exp_ log_ pow_ sigmoid_ tanh_ clamp_ transpose_ t_ squeeze_ unsqueeze_ swapdims_".split()
)
_VALUE, _METADATA = 1, 2  # kinds of read (a fed call is named by its id, never 1, 2 or 3)
_ESCAPED = 3  # not a read: handed to a function that backpropagates it
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NESTED_CODE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, *COMPREHENSION_TYPES)
# Fields of a model's output object (Hugging Face's ModelOutput): parts of the output, as an index is.
_OUTPUT_FIELDS = frozenset(
    {"logits", "last_hidden_state", "pooler_output", "hidden_states", "start_logits", "end_logits"}
)
_VALUE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def read_only_calls(
    scope: ast.AST,
    qualified_name,
    own: Optional[list] = None,
    rebound: Optional["Rebindings"] = None,
    parameters_read: Optional[Callable[[str], Optional["ParametersRead"]]] = None,
    returns_read: Optional[Callable[[], bool]] = None,
    graph_source: Optional[Callable[[ast.Call], bool]] = None,
    torch_loss: Optional[Callable[[ast.Call], bool]] = None,
    holds_no_graph: Optional[Callable[[ast.AST, str], bool]] = None,
) -> frozenset:
    """ids of the calls of ``scope``'s own code (a module, function or class body) whose
    result is only read. ``qualified_name(expr)`` gives the imported name an expression spells
    (``torch.argmax``), or None; ``own`` the scope's own nodes (``scopes.own_nodes``) where the
    caller keeps them, and ``rebound`` its ``Rebindings``; ``parameters_read(name)`` what a
    function of the file called by that name only reads (``parameters_only_read``): handing a
    result to such a parameter (``show_images(sample)``) reads it; ``returns_read()`` whether
    every caller of the function only reads what it returns (asked only where a result is
    returned: ``return losses, predictions`` then reads it); ``graph_source(call)`` whether a
    call runs a model with parameters (what a backward pass may take its graph from, see
    ``_backward_fed_elsewhere``); ``torch_loss(call)`` whether a call is one of torch's losses (a
    loss module of ``torch.nn``, a loss function of ``torch.nn.functional``), which keep nothing: one
    that is a whole statement (a notebook cell showing ``loss_fn(pred, y)``) reads its arguments;
    ``holds_no_graph(assignment, name)`` whether a name a tuple is unpacked into holds a value that
    carries no graph (``net, predictions = train_and_pred(...)``: the model handed back beside the
    predictions), whose uses then need not be reads.
    Needs no parent links: each use is read from the node above it."""
    if own is None:
        own = list(own_nodes(scope))
    bound: dict = {}  # id(assigned value) -> (assignment, names, value); the calls are the answers
    for node in own:
        if type(node) is ast.Assign or (type(node) is ast.AnnAssign and node.value is not None):  # type: ignore[attr-defined]
            for names, value in assigned_values(node):  # type: ignore[arg-type]
                bound[id(value)] = (node, names, value)
    # `preds.append(model(x))` into a list the scope starts empty (`preds = []`): the list's uses
    # are the result's (`preds[0].detach().numpy()`); appending to it is none
    appending = _appends_to_new_lists(own)
    for statement, name, value in appending:
        bound[id(value)] = (statement, (name,), value)
    if not any(viewed_calls(value) for _, _, value in bound.values()):
        return frozenset()
    wanted = {name for _, names, _ in bound.values() for name in names}
    # `for fm in out:` over a result (or a view of it): the loop's name is followed like the
    # result itself; every use of it a read makes the loop a read of `out`.
    # The name may be a loop name elsewhere too (a notebook's cells reuse `img`): only its uses
    # in this loop count, and the loop must not assign it again.
    iterated: list = []  # (loop name, the use of the result the loop iterates, the loop)
    for node in own:
        if type(node) is ast.For:
            for target, iterable in _loop_items(node.target, node.iter):  # type: ignore[attr-defined]
                name = target.id
                base = _base_name(iterable, wanted)
                if base is not None and name not in wanted and not _assigned_in(node.body, name):  # type: ignore[attr-defined]
                    iterated.append((name, base, node))
    wanted |= {name for name, _, _ in iterated}
    uses: dict = {name: [] for name in wanted}  # name -> Name nodes read (and augmented targets)
    backward_lines: list = []
    backward_calls: list = []
    calls: list = []  # the scope's calls, in the order of its nodes
    loops: list = []
    reads: dict = {}  # id(Name node) -> _VALUE, _METADATA or the id of the bound call it feeds
    comprehension_reads: list = []  # (use of a wanted name a comprehension iterates, kind of read)
    inner, followed = _comprehension_nodes(own, wanted)
    for node in (own + inner) if inner else own:
        t = type(node)
        if t is ast.Name:
            if node.id in wanted and type(node.ctx) is ast.Load:  # `del fake` ends the value: no use
                uses[node.id].append(node)
        elif t is ast.AugAssign:
            if type(node.target) is ast.Name and node.target.id in wanted:
                uses[node.target.id].append(node.target)
                # `target *= gamma`: the value changed in place stays under its name, whose
                # later uses say what becomes of it
                reads[id(node.target)] = _METADATA
        elif t is ast.Call:
            calls.append(node)
            _classify_call(node, wanted, qualified_name, bound, reads, parameters_read)
            if _is_backward(node, qualified_name):
                backward_lines.append(node.lineno)
                backward_calls.append(node)
                for sub in (
                    sub for arg in (*node.args, *(k.value for k in node.keywords)) for sub in walk_in_order(arg)
                ):
                    if type(sub) is ast.Name and sub.id in wanted:
                        reads[id(sub)] = _ESCAPED  # `torch.autograd.grad([loss], params)` backpropagates it
        elif t in _READING_NODES:
            _classify_read(node, t, wanted, reads, displayed=True)
        elif t in _LOOPS:
            loops.append(node)
        elif t in COMPREHENSION_TYPES:
            # `[np.argmax(p.detach().numpy()) for p in out]`
            comprehension_reads.extend(_comprehension_reads(node, wanted, qualified_name))
    if torch_loss is not None:
        # `loss_fn(pred, y)` as a statement (a cell's shown last line): the loss is never backpropagated
        for node in own:
            if type(node) is ast.Expr and type(node.value) is ast.Call:  # type: ignore[attr-defined]
                call = node.value  # type: ignore[attr-defined]
                bases = [_base_name(arg, wanted) for arg in (*call.args, *(k.value for k in call.keywords))]
                if any(base is not None for base in bases) and torch_loss(call):  # the cheap question first
                    for base in bases:
                        if base is not None:
                            reads[id(base)] = _VALUE
    # what a comprehension's element shows wins over the call that hands it the iterable
    # (`zip(preds, out)` in `[... for i, el in zip(preds, out)]`)
    for use, kind in comprehension_reads:
        reads[id(use)] = kind
    for statement, _name, _value in appending:
        reads[id(statement.value.func.value)] = _METADATA  # `preds` in `preds.append(...)`
    # Arithmetic under `no_grad` makes tensors without graph: `with torch.no_grad(): td_target =
    # r + gamma * v_s_` reads `v_s_`.
    for use in _operands_without_grad(own, wanted, qualified_name):
        reads.setdefault(id(use), _VALUE)
    for name, base, loop in iterated:
        inside = {id(sub) for stmt in loop.body for sub in walk_in_order(stmt)}
        kinds = [reads.get(id(use)) for use in uses[name] if id(use) in inside]
        if kinds and all(kind in (_VALUE, _METADATA) for kind in kinds):
            reads[id(base)] = _VALUE if _VALUE in kinds else _METADATA
    # Elsewhere (a store into a slot, `losses[epoch] = loss_fn(out, y).item()`; an augmented
    # assignment; an expression statement; a return), a use read on the way is a read.
    pending = {use.lineno for name in wanted for use in uses[name] if id(use) not in reads}
    if pending:
        for node in own:
            t = type(node)
            if t not in _VALUE_STATEMENTS or node.value is None:  # type: ignore[attr-defined]
                continue
            value = node.value  # type: ignore[attr-defined]
            if id(value) in bound or (type(value) is ast.Tuple and any(id(e) in bound for e in value.elts)):
                continue  # an assignment to names: followed below
            if not any(line in pending for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)):  # type: ignore[attr-defined]
                continue
            if t is ast.Assign and _numpy_slot(node, own, loops, qualified_name):  # type: ignore[arg-type]
                base = _base_name(value, wanted)
                if base is not None:
                    reads[id(base)] = _VALUE  # `yHat[t] = yy[-1]` into `yHat = np.zeros(n)`: numpy copies the value
                    continue
            if t is ast.Return and returns_read is not None:
                returned = [e for e in (value.elts if type(value) is ast.Tuple else [value]) if type(e) is ast.Name]
                if any(e.id in wanted for e in returned) and returns_read():
                    for e in returned:
                        if e.id in wanted:
                            reads[id(e)] = _VALUE  # `return losses, predictions`: every caller only reads it
            for sub, read in _reads_on_the_way(value, wanted, reads):
                if read is not None:
                    reads[id(sub)] = read
    # A use anywhere else in the value of an assignment feeds that assignment: what it is
    # computed into must be only read in turn (`samples = samples.mul(0.5).add(0.5)`).
    # Unless the use is read on the way (`C = np.argmax(softmax(y).data.numpy())`): what the
    # assignment binds then holds no graph, wherever it goes.
    for key, (_assignment, _names, value) in bound.items():
        for sub, read in _reads_on_the_way(value, wanted, reads):
            reads[id(sub)] = read or key
    if rebound is None:
        rebound = Rebindings(own, statement_blocks(scope, own))
    blocks = rebound.blocks
    edges: dict = {}  # id(call) -> ids of the bound calls its result feeds
    alive: set = set()
    valued: set = set()  # calls whose values (not only their shape) are read directly
    # what each name is assigned, for following a backward pass's loss back (made once, if asked)
    assignments = _assignments_by_name(own) if graph_source is not None and backward_calls else {}
    if assignments and isinstance(scope, FUNCTION_TYPES):
        # A parameter (`policy`, `value` from the caller's forward pass) is where a loss computed
        # from it takes its graph: `train_model(net, optimizer, transition, policy, value)`; not
        # one read by a key (`features["conv"]`, which a forward hook of the call may fill).
        for arg in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs):
            if arg.arg not in ("self", "cls"):
                assignments.setdefault(arg.arg, []).insert(0, (0, _PARAMETER, scope))
    for key, (assignment, names, _value) in bound.items():
        loop = _innermost_loop(assignment, loops)
        end = (loop.end_lineno or loop.lineno) if loop is not None else None
        if loop is not None:
            later = any(assignment.lineno < line <= end for line in backward_lines)
            if (
                later
                and not _called_again(assignment, loop, calls, qualified_name)
                and not _backward_fed_elsewhere(
                    assignment, loop, backward_calls, assignments, graph_source, qualified_name
                )
            ):
                continue  # a backward pass later in the loop: a forward hook may feed it
        elif (
            _backward_follows(assignment, blocks, backward_lines, rebound.next_after(names, assignment))
            and not _called_again(assignment, None, calls, qualified_name)
            and not _backward_fed_elsewhere(assignment, None, backward_calls, assignments, graph_source, qualified_name)
        ):
            continue
        # The uses that may see the result: after the assignment, and in a loop, anywhere in
        # it (the next round reads this round's result).
        after = (assignment.end_lineno or assignment.lineno, assignment.end_col_offset or 0)
        first = (loop.lineno, loop.col_offset) if loop is not None else after
        feeds: set = set()
        ok = True
        values_read = False
        for name in names:
            # the model handed back beside the output: what it is used for is its own, though its
            # reads still count as reads of the result
            graphless = holds_no_graph is not None and len(names) > 1 and holds_no_graph(assignment, name)
            # A later assignment of the name in the same block ends this value: the uses
            # after it see another one.
            killer = _rebinding(assignment, name, blocks, loop is not None)
            start, stop = first, None
            if killer is not None:
                start, stop = after, (killer.end_lineno or killer.lineno, killer.end_col_offset or 0)
            for use in uses[name]:
                position = (use.lineno, use.col_offset)
                if position < start or (stop is not None and position > stop):
                    continue
                if rebound.between(name, after, use):
                    continue  # assigned again on every path to this use: it sees that value
                if loop is not None and position < after and rebound.between(name, first, use):
                    # reached only in the loop's next round, after the name is bound again at
                    # its top (`fake = netG(noise)`, then `fake = netG(fixed_noise)` to save)
                    continue
                fed = reads.get(id(use))
                if fed is None or fed == _ESCAPED:
                    if graphless:
                        continue
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
    kept = _feeding(valued & alive, alive, edges)
    if kept:
        # Names also used in nested code (functions, lambdas, comprehensions) are not followed
        # there: a call whose result such a name may hold is not known to be only read, nor is
        # what fed it.
        names_kept = {name for key in kept for name in bound[key][1]}
        nested = _names_in_nested_code(own, names_kept, followed)
        if nested:
            kept -= _feeding({key for key in kept if nested & set(bound[key][1])}, kept, edges)
    return frozenset(id(call) for key in kept for call in viewed_calls(bound[key][2]))


def _operands_without_grad(own: list, wanted: set, qualified_name) -> list:
    """The uses of wanted names that are operands of arithmetic in the body of a ``with
    torch.no_grad():`` (or ``inference_mode()``) block of the scope: the result holds no graph.
    Not a name stored or handed on as it is (``memory.append(v)`` keeps its graph)."""
    found: list = []
    for node in own:
        if type(node) not in (ast.With, ast.AsyncWith) or not any(
            type(item.context_expr) is ast.Call
            and qualified_name(item.context_expr.func) in NO_GRAD_NAMES | INFERENCE_NAMES  # type: ignore[attr-defined]
            for item in node.items  # type: ignore[attr-defined]
        ):
            continue
        for stmt in node.body:  # type: ignore[attr-defined]
            for sub in walk_in_order(stmt):
                if type(sub) in (ast.BinOp, ast.UnaryOp):
                    for operand in ast.iter_child_nodes(sub):
                        if type(operand) is ast.Name and operand.id in wanted:  # type: ignore[attr-defined]
                            found.append(operand)
    return found


def _numpy_slot(node: ast.Assign, own: list, loops: list, qualified_name) -> bool:
    """Whether an assignment stores into an item of a numpy array (``yHat[t] = yy[-1]`` after
    ``yHat = np.zeros(N)``): the name's last binding before the store is a numpy call, and no
    loop around the store (of the scope's ``loops``) binds the name again."""
    if len(node.targets) != 1 or type(node.targets[0]) is not ast.Subscript:
        return False
    target = node.targets[0].value  # type: ignore[attr-defined]
    if type(target) is not ast.Name:
        return False
    name = target.id  # type: ignore[attr-defined]
    last = None
    for other in own:
        if (
            type(other) is ast.Assign
            and other is not node
            and any(type(t) is ast.Name and t.id == name for t in other.targets)  # type: ignore[attr-defined]
        ):
            if other.lineno < node.lineno:
                if last is None or other.lineno > last.lineno:
                    last = other
            elif any(
                loop.lineno < node.lineno <= (loop.end_lineno or loop.lineno)
                and loop.lineno < other.lineno <= (loop.end_lineno or loop.lineno)
                for loop in loops
            ):
                return False  # bound again later in a loop around the store
    if last is None or type(last.value) is not ast.Call:
        return False
    return (qualified_name(last.value.func) or "").startswith("numpy.")  # type: ignore[attr-defined]


def _reads_on_the_way(value: ast.AST, wanted: set, reads: dict) -> list:
    """(use, _VALUE / _METADATA / None) for each use in ``value`` of a wanted name not classified
    yet: whether ``value`` reads it on the way up (``_read_on_the_way``). The parent links are
    made only where an attribute that may drop a graph is there."""
    uses = []
    drops = False
    for sub in walk_in_order(value):
        t = type(sub)
        if t is ast.Name and sub.id in wanted and id(sub) not in reads:  # type: ignore[attr-defined]
            uses.append(sub)
        elif t is ast.Attribute and (sub.attr in _READING_ATTRIBUTES or sub.attr in _READING_METHODS):  # type: ignore[attr-defined]
            drops = True
    if not uses or not drops:
        return [(use, None) for use in uses]
    parents = {id(child): node for node in walk_in_order(value) for child in ast.iter_child_nodes(node)}
    return [(use, _read_on_the_way(use, value, parents)) for use in uses]


def _read_on_the_way(use: ast.AST, root: ast.AST, parents: dict) -> Optional[int]:
    """_VALUE or _METADATA when the expression ``root`` drops the graph of ``use`` through an
    attribute or method that reads it (``.data``, ``.numpy()``, ``.item()``, ``.shape``) on
    the way up from it; None when its graph may reach ``root``'s value."""
    current = use
    while current is not root:
        parent = parents.get(id(current))
        if parent is None:
            return None
        if type(parent) is ast.Attribute and parent.value is current:  # type: ignore[attr-defined]
            attr = parent.attr  # type: ignore[attr-defined]
            if attr in _READING_ATTRIBUTES:
                return _METADATA if attr in _METADATA_ATTRIBUTES else _VALUE
            called = parents.get(id(parent))
            if type(called) is ast.Call and called.func is parent and attr in _READING_METHODS:  # type: ignore[attr-defined]
                return _METADATA if attr in _METADATA_METHODS else _VALUE
        elif type(parent) in (ast.Lambda, *COMPREHENSION_TYPES):
            return None
        current = parent
    return None


def assigned_values(node: ast.Assign | ast.AnnAssign) -> list:
    """(names, value) for what an assignment to names binds: ``out = f(x)`` gives
    ``(("out",), f(x))`` (so does ``out: Tensor = f(x)``), ``out, h = rnn(x)`` gives ``(("out",
    "h"), rnn(x))``, and a tuple assigned to as many names binds each one its own value (``a, b =
    f(x), g(x)``)."""
    targets = [node.target] if type(node) is ast.AnnAssign else node.targets  # type: ignore[union-attr]
    if len(targets) != 1 or node.value is None:
        return []
    target, value = targets[0], node.value
    if (
        type(target) in (ast.Tuple, ast.List)
        and type(value) in (ast.Tuple, ast.List)
        and len(target.elts) == len(value.elts)  # type: ignore[attr-defined]
        and not any(type(e) is ast.Starred for e in value.elts)  # type: ignore[attr-defined]
    ):
        pairs = [(_target_names(t), v) for t, v in zip(target.elts, value.elts)]  # type: ignore[attr-defined]
        if all(names for names, _ in pairs):
            return pairs
    names = _target_names(target)
    return [(names, value)] if names else []


def _reduction_indices(subscript: ast.AST) -> bool:
    """``x.max(1)[1]``, ``torch.max(x, 1)[1]``, ``x.topk(5)[1]``, ``x.topk(5).indices``: the indices a
    values-and-indices reduction returns (integers: no graph)."""
    if type(subscript) is ast.Attribute:
        if subscript.attr != "indices":  # type: ignore[attr-defined]
            return False
    elif type(subscript) is ast.Subscript:
        index = subscript.slice  # type: ignore[attr-defined]
        if not (type(index) is ast.Constant and index.value == 1):  # type: ignore[attr-defined]
            return False
    else:
        return False
    call = subscript.value  # type: ignore[attr-defined]
    if type(call) is not ast.Call or type(call.func) is not ast.Attribute:  # type: ignore[attr-defined]
        return False
    func = call.func  # type: ignore[attr-defined]
    given = len(call.args) + len(call.keywords)  # type: ignore[attr-defined]
    if type(func.value) is ast.Name and func.value.id in _TORCH_MODULES:
        given -= 1  # `torch.max(x, 1)`: the tensor is an argument
    return returns_values_and_indices(func.attr, given)


def read_at_once(call: ast.Call, parent_of) -> bool:
    """Whether a call's result is read as soon as it is made, through indexing, views and
    arithmetic (``net(x).data.max(1)[1]``, ``net(x)[0].item()``, ``net(x).argmax(1)``,
    ``((net(x) - y) ** 2).mean().item()``) or by a comparison (``net(x) > 0.5``): its values only,
    not its shape. ``parent_of(node)`` gives a node's parent."""
    current: ast.AST = call
    while True:
        parent = parent_of(current)
        if type(parent) in (ast.BinOp, ast.UnaryOp):
            current = parent  # `(net(x) - y) ** 2`: computed from it, with its graph
            continue
        if type(parent) is ast.Subscript and parent.value is current:  # type: ignore[attr-defined]
            if _reduction_indices(parent):
                return True  # `net(x).max(1)[1]`: the indices, with no graph
            current = parent
            continue
        if type(parent) is ast.Compare and all(type(op) in VALUE_COMPARISONS for op in parent.ops):  # type: ignore[attr-defined]
            return True  # `(net(x)[:, 0] > 0.5).numpy()`: a mask of booleans, with no graph
        if type(parent) is not ast.Attribute or parent.value is not current:  # type: ignore[attr-defined]
            return False
        attr = parent.attr  # type: ignore[attr-defined]
        if attr in _READING_ATTRIBUTES:
            return attr not in _METADATA_ATTRIBUTES and not ends_in_metadata(parent, parent_of)
        if attr in _OUTPUT_FIELDS:
            current = parent  # `model(x).logits`: a part of the output
            continue
        called = parent_of(parent)
        if type(called) is not ast.Call or called.func is not parent:  # type: ignore[attr-defined]
            return False
        if attr in _READING_METHODS:
            return attr not in _METADATA_METHODS and not ends_in_metadata(called, parent_of)
        above = parent_of(called)
        if type(above) in (ast.Subscript, ast.Attribute) and above.value is called and _reduction_indices(above):  # type: ignore[attr-defined]
            return True  # `net(x).topk(5)[1]`, `net(x).topk(5).indices`: the indices, with no graph
        if attr not in _PASSING_METHODS:
            return False
        current = called


# Attributes of an array or a tensor that describe it without its values.
_DESCRIBING_ATTRIBUTES = _METADATA_ATTRIBUTES | {"size", "ndim", "nbytes", "itemsize"}


def ends_in_metadata(node: ast.AST, parent_of) -> bool:
    """Whether what is read from ``node`` on, through methods and indexing, is metadata alone
    (``net(x).data.cpu().numpy().shape``: a shape probe, no value read)."""
    current = node
    while True:
        parent = parent_of(current)
        if type(parent) is ast.Subscript and parent.value is current:  # type: ignore[attr-defined]
            current = parent
            continue
        if type(parent) is not ast.Attribute or parent.value is not current:  # type: ignore[attr-defined]
            return False
        attr = parent.attr  # type: ignore[attr-defined]
        called = parent_of(parent)
        if type(called) is ast.Call and called.func is parent:  # type: ignore[attr-defined]
            if attr in _METADATA_METHODS:
                return True
            current = called
            continue
        if attr in _DESCRIBING_ATTRIBUTES:
            return True
        current = parent


# How code usually spells torch and its functional module: `torch.max(out, 1)` reduces `out`
# as `out.max(1)` does.
_TORCH_MODULES = frozenset({"torch", "F"})


def _assigned_in(body: list, name: str) -> bool:
    """Whether statements assign ``name`` (a loop that rebinds its own loop name)."""
    return any(
        type(sub) is ast.Name and type(sub.ctx) is not ast.Load and sub.id == name  # type: ignore[attr-defined]
        for stmt in body
        for sub in walk_in_order(stmt)
    )


def _loop_items(target: ast.AST, iterable: ast.AST) -> list:
    """(loop name, what it iterates) pairs of a ``for``: ``for fm in out``; the items of
    ``for ax, img in zip(axes, images)`` and ``for i, img in enumerate(images)``."""
    if type(target) is ast.Name:
        return [(target, iterable)]
    if type(target) is not ast.Tuple or type(iterable) is not ast.Call or type(iterable.func) is not ast.Name:  # type: ignore[attr-defined]
        return []
    func, args, elts = iterable.func.id, iterable.args, target.elts  # type: ignore[attr-defined]
    if iterable.keywords or any(type(a) is ast.Starred for a in args):  # type: ignore[attr-defined]
        return []
    if func == "zip" and len(args) == len(elts):
        return [(elt, arg) for elt, arg in zip(elts, args) if type(elt) is ast.Name]
    if func == "enumerate" and len(args) == 1 and len(elts) == 2 and type(elts[1]) is ast.Name:
        return [(elts[1], args[0])]
    return []


def _comprehension_reads(node: ast.AST, wanted: set, qualified_name) -> list:
    """(the use of a wanted name a comprehension iterates, the kind of read) for each such use
    every use of whose element is a read: ``[np.argmax(p.detach().numpy()) for p in out]`` reads
    ``out``, and so does ``[F.softmax(el, 0)[i].item() for i, el in zip(preds, out)]`` (the
    items of a ``zip`` or ``enumerate``, as a ``for`` loop's). One generator, no nested code."""
    if len(node.generators) != 1:  # type: ignore[attr-defined]
        return []
    generator = node.generators[0]  # type: ignore[attr-defined]
    parts = [node.key, node.value] if type(node) is ast.DictComp else [node.elt]  # type: ignore[attr-defined]
    found = []
    for target, iterable in _loop_items(generator.target, generator.iter):
        if target.id in wanted:
            return []
        base = _base_name(iterable, wanted)
        if base is None:
            continue
        kind = _item_read(target.id, (*parts, *generator.ifs), qualified_name)
        if kind is not None:
            found.append((base, kind))
    return found


def _loop_read(loop: ast.AST, wanted: set, qualified_name) -> list:
    """(the use of a wanted name a ``for`` loop iterates, the kind of read) for each loop name
    every use of which in the loop is a read (``for p in out: print(p.argmax())``) and that the
    loop does not assign again."""
    found = []
    for target, iterable in _loop_items(loop.target, loop.iter):  # type: ignore[attr-defined]
        name = target.id
        base = _base_name(iterable, wanted)
        if base is None or name in wanted or _assigned_in(loop.body, name):  # type: ignore[attr-defined]
            continue
        kind = _item_read(name, loop.body, qualified_name)  # type: ignore[attr-defined]
        if kind is not None:
            found.append((base, kind))
    return found


def _item_read(name: str, code, qualified_name) -> Optional[int]:
    """The kind of read (``_VALUE``, ``_METADATA``) where ``code`` (nodes) uses ``name`` and every
    use is a read; None where one is not, where there is none, or where nested code may use it."""
    uses: list = []
    reads: dict = {}
    for sub in (sub for part in code for sub in walk_in_order(part)):
        t = type(sub)
        if t in _NESTED_CODE:
            return None
        if t is ast.Name and sub.id == name:  # type: ignore[attr-defined]
            uses.append(sub)
        elif t is ast.Call:
            _classify_call(sub, {name}, qualified_name, {}, reads)  # type: ignore[arg-type]
        elif t in _READING_NODES:
            _classify_read(sub, t, {name}, reads, displayed=False)
    kinds = [reads.get(id(use)) for use in uses]
    if not kinds or not all(kind in (_VALUE, _METADATA) for kind in kinds):
        return None
    return _VALUE if _VALUE in kinds else _METADATA


def viewed_call(value: ast.AST) -> Optional[ast.Call]:
    """The call whose result an assigned value is, or is a part or view of (``net(x)``,
    ``net(x)[:5]``, ``net(x)[0].view(-1)``): the graph that value holds is that call's."""
    value = _under_views(value)
    return value if type(value) is ast.Call else None  # type: ignore[return-value]


def viewed_calls(value: ast.AST) -> list:
    """The calls whose results an assigned value is made of by arithmetic, each as a part or view
    (``D(s)[z] - log_pz + alpha * policy(s)[a]``: both calls; ``net(x)[0]``: that one): the
    graph the value holds is theirs."""
    value = _under_views(value)
    if type(value) is ast.Call:
        return [value]
    if type(value) is ast.BinOp:
        return viewed_calls(value.left) + viewed_calls(value.right)  # type: ignore[attr-defined]
    return []


def _under_views(expr: ast.AST) -> ast.AST:
    """The expression that ``expr`` indexes, takes a view or copy of, or scales by a number,
    however deep (``out`` in ``out[0][:, 1]``, ``encoded[k].view(-1).cpu()``, ``out / 2 + 0.5``)."""
    while True:
        t = type(expr)
        if t is ast.Subscript and _reduction_indices(expr):
            return expr  # `net(x).max(1)[1]`: indices, not a view of the output
        if t is ast.Subscript or (t is ast.Attribute and expr.attr in _OUTPUT_FIELDS):  # type: ignore[attr-defined]
            expr = expr.value  # type: ignore[attr-defined]
        elif t is ast.BinOp and _number(expr.right):  # type: ignore[attr-defined]
            expr = expr.left  # type: ignore[attr-defined]  # `net_G(z) / 2 + 0.5`: scaled, the same graph
        elif t is ast.BinOp and _number(expr.left):  # type: ignore[attr-defined]
            expr = expr.right  # type: ignore[attr-defined]
        elif t is ast.UnaryOp and type(expr.op) in (ast.USub, ast.UAdd):  # type: ignore[attr-defined]
            expr = expr.operand  # type: ignore[attr-defined]
        elif t is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr in _PASSING_METHODS:  # type: ignore[attr-defined]
            func = expr.func  # type: ignore[attr-defined]
            if type(func.value) is ast.Name and func.value.id in _TORCH_MODULES and expr.args:  # type: ignore[attr-defined]
                expr = expr.args[0]  # type: ignore[attr-defined]  # `torch.max(out, 1)`, `F.softmax(out, 1)`
            else:
                expr = func.value
        else:
            return expr


def _number(expr: ast.AST) -> bool:
    return type(expr) is ast.Constant and type(expr.value) in (int, float)  # type: ignore[attr-defined]


def _feeding(targets: set, among: set, edges: dict) -> set:
    """``targets`` and the keys of ``among`` whose results feed one of them, directly or
    through others (``edges``: key -> the keys its result feeds)."""
    found = set(targets)
    changed = True
    while changed:
        changed = False
        for key in among - found:
            if edges[key] & found:
                found.add(key)
                changed = True
    return found


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, *COMPREHENSION_TYPES)


def _comprehension_nodes(own: list, names: set) -> tuple:
    """The nodes inside the comprehensions among a scope's own nodes that bind none of
    ``names`` and hold no function or lambda, and those comprehensions' ids: their uses of the
    names are followed like the scope's own (`" ".join(classes[predicted[j]] for j in range(4))`
    reads `predicted`; `[out[i] for i in ...]` keeps views of `out`, not a read)."""
    inner: list = []
    followed: set = set()
    for node in own:
        if not isinstance(node, COMPREHENSION_TYPES):
            continue
        outer = node.generators[0].iter  # type: ignore[attr-defined]  # already among the scope's own
        found: list = []
        stack = list(ast.iter_child_nodes(node))
        while stack:
            sub = stack.pop()
            if sub is outer:
                continue
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) or (
                type(sub) is ast.Name and sub.id in names and type(sub.ctx) is ast.Store  # type: ignore[attr-defined]
            ):
                break
            found.append(sub)
            stack.extend(ast.iter_child_nodes(sub))
        else:
            inner.extend(found)
            followed.add(id(node))
    return inner, followed


def _names_in_nested_code(own: list, names: set, followed: frozenset | set = frozenset()) -> set:
    """Which of ``names`` the nested functions, classes, lambdas and comprehensions met among
    a scope's own nodes may read from the scope: used there and not bound there (a method's
    own ``encoded`` is another variable); the comprehensions in ``followed`` had their uses
    judged with the scope's own."""
    found: set = set()
    for node in own:
        if isinstance(node, _NESTED) and id(node) not in followed:
            used: set = set()
            bound: set = set()
            # A comprehension's first iterable runs in the scope itself: its uses are the
            # scope's own, judged like any other (`[names[i] for i in pred.tolist()]`).
            outer = node.generators[0].iter if isinstance(node, COMPREHENSION_TYPES) else None
            stack = [node]
            while stack:
                sub = stack.pop()
                if sub is outer:
                    continue
                stack.extend(ast.iter_child_nodes(sub))
                if type(sub) is ast.Name and sub.id in names:
                    (bound if isinstance(sub.ctx, ast.Store) else used).add(sub.id)
                elif type(sub) is ast.arg and sub.arg in names:
                    bound.add(sub.arg)
            found |= used - bound
    return found


def _target_names(target: ast.AST) -> Optional[tuple]:
    """The names an assignment target binds, nested unpacking included (``(h, c), logits =
    ...``); None where it binds anything else (an attribute, an item, a starred name)."""
    if type(target) is ast.Name:
        return (target.id,)
    if type(target) in (ast.Tuple, ast.List):
        names: tuple = ()
        for element in target.elts:  # type: ignore[attr-defined]
            found = _target_names(element)
            if found is None:
                return None
            names += found
        return names
    return None


def _is_backward(call: ast.Call, qualified_name) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "backward":
        return True
    return qualified_name(func) in ("torch.autograd.grad", "torch.autograd.backward")


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Pass)


def statement_blocks(scope: ast.AST, own: list) -> dict:
    """id(statement) -> (the statement list holding it, its index), for the scope's own code."""
    found: dict = {}
    for holder in (scope, *own):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(holder, field, None)
            if type(block) is list and block and isinstance(block[0], ast.stmt):
                for i, stmt in enumerate(block):
                    found[id(stmt)] = (block, i)
        for handler in getattr(holder, "handlers", ()) or ():
            for i, stmt in enumerate(handler.body):
                found[id(stmt)] = (handler.body, i)
    return found


def _backward_follows(
    assignment: ast.Assign, blocks: dict, backward_lines: list, until: Optional[tuple] = None
) -> bool:
    """Whether a simple statement after the assignment, in its block, makes a backward pass
    (a forward hook may have handed the graph to it). Backward passes inside later loops or
    branches (a training loop further down a script) do not count, nor those from the
    statement holding ``until`` on (where a name of the assignment is assigned again: a new
    forward pass, a later cell of a notebook)."""
    place = blocks.get(id(assignment))
    if place is None:
        return bool(backward_lines)
    block, index = place
    lines = set(backward_lines)
    for stmt in block[index + 1 :]:
        if until is not None and until <= (stmt.end_lineno, stmt.end_col_offset):
            break
        if isinstance(stmt, _SIMPLE) and any(
            line in lines for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
        ):
            return True
    return False


def _rebinding(assignment: ast.Assign, name: str, blocks: dict, in_loop: bool) -> Optional[ast.stmt]:
    """The next assignment of ``name`` in the block of ``assignment``: every path from one to
    the code after the other runs it. In a loop, only through simple statements (a
    ``continue`` between would skip it); elsewhere, whatever lies between (a later cell of a
    notebook that assigns the name again). None when there is none."""
    place = blocks.get(id(assignment))
    if place is None:
        return None
    block, index = place
    for stmt in block[index + 1 :]:
        if type(stmt) is ast.Assign and any(name in (_target_names(t) or ()) for t in stmt.targets):
            return stmt
        if type(stmt) is ast.AnnAssign and stmt.value is not None and name in (_target_names(stmt.target) or ()):
            return stmt
        if in_loop and not isinstance(stmt, _SIMPLE):
            return None
    return None


class Rebindings:
    """Where a scope's own code assigns names again, to tell which value a use sees."""

    def __init__(self, own: list, blocks: dict):
        self.blocks = blocks  # statement_blocks of the scope
        self._by_name: dict = {}  # name -> the plain assignments binding it
        # id(body) -> the loop or ``with`` statement whose body it is (taken to run once at least)
        self._body_of: dict = {}
        for node in own:
            t = type(node)
            if t in _LOOPS or t is ast.With or t is ast.AsyncWith:
                self._body_of[id(node.body)] = node  # type: ignore[attr-defined]
                continue
            if t is ast.Assign:
                targets = node.targets  # type: ignore[attr-defined]
            elif t is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
                targets = [node.target]  # type: ignore[attr-defined]
            else:
                continue
            for target in targets:
                for name in _target_names(target) or ():
                    self._by_name.setdefault(name, []).append(node)

    def next_after(self, names, statement: ast.AST) -> Optional[tuple]:
        """Where one of ``names`` is next assigned after ``statement`` (its start), or None."""
        end = (statement.end_lineno, statement.end_col_offset)  # type: ignore[attr-defined]
        starts = [
            (a.lineno, a.col_offset)
            for name in names
            for a in self._by_name.get(name, ())
            if (a.lineno, a.col_offset) >= end
        ]
        return min(starts) if starts else None

    def between(self, name: str, after: tuple, site: ast.AST) -> bool:
        """Whether an assignment of ``name`` that starts after the position ``after`` runs on
        every path from there to ``site`` (a node of the scope's own code): it comes before
        the site in the text, and before a statement holding the site in its own block, so
        that each run of that block runs it first (``pred = net(x)`` in a training loop, for a
        use of ``pred`` later in that loop). A loop's or ``with``'s body is taken to run: an
        assignment in it also comes before what follows that statement (``out`` after
        ``for ...: out = net(x)`` is the loop's)."""
        at = (site.lineno, site.col_offset)  # type: ignore[attr-defined]
        end = (site.end_lineno, site.end_col_offset)  # type: ignore[attr-defined]
        for assignment in self._by_name.get(name, ()):
            if not after < (assignment.lineno, assignment.col_offset) < at:
                continue
            statement: Optional[ast.AST] = assignment
            while statement is not None:
                place = self.blocks.get(id(statement))
                if place is None:
                    break
                block, index = place
                for stmt in block[index + 1 :]:
                    if (stmt.lineno, stmt.col_offset) > at:
                        break
                    if end <= (stmt.end_lineno, stmt.end_col_offset):
                        return True
                statement = self._body_of.get(id(block))
        return False


def _appends_to_new_lists(own: list) -> list:
    """(statement, list name, appended value) of each ``name.append(value)`` statement of a scope
    whose every binding of ``name`` is an empty list (``preds = []``)."""
    candidates = [
        node
        for node in own
        if type(node) is ast.Expr
        and type(node.value) is ast.Call  # type: ignore[attr-defined]
        and type(node.value.func) is ast.Attribute  # type: ignore[attr-defined]
        and node.value.func.attr == "append"  # type: ignore[attr-defined]
        and type(node.value.func.value) is ast.Name  # type: ignore[attr-defined]
        and len(node.value.args) == 1  # type: ignore[attr-defined]
        and type(node.value.args[0]) is not ast.Starred  # type: ignore[attr-defined]
        and not node.value.keywords  # type: ignore[attr-defined]
    ]
    if not candidates:
        return []
    names = {node.value.func.value.id for node in candidates}  # type: ignore[attr-defined]
    new: dict = {}
    for node in own:
        if type(node) in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr):
            for target in getattr(node, "targets", None) or [getattr(node, "target", None)]:
                if type(target) is ast.Name and target.id in names:  # type: ignore[union-attr]
                    empty = type(node) is ast.Assign and type(node.value) is ast.List and not node.value.elts  # type: ignore[attr-defined]
                    new[target.id] = new.get(target.id, True) and empty  # type: ignore[union-attr]
                elif target is not None and any(
                    type(sub) is ast.Name and sub.id in names for sub in walk_in_order(target)
                ):
                    for sub in walk_in_order(target):
                        if type(sub) is ast.Name and sub.id in names:
                            new[sub.id] = False  # bound otherwise too (`for preds in ...`)
    return [
        (node, node.value.func.value.id, node.value.args[0])  # type: ignore[attr-defined]
        for node in candidates
        if new.get(node.value.func.value.id)  # type: ignore[attr-defined]
    ]


def _bound_value(assignment: ast.AST) -> ast.AST:
    """What a binding of ``read_only_calls`` binds: an assignment's value, or what a statement
    ``preds.append(value)`` appends."""
    if type(assignment) is ast.Expr:
        return assignment.value.args[0]  # type: ignore[attr-defined]
    return assignment.value  # type: ignore[attr-defined]


def _called_again(assignment: ast.Assign, loop: Optional[ast.AST], calls: list, qualified_name) -> bool:
    """Whether the loop (``None``: the scope) makes another call of a callee of the project (not
    a torch function) that the assignment's value calls: the step's training forward pass,
    which the backward passes take their graphs from, not a hook of this call (``t_p_val =
    model(t_u_val)`` beside ``t_p_train = model(t_u_train)``; a sample ``fake_test = G(z_test)``
    beside ``G(z)``; Double DQN's ``next_q = policy_net(next_states)``, read for its argmax,
    beside ``policy_net(states).gather(1, actions)``)."""
    callees = set()
    for sub in walk_in_order(_bound_value(assignment)):
        if type(sub) is ast.Call:
            name = dotted_name(sub.func)  # type: ignore[attr-defined]
            if name is not None and not (qualified_name(sub.func) or "").startswith("torch."):  # type: ignore[attr-defined]
                callees.add(name)
    if not callees:
        return False
    first, last = assignment.lineno, assignment.end_lineno or assignment.lineno
    start, end = (loop.lineno, loop.end_lineno or loop.lineno) if loop is not None else (0, float("inf"))
    return any(
        start <= call.lineno <= end and not first <= call.lineno <= last and dotted_name(call.func) in callees
        for call in calls
    )


def _backward_fed_elsewhere(
    assignment: ast.Assign,
    loop: Optional[ast.AST],
    backward_calls: list,
    assignments: dict,
    graph_source: Optional[Callable[[ast.Call], bool]],
    qualified_name=None,
) -> bool:
    """Whether every backward pass after the assignment, in its loop (``None``: the scope),
    backpropagates a loss computed from another call that runs a model (``graph_source``): the
    step's training forward pass, which the backward takes its graph from, not a forward hook of
    this call (DDPG's ``target_q = target_critic(s2, target_actor(s2))``, detached, beside
    ``q = critic(s, a)`` in ``F.mse_loss(q, target_q.detach()).backward()``). The loss is followed
    back through the names it is computed from, each to its last assignment before the use,
    never through a read (``.detach()``, ``.item()``). Where the loss shows no such call (the
    style-transfer tutorial's ``model(img)`` whose loss layers keep ``sl.loss``) the graph may
    come from a hook of this call."""
    if graph_source is None:
        return False
    start = assignment.end_lineno or assignment.lineno
    end = (loop.end_lineno or loop.lineno) if loop is not None else float("inf")
    passes = [call for call in backward_calls if start < call.lineno <= end]
    if not passes:
        return False
    judged = {id(sub) for sub in walk_in_order(_bound_value(assignment)) if type(sub) is ast.Call}
    return all(
        _computed_from_source(
            _backpropagated(call), call.lineno, assignments, assignment, judged, graph_source, qualified_name
        )
        for call in passes
    )


# What ``_assignments_by_name`` holds for a function's parameter: assigned by its caller.
_PARAMETER = ast.Constant(value=None)


def _assignments_by_name(own: list) -> dict:
    """name -> [(line, value, statement)] of a scope's assignments and augmented assignments to
    names."""
    found: dict = {}
    for node in own:
        t = type(node)
        if t is ast.Assign or t is ast.AnnAssign:
            for names, value in assigned_values(node):  # type: ignore[arg-type]
                for name in names:
                    found.setdefault(name, []).append((node.lineno, value, node))
        elif t is ast.AugAssign and type(node.target) is ast.Name:  # type: ignore[attr-defined]
            found.setdefault(node.target.id, []).append((node.lineno, node.value, node))  # type: ignore[attr-defined]
    return found


def _backpropagated(call: ast.Call) -> Optional[ast.AST]:
    """What a backward pass backpropagates: ``loss`` in ``loss.backward()`` or
    ``torch.autograd.grad(loss, params)``."""
    func = call.func
    if type(func) is ast.Attribute and func.attr == "backward":  # type: ignore[attr-defined]
        return func.value  # type: ignore[attr-defined]
    return call.args[0] if call.args else None


def _computed_from_source(
    expr: Optional[ast.AST],
    line: int,
    assigned: dict,
    judged_assignment: ast.AST,
    judged: set,
    graph_source: Callable[[ast.Call], bool],
    qualified_name=None,
) -> bool:
    """Whether ``expr`` (at ``line``) is computed from a call ``graph_source`` accepts (not one
    of ``judged``), through the names it uses, each taken from its last assignment before
    (``assigned``: ``_assignments_by_name``); what the judged assignment is made from does not
    count: it is followed no further."""
    stack = [(expr, line)] if expr is not None else []
    seen: set = set()
    while stack:
        node, at = stack.pop()
        todo = [(node, True)]  # (node, whether it is a value operand: not a method's argument nor an index)
        while todo:
            sub, operand = todo.pop()
            t = type(sub)
            if t is ast.Attribute and (sub.attr in _READING_ATTRIBUTES or sub.attr in _READING_METHODS):  # type: ignore[attr-defined]
                continue  # `target_q.detach()`: no graph from there
            if t is ast.Call and id(sub) not in judged and graph_source(sub):  # type: ignore[arg-type]
                return True
            if t is ast.Name:
                earlier = [found for found in assigned.get(sub.id, ()) if found[0] < at]  # type: ignore[attr-defined]
                if earlier:
                    found = max(earlier, key=lambda item: item[0])
                    if found[1] is _PARAMETER:
                        if operand:
                            return True  # the function's parameter, with its caller's graph
                        continue  # `.expand(batch_size, 1)`, `x[idx]`: a size or an index
                    if found[2] is not judged_assignment and id(found[1]) not in seen:
                        seen.add(id(found[1]))
                        stack.append((found[1], found[0]))
                continue
            if t in _NESTED:
                continue
            if t is ast.Call:
                func = sub.func  # type: ignore[attr-defined]
                qual = qualified_name(func) if qualified_name is not None else None
                method = type(func) is ast.Attribute and qual is None
                # `loss_fn(...)`: a callee is no operand (`x.mean()`: the receiver is); the arguments
                # of a torch function are (`F.mse_loss(value[0], target)`), of a method only where it
                # computes with them (`a.mul(b)`; not `x.expand(batch_size, 1)` nor
                # `replay_buffer.sample(batch_size)`), of anything else not
                todo.append((func, operand and method))
                passes = (qual or "").startswith("torch.") or (method and func.attr in OPERAND_METHODS)
                todo.extend((arg, operand and passes) for arg in (*sub.args, *(k.value for k in sub.keywords)))  # type: ignore[attr-defined]
            elif t is ast.Subscript:
                keyed = type(sub.slice) is ast.Constant and isinstance(sub.slice.value, str)  # type: ignore[attr-defined]
                # `features["conv"]`: a dict a forward hook may fill, no tensor handed in
                todo.append((sub.value, operand and not keyed))  # type: ignore[attr-defined]
                todo.append((sub.slice, False))  # type: ignore[attr-defined]
            else:
                todo.extend((child, operand) for child in ast.iter_child_nodes(sub))
    return False


def _innermost_loop(node: ast.AST, loops: list) -> Optional[ast.AST]:
    """The innermost of the scope's loops whose lines hold the node."""
    found = None
    for loop in loops:
        if loop.lineno <= node.lineno <= (loop.end_lineno or loop.lineno) and loop is not node:
            if found is None or loop.lineno >= found.lineno:
                found = loop
    return found


def _computed_from(expr: ast.AST, wanted: set) -> list:
    """The wanted names an expression computes from by arithmetic, indexing and methods
    (``(sum_pred + pred[0]).clamp(0, 1)``); not through a function it calls, which may keep them."""
    found = []
    todo = [expr]
    while todo:
        node = todo.pop()
        t = type(node)
        if t is ast.Name:
            if node.id in wanted:  # type: ignore[attr-defined]
                found.append(node)
        elif t is ast.BinOp:
            todo.extend((node.left, node.right))  # type: ignore[attr-defined]
        elif t is ast.UnaryOp:
            todo.append(node.operand)  # type: ignore[attr-defined]
        elif t in (ast.Subscript, ast.Attribute):
            todo.append(node.value)  # type: ignore[attr-defined]
        elif t is ast.Call and type(node.func) is ast.Attribute:  # type: ignore[attr-defined]
            todo.append(node.func.value)  # type: ignore[attr-defined]
    return found


def _base_name(expr: ast.AST, wanted: set) -> Optional[ast.Name]:
    """The name an expression reads through indexing and views or copies of it
    (``out[0][:, 1]``, ``encoded[k].view(-1).cpu()``), if one of ``wanted``."""
    expr = _under_views(expr)
    if type(expr) is ast.Name and expr.id in wanted:  # type: ignore[attr-defined]
        return expr  # type: ignore[return-value]
    return None


_READING_NODES = frozenset(
    {ast.Attribute, ast.Compare, ast.FormattedValue, ast.Expr, ast.BinOp, ast.Subscript, ast.BoolOp}
    | {ast.If, ast.While, ast.IfExp, ast.Assert}
)
# Statements and expressions whose test is asked its truth (``bool()`` reads a tensor's value).
_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
# Plotting and logging calls that draw or record the values of their arguments (matplotlib's
# ``plt.imshow(x)`` and ``ax.matshow(x)``, TensorBoard's ``writer.add_image(tag, x)``).
_DRAWING_METHODS = frozenset(
    "imshow matshow plot scatter hist bar barh pcolormesh contour contourf errorbar semilogy semilogx loglog"
    " add_scalar add_scalars add_image add_images add_histogram save_image make_grid".split()
)


# Drawing functions of other libraries, by qualified name (torch_snippets' `show(img, ax=...)`,
# bertviz's attention views `model_view(attention, tokens)`).
_DRAWING_FUNCTIONS = frozenset(
    {"torch_snippets.show", "bertviz.model_view", "bertviz.head_view", "bertviz.neuron_view.show"}
)


# torchvision's conversions of a tensor's values into a PIL image: ``to_pil_image(x)`` and
# ``ToPILImage()(x)`` (the image holds numbers; the tensor's graph goes nowhere).
TO_IMAGE_FUNCTION = "torchvision.transforms.functional.to_pil_image"
_TO_IMAGE_FUNCTIONS = frozenset({TO_IMAGE_FUNCTION, "torchvision.transforms.F.to_pil_image"})
_TO_IMAGE_CLASSES = frozenset({"torchvision.transforms.ToPILImage", "torchvision.transforms.transforms.ToPILImage"})


def makes_image_converter(value: ast.AST, qualified_name) -> bool:
    """Whether an expression builds a converter into PIL images (``transforms.ToPILImage()``),
    which a name may hold (``rgb = transforms.ToPILImage()``, then ``rgb(out)``)."""
    return type(value) is ast.Call and qualified_name(value.func) in _TO_IMAGE_CLASSES  # type: ignore[attr-defined]


def converts_to_image(call: ast.AST, qualified_name) -> bool:
    """Whether a call turns its argument into a PIL image: ``to_pil_image(x)`` or
    ``transforms.ToPILImage()(x)``."""
    if type(call) is not ast.Call:
        return False
    func = call.func  # type: ignore[attr-defined]
    return makes_image_converter(func, qualified_name) or (
        type(func) is not ast.Call and qualified_name(func) in _TO_IMAGE_FUNCTIONS
    )


def converted_to_image(call: ast.Call, parent_of, qualified_name) -> bool:
    """Whether a call's result, through indexing, views and copies (``out.squeeze(0).cpu()``), is
    handed straight to a conversion into a PIL image (``ToPILImage()(net(x).squeeze(0))``)."""
    current: ast.AST = call
    while True:
        parent = parent_of(current)
        if type(parent) is ast.Subscript and parent.value is current:  # type: ignore[attr-defined]
            current = parent
            continue
        if type(parent) is ast.Attribute and parent.value is current and parent.attr in _PASSING_METHODS:  # type: ignore[attr-defined]
            called = parent_of(parent)
            if type(called) is ast.Call and called.func is parent:  # type: ignore[attr-defined]
                current = called
                continue
            return False
        return type(parent) is ast.Call and current in parent.args and converts_to_image(parent, qualified_name)  # type: ignore[attr-defined]


def _formats_text(func: ast.AST) -> bool:
    """``"...".format``, or ``template.format`` of a name or attribute (tensors have no ``format``
    method: it is a string's): the arguments become text."""
    if type(func) is not ast.Attribute or func.attr != "format":  # type: ignore[attr-defined]
        return False
    receiver = func.value  # type: ignore[attr-defined]
    return (type(receiver) is ast.Constant and isinstance(receiver.value, str)) or type(receiver) in (
        ast.Name,
        ast.Attribute,
    )


def _formatted_operands(node: ast.AST) -> list:
    """The values ``"%.2f %d" % (acc * 100, n)`` turns into text: the right side's items, through
    arithmetic."""
    items = list(node.elts) if type(node) is ast.Tuple else [node]  # type: ignore[attr-defined]
    out = []
    while items:
        item = items.pop()
        if type(item) is ast.BinOp:
            items.extend((item.left, item.right))  # type: ignore[attr-defined]
        elif type(item) is ast.UnaryOp:
            items.append(item.operand)  # type: ignore[attr-defined]
        else:
            out.append(item)
    return out


def _classify_read(node: ast.AST, t: type, wanted: set, reads: dict, displayed: bool) -> None:
    """Record what an attribute (``out.data``, ``out.shape``), a comparison or a formatted
    value reads of the wanted names; where ``displayed``, an expression statement too (`out`
    alone as a notebook cell's last line is shown)."""
    if t is ast.Attribute:
        base = _base_name(node.value, wanted)  # type: ignore[attr-defined]
        if base is not None and node.attr in _READING_ATTRIBUTES:  # type: ignore[attr-defined]
            reads[id(base)] = _METADATA if node.attr in _METADATA_ATTRIBUTES else _VALUE  # type: ignore[attr-defined]
        base = _indices_of(node, wanted)
        if base is not None:
            reads[id(base)] = _VALUE  # `yhat.topk(5).indices`: the indices hold no graph
    elif t is ast.Compare:
        for operand in (node.left, *node.comparators):  # type: ignore[attr-defined]
            base = _base_name(operand, wanted)
            if base is not None:
                reads[id(base)] = _VALUE
    elif t is ast.Subscript:
        target = node.value  # type: ignore[attr-defined]
        if type(node.ctx) is ast.Store and type(target) is ast.Name and target.id in wanted:  # type: ignore[attr-defined]
            # `out[:] = 0` (masking actions): a write into the result, which uses nothing of its graph
            reads[id(target)] = _METADATA
        # An index never carries its graph into the result: `classes[predicted[j]]` reads
        # `predicted`, whatever `classes` holds (a name the scope binds too).
        base = _base_name(node.slice, wanted)  # type: ignore[attr-defined]
        if base is not None:
            reads[id(base)] = _VALUE
        base = _indices_of(node, wanted)
        if base is not None:
            reads[id(base)] = _VALUE  # `idx_max = output.max(1)[1]`: the indices hold no graph
    elif t is ast.BoolOp:
        # `mask[i] and y[i] == p[i]`: every operand but the last is asked its truth (the last one
        # is the result, unless the whole is a test: see below)
        for operand in node.values[:-1]:  # type: ignore[attr-defined]
            base = _base_name(operand, wanted)
            if base is not None:
                reads[id(base)] = _VALUE
    elif t in _TESTS:
        test = node.test  # type: ignore[attr-defined]
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
            test = test.operand  # type: ignore[attr-defined]
        for operand in test.values if type(test) is ast.BoolOp else (test,):  # type: ignore[attr-defined]
            base = _base_name(operand, wanted)
            if base is not None:
                reads[id(base)] = _VALUE  # `if correct[i]:`, `while not done:`
    elif t is ast.BinOp:
        left = node.left  # type: ignore[attr-defined]
        if type(node.op) is ast.Mod and type(left) is ast.Constant and isinstance(left.value, str):  # type: ignore[attr-defined]
            for operand in _formatted_operands(node.right):  # type: ignore[attr-defined]
                base = _base_name(operand, wanted)
                if base is not None:
                    reads[id(base)] = _VALUE
    elif t is ast.FormattedValue or displayed:
        value = node.value  # type: ignore[attr-defined]
        # `out` alone, or `out.shape, out[0][:3]` as a cell's last line: each item is shown
        for item in value.elts if displayed and type(value) is ast.Tuple else (value,):
            base = _base_name(item, wanted)
            if base is not None:
                reads[id(base)] = _VALUE


def _indices_of(node: ast.AST, wanted: set) -> Optional[ast.Name]:
    """The wanted name whose reduction's indices ``node`` takes (``output.max(1)[1]``,
    ``torch.max(outputs, 1)[1]``: ``_reduction_indices``)."""
    if not _reduction_indices(node):
        return None
    value = node.value  # type: ignore[attr-defined]
    func = value.func
    if type(func.value) is ast.Name and func.value.id in _TORCH_MODULES:
        return _base_name(value.args[0], wanted) if value.args else None  # the function form
    return _base_name(func.value, wanted)


def _classify_call(call: ast.Call, wanted: set, qualified_name, bound: dict, reads: dict, parameters_read=None) -> None:
    """Record the reads a call makes of the wanted names: ``out.item()`` (a method that drops
    the graph), ``print(out)``, ``torch.argmax(out)``, ``rnn(inp, out)`` (feeding a bound
    call, a read if that call's result is only read), or ``show_images(out)`` (a function of
    the file that only reads that parameter)."""
    func = call.func
    if type(func) is ast.Attribute:
        base = _base_name(func.value, wanted)  # type: ignore[attr-defined]
        if base is not None and func.attr in _READING_METHODS:  # type: ignore[attr-defined]
            reads[id(base)] = _METADATA if func.attr in _METADATA_METHODS else _VALUE  # type: ignore[attr-defined]
    kind = None
    if type(func) is ast.Name and func.id in _READING_BUILTINS:  # type: ignore[attr-defined]
        kind = _METADATA if func.id in _METADATA_BUILTINS else _VALUE  # type: ignore[attr-defined]
    elif converts_to_image(call, qualified_name):
        kind = _VALUE  # `img = transforms.ToPILImage()(out.squeeze(0))`: numbers in an image
    elif (
        (type(func) is ast.Attribute and func.attr in _DRAWING_METHODS)  # type: ignore[attr-defined]
        or (
            type(func) is ast.Name
            and func.id in _DRAWING_METHODS  # type: ignore[attr-defined]
            and (qualified_name(func) or "").startswith(("matplotlib.", "torchvision.utils."))
        )
        or (type(func) is ast.Name and qualified_name(func) in _DRAWING_FUNCTIONS)
    ):
        kind = _VALUE  # `ax.matshow(attention)`, `writer.add_image("fake", sample)`, `save_image(fake)`
    else:
        qual = qualified_name(func)
        if qual is not None and qual.startswith("torch.") and qual.rsplit(".", 1)[1] in _READING_METHODS:
            kind = _VALUE  # torch.argmax(out, 1)
        elif parameters_read is not None and (
            (type(func) is ast.Name and qual is None) or (qual is not None and not qual.startswith("torch."))
        ):
            # A parameter the function only reads is read, whatever becomes of the call's result
            # (`acc = accuracy(y, pred)`): that result cannot hold its graph. A function another
            # file of the run defines is asked by its qualified name (`utils.show_prob(p)`).
            read = parameters_read(func.id if qual is None else qual)  # type: ignore[attr-defined]
            _classify_function_call(call, wanted, reads, read)
            if read is not None and read[2]:
                # it backpropagates what it is handed (`generator_train_step(fake_data)`)
                for arg in (*call.args, *(k.value for k in call.keywords)):
                    base = _base_name(arg, wanted)
                    if base is not None and id(base) not in reads:
                        reads[id(base)] = _ESCAPED
                return
            if id(call) in bound:
                kind = id(call)  # the other arguments feed the call's result
                for arg in (*call.args, *(k.value for k in call.keywords)):
                    base = _base_name(arg, wanted)
                    if base is not None and id(base) not in reads:
                        reads[id(base)] = kind
            return
        elif (
            parameters_read is not None
            and type(func) is ast.Attribute
            and type(func.value) is ast.Name
            and func.value.id == "self"  # type: ignore[attr-defined]
            and (read := parameters_read("self." + func.attr)) is not None  # type: ignore[attr-defined]
        ):
            if not read[2]:
                # `output = self.restore(output)` of a method that only reads that parameter
                _classify_function_call(call, wanted, reads, read)
                return
            # `loss = self.compute_loss(policies, ...)` of a method that backpropagates what it is handed
            for arg in (*call.args, *(k.value for k in call.keywords)):
                base = _base_name(arg, wanted)
                if base is not None:
                    reads[id(base)] = _ESCAPED
            return
        elif _formats_text(func):
            kind = _VALUE  # `"loss {}".format(loss)`: text holds no graph, wherever it goes
        elif id(call) in bound:
            kind = id(call)
    if kind is None:
        return
    for arg in (*call.args, *(k.value for k in call.keywords)):
        base = _base_name(arg, wanted)
        if base is not None:
            reads[id(base)] = kind
        elif kind == _VALUE:
            # `imshow(to_pil((sum_pred + pred[0]).clamp(0, 1)))`: what is drawn or read is computed
            # from the names by arithmetic and tensor methods; their graphs go no further
            for name in _computed_from(arg, wanted):
                reads.setdefault(id(name), _VALUE)


# A function's parameters by position, the kind of read (``_VALUE``, ``_METADATA``) of each
# parameter that its body only reads, and whether its body makes a backward pass.
ParametersRead = tuple


def _classify_function_call(call: ast.Call, wanted: set, reads: dict, read: Optional[ParametersRead]) -> None:
    """The arguments a call of a function of the file hands to parameters it only reads."""
    if read is None:
        return
    positional, kinds, _backpropagates = read
    for index, arg in enumerate(call.args):
        if type(arg) is ast.Starred:
            return  # which parameter takes what is not known from here on
        name = positional[index] if index < len(positional) else None
        base = _base_name(arg, wanted) if name in kinds else None
        if base is not None:
            reads[id(base)] = kinds[name]
    for keyword in call.keywords:
        base = _base_name(keyword.value, wanted) if keyword.arg in kinds else None
        if base is not None:
            reads[id(base)] = kinds[keyword.arg]


def left_to_subclasses(function: ast.AST) -> bool:
    """Whether a method is left to subclasses: decorated ``@abstractmethod``, or its body only raises
    ``NotImplementedError`` (a docstring or ``pass`` besides)."""
    decorators = getattr(function, "decorator_list", ())
    if any(
        (isinstance(d, ast.Name) and d.id == "abstractmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "abstractmethod")
        for d in decorators
    ):
        return True
    body = [
        s
        for s in getattr(function, "body", ())
        if not isinstance(s, ast.Pass) and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Raise)
        and body[0].exc is not None
        and "NotImplementedError" in ast.unparse(body[0].exc)
    )


def parameters_only_read(function: ast.AST, qualified_name, own: Optional[list] = None) -> ParametersRead:
    """(positional parameter names, {name: kind of read}, whether it backpropagates) for the
    parameters of a function that its body only reads, as ``read_only_calls`` reads a result (``.data``, ``.item()``,
    printing, comparisons): ``def show(out): plt.imshow(out.data.cpu()[0])``. A parameter
    assigned in the body, used in nested code, or handed on to any other call is not."""
    args = function.args  # type: ignore[attr-defined]
    positional = tuple(a.arg for a in (*args.posonlyargs, *args.args))
    if left_to_subclasses(function):
        # `def _optimize(self, pred, y): raise NotImplementedError`: what a subclass does with them
        # (a backward pass and a step, perhaps) is not known here
        return positional, {}, True
    if own is None:
        own = list(own_nodes(function))
    wanted = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {"self", "cls"}
    converted = _converted_first(function, wanted)  # `p = p.data.squeeze().numpy()`: read, then a copy
    # `p = torch.transpose(p, 0, 1)`: the same values handed back to the name, which stays wanted
    passing = _passing_rebinds(own, wanted, qualified_name)
    dropping = _dropping_rebinds(own, wanted)  # `y_hat = y_hat.argmax(axis=1)`: a read, then values without graph
    # every store of a name one of them (`imgs = imgs.reshape(n, 1, 28, 28)`, `imgs = imgs.clamp(0, 1)`, then
    # `imgs = make_grid(imgs).detach().cpu().numpy()`): the name stays wanted; otherwise it is not
    stores: dict = {}
    for node in own:
        if type(node) is ast.Name and type(node.ctx) is ast.Store and node.id in wanted:  # type: ignore[attr-defined]
            stores[node.id] = stores.get(node.id, 0) + 1  # type: ignore[attr-defined]
    kept = {
        name
        for name in stores
        if sum(1 for statement in (*passing, *dropping) if statement.targets[0].id == name) == stores[name]
    }
    passing = [statement for statement in passing if statement.targets[0].id in kept]
    dropping = [statement for statement in dropping if statement.targets[0].id in kept]
    rebound = {id(t) for statement in (*passing, *dropping) for t in statement.targets}
    wanted -= {n.id for n in own if type(n) is ast.Name and type(n.ctx) is not ast.Load and id(n) not in rebound}
    wanted -= _names_in_nested_code(own, wanted)
    # (a comprehension runs where it stands: `[torch.autograd.grad(out[:, i], x)[0] for i in ...]`)
    backpropagates = any(
        type(n) is ast.Call and _is_backward(n, qualified_name)  # type: ignore[arg-type]
        for n in (*own, *comprehension_nodes(own))
    )
    if not wanted:
        return positional, {name: _VALUE for name in converted}, backpropagates
    uses: dict = {name: [] for name in wanted}
    reads: dict = {}
    for node in own:
        t = type(node)
        if t is ast.Name:
            if node.id in wanted and id(node) not in rebound:
                uses[node.id].append(node)
        elif t is ast.Call:
            _classify_call(node, wanted, qualified_name, {}, reads)
        elif t in _READING_NODES:
            _classify_read(node, t, wanted, reads, displayed=False)  # a function's statement shows nothing
        elif t is ast.For:
            for base, kind in _loop_read(node, wanted, qualified_name):
                reads[id(base)] = kind  # `for p in predicted: ... p.detach().numpy()`
        elif t in COMPREHENSION_TYPES:
            for base, kind in _comprehension_reads(node, wanted, qualified_name):
                reads[id(base)] = kind  # `[np.argmax(p.detach().numpy()) for p in predicted]`
    for statement in passing:
        for sub in walk_in_order(statement.value):
            if type(sub) is ast.Name and sub.id in wanted:
                reads.setdefault(id(sub), _METADATA)  # handed back to the name itself: neutral
    for statement in dropping:
        for sub in walk_in_order(statement.value):
            if type(sub) is ast.Name and sub.id in wanted:
                reads[id(sub)] = _VALUE
    for node in own:
        if type(node) is ast.Assign and _indices_taken(node, wanted, qualified_name):
            base = _base_name(node.value.args[0], wanted)  # type: ignore[attr-defined]
            reads[id(base)] = _VALUE  # `_, indices = torch.max(p, 0)`: the values dropped
    reads.update(_sampled_distributions(own, wanted, qualified_name))
    reads.update(_copied_into_a_detached_buffer(own, wanted, qualified_name))
    kinds: dict = {name: _VALUE for name in converted}
    for name, found in uses.items():
        read = [reads.get(id(use)) for use in found]
        if read and all(kind in (_VALUE, _METADATA) for kind in read):
            kinds[name] = _VALUE if _VALUE in read else _METADATA
    return positional, kinds, backpropagates


def _copied_into_a_detached_buffer(own: list, wanted: set, qualified_name) -> dict:
    """{id(use): _VALUE} for the wanted names whose values are written into a buffer the function
    makes (``ret = torch.zeros(h, w, c)``, then ``ret[:, :, i] = image[i]``) and reads only
    detached (``return ret.detach().numpy()``): what leaves holds no graph of theirs."""
    found: dict = {}
    for node in own:
        if not (
            type(node) is ast.Assign
            and len(node.targets) == 1  # type: ignore[attr-defined]
            and type(node.targets[0]) is ast.Name  # type: ignore[attr-defined]
            and type(node.value) is ast.Call  # type: ignore[attr-defined]
            and (qualified_name(node.value.func) or "").rpartition(".")[::2] in _BUFFER_FACTORIES  # type: ignore[attr-defined]
        ):
            continue
        buffer = node.targets[0].id  # type: ignore[attr-defined]
        writes = []
        for sub in own:
            if type(sub) is ast.Assign and any(
                type(t) is ast.Subscript and type(t.value) is ast.Name and t.value.id == buffer
                for t in sub.targets  # type: ignore[attr-defined]
            ):
                writes.append(sub)
        uses = [sub for sub in own if type(sub) is ast.Name and sub.id == buffer and type(sub.ctx) is ast.Load]  # type: ignore[attr-defined]
        written = {id(t.value) for w in writes for t in w.targets if type(t) is ast.Subscript}  # type: ignore[attr-defined]
        stores = [sub for sub in own if type(sub) is ast.Name and sub.id == buffer and type(sub.ctx) is ast.Store]  # type: ignore[attr-defined]
        if not writes or len(stores) != 1 or not all(id(use) in written or _detached_at_once(own, use) for use in uses):
            continue
        for write in writes:
            base = _base_name(write.value, wanted)  # type: ignore[attr-defined]
            if base is not None:
                found[id(base)] = _VALUE
    return found


def _detached_at_once(own: list, use: ast.Name) -> bool:
    """Whether a name's use is the receiver of ``.detach()`` (``ret.detach().numpy()``)."""
    return any(
        type(node) is ast.Call
        and type(node.func) is ast.Attribute  # type: ignore[attr-defined]
        and node.func.value is use  # type: ignore[attr-defined]
        and node.func.attr == "detach"  # type: ignore[attr-defined]
        for node in own
    )


# `torch.zeros(...)` and the like: a buffer of its own, without graph.
_BUFFER_FACTORIES = frozenset(("torch", name) for name in SHAPE_FACTORIES)


def _made_before_the_loop(statement: ast.stmt, written: ast.stmt, parent_of, qualified_name) -> bool:
    """Whether the buffer ``written`` writes into is made by a torch factory in a statement of the
    block holding the loop around ``statement``, before that loop (``pred_y = torch.zeros(n, d)``,
    then ``for i, x in enumerate(chunks): ...``): a cheap look before the scope's walk."""
    target = written.targets[0] if type(written) is ast.Assign else written.target  # type: ignore[attr-defined]
    buffer = target.value.id if type(target.value) is ast.Name else None  # type: ignore[attr-defined]
    loop = parent_of(statement)
    while loop is not None and not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        loop = parent_of(loop)
    holder = parent_of(loop) if loop is not None else None
    block = getattr(holder, "body", None) or []
    if buffer is None or loop not in block:
        return False
    for earlier in block[: block.index(loop)]:
        if type(earlier) is ast.Assign and any(type(t) is ast.Name and t.id == buffer for t in earlier.targets):
            if _made_by_buffer_factory(earlier.value, qualified_name):
                return True
    return False


# Methods handing back a tensor's values moved or cast, on the way to a `.detach()`.
_MOVING_METHODS = frozenset({"cpu", "cuda", "to", "float", "double", "half"})


def _unmoved(expr: Optional[ast.AST]) -> Optional[ast.AST]:
    """What a chain of ``_MOVING_METHODS`` is called on (``pred_y`` of ``pred_y.cpu()``)."""
    while (
        type(expr) is ast.Call
        and type(expr.func) is ast.Attribute  # type: ignore[union-attr]
        and expr.func.attr in _MOVING_METHODS  # type: ignore[union-attr]
    ):
        expr = expr.func.value  # type: ignore[union-attr]
    return expr


def _made_by_buffer_factory(value: Optional[ast.AST], qualified_name) -> bool:
    """``torch.zeros([n, d])``, also moved or cast (``torch.zeros([n, d]).to(device)``)."""
    factory = _unmoved(value)
    return (
        type(factory) is ast.Call and (qualified_name(factory.func) or "").rpartition(".")[::2] in _BUFFER_FACTORIES  # type: ignore[union-attr]
    )


def written_into_detached_buffer(call: ast.Call, parent_of, scope: ast.AST, qualified_name) -> bool:
    """Whether a call's result is written into a buffer the scope makes with a torch factory
    (``preds = torch.zeros(T)``, then ``preds[i] = net(preds[i - 4:i])``) whose every other use is a
    write into it, a read computing what is written back into it (a k-step prediction), or a read
    detached at once, itself or a slice of it (``preds[n:].detach().numpy()``): what the call
    computes leaves the buffer only without its graph."""
    statement = parent_of(call)
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parent_of(statement)
    body = scope.body if not isinstance(scope, ast.Lambda) else []  # type: ignore[attr-defined]
    every: list = []
    if type(statement) is ast.Assign and len(statement.targets) == 1 and type(statement.targets[0]) is ast.Name:  # type: ignore[attr-defined]
        # `pred_y_i = net(x)[0][-1]`, then `pred_y[10 * i:10 * (i + 1)] += pred_y_i`: the name's one
        # use is the write into the buffer, a later statement of the same block
        name = statement.targets[0].id  # type: ignore[attr-defined]
        block = next(
            (
                getattr(parent_of(statement), field)
                for field in ("body", "orelse", "finalbody")
                if statement in getattr(parent_of(statement), field, ())
            ),
            [],
        )
        written = next(
            (
                later
                for later in block[block.index(statement) + 1 :]
                if type(later) in (ast.Assign, ast.AugAssign)
                and type(later.value) is ast.Name  # type: ignore[attr-defined]
                and later.value.id == name  # type: ignore[attr-defined]
                and type(later.targets[0] if type(later) is ast.Assign else later.target) is ast.Subscript  # type: ignore[attr-defined]
            ),
            None,
        )
        if written is None or not _made_before_the_loop(statement, written, parent_of, qualified_name):
            return False
        every = [node for stmt in body for node in walk_in_order(stmt)]
        uses = [node for node in every if type(node) is ast.Name and node.id == name]  # type: ignore[attr-defined]
        loads = [node for node in uses if type(node.ctx) is ast.Load]  # type: ignore[attr-defined]
        if len(uses) != 2 or len(loads) != 1:
            return False
        statement = parent_of(loads[0])
        if not (type(statement) in (ast.Assign, ast.AugAssign) and statement.value is loads[0]):  # type: ignore[attr-defined]
            return False
    target = (
        statement.targets[0]  # type: ignore[attr-defined]
        if type(statement) is ast.Assign and len(statement.targets) == 1  # type: ignore[attr-defined]
        else statement.target  # type: ignore[attr-defined]
        if type(statement) is ast.AugAssign
        else None
    )
    if not (type(target) is ast.Subscript and type(target.value) is ast.Name):  # type: ignore[union-attr]
        return False
    buffer = target.value.id  # type: ignore[union-attr]
    if not every:
        every = [node for stmt in body for node in walk_in_order(stmt)]
    at = (statement.lineno, statement.col_offset)
    bindings = sorted(
        (
            node
            for node in every
            if type(node) is ast.Name and node.id == buffer and type(node.ctx) is not ast.Load  # type: ignore[attr-defined]
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    before = [b for b in bindings if (b.lineno, b.col_offset) < at]
    made = parent_of(before[-1]) if before else None
    if type(made) is not ast.Assign or not _made_by_buffer_factory(made.value, qualified_name):  # type: ignore[union-attr]
        return False
    # the buffer's life: from the factory call to the next binding of its name
    start = (made.lineno, made.col_offset)
    later = [b for b in bindings if (b.lineno, b.col_offset) > at]
    stop = (later[0].lineno, later[0].col_offset) if later else None
    nodes = [
        node
        for node in every
        if start <= (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        and (stop is None or (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) < stop)
    ]
    writes = [
        node
        for node in nodes
        if type(node) in (ast.Assign, ast.AugAssign)
        and any(
            type(t) is ast.Subscript and type(t.value) is ast.Name and t.value.id == buffer  # type: ignore[attr-defined]
            for t in (node.targets if type(node) is ast.Assign else [node.target])  # type: ignore[attr-defined]
        )
    ]
    allowed = {id(t.value) for w in writes for t in (w.targets if type(w) is ast.Assign else [w.target])}  # type: ignore[attr-defined]
    allowed.update(id(sub) for w in writes for sub in walk_in_order(w.value))  # type: ignore[attr-defined]
    for node in nodes:
        if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "detach":  # type: ignore[attr-defined]
            receiver = _unmoved(node.func.value)  # type: ignore[attr-defined]  # `pred_y.cpu().detach()`
            allowed.add(id(receiver.value) if type(receiver) is ast.Subscript else id(receiver))  # type: ignore[attr-defined]
    uses = [node for node in nodes if type(node) is ast.Name and node.id == buffer and type(node.ctx) is ast.Load]  # type: ignore[attr-defined]
    return bool(uses) and all(id(use) in allowed for use in uses)


def _sampled_distributions(own: list, wanted: set, qualified_name) -> dict:
    """{id(use): _VALUE} for the wanted names handed to a torch distribution bound to a name
    that is only sampled (``m = Categorical(prob)``, then ``m.sample().item()``): a sample
    carries no graph (``rsample`` and ``log_prob`` would)."""
    found: dict = {}
    parents: Optional[dict] = None
    for node in own:
        if not (type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name):  # type: ignore[attr-defined]
            continue
        value = node.value  # type: ignore[attr-defined]
        if type(value) is not ast.Call or not (qualified_name(value.func) or "").startswith("torch.distributions."):
            continue
        name = node.targets[0].id  # type: ignore[attr-defined]
        uses = [n for n in own if type(n) is ast.Name and n.id == name and type(n.ctx) is ast.Load]  # type: ignore[attr-defined]
        if parents is None:
            parents = {id(child): parent for parent in own for child in ast.iter_child_nodes(parent)}
        if not uses or not all(
            type(parents.get(id(use))) is ast.Attribute
            and parents[id(use)].attr in ("sample", "sample_n")  # type: ignore[attr-defined]
            and type(parents.get(id(parents[id(use)]))) is ast.Call
            for use in uses
        ):
            continue
        for argument in (*value.args, *(k.value for k in value.keywords)):
            base = _base_name(argument, wanted)
            if base is not None:
                found[id(base)] = _VALUE
    return found


# torch functions handing back the values of their first argument, reshaped or moved.
_PASSING_FUNCTIONS = frozenset(
    {"transpose", "reshape", "permute", "squeeze", "unsqueeze", "flatten", "t", "movedim", "swapaxes", "swapdims"}
)


# Methods computing, element by element, new values from a tensor alone (`imgs.clamp(0, 1)`): the
# name they are bound back to holds the same graph, one step longer.
_ELEMENTWISE_PASSING = frozenset(
    {"clamp", "clip", "clamp_min", "clamp_max", "abs", "sigmoid", "tanh", "exp", "relu", "neg"}
)


def _passing_rebinds(own: list, wanted: set, qualified_name) -> list:
    """The assignments ``p = torch.transpose(p, 0, 1)`` / ``p = p.view(-1)`` / ``p = p.clamp(0, 1)``
    that give a wanted name its own values back, reshaped or mapped element by element (the caller
    keeps them where every store of the name is one of them or of ``_dropping_rebinds``)."""
    found: dict = {}
    for node in own:
        if type(node) is not ast.Assign or len(node.targets) != 1 or type(node.targets[0]) is not ast.Name:  # type: ignore[attr-defined]
            continue
        name = node.targets[0].id  # type: ignore[attr-defined]
        value = node.value  # type: ignore[attr-defined]
        if name not in wanted or type(value) is not ast.Call:
            continue
        func = value.func
        if (
            type(func) is ast.Attribute
            and (func.attr in ALIAS_METHODS or func.attr in _ELEMENTWISE_PASSING)
            and _base_name(func.value, {name}) is not None
        ):
            found.setdefault(name, []).append(node)  # `p = p.view(-1)`, `p = p.clamp(0, 1)`
        elif (
            value.args
            and type(value.args[0]) is ast.Name
            and value.args[0].id == name
            and (qualified_name(func) or "").rsplit(".", 1)[-1] in _PASSING_FUNCTIONS
            and (qualified_name(func) or "").startswith("torch.")
        ):
            found.setdefault(name, []).append(node)  # `p = torch.transpose(p, 0, 1)`
    return [node for nodes in found.values() for node in nodes]


def _dropping_rebinds(own: list, wanted: set) -> list:
    """The assignments ``y_hat = y_hat.argmax(axis=1)`` / ``p = p.data.cpu().numpy()`` that read
    a wanted name through a step leaving no graph and bind the result to it (d2l's ``accuracy``):
    what the name holds after one is a copy without graph."""
    found: dict = {}
    for node in own:
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:  # type: ignore[attr-defined]
            name = node.targets[0].id  # type: ignore[attr-defined]
            if name in wanted and (
                _drops_graph(node.value, name, GRAD_DROPPING | GRAPH_ENDING_STEPS)  # type: ignore[attr-defined]
                or _read_on_the_way_only(node.value, name)  # type: ignore[attr-defined]
            ):
                found.setdefault(name, []).append(node)
    return [node for nodes in found.values() for node in nodes]


def _read_on_the_way_only(value: ast.AST, name: str) -> bool:
    """``make_grid(imgs, nrow=8).detach().cpu().numpy()``: every use of ``name`` in ``value`` is
    read on the way up (whatever the call does with it, its result is detached at once)."""
    found = _reads_on_the_way(value, {name}, {})
    return bool(found) and all(read is _VALUE for _, read in found)


def _indices_taken(node: ast.Assign, wanted: set, qualified_name) -> bool:
    """``_, indices = torch.max(p, 0)``: only the indices of a reduction over a wanted name kept."""
    value = node.value
    if not (
        len(node.targets) == 1
        and type(node.targets[0]) is ast.Tuple
        and len(node.targets[0].elts) == 2
        and type(node.targets[0].elts[0]) is ast.Name
        and node.targets[0].elts[0].id == "_"
        and type(value) is ast.Call
        and value.args
        and (value.args[1:] or value.keywords)
    ):
        return False
    qual = qualified_name(value.func) or ""
    return (
        qual.startswith("torch.")
        and qual.rsplit(".", 1)[-1] in VALUES_AND_INDICES_METHODS | VALUES_AND_INDICES_ALONG_A_DIMENSION
        and _base_name(value.args[0], wanted) is not None
    )


def _converted_first(function: ast.AST, parameters: set) -> set:
    """Parameters whose first use is one assignment of a copy without graph to the same name,
    and that are assigned nowhere else: ``p = p.data.squeeze().numpy()`` reads ``p``; what the
    name holds after it is that copy."""
    found = set()
    stores: dict = {}
    for node in walk_in_order(function):
        if type(node) is ast.Name and type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
            stores[node.id] = stores.get(node.id, 0) + 1  # type: ignore[attr-defined]
    for name in parameters:
        if stores.get(name) != 1:
            continue
        for statement in function.body:  # type: ignore[attr-defined]
            if not any(type(n) is ast.Name and n.id == name for n in walk_in_order(statement)):  # type: ignore[attr-defined]
                continue
            if (
                type(statement) is ast.Assign
                and len(statement.targets) == 1  # type: ignore[attr-defined]
                and type(statement.targets[0]) is ast.Name  # type: ignore[attr-defined]
                and statement.targets[0].id == name  # type: ignore[attr-defined]
                and _drops_graph(statement.value, name)  # type: ignore[attr-defined]
            ):
                found.add(name)
            break
    return found


def _drops_graph(value: ast.AST, name: str, steps: frozenset = GRAPH_ENDING_STEPS) -> bool:
    """``p.data.squeeze().numpy()``: ``name`` read through a step that drops the graph (one of
    ``steps``), and nowhere else in ``value``."""
    dropped = False
    node = value
    while True:
        if type(node) is ast.Call:
            if any(type(n) is ast.Name and n.id == name for a in node.args for n in walk_in_order(a)):  # type: ignore[attr-defined]
                return False
            node = node.func  # type: ignore[attr-defined]
        elif type(node) is ast.Attribute:
            dropped = dropped or node.attr in steps  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        elif type(node) is ast.Subscript:
            node = node.value  # type: ignore[attr-defined]
        else:
            return dropped and type(node) is ast.Name and node.id == name  # type: ignore[attr-defined]
