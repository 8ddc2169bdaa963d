"""The one engine behind every front end: parse a file once, walk it once, run the rules.

Rules see nodes through ``visit_<NodeType>`` / ``leave_<NodeType>`` methods and ask the
``FileContext`` where they are: inside which function and class, inside which loops, and
whether grad mode is (certainly or possibly) disabled there.

Two things keep the walk short. A rule runs only on files holding one of its ``triggers``,
and a function is not walked at all when none of the active rules' ``function_triggers``
occurs in its text (``FileContext.skipped_functions`` lists those). Parent links
(``parent()``) inside expressions are made on first use.
"""

from __future__ import annotations

import ast
import bisect
import sys
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Optional, Sequence

from gradguard.diagnostics import Diagnostic, Edit, Fix
from gradguard.semantic import ImportMap, mentions_torch_import
from gradguard.source import SourceError, SourceText, parse

# Grad-mode region kinds.
NO_GRAD = "no_grad"
INFERENCE = "inference_mode"
ENABLE = "enable_grad"
MAYBE = "maybe"  # a context manager that may or may not disable grad
BOUNDARY = "boundary"  # a function body: the caller's grad mode is unknown

_NO_GRAD_NAMES = {
    "torch.no_grad",
    "torch.autograd.no_grad",
    "torch.autograd.grad_mode.no_grad",
}
_INFERENCE_NAMES = {
    "torch.inference_mode",
    "torch.autograd.inference_mode",
    "torch.autograd.grad_mode.inference_mode",
}
_ENABLE_NAMES = {
    "torch.enable_grad",
    "torch.autograd.enable_grad",
    "torch.autograd.grad_mode.enable_grad",
}
_SET_ENABLED_NAMES = {
    "torch.set_grad_enabled",
    "torch.autograd.set_grad_enabled",
    "torch.autograd.grad_mode.set_grad_enabled",
}
GRAD_MODE_NAMES = _NO_GRAD_NAMES | _INFERENCE_NAMES | _ENABLE_NAMES | _SET_ENABLED_NAMES
NO_GRAD_NAMES = frozenset(_NO_GRAD_NAMES)
INFERENCE_NAMES = frozenset(_INFERENCE_NAMES)
GRAD_OFF_NAMES = frozenset(_NO_GRAD_NAMES | _INFERENCE_NAMES | _SET_ENABLED_NAMES)  # what can disable grad


@dataclass
class GradRegion:
    kind: str
    node: ast.AST  # the with-item / decorator / statement that opened it
    via: str  # "with", "decorator", "statement", "function"


