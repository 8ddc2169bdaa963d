"""The one engine behind every front end: parse a file once, walk it once, run the rules."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Protocol, Sequence

from gradguard.check.analysis.imports import ImportMap, mentions_torch_import
from gradguard.check.analysis.project import (
    current as current_project,
    package_star_import_gives_torch,
    star_imports_give_torch,
)
from gradguard.check.engine.context import FileContext
from gradguard.check.engine.errors import InternalError, RuleFailure, internal_error
from gradguard.check.engine.walker import FunctionTriggers, Walker
from gradguard.check.model import Diagnostic, Position
from gradguard.check.noqa import apply_noqa
from gradguard.check.source import SourceError, SourceText, parse, with_older_syntax_rewritten
from gradguard.check.triggers import TextSearch, Trigger, trigger_text


class EngineRule(Protocol):
    """What the engine needs of a rule object (``gradguard.check.rules.base.Rule`` has it).

    Its ``visit_<Node>``/``leave_<Node>`` methods, ``active_in``, ``code`` and
    ``function_triggers``/``function_names`` are looked up by name when present.
    """

    def applies_to(self, text: str, search: Optional[TextSearch] = None) -> bool: ...


__all__ = ["FileResult", "InternalError", "check_bytes", "check_source", "WALK_RECURSION_LIMIT"]


# -- running a file -------------------------------------------------------------------------


@dataclass
class FileResult:
    filename: str
    diagnostics: list[Diagnostic]
    source: Optional[SourceText] = None
    skipped: bool = False  # did not import torch
    error: Optional[str] = None  # GG001 message when unparsable
    internal_errors: list[InternalError] = field(default_factory=list)  # bugs met in gradguard


def parse_error_diagnostic(filename: str, error: SourceError) -> Diagnostic:

    pos = Position(max(error.row, 1), max(error.column, 1))
    return Diagnostic("GG001", f"File could not be parsed: {error.message}", filename, pos, pos)


def _parsed_with_older_syntax_rewritten(text: str, filename: str) -> Optional[tuple[ast.Module, str, list[Diagnostic]]]:
    """(tree, text, GG001 at each rewritten place) of a file that parses once what only an older
    Python accepted is rewritten (``x.cuda(async=True)`` of PyTorch 0.3, Python 2's ``print x``;
    ``source.with_older_syntax_rewritten``: every position before a line's end holds), so that the
    rest of the file is checked; None where there is none or it does not parse even so."""
    rewritten = with_older_syntax_rewritten(text)
    if rewritten is None:
        return None
    try:
        tree = parse(rewritten[0], filename)
    except SourceError:
        return None
    legacy = [
        parse_error_diagnostic(
            filename,
            SourceError(
                f"SyntaxError: {instead}; the rest of the file was checked as if it were written so", row, column
            ),
        )
        for row, column, instead in rewritten[1]
    ]
    return tree, rewritten[0], legacy


# The parser accepts expressions nested about 3,000 deep (deeper is a RecursionError, GG001);
# the recursive walk needs a frame or two per level, so it runs under a higher limit than
# Python's default 1,000 (Python-to-Python calls do not grow the C stack on 3.11+).
WALK_RECURSION_LIMIT = 12_000


def check_source(
    source: SourceText,
    filename: str,
    rules: Sequence[EngineRule],
    require_torch_import: bool = True,
    noqa: bool = True,
) -> FileResult:
    """Check decoded text with the given rule instances (``noqa=False``: report what
    ``# noqa`` comments suppress, ``--ignore-noqa``).

    Never raises for any input: a file too deeply nested to analyse is GG001, and a bug in a
    rule (or in the engine) becomes an ``InternalError`` in the result while the other rules'
    findings are kept.
    """
    limit = sys.getrecursionlimit()
    if limit < WALK_RECURSION_LIMIT:
        sys.setrecursionlimit(WALK_RECURSION_LIMIT)
    try:
        return _check_source(source, filename, rules, require_torch_import, noqa)
    except RecursionError:
        error = SourceError("expression nesting too deep to analyse")
        return FileResult(filename, [parse_error_diagnostic(filename, error)], source, error=error.message)
    except Exception as exc:
        return FileResult(filename, [], source, internal_errors=[internal_error("engine", filename, exc)])
    finally:
        if limit < WALK_RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


def _check_source(
    source: SourceText, filename: str, rules: Sequence[EngineRule], require_torch_import: bool, noqa: bool = True
) -> FileResult:
    text = source.text
    if require_torch_import and not mentions_torch_import(text):
        project = current_project()
        gives_torch = (
            project.gives_torch(filename, text) if project is not None else star_imports_give_torch(filename, text)
        ) or package_star_import_gives_torch(text)
        if not gives_torch:
            return FileResult(filename, [], source, skipped=True)
        require_torch_import = False  # `from utils import *`, utils importing torch
    legacy: list[Diagnostic] = []
    try:
        tree = parse(text, filename)
    except SourceError as exc:
        reparsed = _parsed_with_older_syntax_rewritten(text, filename)
        if reparsed is None:
            return FileResult(filename, [parse_error_diagnostic(filename, exc)], source, error=exc.message)
        tree, text, legacy = reparsed
    imports = ImportMap(tree, text)
    if require_torch_import and not imports.imports_torch:
        return FileResult(filename, [], source, skipped=True)
    project = current_project()
    if project is not None and imports.star_sources:
        # `from models import *` of a module of the run: its classes and functions by name
        for local, qualified in project.star_names(filename, imports.star_sources).items():
            imports.names.setdefault(local, qualified)
    searched = trigger_text(text)
    search = TextSearch(searched, trigger_vocabulary(tuple(type(rule) for rule in rules)))
    active = [rule for rule in rules if rule.applies_to(searched, search)]
    ctx = FileContext(filename, source, tree, imports)
    active = [rule for rule in active if _active_in(rule, ctx)]
    failures: list[InternalError] = []
    while active:
        walker = Walker(active, ctx, function_triggers(active, search, imports, ctx))
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
            ctx.clear()  # caches and rule states may point back at ctx and the tree
    kept = legacy + without_superseded(ctx.diagnostics)
    diagnostics = apply_noqa(kept, source, tree) if noqa else kept
    for d in diagnostics:
        # What code scanning's fingerprints are made of: the finding's line, not its number.
        if 1 <= d.start.row <= len(source.line_starts):
            d.extra["line_text"] = source.line(d.start.row).strip()
    diagnostics.sort(key=Diagnostic.sort_key)
    return FileResult(filename, diagnostics, source, internal_errors=failures)


def without_superseded(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The findings less those another rule's finding at the same site covers (a finding's
    ``extra["superseded_by"]``: that rule's code and range; `loss.data[0]` is GG105's
    `.item()`, not also GG101's `.detach()`). Applied before ``# noqa``: one comment for
    the site's one finding."""
    reported = {(d.code, d.start, d.end) for d in diagnostics}
    kept = []
    for d in diagnostics:
        covered = d.extra.pop("superseded_by", None)
        if covered is None or covered not in reported:
            kept.append(d)
    return kept


def _active_in(rule: EngineRule, ctx: FileContext) -> bool:
    """The rule's own ``active_in(ctx)`` answer (rules without one are always active)."""
    active_in = getattr(rule, "active_in", None)
    return active_in is None or bool(active_in(ctx))


def function_triggers(
    rules: Sequence[EngineRule], search: TextSearch, imports: ImportMap, ctx: Optional[FileContext] = None
) -> Optional[FunctionTriggers]:
    """Each rule's function triggers, to tell which rules see which function of the text.

    A rule's triggers are its ``function_triggers``, the local aliases of its
    ``function_names`` (``ng`` for ``from torch import no_grad as ng``) and what its
    ``file_function_triggers(ctx)`` finds in this file (calls of the file's own helpers); a
    trigger holding another of the same rule is not searched for: where it occurs, the shorter
    does. None when no rule lists function triggers (every rule sees every function).
    """
    per_rule: list[Optional[list[Trigger]]] = []
    for rule in rules:
        triggers = getattr(rule, "function_triggers", None)
        if triggers is None:
            per_rule.append(None)
            continue
        strings = {t for t in triggers if isinstance(t, str)}
        names = getattr(rule, "function_names", ())
        if names:
            strings.update(local for local, qual in imports.names.items() if qual in names)
        of_file = getattr(rule, "file_function_triggers", None)
        if of_file is not None and ctx is not None:
            strings.update(of_file(ctx))
        patterns = [t for t in triggers if not isinstance(t, str)]
        per_rule.append([*_kept_triggers(frozenset(strings)), *patterns])
    if all(triggers is None for triggers in per_rule):
        return None
    return FunctionTriggers(search, per_rule)


@lru_cache(maxsize=16)
def trigger_vocabulary(rule_classes: tuple[type, ...]) -> frozenset[str]:
    """Every substring among the file and function triggers of a set of rule classes (what
    ``TextSearch`` may be asked about and groups; aliases of ``function_names`` are not known
    before a file is read)."""
    found: set[str] = set()
    for rule in rule_classes:
        for trigger in (*(getattr(rule, "triggers", ()) or ()), *(getattr(rule, "function_triggers", None) or ())):
            if isinstance(trigger, str):
                found.add(trigger)
    return frozenset(found)


@lru_cache(maxsize=256)
def _kept_triggers(strings: frozenset[str]) -> tuple[str, ...]:
    """The triggers worth searching for (a longer one holding a shorter one is dropped:
    where it occurs, the shorter does)."""
    kept: list[str] = []
    for trigger in sorted(strings, key=lambda t: (len(t), t)):
        if trigger and not any(shorter in trigger for shorter in kept):
            kept.append(trigger)
    return tuple(kept)


def check_bytes(
    data: bytes, filename: str, rules: Sequence[EngineRule], require_torch_import: bool = True, noqa: bool = True
) -> FileResult:
    try:
        source = SourceText.from_bytes(data)
    except SourceError as exc:
        return FileResult(filename, [parse_error_diagnostic(filename, exc)], None, error=exc.message)
    return check_source(source, filename, rules, require_torch_import, noqa)
