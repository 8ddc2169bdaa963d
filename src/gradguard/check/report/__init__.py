"""Report renderers, one module per ``--format``: ``text``, ``json``, ``sarif``, ``github``.

Each module has ``render(diagnostics) -> str``; they format and never check. ``renderer``
imports only the module asked for.
"""

from __future__ import annotations

import importlib
from typing import Callable

from gradguard.check.model import Diagnostic

FORMATS = ("text", "json", "sarif", "github")

Renderer = Callable[[list[Diagnostic]], str]


def renderer(name: str) -> Renderer:
    """The ``render`` function of the format called ``name``; KeyError for an unknown one."""
    if name not in FORMATS:
        raise KeyError(name)
    module = importlib.import_module(f"{__name__}.{name}")
    render: Renderer = module.render
    return render
