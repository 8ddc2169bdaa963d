"""Report renderers, one module per ``--format``: ``text`` (and ``concise``, the same lines),
``json``, ``json-lines``, ``junit``, ``gitlab``, ``sarif``, ``github``.

Each module has ``render(diagnostics) -> str``; they format and never check. ``renderer``
imports only the module asked for.
"""

from __future__ import annotations

import importlib
from typing import Callable

from gradguard.check.model import Diagnostic, Severity

FORMATS = ("text", "concise", "json", "json-lines", "junit", "gitlab", "sarif", "github")
_MODULES = {"concise": "text", "json-lines": "json_lines"}

Renderer = Callable[[list[Diagnostic]], str]


def renderer(name: str) -> Renderer:
    """The ``render`` function of the format called ``name``; KeyError for an unknown one."""
    if name not in FORMATS:
        raise KeyError(name)
    module = importlib.import_module(f"{__name__}.{_MODULES.get(name, name)}")
    render: Renderer = module.render
    return render


def severity_of(code: str) -> Severity:
    """A code's severity: its rule's (``Rule.severity``); GG001 and unknown codes are errors."""
    from gradguard.check.rules import rule_by_code

    rule = rule_by_code(code)
    return rule.severity if rule is not None else Severity.ERROR
