"""What a module binds to torch: import aliases and qualified names of expressions.

The checker never imports user code, so every fact here comes from the import statements
of the file itself.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import Optional

from gradguard.check.analysis.scopes import target_names
from gradguard.check.analysis.vocabulary import AUTOGRAD_EXPORTS, LOSS_MODULES

# Packages whose import marks a file as PyTorch code: torch and its domain libraries (a script
# importing only `torchvision` runs torch models, with `torch` from a star import or not at all).
TORCH_PACKAGES = frozenset({"torch", "torchvision", "torchaudio", "torchtext"})
_TORCH_IMPORT_RE = re.compile(
    r"^[ \t]*(?:import[ \t]+[^#\n]*\btorch(?:vision|audio|text)?\b|from[ \t]+torch(?:vision|audio|text)?\b)", re.M
)


def mentions_torch_import(text: str) -> bool:
    """Cheap text test run before parsing: could this file import torch (or one of its
    domain libraries, ``TORCH_PACKAGES``) at all?"""
    return _TORCH_IMPORT_RE.search(text) is not None


# Names of their own that such packages export, which the rules know (torch_snippets' `show`
# draws an image or a tensor).
_STAR_EXPORTED_NAMES = {
    "torch_snippets": {"show": "torch_snippets.show"},
    # `from torch.autograd import *`, then `Variable(x)`, `no_grad()`
    "torch.autograd": {name: f"torch.autograd.{name}" for name in AUTOGRAD_EXPORTS},
}
# The usual names of torch's modules, which packages made for `from X import *` re-export.
_STAR_EXPORTED_TORCH_NAMES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim"}


class ImportMap:
    """Maps local names to the fully qualified names they were imported as.

    ``import torch.nn as nn`` binds ``nn -> torch.nn``; ``from torch import no_grad`` binds
    ``no_grad -> torch.no_grad``; ``import torch`` binds ``torch -> torch``.
    """

    def __init__(self, tree: ast.Module, text: Optional[str] = None):
        self._tree = tree
        self._torch_name: Optional[tuple] = None  # (the name,) once worked out
        self._torch_imported_as: set = set()  # the names `import torch [as T]` binds, anywhere
        self.names: dict[str, str] = {}
        self.imports_torch = False
        # What each with-item or decorator of the file does to grad mode, once worked out
        # (``grad_mode.classify_grad_mode``: the walker, the model and the rules all ask).
        self.grad_modes: dict = {}
        # With the source text, only blocks whose lines hold the word ``import`` are searched.
        statements = iter_statements(tree.body) if text is None else statements_with_word(tree.body, text, "import")
        # The modules of `from X import *` (as written, with the level of a relative one): the
        # project's facts give the names such a module of the run defines (`ProjectIndex.star_names`).
        self.star_sources: list[tuple[str, int]] = []
        star = False  # a `from X import *` of a package that is not torch's
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top in TORCH_PACKAGES:
                        self.imports_torch = True
                    if alias.name == "torch":
                        self._torch_imported_as.add(alias.asname or "torch")
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        self.names[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if node.module.split(".")[0] in TORCH_PACKAGES:
                    self.imports_torch = True
                for alias in node.names:
                    if alias.name == "*":
                        star = star or node.module.split(".")[0] not in TORCH_PACKAGES
                        self.star_sources.append((node.module, 0))
                        for local, qualified in _STAR_EXPORTED_NAMES.get(node.module, {}).items():
                            self.names.setdefault(local, qualified)
                        if node.module == "torch.nn":
                            # `from torch.nn import *`, then `criterion = MultiLabelSoftMarginLoss()`
                            for local in LOSS_MODULES:
                                self.names.setdefault(local, f"torch.nn.{local}")
                        continue
                    self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.level:
                # ``from .model import Net`` -> ``.model.Net``: the leading dots say how far up;
                # the project's facts resolve it (never a torch name).
                prefix = "." * node.level + (f"{node.module}." if node.module else "")
                for alias in node.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = prefix + alias.name
                    elif node.module:
                        self.star_sources.append((node.module, node.level))

        if star:
            # `from torch_snippets import *`, `from fastai.vision.all import *`: such packages
            # re-export torch under its usual names; a name the file does not import otherwise
            # is taken for them (`nn.init.normal_(m.weight.data, 0.0, 0.02)`).
            for local, qualified in _STAR_EXPORTED_TORCH_NAMES.items():
                self.names.setdefault(local, qualified)

    @property
    def torch_name(self) -> Optional[str]:
        """A global name that refers to the torch module whenever the file runs, imported or
        not, if the file binds one (what a fix may write): not one an import binds only under
        ``if __name__ == "__main__":`` or inside a function."""
        if self._torch_name is None:
            found = _module_torch_name(self._tree.body) if self._torch_imported_as else None
            if found is None:
                # `from constants import *` of a module importing torch: bound at the star import
                found = next(
                    (
                        local
                        for local, qual in self.names.items()
                        if qual == "torch" and local not in self._torch_imported_as
                    ),
                    None,
                )
            self._torch_name = (found,)
        return self._torch_name[0]

    def imports_package(self, tops) -> bool:
        """Whether the file imports a name from one of the top-level packages ``tops``
        (``lightning``, ``torch_geometric``)."""
        return any(qual.split(".", 1)[0] in tops for qual in self.names.values())

    def qualified_name(self, node: ast.AST) -> Optional[str]:
        """``th.nn.functional.relu`` -> ``torch.nn.functional.relu`` when ``th`` is torch."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.names.get(node.id)
        if base is None:
            return None
        parts.append(base)
        return ".".join(reversed(parts))

    def may_name(self, node: ast.AST, last_names) -> bool:
        """Whether ``node`` may be the qualified name of something called one of
        ``last_names``: a quick test before ``qualified_name``. An attribute must be spelt
        so (``torch.autograd.grad``); a plain name must be imported (``agrad`` after
        ``from torch.autograd import grad as agrad``)."""
        if isinstance(node, ast.Attribute):
            return node.attr in last_names
        return isinstance(node, ast.Name) and node.id in self.names

    def is_torch(self, node: ast.AST, *names: str) -> bool:
        qual = self.qualified_name(node)
        return qual is not None and qual in names


