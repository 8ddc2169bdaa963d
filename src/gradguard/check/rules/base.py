"""The Rule base class: metadata, embedded examples and node handlers in one place.

A rule module holds one ``Rule`` subclass. Its module docstring is the rule's
documentation (*What it does / Why is this bad? / Example / Use instead / Fix safety*);
``gradguard explain`` prints it and ``docs/rules.md`` is rendered from it. ``valid`` and
``invalid`` examples are run by the test suite (an ``Invalid`` pins the line, column and
message of each finding, and the fixed text), as are the docstring's code blocks. State the
rule keeps while it walks a file lives in a dataclass of its module, got with
``ctx.state(ThatClass)``.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterable, NamedTuple, Optional

from gradguard.check.model import FixAvailability, Severity
from gradguard.check.triggers import TextSearch, Trigger

if TYPE_CHECKING:
    from gradguard.check.engine.context import FileContext


def example_text(text: str) -> str:
    """The code of an example as written in a rule module, dedented.

    Examples are written as indented triple-quoted strings that open with a newline and
    close on a line of their own. The newline after the opening quotes is dropped and the
    common indentation removed (``textwrap.dedent``), so an example reads as the file it
    stands for, and its line numbers count from the line after the opening quotes.
    """
    if text.startswith("\n"):
        text = text[1:]
    return textwrap.dedent(text)


class Finding(NamedTuple):
    """One expected finding of an invalid example: its 1-based line and column (as the text
    output prints them) and its exact message."""

    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Invalid:
    """Code that must be flagged, with the findings it must produce.

    ``line``, ``column`` and ``message`` pin the first finding (in position order); ``also``
    lists the further findings, if any. ``fixed`` is the text after applying the fixes
    (``unsafe=True``: unsafe fixes too); ``None`` means the fixed text is not checked.
    """

    code: str
    line: int
    column: int
    message: str
    also: tuple[Finding, ...] = ()
    fixed: Optional[str] = None
    unsafe: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", example_text(self.code))
        if self.fixed is not None:
            object.__setattr__(self, "fixed", example_text(self.fixed))

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every expected finding, in position order."""
        return (Finding(self.line, self.column, self.message), *self.also)


@dataclass(frozen=True)
class Valid:
    """Code that must not be flagged by the rule (dedented like ``Invalid``)."""

    code: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", example_text(self.code))


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NONE
    # ERROR: the code always raises or silently computes wrong gradients; WARNING: wasted
    # time or memory, or a legacy API. What editors show and SARIF's level.
    severity: ClassVar[Severity] = Severity.ERROR
    default_enabled: ClassVar[bool] = True
    # Substrings (or compiled patterns) of which one must occur in a file for the rule to run
    # at all (speed). A necessary condition only: handlers still check what they see.
    triggers: ClassVar[tuple[Trigger, ...]] = ()
    # The same, for one function (its decorators, signature and body): the rule is not shown the
    # nodes of a function in whose text none of them occurs (nor of its nested functions, each
    # judged on its own text). A rule lists them only if it neither reports anything inside such
    # a function nor learns there anything it uses elsewhere; None (the default) means the rule
    # must see every function.
    function_triggers: ClassVar[Optional[tuple[Trigger, ...]]] = None
    # Qualified names (``torch.no_grad``) whose local aliases in the file
    # (``from torch import no_grad as ng``: ``ng``) count as function triggers too; the name as
    # usually spelt (``no_grad``) belongs in function_triggers.
    function_names: ClassVar[tuple[str, ...]] = ()
    # Codes whose finding at the same site replaces this rule's (``ctx.report(...,
    # superseded_by=(code, node))``): GG101's `.data` read in `loss.data[0]` is GG105's site.
    superseded_by: ClassVar[tuple[str, ...]] = ()

    def file_function_triggers(self, ctx: FileContext) -> Iterable[str]:
        """Function triggers that depend on the file (the calls of its own helpers that read
        values, ``print_preds(``), added to ``function_triggers`` for this file only."""
        return ()

    def active_in(self, ctx: FileContext) -> bool:
        """Whether the rule can find anything in this parsed file (checked before the walk)."""
        return True

    valid: ClassVar[tuple[Valid, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()

    def applies_to(self, text: str, search: Optional[TextSearch] = None) -> bool:
        """Does one of the triggers occur in ``text``? ``search`` (the file's ``TextSearch``)
        remembers answers across the rules of one file, so a trigger that several rules share
        is searched for once."""
        if not self.triggers:
            return True
        if search is None:
            search = TextSearch(text)
        return any(search.occurs(trigger) for trigger in self.triggers)

    @classmethod
    def documentation(cls) -> str:
        """The rule's documentation: its module docstring."""
        doc = sys.modules[cls.__module__].__doc__ or ""
        return _dedent(doc).strip()

    @classmethod
    def doc_code_blocks(cls) -> dict[str, list[str]]:
        """The python code blocks under each ``## `` heading of the documentation."""
        blocks: dict[str, list[str]] = {}
        heading = ""
        for part in re.split(r"^(## .*)$", cls.documentation(), flags=re.M):
            if part.startswith("## "):
                heading = part[3:].strip()
                continue
            for code in re.findall(r"```python\n(.*?)```", part, flags=re.S):
                blocks.setdefault(heading, []).append(code)
        return blocks


def _dedent(text: str) -> str:
    first, _, rest = text.partition("\n")
    return first.strip() + "\n" + textwrap.dedent(rest)
