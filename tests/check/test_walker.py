"""The single walk visits every node once, in source order, with its true parent."""

from __future__ import annotations

import ast
from pathlib import Path

from gradguard.check.analysis.imports import ImportMap
from gradguard.check.engine.context import FileContext
from gradguard.check.engine.walker import Walker
from gradguard.check.rules.base import Rule
from gradguard.check.source import SourceText

SINGLETONS = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
NODE_TYPES = [t for t in vars(ast).values() if isinstance(t, type) and issubclass(t, ast.AST) and t is not ast.AST]

SOURCE = (Path(__file__).parent / "fixtures" / "rules").glob("*.py")
EXTRA = """
import torch
from torch import no_grad as ng
class A(B, metaclass=M):
    x: int = 1
    @torch.no_grad()
    def f(self, a, /, b=2, *c, d, **e) -> None:
        global g
        for i, j in zip(a, b):
            with ng(), open(f) as h:
                y = [k async for k in z if k] if a else {m: n for m, n in p.items()}
                lam = lambda q=1: q + (yield)
        while not a < b <= c:
            del d[1:2, ...]
            try:
                raise E from F
            except (X, Y) as err:
                pass
            finally:
                x @= f"{a!r:>{b}}"
        match a:
            case {"k": [1, *rest], **kw} | Point(x=0) as pt if pt:
                pass
"""


def _recording_rule(log: list):
    def visit(self, node, ctx):
        log.append(("visit", node))

    def leave(self, node, ctx):
        log.append(("leave", node))

    handlers = {}
    for t in NODE_TYPES:
        if not issubclass(t, SINGLETONS):
            handlers[f"visit_{t.__name__}"] = visit
            handlers[f"leave_{t.__name__}"] = leave
    return type("Recorder", (Rule,), {"code": "GG000", "name": "recorder", "summary": "", **handlers})()


def _walk(text: str) -> tuple:
    tree, log, _ctx = _walk_with_context(text)
    return tree, log


def _walk_with_context(text: str) -> tuple:
    tree = ast.parse(text)
    log: list = []
    ctx = FileContext("f.py", SourceText(text), tree, ImportMap(tree))
    Walker([_recording_rule(log)], ctx).run()
    return tree, log, ctx


def test_every_node_visited_once_with_true_parent():
    for text in [EXTRA] + [p.read_text() for p in SOURCE]:
        tree, log, ctx = _walk_with_context(text)
        expected = {id(n) for n in ast.walk(tree) if not isinstance(n, SINGLETONS)}
        visited = [id(node) for kind, node in log if kind == "visit"]
        assert len(visited) == len(set(visited)) == len(expected)
        assert set(visited) == expected
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, SINGLETONS):
                    assert ctx.parent(child) is node


def test_leave_follows_all_descendants():
    tree, log = _walk(EXTRA)
    position = {(kind, id(node)): i for i, (kind, node) in enumerate(log)}
    for node in ast.walk(tree):
        if isinstance(node, SINGLETONS):
            continue
        for sub in ast.walk(node):
            if sub is not node and not isinstance(sub, SINGLETONS):
                assert position[("visit", id(node))] < position[("visit", id(sub))] < position[("leave", id(node))]


def test_singleton_nodes_visited_when_a_rule_asks():
    seen = []

    class Ops(Rule):
        code, name, summary = "GG000", "ops", ""

        def visit_Add(self, node, ctx):
            seen.append(type(node).__name__)

        def visit_Load(self, node, ctx):
            seen.append(type(node).__name__)

    text = "a + b\n"
    tree = ast.parse(text)
    Walker([Ops()], FileContext("f.py", SourceText(text), tree, ImportMap(tree))).run()
    assert sorted(seen) == ["Add", "Load", "Load"]


def test_checked_tree_is_freed_without_the_garbage_collector():
    """Parent links and rule caches are undone after a file: no reference cycles are left,
    so trees are freed at once instead of piling up for the cyclic collector (which cost
    about as much time as the walk itself over a large tree)."""
    import gc

    from gradguard.check.engine.run import check_source
    from gradguard.check.rules import all_rules

    rules = [rule() for rule in all_rules()]
    texts = [EXTRA] + [p.read_text() for p in (Path(__file__).parent / "fixtures").rglob("*.py")]
    gc.collect()
    gc.disable()
    try:
        for text in texts:
            check_source(SourceText(text), "f.py", rules, require_torch_import=False)
        assert gc.collect() == 0
    finally:
        gc.enable()
