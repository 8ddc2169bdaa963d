"""The single pass over a module that keeps ``FileContext``'s position up to date.

Two things keep the walk short. A rule runs only on files holding one of its ``triggers``,
and a rule is shown a function only when one of its ``function_triggers`` occurs in the
function's text: a function in which no active rule's trigger occurs is not walked at all
(``FileContext.skipped_functions`` lists those), and in the others each node goes only to
the handlers of the rules that see the function. Parent links inside expressions are made
on first use (``FileContext.parent``).
"""

from __future__ import annotations

import ast
from functools import cache
from typing import Any, Callable, Optional, Sequence, Union, cast

from gradguard.check.analysis.grad_mode import BOUNDARY, MAYBE, SET_ENABLED_NAMES, GradRegion, classify_grad_mode
from gradguard.check.engine.context import FileContext
from gradguard.check.engine.errors import RuleFailure
from gradguard.check.triggers import TextSearch, Trigger

# A rule's bound visit_/leave_ method.
Handler = Callable[[Any, FileContext], object]

# Fields that never hold AST nodes, per node type: the walk does not look at them.
_SCALAR_FIELDS = {
    "Name": ("id",),
    "Attribute": ("attr",),
    "Constant": ("value", "kind"),
    "arg": ("arg", "type_comment"),
    "keyword": ("arg",),
    "alias": ("name", "asname"),
    "ImportFrom": ("module", "level"),
    "FunctionDef": ("name", "type_comment"),
    "AsyncFunctionDef": ("name", "type_comment"),
    "ClassDef": ("name",),
    "Global": ("names",),
    "Nonlocal": ("names",),
    "FormattedValue": ("conversion",),
    "comprehension": ("is_async",),
    "AnnAssign": ("simple",),
    "Assign": ("type_comment",),
    "For": ("type_comment",),
    "AsyncFor": ("type_comment",),
    "With": ("type_comment",),
    "AsyncWith": ("type_comment",),
    "ExceptHandler": ("name",),
    "MatchAs": ("name",),
    "MatchStar": ("name",),
    "MatchMapping": ("rest",),
    "MatchClass": ("kwd_attrs",),
    "TypeIgnore": ("lineno", "tag"),
}
# Fields holding the parser's shared singletons (Load/Store/Del, operators): visited only when
# some rule has a handler for those node types.
_SINGLETON_FIELDS: dict[str, Union[type, tuple[type, ...]]] = {
    "ctx": ast.expr_context,
    "op": (ast.operator, ast.boolop, ast.unaryop),
    "ops": ast.cmpop,
}
_SET_ENABLED_LAST_NAMES = frozenset(name.rsplit(".", 1)[1] for name in SET_ENABLED_NAMES)
_SINGLETON_TYPES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


@cache
def _handler_names(rule_class: type[object]) -> tuple[tuple[bool, type, str], ...]:
    """(is_enter, node type, method name) for each visit_/leave_ method of a rule class."""
    out: list[tuple[bool, type, str]] = []
    for attr in dir(rule_class):
        if attr.startswith("visit_") or attr.startswith("leave_"):
            node_type = getattr(ast, attr[6:], None)
            if isinstance(node_type, type):
                out.append((attr.startswith("visit_"), node_type, attr))
    return tuple(out)


# Node types that only occur inside expressions (besides ast.expr subclasses).
_EXPR_TYPES = frozenset(
    t for t in vars(ast).values() if isinstance(t, type) and issubclass(t, ast.expr) and t is not ast.expr
)
_EXPR_PARTS = frozenset({ast.comprehension, ast.keyword, ast.arguments, ast.arg})

# Child fields per node type, per set of skipped singleton fields (shared by every walk).
_FIELDS_CACHE: dict[frozenset[str], dict[type, tuple[str, ...]]] = {}


def _call_handlers(handlers: list[Handler], node: ast.AST, ctx: FileContext) -> None:
    """Run rule handlers on a node; a rule's exception becomes a RuleFailure naming it."""
    try:
        for handler in handlers:
            handler(node, ctx)
    except RecursionError:
        raise
    except Exception as exc:
        raise RuleFailure(handler, node, exc) from exc


