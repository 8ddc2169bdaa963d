"""What a rule may ask about the file and the node being visited: ``FileContext``."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Iterator, Optional, Protocol, TypeVar

from gradguard.check.analysis.grad_mode import BOUNDARY, ENABLE, INFERENCE, MAYBE, NO_GRAD, GradRegion, GradState
from gradguard.check.analysis.imports import ImportMap
from gradguard.check.model import Diagnostic, Edit, Fix
from gradguard.check.source import SourceText

if TYPE_CHECKING:
    from gradguard.check.analysis.model import SemanticModel

State = TypeVar("State")


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class ParentLinker(Protocol):
    """Makes parent links on demand (the walker, while it walks)."""

    def parent_of(self, node: ast.AST) -> Optional[ast.AST]: ...


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
        self.cache: dict[Any, Any] = {}  # per-file memo for the analyses
        self._states: dict[type, object] = {}  # per-rule state, see ``state``
        self.skipped_functions: list[ast.AST] = []  # not walked: no active rule's function trigger in them
        self.linker: Optional[ParentLinker] = None  # the walker: makes parent links on demand (see ``parent``)
        self._model: Optional[SemanticModel] = None

    @property
    def model(self) -> SemanticModel:
        """The file's semantic model (gradguard.check.analysis.model), built on first use."""
        if self._model is None:
            from gradguard.check.analysis.model import SemanticModel
            from gradguard.check.analysis.project import current as current_project

            self._model = SemanticModel(
                self.tree,
                self.imports,
                self.source.text,
                line_starts=self.source.line_starts,
                filename=self.filename,
                project=current_project(),
                cell_starts=self.source.cell_starts,
            )
        return self._model

    # -- the tree around a node ------------------------------------------------------------
    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        """The node's parent (None for the module). Links not made yet, inside expressions
        walked lazily or in code the walk has not reached, are made on first use."""
        try:
            linked: Optional[ast.AST] = node._gg_parent  # type: ignore[attr-defined]
            return linked
        except AttributeError:
            pass
        if self.linker is None:
            return None
        return self.linker.parent_of(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """The node's parent, its parent's parent, ... up to the module."""
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def top_level_statement(self, node: ast.AST) -> ast.AST:
        """The statement of the module's own code that holds ``node`` (a script's block, a cell's
        statement): where a finding in a script's own code is one site."""
        current = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, ast.Module):
                return current
            current = ancestor
        return current

    def innermost_loop(self, node: ast.AST, scope: Optional[ast.AST] = None) -> Optional[ast.AST]:
        """The innermost `for`/`while` holding ``node`` inside ``scope`` (its whole function
        otherwise): not one around a function, lambda or class the node is in."""
        for ancestor in self.ancestors(node):
            if ancestor is scope or isinstance(ancestor, _NESTED_SCOPES):
                return None
            if isinstance(ancestor, _LOOPS):
                return ancestor
        return None

    # -- per-rule state -----------------------------------------------------------------------
    def state(self, kind: type[State]) -> State:
        """This file's instance of a rule's state class, made by ``kind()`` on first use.

        A rule that remembers things across the nodes of a file declares a class for them
        (a dataclass with defaults) in its module and asks for it here: it is fresh for every
        file, and again for every walk that follows the dropping of a failing rule.
        """
        try:
            return self._states[kind]  # type: ignore[return-value]
        except KeyError:
            made = self._states[kind] = kind()
            return made

    def clear(self) -> None:
        """Drop the analyses' caches and the rules' states (they may point back at the tree)."""
        self.cache.clear()
        self._states.clear()
        if self._model is not None:
            self._model.close()  # its flows point back at it, and it at ctx.parent
            self._model = None

    # -- reporting -------------------------------------------------------------------------
    def report(
        self,
        code: str,
        node: ast.AST,
        message: str,
        fix: Optional[Fix] = None,
        end_node: Optional[ast.AST] = None,
        superseded_by: Optional[tuple[str, ast.AST]] = None,
    ) -> None:
        """Record a finding. ``superseded_by=(code, node)``: the finding is dropped when that
        rule reports ``node`` too (one site, one finding: the other rule's advice covers it)."""
        src = self.source
        start = src.node_start(node)
        end = src.node_end(end_node or node)
        diag = Diagnostic(code, message, self.filename, src.position(start), src.position(end), fix)
        if superseded_by is not None:
            other, other_node = superseded_by
            diag.extra["superseded_by"] = (
                other,
                src.position(src.node_start(other_node)),
                src.position(src.node_end(other_node)),
            )
        if fix is not None:
            diag.extra["edit_positions"] = [(src.position(e.start), src.position(e.end)) for e in fix.edits]
        self.diagnostics.append(diag)

    def replace(self, node: ast.AST, content: str) -> Edit:
        return Edit(self.source.node_start(node), self.source.node_end(node), content)

    def text(self, node: ast.AST) -> str:
        return self.source.segment(node)

    # -- where are we ----------------------------------------------------------------------
    def grad_state(self) -> GradState:
        """Whether grad is disabled, maybe disabled or enabled at the current node.

        ``"enabled"`` also covers a function body without its own region: its callers are
        not known, and code is written for the common case of grad being on.
        """
        maybe = False
        for region in reversed(self.grad_stack):
            kind = region.kind
            if kind in (NO_GRAD, INFERENCE):
                return GradState.MAYBE if maybe else GradState.DISABLED
            if kind == ENABLE:
                return GradState.MAYBE if maybe else GradState.ENABLED
            if kind == MAYBE:
                maybe = True
            elif kind == BOUNDARY:
                # A nested function defined inside a grad region may run there or later.
                if any(r.kind in (NO_GRAD, INFERENCE, MAYBE) for r in self.grad_stack[: self.grad_stack.index(region)]):
                    maybe = True
                break
        return GradState.MAYBE if maybe else GradState.ENABLED

    @property
    def grad_disabled(self) -> bool:
        return self.grad_state() is GradState.DISABLED

    @property
    def grad_may_be_disabled(self) -> bool:
        return self.grad_state() is not GradState.ENABLED

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
        if (
            len(self.scopes) >= 2
            and isinstance(self.scopes[-2], ast.ClassDef)
            and isinstance(self.scopes[-1], (ast.FunctionDef, ast.AsyncFunctionDef))
        ):
            return self.scopes[-2]
        return None

    @property
    def scope(self) -> ast.AST:
        return self.scopes[-1]
