"""List candidate sites of every rule class in a repository, by syntax alone, for labelling.

    python -m tools.recall.candidates /work/corpus/REPO [--codes GG101,GG105] [--context N]

This is the search that labels start from. It does not use the checker: it matches the
shapes each rule class is about (``.data`` reads and writes, ``Variable(``, ``[0]`` on a
reduced value, loops over evaluation data, ``+= loss``, ``.numpy()``, ``retain_graph``, ...)
over every ``.py`` file and notebook cell, and prints each site with the lines around it.
Most candidates are not bugs; reading them decides. Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass

from tools.recall.sources import Unit, iter_units

EVAL_WORDS = re.compile(r"val|test|dev|eval|infer|predict|sample|generate|demo|score", re.IGNORECASE)
LOSSY_WORDS = re.compile(r"loss|cost|err|acc|correct|total|obj|reward|score|nll|kl|bce|mse", re.IGNORECASE)
INIT_METHODS = {
    "normal_",
    "uniform_",
    "zero_",
    "fill_",
    "copy_",
    "log_normal_",
    "exponential_",
    "cauchy_",
    "geometric_",
    "bernoulli_",
    "random_",
    "fill_diagonal_",
}
GRAD_REGIONS = {"no_grad", "inference_mode", "set_grad_enabled", "enable_grad"}
CAST_METHODS = {"cuda", "to", "double", "float", "half", "cpu", "type"}
REQUIRES_GRAD_TYPO = re.compile(
    r"\b(?!requires_grad\b)(?!requires_grad_\b)re?q\w{0,3}ui?r?e?s?_?g?r?a?d\w{0,3}\b", re.IGNORECASE
)


@dataclass
class Candidate:
    code: str
    unit: Unit
    line: int
    what: str


def dotted(node: ast.AST) -> str:
    return ast.unparse(node)


def call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _parents(tree: ast.AST) -> dict:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _enclosing(node, parents, kinds):
    node = parents.get(node)
    while node is not None and not isinstance(node, kinds):
        node = parents.get(node)
    return node


def _in_loop(node, parents) -> bool:
    cur = parents.get(node)
    while cur is not None:
        if isinstance(cur, (ast.For, ast.While, ast.AsyncFor)):
            return True
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        cur = parents.get(cur)
    return False


def _grad_region_items(node: ast.With) -> list:
    names = []
    for item in node.items:
        expr = item.context_expr
        target = expr.func if isinstance(expr, ast.Call) else expr
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in GRAD_REGIONS:
            names.append(dotted(expr))
    return names


def scan_unit(unit: Unit) -> list:
    tree = unit.tree()
    if tree is None:
        return [Candidate("GG001", unit, 1, "does not parse with this Python")]
    parents = _parents(tree)
    found = []

    def add(code, node, what):
        found.append(Candidate(code, unit, getattr(node, "lineno", 1), what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "data" and dotted(node.value) != "torch.utils":
            parent = parents.get(node)
            write = isinstance(node.ctx, (ast.Store, ast.Del))
            if isinstance(parent, ast.Attribute) and parent.attr.endswith("_") and not parent.attr.startswith("_"):
                grand = parents.get(parent)
                write = write or isinstance(grand, ast.Call)
            if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store):
                write = True
            if isinstance(parent, ast.AugAssign) and parent.target is node:
                write = True
            add("GG102" if write else "GG101", node, dotted(node))
            if isinstance(parent, ast.Subscript) and dotted(parent.slice) in ("0", "-1"):
                add("GG105", parent, dotted(parent))
        elif isinstance(node, ast.Subscript) and dotted(node.slice) == "0":
            base = node.value
            text = dotted(base)
            if (
                isinstance(base, ast.Call)
                and call_name(base) in ("sum", "mean", "item", "norm", "max", "min")
                or isinstance(base, (ast.Name, ast.Attribute))
                and LOSSY_WORDS.search(text.split(".")[-1])
            ):
                add("GG105", node, dotted(node))
        if isinstance(node, ast.Call):
            name = call_name(node)
            kws = {k.arg for k in node.keywords}
            if name == "Variable":
                add("GG104", node, dotted(node)[:100])
            if "volatile" in kws:
                add("GG104", node, "volatile= " + dotted(node)[:90])
            if (
                name == "tensor"
                and node.args
                and not isinstance(node.args[0], (ast.List, ast.Tuple, ast.Constant, ast.ListComp, ast.Dict))
            ):
                add("GG103", node, dotted(node)[:100])
            if "retain_variables" in kws:
                add("GG106", node, dotted(node)[:100])
            if "retain_graph" in kws:
                add("GG208", node, dotted(node)[:100])
            if name == "register_backward_hook":
                add("GG107", node, dotted(node)[:100])
            if name == "numpy":
                add("GG302", node, dotted(node)[:100])
            if name == "eval" or (name == "train" and node.args and dotted(node.args[0]) == "False"):
                add("GG201", node, dotted(node)[:100])
            if name in INIT_METHODS and isinstance(node.func, ast.Attribute):
                recv = dotted(node.func.value)
                if re.search(r"(weight|bias|param|\bp\b|\bw\b|\bb\b)", recv) and not recv.endswith(".data"):
                    add("GG401", node, dotted(node)[:100])
            if name == "save_for_backward":
                add("GG502", node, dotted(node)[:100])
            if name == "set_grad_enabled" and isinstance(parents.get(node), ast.Expr):
                add("GG205", node, dotted(node)[:100])
            if name in CAST_METHODS and isinstance(node.func, ast.Attribute):
                inner = node.func.value
                if isinstance(inner, ast.Call) and any(
                    k.arg == "requires_grad" and dotted(k.value) == "True" for k in inner.keywords
                ):
                    add("GG403", node, dotted(node)[:100])
            if name == "backward":
                add("GG303", node, dotted(node)[:100])
            for k in node.keywords:
                if k.arg and REQUIRES_GRAD_TYPO.fullmatch(k.arg) and "grad" in k.arg.lower():
                    add("GG402", node, f"keyword {k.arg}")
        elif (
            isinstance(node, ast.Attribute) and REQUIRES_GRAD_TYPO.fullmatch(node.attr) and "grad" in node.attr.lower()
        ):
            add("GG402", node, dotted(node))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            regions = _grad_region_items(node)
            if regions:
                add("GG203", node, "with " + ", ".join(regions))
                if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)):
                    add("GG210", node, "yield inside " + ", ".join(regions))
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Attribute) and expr.attr in GRAD_REGIONS:
                    add("GG204", node, "with " + dotted(expr) + " (not called)")
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            text = dotted(node.iter)
            if EVAL_WORDS.search(text):
                add("GG201", node, "for ... in " + text[:90])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if EVAL_WORDS.search(node.name):
                add("GG201", node, "def " + node.name)
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                if getattr(target, "attr", getattr(target, "id", "")) in GRAD_REGIONS:
                    add("GG203", dec, "@" + dotted(dec))
        elif isinstance(node, ast.AugAssign):
            value = dotted(node.value)
            if isinstance(node.op, ast.Add) and _in_loop(node, parents) and LOSSY_WORDS.search(value):
                add("GG301", node, dotted(node))
            if isinstance(node.op, ast.Sub) and ".grad" in value:
                add("GG404", node, dotted(node))
        elif isinstance(node, ast.Assign):
            value = dotted(node.value)
            if ".grad" in value and re.search(r"-\s*\w+\s*\*", value) and len(node.targets) == 1:
                add("GG404", node, dotted(node)[:100])
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "ctx"
                ):
                    add("GG501", node, dotted(node)[:100])
            if isinstance(node.value, ast.Call):
                callee = dotted(node.value.func)
                if re.search(r"\b(G|netG|gen|generator|G_\w+|g_model)\b", callee, re.IGNORECASE):
                    add("GG207", node, dotted(node)[:100])
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if (
                call_name(call) == "append"
                and call.args
                and _in_loop(node, parents)
                and LOSSY_WORDS.search(dotted(call.args[0]))
            ):
                add("GG301", node, dotted(node)[:100])
        if isinstance(node, ast.Call) and call_name(node) in ("inference_mode",):
            add("GG503", node, dotted(node)[:100])
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.recall.candidates", description=__doc__.split("\n")[0])
    parser.add_argument("repo", help="a repository folder under the corpus root")
    parser.add_argument("--codes", default="", help="only these rule classes (comma separated)")
    parser.add_argument("--context", type=int, default=2, help="lines shown before and after each site")
    parser.add_argument("--paths", default="", help="only files whose path contains this text")
    args = parser.parse_args(argv)
    codes = {c.strip().upper() for c in args.codes.split(",") if c.strip()}
    for unit in iter_units(args.repo):
        if args.paths and args.paths not in unit.path:
            continue
        cands = [c for c in scan_unit(unit) if not codes or c.code in codes]
        if not cands:
            continue
        lines = unit.text.split("\n")
        by_line = {}
        for cand in cands:
            by_line.setdefault(cand.line, []).append(cand)
        for line in sorted(by_line):
            whats = sorted({f"{c.code} {c.what}" for c in by_line[line]})
            print(f"== {unit.where}:{line}  " + " | ".join(whats))
            lo, hi = max(1, line - args.context), min(len(lines), line + args.context)
            for number in range(lo, hi + 1):
                mark = ">" if number == line else " "
                print(f"  {mark}{number:5d} {lines[number - 1][:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