class FunctionTriggers:
    """Which rules' function triggers occur in a stretch of the text (a function's lines).

    Rule ``i`` of the walk is bit ``1 << i``; a rule without function triggers is in every
    answer. For each rule the nearest occurrence of one of its triggers is remembered: the
    walk asks about functions in text order, so most answers need no search at all.
    """

    def __init__(self, search: TextSearch, rule_triggers: Sequence[Optional[Sequence[Trigger]]]):
        self.search = search
        self.always = 0  # rules that see every function
        self._triggers: dict[int, Sequence[Trigger]] = {}
        for i, triggers in enumerate(rule_triggers):
            if triggers is None:
                self.always |= 1 << i
            else:
                self._triggers[1 << i] = triggers
        # Per rule bit: (start of the last search, nearest occurrence at or after it; -1: none).
        self._nearest: dict[int, tuple[int, int]] = {}

    def rules_in(self, start: int, end: int, candidates: int) -> int:
        """The rules among ``candidates`` whose trigger occurs between ``start`` and ``end``.

        The stretch ends at a line end and no trigger spans lines: an occurrence starting in
        it lies within it.
        """
        found = self.always & candidates
        nearest_of = self._nearest
        for bit, triggers in self._triggers.items():
            if candidates & bit:
                cached = nearest_of.get(bit)
                if cached is not None and cached[0] <= start and (cached[1] < 0 or cached[1] >= start):
                    nearest = cached[1]
                else:
                    nearest = -1
                    next_at = self.search.next_at
                    for trigger in triggers:
                        at = next_at(trigger, start)
                        if at >= 0 and (nearest < 0 or at < nearest):
                            nearest = at
                    nearest_of[bit] = (start, nearest)
                if 0 <= nearest < end:
                    found |= bit
        return found