# The fields of a statement (or except clause, or match case) that hold statements, in the
# order ``iter_statements`` stacks them (the last one's statements come out first); a type not
# listed holds none.
_BLOCKS_OF: dict = {
    ast.FunctionDef: ("body",),
    ast.AsyncFunctionDef: ("body",),
    ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody", "handlers"),
    ast.ExceptHandler: ("body",),
    ast.Match: ("cases",),
    ast.match_case: ("body",),
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _BLOCKS_OF[ast.TryStar] = ("body", "orelse", "finalbody", "handlers")


def _module_torch_name(body: list) -> Optional[str]:
    """The name ``import torch`` (``import torch as T``) binds in statements of the module that
    run whenever it is imported (in ``if``/``try``/``with`` blocks too, but not under ``if
    __name__ == "__main__":`` nor in a function or class)."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if type(stmt) is ast.Import:
            for alias in stmt.names:
                if alias.name == "torch":
                    return alias.asname or "torch"
        elif is_main_guard(stmt):
            stack.extend(reversed(stmt.orelse))
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            for name in ("body", "orelse", "finalbody"):
                stack.extend(reversed(getattr(stmt, name, None) or []))
            for handler in getattr(stmt, "handlers", None) or []:
                stack.extend(reversed(handler.body))
    return None


def is_main_guard(statement: ast.AST) -> bool:
    """``if __name__ == "__main__":`` (either way round): its body runs only as a script."""
    if type(statement) is not ast.If:
        return False
    test = statement.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
    )


def iter_statements(body, lines: Optional[list] = None):
    """Every statement in a body, nested blocks included, without visiting expressions
    (except clauses and match cases are yielded too).

    With ``lines`` (sorted line numbers), only the statements that span one of those lines.
    """
    stack = list(reversed(body))
    pop = stack.pop
    extend = stack.extend
    blocks_of = _BLOCKS_OF.get
    bisect_left = bisect.bisect_left
    while stack:
        stmt = pop()
        if lines is not None:
            first = getattr(stmt, "lineno", None)  # a match case has no position of its own
            if first is not None:
                k = bisect_left(lines, first)
                if k == len(lines) or lines[k] > stmt.end_lineno:
                    continue  # none of the lines lies in this statement
        yield stmt
        fields = blocks_of(type(stmt))
        if fields is not None:
            for name in fields:
                block = getattr(stmt, name)
                if block:
                    extend(reversed(block))


def assigned_names(body: list) -> set:
    """Every name that an assignment, augmented or annotated assignment, ``for`` target or
    ``with ... as`` binds anywhere in a body, nested blocks and functions included (statements
    only: no expression visited but the targets)."""
    found: set = set()
    add_all = found.update
    for stmt in iter_statements(body):
        t = type(stmt)
        if t is ast.Assign:
            for target in stmt.targets:
                add_all(target_names(target))
        elif t is ast.AugAssign or t is ast.AnnAssign or t is ast.For or t is ast.AsyncFor:
            add_all(target_names(stmt.target))
        elif t is ast.With or t is ast.AsyncWith:
            for item in stmt.items:
                if item.optional_vars is not None:
                    add_all(target_names(item.optional_vars))
    return found


def statements_with_word(body: list, text: str, word: str):
    """The statements of ``body`` (nested blocks included) that may hold ``word`` on their
    lines: a block is entered only if one of the word's lines lies in it. Import statements
    and class definitions begin on a line with their keyword, so none of them is missed."""
    if "\r" in text:
        return iter_statements(body)  # the parser also ends lines at a lone "\r": not counted here
    lines: list = []
    find = text.find
    count = text.count
    line, last = 1, 0
    i = find(word)
    while i >= 0:
        line += count("\n", last, i)
        last = i
        if not lines or lines[-1] != line:
            lines.append(line)
        i = find(word, i + len(word))
    return iter_statements(body, lines) if lines else iter(())


def callee_name(call: ast.Call) -> str:
    """The last name a call spells its callee by: ``tqdm`` of ``tqdm(loader)``, ``step`` of
    ``optimizer.step()``; "" for any other callee (``fns[0](x)``)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def held_name(node: ast.AST) -> Optional[str]:
    """``a.b`` or ``models["G"].encoder``: a chain of attributes and string-keyed subscripts on
    a name, written one way (``models['G']`` and ``models["G"]`` alike), else None. What a
    dict of models or optimizers names its entries by."""
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append("." + node.attr)
        elif isinstance(node, ast.Subscript):
            key = node.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            parts.append(f'["{key.value}"]')
        else:
            break
        node = node.value
    if isinstance(node, ast.Name):
        return node.id + "".join(reversed(parts))
    return None


def subscript_root(node: ast.AST) -> ast.AST:
    """``buf`` of ``buf[i][j]``: what a chain of subscripts indexes."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def dotted_name(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
