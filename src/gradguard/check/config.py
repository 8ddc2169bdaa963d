"""``[tool.gradguard]`` in the nearest pyproject.toml, merged with command-line flags."""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

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


@dataclass
class Settings:
    select: Optional[list] = None
    ignore: list = field(default_factory=list)
    extend_select: list = field(default_factory=list)
    exclude: list = field(default_factory=list)
    per_file_ignores: dict = field(default_factory=dict)
    require_torch_import: bool = True
    force_exclude: bool = False
    root: Path = field(default_factory=Path.cwd)
    config_file: Optional[Path] = None

    def ignored_for(self, path: str) -> list:
        """Codes ignored for one file by per-file-ignores (patterns relative to the root)."""
        rel = _relative(path, self.root)
        codes: list = []
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(rel), pattern):
                codes.extend(ignored)
        return codes

    def is_excluded(self, path: str) -> bool:
        """Whether a file or directory met while walking is excluded.

        A pattern without a slash matches the entry's own name (``build``, ``*_pb2.py``); one
        with a slash matches its path relative to the configuration's folder.
        """
        name = os.path.basename(path.rstrip(os.sep))
        rel = None
        for pattern in list(DEFAULT_EXCLUDE) + self.exclude:
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                if rel is None:
                    rel = _relative(path, self.root)
                if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*"):
                    return True
            elif fnmatch.fnmatch(name, pattern):
                return True
        return False

    def is_excluded_path(self, path: str) -> bool:
        """Whether a named file, or any folder above it below the root, is excluded."""
        if self.is_excluded(path):
            return True
        parts = Path(_relative(path, self.root)).parts[:-1]
        return any(self.is_excluded(os.path.join(str(self.root), *parts[: i + 1])) for i in range(len(parts)))


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


def _codes(value, key: str, path: Path) -> list:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.gradguard] {key} must be a list of rule codes")
    return [v.strip().upper() for v in value]


def load_settings(start: Path, config_path: Optional[Path] = None) -> Settings:
    path = config_path or find_pyproject(start)
    if path is None:
        return Settings(root=Path.cwd())
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("gradguard", {})
    settings = Settings(root=path.parent, config_file=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.gradguard] must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.gradguard] key(s): {', '.join(sorted(unknown))}")
    if "select" in table:
        settings.select = _codes(table["select"], "select", path)
    settings.ignore = _codes(table.get("ignore", []), "ignore", path)
    settings.extend_select = _codes(table.get("extend-select", []), "extend-select", path)
    for key in ("exclude", "extend-exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.gradguard] {key} must be a list of glob patterns")
        settings.exclude.extend(value)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: [tool.gradguard] per-file-ignores must be a table of pattern = [codes]")
    settings.per_file_ignores = {k: _codes(v, f"per-file-ignores.{k}", path) for k, v in pfi.items()}
    rti = table.get("require-torch-import", True)
    if not isinstance(rti, bool):
        raise ConfigError(f"{path}: [tool.gradguard] require-torch-import must be true or false")
    settings.require_torch_import = rti
    return settings


def select_rules(all_rules, select: Optional[list], ignore: list, extend_select: list = ()) -> list:
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

    def matches(rule, codes, explicit_only_for_off: bool) -> bool:
        for code in codes:
            if code == "ALL":
                return True
            if rule.code == code:
                return True
            if rule.code.startswith(code) and (rule.default_enabled or not explicit_only_for_off):
                return True
        return False

    chosen = []
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