class Walker:
    """Single pass over a module that keeps FileContext's position up to date."""

    def __init__(self, rules: Sequence[object], ctx: FileContext, function_triggers: Optional[FunctionTriggers] = None):
        self.ctx = ctx
        # Which rules see which function (None: every rule sees every function).
        self._function_triggers = function_triggers
        self._rules = list(rules)
        self._all_rules = (1 << len(self._rules)) - 1
        self._rules_here = self._all_rules  # the rules that see the code being walked (bits)
        self._tables: dict[int, tuple[dict[type, list[Handler]], dict[type, list[Handler]], frozenset[type]]] = {}
        handled = {node_type for rule in self._rules for _, node_type, _ in _handler_names(type(rule))}  # type: ignore[arg-type]
        self._skip_fields = frozenset(
            name for name, base in _SINGLETON_FIELDS.items() if not any(issubclass(t, base) for t in handled)
        )
        self.enter, self.leave, self._leaves = self._handlers(self._all_rules)
        self._fields: dict[type, tuple[str, ...]] = _FIELDS_CACHE.setdefault(self._skip_fields, {})
        self.visited: list[ast.AST] = []  # every node given a parent link, to unlink after the walk
        self._pending: list[ast.AST] = []  # expression roots whose inner nodes have no parent links yet
        self._linked_all = False  # every node of the tree has its parent link
        # The flat expression loop has no leave_ hooks: use it only when no rule needs one
        # for a node that can occur inside an expression.
        self._flat_expressions = not any(t in _EXPR_TYPES or t in _EXPR_PARTS for t in self.leave)

    def _handlers(
        self, rules_bits: int
    ) -> tuple[dict[type, list[Handler]], dict[type, list[Handler]], frozenset[type]]:
        """The enter and leave handlers of the given rules by node type, and the expression
        leaves none of them handles (the flat loop does not even push those)."""
        tables = self._tables.get(rules_bits)
        if tables is not None:
            return tables
        enter: dict[type, list[Handler]] = {}
        leave: dict[type, list[Handler]] = {}
        for i, rule in enumerate(self._rules):
            if rules_bits >> i & 1:
                for is_enter, node_type, attr in _handler_names(type(rule)):  # type: ignore[arg-type]  # classes hash
                    table = enter if is_enter else leave
                    table.setdefault(node_type, []).append(getattr(rule, attr))
        leaves = frozenset(
            t
            for t in (ast.Name, ast.Constant)
            if t not in enter and t not in leave and (t is ast.Constant or "ctx" in self._skip_fields)
        )
        tables = self._tables[rules_bits] = (enter, leave, leaves)
        return tables

    def _child_fields(self, t: type[ast.AST]) -> tuple[str, ...]:
        scalar = _SCALAR_FIELDS.get(t.__name__, ())
        fields = tuple(f for f in t._fields if f not in scalar and f not in self._skip_fields)
        self._fields[t] = fields
        return fields

    def run(self) -> None:
        self.ctx.linker = self
        self.visit(self.ctx.tree, None)

    def parent_of(self, node: ast.AST) -> Optional[ast.AST]:
        """The parent of a node not linked yet: the expressions walked so far are linked, the
        latest first (the node a rule is looking at lies in the one being walked), until the
        node is; a node the walk has not reached (look-ahead) links the whole tree."""
        pending = self._pending
        while pending:
            self.link([pending.pop()])
            found: Optional[ast.AST] = getattr(node, "_gg_parent", None)
            if found is not None:
                return found
        if not self._linked_all:
            self._linked_all = True
            self.link([self.ctx.tree])
        linked: Optional[ast.AST] = getattr(node, "_gg_parent", None)
        return linked

    def link(self, roots: list[ast.AST]) -> None:
        """Link every node under ``roots`` to its parent (where not linked already)."""
        mark = self.visited.append
        fields_of = self._fields
        AST = ast.AST
        stack = list(roots)
        pop = stack.pop
        push = stack.append
        while stack:
            node = pop()
            t = type(node)
            fields = fields_of.get(t)
            if fields is None:
                fields = self._child_fields(t)
            for field in fields:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    for item in value:
                        if item is not None:
                            if getattr(item, "_gg_parent", None) is None:
                                item._gg_parent = node
                                mark(item)
                            push(item)
                elif isinstance(value, AST):
                    if getattr(value, "_gg_parent", None) is None:
                        value._gg_parent = node  # type: ignore[attr-defined]
                        mark(value)
                    push(value)

    def unlink(self) -> None:
        """Drop the parent links once the file is done.

        Child -> parent links make every tree one big reference cycle, which only the
        garbage collector could free: over thousands of files that collector then spent
        about as long as the walk itself. Unlinked, a tree is freed as soon as it is unused.
        """
        for node in self.visited:
            node._gg_parent = None  # type: ignore[attr-defined]
        self.visited = []
        self.ctx.linker = None

    def visit(self, node: ast.AST, parent: Optional[ast.AST]) -> None:
        t = type(node)
        if t in _EXPR_TYPES and self._flat_expressions:
            self._visit_expression(node, parent)
            return
        node._gg_parent = parent  # type: ignore[attr-defined]
        self.visited.append(node)
        handlers = self.enter.get(t)
        if handlers:
            _call_handlers(handlers, node, self.ctx)
        special = _SPECIAL.get(t)
        if special is not None:
            special(self, node)
        else:
            fields = self._fields.get(t)
            if fields is None:
                fields = self._child_fields(t)
            visit = self.visit
            for field in fields:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    if value and isinstance(value[0], ast.stmt):
                        self.visit_block(value, node)
                    else:
                        for item in value:
                            if item is not None:
                                visit(item, node)
                elif isinstance(value, ast.AST):
                    visit(value, node)
        handlers = self.leave.get(t)
        if handlers:
            _call_handlers(handlers, node, self.ctx)

    def _visit_expression(self, root: ast.AST, parent: Optional[ast.AST]) -> None:
        """Visit an expression subtree in pre-order without a Python call per node.

        Expressions hold no statements and change no context, except ``lambda`` (a function
        boundary), which goes back through ``visit``. Most nodes of a module are expressions,
        so this loop is where the walk spends its time: it links only the root to its parent
        (see ``parent_of``) and does not push leaves that no rule handles.
        """
        root._gg_parent = parent  # type: ignore[attr-defined]
        self.visited.append(root)
        self._pending.append(root)
        stack = [root]
        pop = stack.pop
        push = stack.append
        enter = self.enter
        fields_of = self._fields
        leaves = self._leaves
        ctx = self.ctx
        AST = ast.AST
        lambda_type = ast.Lambda
        while stack:
            node = pop()
            t = type(node)
            if t is lambda_type:
                self._visit_lambda_node(cast(ast.Lambda, node))
                continue
            handlers = enter.get(t)
            if handlers:
                _call_handlers(handlers, node, ctx)
            fields = fields_of.get(t)
            if fields is None:
                fields = self._child_fields(t)
            # Children are pushed last-first so that they are visited in field order.
            for field in reversed(fields):
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    for item in reversed(value):
                        if item is not None and type(item) not in leaves:
                            push(item)
                elif type(value) not in leaves and isinstance(value, AST):
                    push(value)

    def _visit_lambda_node(self, node: ast.Lambda) -> None:
        """A lambda met inside an expression (linked to its parent with that expression)."""
        handlers = self.enter.get(ast.Lambda)
        if handlers:
            _call_handlers(handlers, node, self.ctx)
        self._visit_lambda(node)
        handlers = self.leave.get(ast.Lambda)
        if handlers:
            _call_handlers(handlers, node, self.ctx)

    def _visit_class(self, node: ast.ClassDef) -> None:
        ctx = self.ctx
        for child in node.decorator_list + node.bases + node.keywords:
            self.visit(child, node)
        ctx.scopes.append(node)
        self.visit_block(node.body, node)
        ctx.scopes.pop()

    def _visit_lambda(self, node: ast.Lambda) -> None:
        ctx = self.ctx
        self.visit(node.args, node)
        ctx.scopes.append(node)
        ctx.grad_stack.append(GradRegion(BOUNDARY, node, "function"))
        self.visit(node.body, node)
        ctx.grad_stack.pop()
        ctx.scopes.pop()

    def _visit_loop(self, node: Union[ast.For, ast.AsyncFor, ast.While]) -> None:
        ctx = self.ctx
        if isinstance(node, ast.While):
            self.visit(node.test, node)
            ctx.loops.append(node)
        else:
            self.visit(node.iter, node)
            ctx.loops.append(node)
            self.visit(node.target, node)
        self.visit_block(node.body, node)
        ctx.loops.pop()
        self.visit_block(node.orelse, node)

    def visit_block(self, body: list[ast.stmt], parent: ast.AST) -> None:
        """Visit statements; ``torch.set_grad_enabled(b)`` as a statement rules the rest of the block."""
        pushed = 0
        ctx = self.ctx
        for stmt in body:
            self.visit(stmt, parent)
            if type(stmt) is ast.Expr and type(stmt.value) is ast.Call:
                func = stmt.value.func
                if not ctx.imports.may_name(func, _SET_ENABLED_LAST_NAMES):
                    continue
                qual = ctx.imports.qualified_name(func)
                if qual in SET_ENABLED_NAMES:
                    kind = classify_grad_mode(stmt.value, ctx.imports) or MAYBE
                    ctx.grad_stack.append(GradRegion(kind, stmt, "statement"))
                    pushed += 1
        if pushed:
            del ctx.grad_stack[-pushed:]

    def _visit_with(self, node: Union[ast.With, ast.AsyncWith]) -> None:
        ctx = self.ctx
        pushed = 0
        for item in node.items:
            self.visit(item, node)
            kind = classify_grad_mode(item.context_expr, ctx.imports)
            if kind is not None:
                ctx.grad_stack.append(GradRegion(kind, item, "with"))
                pushed += 1
        self.visit_block(node.body, node)
        if pushed:
            del ctx.grad_stack[-pushed:]

    def _visit_function(self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> None:
        ctx = self.ctx
        triggers = self._function_triggers
        outer_rules = self._rules_here
        if triggers is not None:
            src = ctx.source
            starts = src.line_starts
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            last = node.end_lineno or node.lineno  # always set by the parser
            end = starts[last] if last < len(starts) else len(src.text)
            rules_here = triggers.rules_in(starts[first - 1], end, outer_rules)
            if not rules_here:
                ctx.skipped_functions.append(node)
                return
            if rules_here != outer_rules:
                self._rules_here = rules_here
                self.enter, self.leave, self._leaves = self._handlers(rules_here)
        for child in node.decorator_list:
            self.visit(child, node)
        self.visit(node.args, node)
        if node.returns is not None:
            self.visit(node.returns, node)
        ctx.scopes.append(node)
        ctx.grad_stack.append(GradRegion(BOUNDARY, node, "function"))
        outer_loops, ctx.loops = ctx.loops, []  # loops of the current function body only
        pushed = 1
        for deco in node.decorator_list:
            kind = classify_grad_mode(deco, ctx.imports)
            if kind is not None:
                ctx.grad_stack.append(GradRegion(kind, deco, "decorator"))
                pushed += 1
        self.visit_block(node.body, node)
        del ctx.grad_stack[-pushed:]
        ctx.loops = outer_loops
        ctx.scopes.pop()
        if self._rules_here != outer_rules:
            self._rules_here = outer_rules
            self.enter, self.leave, self._leaves = self._handlers(outer_rules)


# Node types whose children are visited in a special order, with context kept. (Plain
# functions, not bound methods: a walker holding its own bound methods would be a cycle.)
_SPECIAL: dict[type, Callable[[Walker, Any], None]] = {
    ast.With: Walker._visit_with,
    ast.AsyncWith: Walker._visit_with,
    ast.FunctionDef: Walker._visit_function,
    ast.AsyncFunctionDef: Walker._visit_function,
    ast.ClassDef: Walker._visit_class,
    ast.Lambda: Walker._visit_lambda,
    ast.For: Walker._visit_loop,
    ast.AsyncFor: Walker._visit_loop,
    ast.While: Walker._visit_loop,
}
