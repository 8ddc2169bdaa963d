"""The run's configuration: ``[tool.gradguard]`` of the nearest pyproject.toml (``ConfigFile``),
merged with a front end's options into one resolved ``Config``."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradguard_cache",
    ".eggs",
    "*.egg-info",
    ".ipynb_checkpoints",
)
KNOWN_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "require-torch-import",
}


class ConfigError(Exception):
    """A configuration problem, reported as one line with exit code 2."""


@dataclass(frozen=True)
class ConfigFile:
    """What ``[tool.gradguard]`` of one pyproject.toml says (nothing resolved yet)."""

    path: Optional[Path] = None  # None: no pyproject.toml was found
    select: Optional[tuple[str, ...]] = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    require_torch_import: bool = True

    @property
    def root(self) -> Path:
        """The folder that relative patterns are matched against."""
        return self.path.parent if self.path is not None else Path.cwd()


@dataclass(frozen=True)
class Config:
    """The one resolved configuration of a run, built by a front end and passed down.

    The command line builds it from ``[tool.gradguard]`` and its flags (``resolve``); the
    flake8 plugin and the tests build it from their own inputs. Everything below the front
    end (discovery, the per-file pipeline, the cache, the workers) reads only this object.
    """

    rules: tuple[type[Rule], ...] = ()  # the selected rule classes, sorted by code
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    require_torch_import: bool = True  # False: also check files that never import torch
    force_exclude: bool = False  # apply exclude to files named on the command line too
    root: Path = field(default_factory=Path.cwd)  # where relative patterns are matched
    config_file: Optional[Path] = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    jobs: int = 1  # worker processes; the command line defaults to the machine's CPUs
    cache: bool = False  # use the result cache (the command line turns it on)
    cache_dir: Optional[Path] = None  # default: .gradguard_cache beside the configuration
    respect_gitignore: bool = True  # skip what .gitignore, .ignore and .git/info/exclude ignore
    ignore_noqa: bool = False  # report the findings that noqa comments suppress
    add_noqa: bool = False  # write a noqa comment for every finding (--add-noqa)

    @property
    def rule_codes(self) -> tuple[str, ...]:
        return tuple(rule.code for rule in self.rules)

    def make_rules(self) -> list[Rule]:
        """One instance of every selected rule (rules keep no state of their own)."""
        return [rule() for rule in self.rules]

    def ignored_for(self, path: str) -> list[str]:
        """Codes ignored for one file by per-file-ignores (patterns relative to the root)."""
        rel = _relative(path, self.root)
        codes: list[str] = []
        for pattern, ignored in self.per_file_ignores:
            if glob_match(pattern, rel) or glob_match(pattern, os.path.basename(rel)):
                codes.extend(ignored)
        return codes

    def is_excluded(self, path: str) -> bool:
        """Whether a file or directory met while walking is excluded.

        A pattern without a slash matches the entry's own name (``build``, ``*_pb2.py``); one
        with a slash matches its path relative to the configuration's folder, where ``**``
        stands for zero or more folders (``glob_match``).
        """
        name = os.path.basename(path.rstrip(os.sep))
        rel = None
        for pattern in (*DEFAULT_EXCLUDE, *self.exclude):
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                if rel is None:
                    rel = _relative(path, self.root)
                if glob_match(pattern, rel) or glob_match(pattern + "/**", rel):
                    return True
            elif glob_match(pattern, name):
                return True
        return False

    def is_excluded_path(self, path: str) -> bool:
        """Whether a named file, or any folder above it below the root, is excluded."""
        if self.is_excluded(path):
            return True
        parts = Path(_relative(path, self.root)).parts[:-1]
        return any(self.is_excluded(os.path.join(str(self.root), *parts[: i + 1])) for i in range(len(parts)))


def _class_end(pattern: str, start: int) -> int:
    """The index of the ``]`` closing the character class opened at ``start``, or -1."""
    j = start + 1
    if j < len(pattern) and pattern[j] == "!":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    return pattern.find("]", j)


@lru_cache(maxsize=1024)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")  # zero or more folders
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")  # the folder itself or anything below it
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append(".*")
            i += 1
        elif pattern[i] == "?":
            out.append(".")
            i += 1
        elif pattern[i] == "[" and _class_end(pattern, i) > 0:
            end = _class_end(pattern, i)
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.S)


def glob_match(pattern: str, path: str) -> bool:
    """fnmatch's glob (``*`` and ``?`` match any character, ``/`` included; ``[...]``), where
    ``**/`` also matches no folder at all and a final ``/**`` also the folder itself, as in
    git and ruff: ``tests/**/*.py`` matches ``tests/test_a.py``."""
    return _glob_regex(pattern).match(path) is not None


def resolve(
    catalogue: Sequence[type[Rule]],
    file: Optional[ConfigFile] = None,
    *,
    select: Optional[Sequence[str]] = None,
    ignore: Sequence[str] = (),
    extend_select: Sequence[str] = (),
    all_files: bool = False,
    force_exclude: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
    diff: bool = False,
    jobs: int = 1,
    cache: bool = False,
    cache_dir: Optional[Path] = None,
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    ignore_noqa: bool = False,
    add_noqa: bool = False,
) -> Config:
    """The run's configuration: the file's settings, overridden by the front end's options.

    ``catalogue`` is every rule class (``gradguard.check.rules.all_rules()``); it is passed
    in so that this module, which the engine's callers share, imports no rule. Raises
    ConfigError for an unknown rule code.
    """
    file = file if file is not None else ConfigFile()
    chosen_select = list(select) if select is not None else (list(file.select) if file.select is not None else None)
    # A code selected on the command line wins over the configuration's ignore of it.
    cli_select = list(select or [])
    all_ignore = list(ignore) + [c for c in file.ignore if c not in cli_select]
    extend = list(file.extend_select) + list(extend_select)
    if file.path is not None:
        # A code the file names that no rule has is the file's error: say which file.
        try:
            select_rules(catalogue, file.select, file.ignore, file.extend_select)
        except ConfigError as exc:
            raise ConfigError(f"{file.path}: [tool.gradguard] {exc}") from None
    rules = select_rules(catalogue, chosen_select, all_ignore, extend)
    return Config(
        rules=tuple(rules),
        exclude=file.exclude + tuple(extend_exclude),
        per_file_ignores=file.per_file_ignores,
        require_torch_import=file.require_torch_import and not all_files,
        force_exclude=force_exclude,
        root=file.root,
        config_file=file.path,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        diff=diff,
        jobs=jobs,
        cache=cache,
        cache_dir=cache_dir,
        respect_gitignore=respect_gitignore,
        ignore_noqa=ignore_noqa,
        add_noqa=add_noqa,
    )


def _relative(path: str, root: Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def find_pyproject(start: Path) -> Optional[Path]:
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _codes(value: object, key: str, path: Path) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.gradguard] {key} must be a list of rule codes")
    return [v.strip().upper() for v in value]


def read_config_file(start: Path, config_path: Optional[Path] = None) -> ConfigFile:
    """``[tool.gradguard]`` of ``config_path``, else of the nearest pyproject.toml above ``start``."""
    path = config_path or find_pyproject(start)
    if path is None:
        return ConfigFile()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("gradguard", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.gradguard] must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.gradguard] key(s): {', '.join(sorted(unknown))}")
    select = tuple(_codes(table["select"], "select", path)) if "select" in table else None
    exclude: list[str] = []
    for key in ("exclude", "extend-exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.gradguard] {key} must be a list of glob patterns")
        exclude.extend(value)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: [tool.gradguard] per-file-ignores must be a table of pattern = [codes]")
    rti = table.get("require-torch-import", True)
    if not isinstance(rti, bool):
        raise ConfigError(f"{path}: [tool.gradguard] require-torch-import must be true or false")
    return ConfigFile(
        path=path,
        select=select,
        ignore=tuple(_codes(table.get("ignore", []), "ignore", path)),
        extend_select=tuple(_codes(table.get("extend-select", []), "extend-select", path)),
        exclude=tuple(exclude),
        per_file_ignores=tuple((k, tuple(_codes(v, f"per-file-ignores.{k}", path))) for k, v in pfi.items()),
        require_torch_import=rti,
    )


class ConfigResolver:
    """The configuration of each file: ``[tool.gradguard]`` of the nearest pyproject.toml
    above it (or of one given file), resolved by ``build`` with the front end's options.

    One ``Config`` per pyproject.toml, built on first use; with ``reload`` (a long-running
    server) a pyproject.toml whose modification time changed is read again.
    """

    def __init__(self, build: Callable[[ConfigFile], Config], config_path: Optional[Path] = None, reload: bool = False):
        self.build = build
        self.config_path = config_path
        self.reload = reload
        self._nearest: dict[str, Optional[Path]] = {}  # folder -> its nearest pyproject.toml
        self._configs: dict[Optional[Path], tuple[Optional[int], Config]] = {}

    def _pyproject(self, folder: Path) -> Optional[Path]:
        if self.config_path is not None:
            return self.config_path
        key = str(folder)
        if self.reload or key not in self._nearest:
            self._nearest[key] = find_pyproject(folder)
        return self._nearest[key]

    def for_path(self, path: Path) -> Config:
        """The configuration of a file (or of the files in a folder). Raises ConfigError."""
        absolute = Path(os.path.abspath(path))
        folder = absolute if absolute.is_dir() else absolute.parent
        pyproject = self._pyproject(folder)
        stamp = None
        if self.reload and pyproject is not None:
            try:
                stamp = pyproject.stat().st_mtime_ns
            except OSError:
                stamp = -1
        known = self._configs.get(pyproject)
        if known is not None and known[0] == stamp:
            return known[1]
        file = read_config_file(folder, pyproject) if pyproject is not None else ConfigFile()
        config = self.build(file)
        self._configs[pyproject] = (stamp, config)
        return config

    def configs(self) -> list[Config]:
        """Every configuration built so far."""
        return [config for _, config in self._configs.values()]


def select_rules(
    all_rules: Sequence[type[Rule]],
    select: Optional[Sequence[str]],
    ignore: Sequence[str],
    extend_select: Sequence[str] = (),
) -> list[type[Rule]]:
    """Resolve select/ignore into rule classes.

    An exact code selects that rule even if it is off by default; a prefix (``GG1``) or
    ``ALL`` selects the default-enabled rules it covers, except ``ALL`` which selects all.
    Unknown codes are a configuration error.
    """
    known = {r.code for r in all_rules}

    def check(code: str) -> None:
        if code != "ALL" and not any(k.startswith(code) for k in known | {"GG001"}):
            raise ConfigError(f"unknown rule code or prefix: {code}")

    for code in list(select or []) + list(ignore) + list(extend_select):
        check(code)

    def matches(rule: type[Rule], codes: Sequence[str], explicit_only_for_off: bool) -> bool:
        for code in codes:
            if code == "ALL":
                return True
            if rule.code == code:
                return True
            if rule.code.startswith(code) and (rule.default_enabled or not explicit_only_for_off):
                return True
        return False

    chosen: list[type[Rule]] = []
    for rule in all_rules:
        if select is None:
            on = rule.default_enabled
        else:
            on = matches(rule, select, True)
        if not on and matches(rule, extend_select, True):
            on = True
        if on and matches(rule, [c for c in ignore if c != "ALL"] + (["ALL"] if "ALL" in ignore else []), False):
            on = False
        if on:
            chosen.append(rule)
    return chosen
