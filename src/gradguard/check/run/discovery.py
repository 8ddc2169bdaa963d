"""Which files a run checks: walk the given paths, skip what is excluded or ignored by git."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from gradguard.check.config import Config

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
IGNORE_FILES = (".gitignore", ".ignore")  # read in this order: .ignore has the last word

ConfigFor = Callable[[str], Config]


def _repository_root(folder: str) -> Optional[str]:
    """The nearest folder at or above ``folder`` that holds ``.git`` (a folder or, in a
    worktree or submodule, a file)."""
    current = folder
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


class GitIgnores:
    """git's ignore rules: the ``.gitignore`` and ``.ignore`` files of each folder (patterns
    relative to their folder, deeper files overriding shallower ones, ``!`` negations) and the
    repository's ``.git/info/exclude``, matched by pathspec with git's own rules.

    Inside a repository the files from its root down apply, as git applies them; outside one,
    those from the walked folder down. pathspec is imported only when an ignore file exists.
    """

    def __init__(self) -> None:
        self._chains: dict[str, list[tuple[str, GitIgnoreSpec]]] = {}
        self._tops: dict[str, str] = {}

    def start(self, root: str) -> None:
        """Note a walked folder: where the ignore files that apply to it start. A folder the
        user names that git ignores (or that is inside one) is walked as its own top, as
        ripgrep does: naming it says it is wanted."""
        root = os.path.abspath(root)
        top = _repository_root(root) or root
        self._tops[root] = top
        current = root
        below_top = []
        while current != top and os.path.dirname(current) != current:
            below_top.append(current)
            current = os.path.dirname(current)
        if any(self.ignored(folder, is_dir=True) for folder in reversed(below_top)):
            self._tops[root] = root

    @staticmethod
    def _spec(path: str) -> Optional[GitIgnoreSpec]:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return None
        if not any(line.strip() and not line.startswith("#") for line in lines):
            return None
        from pathspec import GitIgnoreSpec  # a folder without ignore files never pays for it

        return GitIgnoreSpec.from_lines(lines)

    def _chain(self, folder: str, top: str) -> list[tuple[str, GitIgnoreSpec]]:
        """The (base folder, spec) pairs that apply in ``folder``, outermost first."""
        known = self._chains.get(folder)
        if known is not None:
            return known
        parent = os.path.dirname(folder)
        if folder == top or parent == folder or not folder.startswith(top):
            chain: list[tuple[str, GitIgnoreSpec]] = []
            exclude = self._spec(os.path.join(folder, ".git", "info", "exclude"))
            if exclude is not None:
                chain.append((folder, exclude))
        else:
            chain = list(self._chain(parent, top))
        for name in IGNORE_FILES:
            spec = self._spec(os.path.join(folder, name))
            if spec is not None:
                chain.append((folder, spec))
        self._chains[folder] = chain
        return chain

    def _top(self, path: str) -> str:
        for root, top in self._tops.items():
            if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                return top
        top = _repository_root(os.path.dirname(path)) or os.path.dirname(path)
        self._tops[os.path.dirname(path)] = top
        return top

    def ignored(self, path: str, is_dir: bool) -> bool:
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        verdict: Optional[bool] = None
        for base, spec in self._chain(folder, self._top(path)):
            rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
            include: Any = _folder_verdict(spec, rel) if is_dir else spec.check_file(rel).include
            if include is not None:
                verdict = bool(include)
        return bool(verdict)


def _folder_verdict(spec: GitIgnoreSpec, rel: str) -> Optional[bool]:
    """Whether a folder itself is ignored: as git decides, by the last pattern matching it
    (``*`` then ``!*/`` keeps every folder, so that a later ``!*.py`` brings back the code in
    them). pathspec ranks a file pattern's match above a folder pattern's, as git does for the
    files inside a folder, not for the folder itself."""
    verdict = None
    for pattern in spec.patterns:
        if pattern.include is not None and pattern.match_file(rel) is not None:
            verdict = pattern.include
    return verdict


def discover(
    paths: Iterable[str],
    config: Config,
    suffixes: tuple[str, ...] = SOURCE_SUFFIXES,
    errors: Optional[list[tuple[str, str]]] = None,
    config_for: Optional[ConfigFor] = None,
) -> Iterator[str]:
    """Yield files to check in a stable order.

    Paths named explicitly are checked even if excluded or ignored by git, unless
    ``config.force_exclude`` (what pre-commit needs: it names every staged file). With
    ``config_for``, each folder's own configuration (its nearest pyproject.toml) decides what
    is excluded in it. Unreadable directories and symlink loops are reported into ``errors``
    as (path, reason).
    """
    seen: set[str] = set()
    settings = config_for if config_for is not None else (lambda _: config)
    ignores = GitIgnores() if config.respect_gitignore else None
    for path in paths:
        if os.path.isdir(path):
            if ignores is not None:
                ignores.start(path)
            for found in _walk(path, settings, suffixes, errors, ignores):
                key = os.path.realpath(found)
                if key not in seen:
                    seen.add(key)
                    yield os.path.normpath(found)
        elif os.path.exists(path) or os.path.islink(path):
            if config.force_exclude and (
                settings(path).is_excluded_path(path) or (ignores is not None and _ignored_path(ignores, path))
            ):
                continue
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path
        elif errors is not None:
            errors.append((path, "No such file or directory"))


def _ignored_path(ignores: GitIgnores, path: str) -> bool:
    """Whether git ignores a named file or a folder above it (below its repository's root)."""
    absolute = os.path.abspath(path)
    top = _repository_root(os.path.dirname(absolute))
    if top is None:
        return False
    ignores.start(top)
    current = absolute
    chain = []
    while current != top and os.path.dirname(current) != current:
        chain.append(current)
        current = os.path.dirname(current)
    return any(ignores.ignored(p, is_dir=p != absolute) for p in reversed(chain))


def _walk(
    root: str,
    settings: ConfigFor,
    suffixes: tuple[str, ...],
    errors: Optional[list[tuple[str, str]]],
    ignores: Optional[GitIgnores],
) -> Iterator[str]:
    visited_dirs: set[str] = set()

    def onerror(exc: OSError) -> None:
        if errors is not None:
            errors.append((exc.filename or root, exc.strerror or str(exc)))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited_dirs:
            dirnames[:] = []
            continue
        visited_dirs.add(real)
        config = settings(dirpath)
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if d.startswith(".") or config.is_excluded(full):
                continue
            if os.path.exists(os.path.join(full, "pyvenv.cfg")):  # a virtual environment
                continue
            if os.path.realpath(full) in visited_dirs:
                continue
            if ignores is not None and ignores.ignored(full, is_dir=True):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.endswith(suffixes):
                full = os.path.join(dirpath, name)
                if config.is_excluded(full):
                    continue
                if ignores is not None and ignores.ignored(full, is_dir=False):
                    continue
                yield full