def _const_bool(node: Optional[ast.AST]) -> Optional[bool]:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _mentions_grad(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else None
        if name is not None:
            lowered = name.lower()
            if "grad" in lowered or "inference" in lowered:
                return True
    return False


def classify_grad_mode(expr: ast.AST, imports: ImportMap) -> Optional[str]:
    """What a ``with`` item or decorator does to grad mode, or None if nothing."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    qual = imports.qualified_name(target)
    if qual in _NO_GRAD_NAMES:
        return NO_GRAD
    if qual in _ENABLE_NAMES:
        return ENABLE
    if qual in _INFERENCE_NAMES:
        if isinstance(expr, ast.Call):
            arg = expr.args[0] if expr.args else next(
                (k.value for k in expr.keywords if k.arg == "mode"), None
            )
            if arg is not None:
                value = _const_bool(arg)
                if value is None:
                    return MAYBE
                return INFERENCE if value else None
        return INFERENCE
    if qual in _SET_ENABLED_NAMES:
        if isinstance(expr, ast.Call) and expr.args:
            value = _const_bool(expr.args[0])
            if value is None:
                return MAYBE
            return ENABLE if value else NO_GRAD
        return MAYBE
    if _mentions_grad(expr):
        return MAYBE
    return None


class FileContext:
    """Everything a rule may ask about the file and the node being visited."""

    def __init__(self, filename: str, source: SourceText, tree: ast.Module, imports: ImportMap):
        self.filename = filename
        self.source = source
        self.tree = tree
        self.imports = imports
        self.diagnostics: list[Diagnostic] = []
        self.grad_stack: list[GradRegion] = []
        self.scopes: list[ast.AST] = [tree]  # Module, ClassDef, FunctionDef, Lambda
        self.loops: list[ast.AST] = []
        self.cache: dict = {}  # per-file memo for rules and analyses
        self.skipped_functions: list[ast.AST] = []  # not walked: no active rule's function trigger in them

    # -- reporting -------------------------------------------------------------------------
    def report(
        self,
        code: str,
        node: ast.AST,
        message: str,
        fix: Optional[Fix] = None,
        end_node: Optional[ast.AST] = None,
    ) -> None:
        src = self.source
        start = src.node_start(node)
        end = src.node_end(end_node or node)
        diag = Diagnostic(code, message, self.filename, src.position(start), src.position(end), fix)
        if fix is not None:
            diag.extra["edit_positions"] = [(src.position(e.start), src.position(e.end)) for e in fix.edits]
        self.diagnostics.append(diag)

    def replace(self, node: ast.AST, content: str) -> Edit:
        return Edit(self.source.node_start(node), self.source.node_end(node), content)

    def text(self, node: ast.AST) -> str:
        return self.source.segment(node)

    # -- where are we ----------------------------------------------------------------------
    def grad_state(self) -> str:
        """``"disabled"``, ``"maybe"`` or ``"enabled"`` at the current node.

        ``"enabled"`` also covers a function body without its own region: its callers are
        not known, and code is written for the common case of grad being on.
        """
        maybe = False
        for region in reversed(self.grad_stack):
            kind = region.kind
            if kind in (NO_GRAD, INFERENCE):
                return "maybe" if maybe else "disabled"
            if kind == ENABLE:
                return "maybe" if maybe else "enabled"
            if kind == MAYBE:
                maybe = True
            elif kind == BOUNDARY:
                # A nested function defined inside a grad region may run there or later.
                if any(r.kind in (NO_GRAD, INFERENCE, MAYBE) for r in self.grad_stack[: self.grad_stack.index(region)]):
                    maybe = True
                break
        return "maybe" if maybe else "enabled"

    @property
    def grad_disabled(self) -> bool:
        return self.grad_state() == "disabled"

    @property
    def grad_may_be_disabled(self) -> bool:
        return self.grad_state() != "enabled"

    @property
    def in_inference_mode(self) -> bool:
        for region in reversed(self.grad_stack):
            if region.kind == INFERENCE:
                return True
            if region.kind == BOUNDARY:
                return False
        return False

    def innermost_regions(self) -> list[GradRegion]:
        """The grad regions of the current function body, innermost last."""
        out: list[GradRegion] = []
        for region in reversed(self.grad_stack):
            if region.kind == BOUNDARY:
                break
            out.append(region)
        return out[::-1]

    @property
    def function(self) -> Optional[ast.AST]:
        for scope in reversed(self.scopes):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return scope
        return None

    @property
    def class_def(self) -> Optional[ast.ClassDef]:
        """The class whose body (or method body) the current node is in."""
        for scope in reversed(self.scopes):
            if isinstance(scope, ast.ClassDef):
                return scope
        return None

    @property
    def method_class(self) -> Optional[ast.ClassDef]:
        """The class of which the innermost function is a method, if it is one."""
        if len(self.scopes) >= 2 and isinstance(self.scopes[-2], ast.ClassDef) and isinstance(
            self.scopes[-1], (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            return self.scopes[-2]
        return None

    @property
    def scope(self) -> ast.AST:
        return self.scopes[-1]

    def facts(self, scope: Optional[ast.AST] = None):
        """Flow-insensitive facts about the names of a function (see gradguard.tensors)."""
        from gradguard.tensors import scope_facts

        return scope_facts(self, scope if scope is not None else self.scope)


class RuleFailure(Exception):
    """A rule's handler raised: carries the rule and the node it was looking at."""

    def __init__(self, handler: Callable, node: ast.AST, error: BaseException):
        super().__init__(str(error))
        self.rule = getattr(handler, "__self__", None)
        self.node = node
        self.error = error


@dataclass
class InternalError:
    """A bug inside gradguard met while checking one file (never the user's fault).

    ``where`` is the rule code whose code raised, or ``"engine"``. The run goes on: the failing
    rule is dropped for that file only, and the run ends with exit code 2.
    """

    where: str
    filename: str
    row: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"internal error in {self.where} on {self.filename}:{self.row}:{self.column}: {self.message}"


def internal_error(where: str, filename: str, error: BaseException, node: Optional[ast.AST] = None) -> InternalError:
    row = getattr(node, "lineno", None) or 1
    column = (getattr(node, "col_offset", None) or 0) + 1
    text = str(error).splitlines()[0] if str(error) else ""
    message = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return InternalError(where, filename, row, column, message)


# Fields that never hold AST nodes, per node type: the walk does not look at them.
_SCALAR_FIELDS = {
    "Name": ("id",), "Attribute": ("attr",), "Constant": ("value", "kind"), "arg": ("arg", "type_comment"),
    "keyword": ("arg",), "alias": ("name", "asname"), "ImportFrom": ("module", "level"),
    "FunctionDef": ("name", "type_comment"), "AsyncFunctionDef": ("name", "type_comment"), "ClassDef": ("name",),
    "Global": ("names",), "Nonlocal": ("names",), "FormattedValue": ("conversion",), "comprehension": ("is_async",),
    "AnnAssign": ("simple",), "Assign": ("type_comment",), "For": ("type_comment",), "AsyncFor": ("type_comment",),
    "With": ("type_comment",), "AsyncWith": ("type_comment",), "ExceptHandler": ("name",), "MatchAs": ("name",),
    "MatchStar": ("name",), "MatchMapping": ("rest",), "MatchClass": ("kwd_attrs",), "TypeIgnore": ("lineno", "tag"),
}
# Fields holding the parser's shared singletons (Load/Store/Del, operators): visited only when
# some rule has a handler for those node types.
_SINGLETON_FIELDS = {"ctx": ast.expr_context, "op": (ast.operator, ast.boolop, ast.unaryop), "ops": ast.cmpop}
_SINGLETON_TYPES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


@lru_cache(maxsize=None)
def _handler_names(rule_class: type) -> tuple:
    """(is_enter, node type, method name) for each visit_/leave_ method of a rule class."""
    out = []
    for attr in dir(rule_class):
        if attr.startswith("visit_") or attr.startswith("leave_"):
            node_type = getattr(ast, attr[6:], None)
            if isinstance(node_type, type):
                out.append((attr.startswith("visit_"), node_type, attr))
    return tuple(out)


# Node types that only occur inside expressions (besides ast.expr subclasses).
_EXPR_TYPES = frozenset(t for t in vars(ast).values() if isinstance(t, type) and issubclass(t, ast.expr) and t is not ast.expr)
_EXPR_PARTS = frozenset({ast.comprehension, ast.keyword, ast.arguments, ast.arg})

# Child fields per node type, per set of skipped singleton fields (shared by every walk).
_FIELDS_CACHE: dict = {}


def _call_handlers(handlers: list, node: ast.AST, ctx: "FileContext") -> None:
    """Run rule handlers on a node; a rule's exception becomes a RuleFailure naming it."""
    try:
        for handler in handlers:
            handler(node, ctx)
    except RecursionError:
        raise
    except Exception as exc:
        raise RuleFailure(handler, node, exc) from exc


class Walker:
    """Single pass over a module that keeps FileContext's position up to date."""

    def __init__(self, rules: Sequence, ctx: FileContext, function_hits: Optional[list] = None):
        self.ctx = ctx
        # Sorted offsets of the active rules' function triggers in the file (None: walk every function).
        self._function_hits = function_hits
        self.enter: dict[type, list[Callable]] = {}
        self.leave: dict[type, list[Callable]] = {}
        for rule in rules:
            for is_enter, node_type, attr in _handler_names(type(rule)):
                table = self.enter if is_enter else self.leave
                table.setdefault(node_type, []).append(getattr(rule, attr))
        handled = set(self.enter) | set(self.leave)
        self._skip_fields = frozenset(
            name for name, base in _SINGLETON_FIELDS.items() if not any(issubclass(t, base) for t in handled)
        )
        self._fields: dict[type, tuple] = _FIELDS_CACHE.setdefault(self._skip_fields, {})
        self.visited: list = []  # every node given a parent link, to unlink after the walk
        self._pending: list = []  # expression roots whose inner nodes have no parent links yet
        # Expression leaves that no rule handles and that hold no child the walk visits: the
        # flat loop does not even push them.
        self._leaves = frozenset(
            t for t in (ast.Name, ast.Constant)
            if t not in self.enter and t not in self.leave and (t is ast.Constant or "ctx" in self._skip_fields)
        )
        # The flat expression loop has no leave_ hooks: use it only when no rule needs one
        # for a node that can occur inside an expression.
        self._flat_expressions = not any(
            t in _EXPR_TYPES or t in _EXPR_PARTS for t in self.leave
        )

    def _child_fields(self, t: type) -> tuple:
        scalar = _SCALAR_FIELDS.get(t.__name__, ())
        fields = tuple(f for f in t._fields if f not in scalar and f not in self._skip_fields)
        self._fields[t] = fields
        return fields

    def run(self) -> None:
        previous = getattr(_ACTIVE, "walker", None)
        _ACTIVE.walker = self
        try:
            self.visit(self.ctx.tree, None)
        finally:
            _ACTIVE.walker = previous

    def link_pending(self) -> None:
        """Give the inner nodes of the expressions walked so far their parent links.

        The flat expression loop links only each expression's root: most nodes are never asked
        for their parent, so links inside expressions are made here, on the first ``parent()``
        call that needs one, for every expression walked since the last time.
        """
        roots, self._pending = self._pending, []
        self.link(roots)

    def link(self, roots: list) -> None:
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
                        value._gg_parent = node
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
        (see ``link_pending``) and does not push leaves that no rule handles.
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
                self._visit_lambda_node(node)
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

    def _visit_loop(self, node: ast.AST) -> None:
        ctx = self.ctx
        is_while = type(node) is ast.While
        if is_while:
            self.visit(node.test, node)
        else:
            self.visit(node.iter, node)
        ctx.loops.append(node)
        if not is_while:
            self.visit(node.target, node)
        self.visit_block(node.body, node)
        ctx.loops.pop()
        self.visit_block(node.orelse, node)

    def visit_block(self, body: list, parent: ast.AST) -> None:
        """Visit statements; ``torch.set_grad_enabled(b)`` as a statement rules the rest of the block."""
        pushed = 0
        ctx = self.ctx
        for stmt in body:
            self.visit(stmt, parent)
            if type(stmt) is ast.Expr and type(stmt.value) is ast.Call:
                qual = ctx.imports.qualified_name(stmt.value.func)
                if qual in _SET_ENABLED_NAMES:
                    kind = classify_grad_mode(stmt.value, ctx.imports) or MAYBE
                    ctx.grad_stack.append(GradRegion(kind, stmt, "statement"))
                    pushed += 1
        if pushed:
            del ctx.grad_stack[-pushed:]

    def _visit_with(self, node: ast.AST) -> None:
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

    def _visit_function(self, node: ast.AST) -> None:
        ctx = self.ctx
        hits = self._function_hits
        if hits is not None:
            src = ctx.source
            starts = src.line_starts
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            start = starts[first - 1]
            end = starts[node.end_lineno] if node.end_lineno < len(starts) else len(src.text)
            i = bisect.bisect_left(hits, start)
            if i == len(hits) or hits[i] >= end:
                ctx.skipped_functions.append(node)
                return
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


# Node types whose children are visited in a special order, with context kept. (Plain
# functions, not bound methods: a walker holding its own bound methods would be a cycle.)
_SPECIAL: dict = {
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


# The walker running on this thread: ``parent()`` asks it for links it has not made yet.
_ACTIVE = threading.local()


def parent(node: ast.AST) -> Optional[ast.AST]:
    """The node's parent in the tree being walked (None for the module, or a node not reached)."""
    try:
        return node._gg_parent  # type: ignore[attr-defined]
    except AttributeError:
        pass
    walker = getattr(_ACTIVE, "walker", None)
    if walker is not None and walker._pending:
        walker.link_pending()
        return getattr(node, "_gg_parent", None)
    return None


def link_subtree(root: ast.AST) -> None:
    """Link every node under ``root`` to its parent, for analyses that look ahead of the walk."""
    walker = getattr(_ACTIVE, "walker", None)
    if walker is not None:
        walker.link([root])
        return
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            if getattr(child, "_gg_parent", None) is None and not isinstance(child, _SINGLETON_TYPES):
                child._gg_parent = node  # type: ignore[attr-defined]


# -- running a file -------------------------------------------------------------------------


@dataclass
class FileResult:
    filename: str
    diagnostics: list[Diagnostic]
    source: Optional[SourceText] = None
    skipped: bool = False  # did not import torch
    error: Optional[str] = None  # GG001 message when unparsable
    internal_errors: list = field(default_factory=list)  # InternalError: bugs met in gradguard


def parse_error_diagnostic(filename: str, error: SourceError) -> Diagnostic:
    from gradguard.diagnostics import Position

    pos = Position(max(error.row, 1), max(error.column, 1))
    return Diagnostic("GG001", f"File could not be parsed: {error.message}", filename, pos, pos)


# The parser accepts expressions nested about 3,000 deep (deeper is a RecursionError, GG001);
# the recursive walk needs a frame or two per level, so it runs under a higher limit than
# Python's default 1,000 (Python-to-Python calls do not grow the C stack on 3.11+).
WALK_RECURSION_LIMIT = 12_000


def check_source(
    source: SourceText,
    filename: str,
    rules: Sequence,
    require_torch_import: bool = True,
) -> FileResult:
    """Check decoded text with the given rule instances.

    Never raises for any input: a file too deeply nested to analyse is GG001, and a bug in a
    rule (or in the engine) becomes an ``InternalError`` in the result while the other rules'
    findings are kept.
    """
    limit = sys.getrecursionlimit()
    if limit < WALK_RECURSION_LIMIT:
        sys.setrecursionlimit(WALK_RECURSION_LIMIT)
    try:
        return _check_source(source, filename, rules, require_torch_import)
    except RecursionError:
        error = SourceError("expression nesting too deep to analyse")
        return FileResult(filename, [parse_error_diagnostic(filename, error)], source, error=error.message)
    except Exception as exc:
        return FileResult(filename, [], source, internal_errors=[internal_error("engine", filename, exc)])
    finally:
        if limit < WALK_RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


def _check_source(source: SourceText, filename: str, rules: Sequence, require_torch_import: bool) -> FileResult:
    text = source.text
    if require_torch_import and not mentions_torch_import(text):
        return FileResult(filename, [], source, skipped=True)
    try:
        tree = parse(text, filename)
    except SourceError as exc:
        return FileResult(filename, [parse_error_diagnostic(filename, exc)], source, error=exc.message)
    imports = ImportMap(tree, text)
    if require_torch_import and not imports.imports_torch:
        return FileResult(filename, [], source, skipped=True)
    seen: dict = {}
    active = [rule for rule in rules if rule.applies_to(text, seen)]
    ctx = FileContext(filename, source, tree, imports)
    active = [rule for rule in active if getattr(rule, "active_in", None) is None or rule.active_in(ctx)]
    failures: list = []
    while active:
        walker = Walker(active, ctx, function_trigger_hits(active, text, imports))
        try:
            walker.run()
            break
        except RecursionError:
            error = SourceError("expression nesting too deep to analyse")
            return FileResult(filename, [parse_error_diagnostic(filename, error)], source, error=error.message)
        except RuleFailure as failure:
            # Drop the failing rule for this file and walk again with the others.
            code = getattr(failure.rule, "code", "engine")
            failures.append(internal_error(code, filename, failure.error, failure.node))
            remaining = [rule for rule in active if rule is not failure.rule]
            active = remaining if len(remaining) < len(active) else []
            ctx = FileContext(filename, source, tree, imports)
        finally:
            walker.unlink()
            ctx.cache.clear()  # analyses cached by rules may point back at ctx and the tree
    diagnostics = apply_noqa(ctx.diagnostics, source)
    diagnostics.sort(key=Diagnostic.sort_key)
    return FileResult(filename, diagnostics, source, internal_errors=failures)


def function_trigger_hits(rules: Sequence, text: str, imports: ImportMap) -> Optional[list]:
    """Sorted offsets in ``text`` where a function trigger of one of the rules starts.

    None when some rule has no function triggers (every function must then be walked). A
    trigger that contains another one is not searched for: where it occurs, the shorter does.
    """
    strings: set = set()
    patterns: list = []
    names: set = set()
    for rule in rules:
        triggers = getattr(rule, "function_triggers", None)
        if triggers is None:
            return None
        for trigger in triggers:
            if isinstance(trigger, str):
                strings.add(trigger)
            elif trigger not in patterns:
                patterns.append(trigger)
        names.update(getattr(rule, "function_names", ()))
    if names:
        strings.update(local for local, qual in imports.names.items() if qual in names)  # `ng` for no_grad
    kept: list = []
    for trigger in sorted(strings, key=len):
        if trigger and not any(shorter in trigger for shorter in kept):
            kept.append(trigger)
    hits: list = []
    for trigger in kept:
        find = text.find
        i = find(trigger)
        while i >= 0:
            hits.append(i)
            i = find(trigger, i + 1)
    for pattern in patterns:
        hits.extend(m.start() for m in pattern.finditer(text))
    hits.sort()
    return hits


def check_bytes(data: bytes, filename: str, rules: Sequence, require_torch_import: bool = True) -> FileResult:
    try:
        source = SourceText.from_bytes(data)
    except SourceError as exc:
        return FileResult(filename, [parse_error_diagnostic(filename, exc)], None, error=exc.message)
    return check_source(source, filename, rules, require_torch_import)


def apply_noqa(diagnostics: Iterable[Diagnostic], source: SourceText) -> list[Diagnostic]:
    from gradguard.noqa import noqa_codes

    kept = []
    cache: dict[int, object] = {}
    for diag in diagnostics:
        row = diag.start.row
        if row not in cache:
            cache[row] = noqa_codes(source.line(row))
        codes = cache[row]
        if codes is None:
            kept.append(diag)
        elif codes == "all":
            continue
        elif not any(diag.code == c or diag.code.startswith(c) for c in codes):
            kept.append(diag)
    return kept
