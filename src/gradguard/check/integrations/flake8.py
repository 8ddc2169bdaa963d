"""flake8 plugin: ``flake8 --select GG`` reports what ``gradguard check`` reports.

The plugin runs the same engine and rules as ``gradguard check`` on the text flake8 has
already read (its ``lines``), so codes, lines, columns and messages match. flake8's own
options decide what is shown: ``--select``/``--ignore``/``--per-file-ignores`` and
``# noqa`` work as for any plugin, and rules that are off by default in gradguard are added
to flake8's default ignore list and run only when their exact code is selected
(``--extend-select GG206`` or ``--select GG,GG206``), as with ``gradguard check --select``: a
prefix such as ``--select GG`` does not turn them on.
``[tool.gradguard]`` settings are not read under flake8; use flake8's configuration.

A file that does not parse is flake8's own ``E999``: flake8 runs no AST plugin on it, so
GG001 appears under flake8 only when gradguard cannot analyse a file flake8 could parse
(nesting too deep for the analysis). Like ``gradguard check``, files that never import torch
are not checked. Fixes are not applied under flake8: use ``gradguard check --fix``.
"""

from __future__ import annotations

import argparse
import ast
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

from gradguard._version import __version__

if TYPE_CHECKING:
    from gradguard.check.config import Config


def default_off_codes() -> list[str]:
    """Codes of rules that ``gradguard check`` runs only when selected explicitly."""
    from gradguard.check.rules import all_rules

    return [rule.code for rule in all_rules() if not rule.default_enabled]


def exact_codes(options: argparse.Namespace) -> set[str]:
    """Codes named in full by flake8's --select / --extend-select."""
    named: set[str] = set()
    for value in (getattr(options, "select", None), getattr(options, "extend_select", None)):
        for code in value or ():
            named.add(code.strip().upper())
    return named


def plugin_config(enabled_off_codes: frozenset[str] = frozenset()) -> Config:
    """The configuration the plugin checks with: the rules on by default plus the off-by-default
    ones flake8's options name in full; files that never import torch are skipped."""
    from gradguard.check.config import resolve
    from gradguard.check.rules import all_rules

    return resolve(all_rules(), extend_select=sorted(enabled_off_codes))


class Plugin:
    name = "gradguard"
    version = __version__
    enabled_off_codes: frozenset[str] = frozenset()
    config: Optional[Config] = None  # built from flake8's options by ``parse_options``

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "stdin"):
        # flake8 has parsed the file already; the engine parses its own copy of the text
        # so that the tree flake8 hands to other plugins is left untouched.
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager: Any) -> None:  # flake8's OptionManager
        option_manager.extend_default_ignore(default_off_codes())

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.enabled_off_codes = frozenset(set(default_off_codes()) & exact_codes(options))
        cls.config = plugin_config(cls.enabled_off_codes)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from gradguard.check.engine.run import check_source
        from gradguard.check.source import SourceText

        # flake8's select/ignore picks what is reported among the rules that ran.
        config = self.config if self.config is not None else plugin_config(self.enabled_off_codes)
        result = check_source(
            SourceText("".join(self.lines)), self.filename, config.make_rules(), config.require_torch_import
        )
        for d in result.diagnostics:
            # flake8 takes a 0-based column and prints it plus one: gradguard's 1-based column.
            yield d.start.row, d.start.column - 1, f"{d.code} {d.message}", type(self)
