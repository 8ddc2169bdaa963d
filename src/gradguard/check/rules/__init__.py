"""The rule catalogue. Each ``ggNNN_name.py`` module in this package defines one rule."""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from typing import Optional

from gradguard.check.rules.base import Rule

_MODULE_RE = re.compile(r"^gg\d{3}_\w+$")

# Codes the engine itself emits.
PARSE_ERROR = "GG001"
PARSE_ERROR_SUMMARY = "File could not be read or parsed; it was skipped."


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code."""
    rules: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if _MODULE_RE.match(info.name):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, Rule)
                    and value is not Rule
                    and value.__module__ == module.__name__
                ):
                    rules.append(value)
    rules.sort(key=lambda r: r.code)
    return tuple(rules)


def rule_by_code(code: str) -> Optional[type[Rule]]:
    code = code.upper()
    for rule in all_rules():
        if rule.code == code:
            return rule
    return None
