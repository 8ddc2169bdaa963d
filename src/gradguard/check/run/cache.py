"""Result cache: a file whose bytes, configuration and checker are unchanged is not checked again.

An entry is one small JSON file named by a hash of everything that can change a file's
findings: its content, its path, the selected rules, the codes per-file-ignores drop for it,
whether files must import torch, and the checker itself (its version plus a hash of its
own source files, so editing a rule invalidates every entry). Entries are written atomically
(temporary file + rename), so concurrent runs and parallel workers never see half an entry;
an unreadable or corrupt entry is a miss, never an error.

``--fix`` and ``--diff`` use an entry only when it holds no fix they would apply (then there
is nothing to do, and the stored findings are the answer); otherwise the file is checked and
fixed afresh. Results with internal errors, and files that were rewritten, are not stored.

Layout::

    .gradguard_cache/            beside the configuration (pyproject.toml), else the cwd
        .gitignore               "*": never committed
        CACHEDIR.TAG             marks the folder as a cache for backup tools
        <checker fingerprint>/   one folder per checker build; stale ones are removed
            <key>.json
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional

from gradguard.check.fixes import write_atomic
from gradguard.check.model import Applicability, Diagnostic, Edit, Fix, Position

if TYPE_CHECKING:
    from gradguard.check.config import Config

CACHE_DIR_NAME = ".gradguard_cache"
ENTRY_FORMAT = 1
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gradguard.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


PACKAGE_DIR = Path(__file__).resolve().parents[2]  # the installed gradguard package


def checker_sources() -> list[Path]:
    """Every source file whose change can change a finding: ``gradguard.check`` (engine,
    analyses, rules, ...) and the ``gradguard.common`` helpers it uses."""
    return sorted(path for folder in ("check", "common") for path in (PACKAGE_DIR / folder).rglob("*.py"))


@lru_cache(maxsize=1)
def checker_fingerprint() -> str:
    """Hash of the gradguard version and of every checker source file (``checker_sources``)."""
    from gradguard._version import __version__

    digest = hashlib.blake2b(digest_size=12)
    digest.update(__version__.encode())
    for path in checker_sources():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()


def default_cache_dir(config: Config) -> Path:
    """``.gradguard_cache`` in the folder of the configuration file, else the current one."""
    base = config.config_file.parent if config.config_file is not None else Path.cwd()
    return base / CACHE_DIR_NAME


_FINGERPRINT_RE = re.compile(r"^[0-9a-f]{24}$")


class CacheError(Exception):
    """The cache folder cannot be used; the run goes on without a cache."""


class ResultCache:
    """Per-file results stored under a key of content + configuration + checker.

    Picklable (plain strings), so parallel workers read and write entries themselves.
    """

    def __init__(self, root: Path, rule_codes: Iterable[str], require_torch_import: bool):
        self.root = str(root)
        self.folder = os.path.join(self.root, checker_fingerprint())
        self.config = json.dumps([sorted(rule_codes), bool(require_torch_import)])

    @classmethod
    def open(cls, root: Path, rule_codes: Iterable[str], require_torch_import: bool) -> ResultCache:
        """Create the cache folder (tagged, git-ignored).

        Raises CacheError when it cannot be created, or when ``root`` is an existing folder
        with other content that is not a cache (never write into, or prune, such a folder).
        """
        cache = cls(root, rule_codes, require_torch_import)
        try:
            cache._prepare()
        except OSError as exc:
            raise CacheError(f"cannot create cache folder {root}: {exc.strerror or exc}") from None
        return cache

    def _prepare(self) -> None:
        root = self.root
        if os.path.isdir(root) and not os.path.exists(os.path.join(root, "CACHEDIR.TAG")) and os.listdir(root):
            raise CacheError(f"{root} is not empty and not a gradguard cache (no CACHEDIR.TAG); cache not used")
        os.makedirs(root, exist_ok=True)
        for name, content in ((".gitignore", "*\n"), ("CACHEDIR.TAG", CACHEDIR_TAG)):
            target = os.path.join(root, name)
            if not os.path.exists(target):
                write_atomic(target, content.encode(), durable=False)
        if not os.path.isdir(self.folder):
            os.makedirs(self.folder, exist_ok=True)
            # Entries of other checker builds can never be hit again.
            for entry in os.scandir(root):
                if (
                    _FINGERPRINT_RE.match(entry.name)
                    and entry.is_dir(follow_symlinks=False)
                    and entry.path != self.folder
                ):
                    shutil.rmtree(entry.path, ignore_errors=True)

    def key(self, path: str, data: bytes, ignored_codes: Iterable[str], project: str = "") -> str:
        """The entry's key: configuration, path, ignored codes, content, and the digest of the
        run's project facts (what the other files say), so that an edit there is seen here."""
        digest = hashlib.blake2b(digest_size=20)
        digest.update(self.config.encode())
        digest.update(b"\0" + project.encode())
        digest.update(b"\0" + os.path.abspath(path).encode("utf-8", "surrogateescape"))
        digest.update(b"\0" + ",".join(sorted(ignored_codes)).encode() + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.folder, key + ".json")

    def load(self, key: str, path: str) -> Optional[tuple[bool, list[Diagnostic]]]:
        """The stored (checked, diagnostics) for a file, or None on a miss or a bad entry."""
        try:
            with open(self._entry_path(key), "rb") as handle:
                entry = json.loads(handle.read())
            if entry["v"] != ENTRY_FORMAT:
                return None
            return bool(entry["checked"]), [_diagnostic_from_json(d, path) for d in entry["d"]]
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None

    def store(self, key: str, path: str, checked: bool, diagnostics: list[Diagnostic]) -> bool:
        """Write an entry; False if the findings cannot be stored (or the write failed)."""
        try:
            entry = {"v": ENTRY_FORMAT, "checked": checked, "d": [_diagnostic_to_json(d, path) for d in diagnostics]}
            data = json.dumps(entry, separators=(",", ":")).encode()
        except (TypeError, ValueError):
            return False
        try:
            write_atomic(self._entry_path(key), data, durable=False)
        except OSError:
            return False
        return True


def _pos(p: Position) -> list[int]:
    return [p.row, p.column]


def _diagnostic_to_json(d: Diagnostic, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {"c": d.code, "m": d.message, "s": _pos(d.start), "e": _pos(d.end)}
    if d.filename != path:
        out["f"] = d.filename
    if d.cell is not None:
        out["cell"] = d.cell
    if d.fix is not None:
        out["x"] = [d.fix.applicability.value, d.fix.message, [[e.start, e.end, e.content] for e in d.fix.edits]]
    extra = dict(d.extra)
    positions = extra.pop("edit_positions", None)
    if positions is not None:
        out["ep"] = [[_pos(a), _pos(b)] for a, b in positions]
    if extra:
        json.dumps(extra)  # only plain JSON values can be stored; TypeError otherwise
        out["extra"] = extra
    return out


def _diagnostic_from_json(item: dict[str, Any], path: str) -> Diagnostic:
    fix = None
    if "x" in item:
        applicability, message, edits = item["x"]
        fix = Fix(Applicability(applicability), message, tuple(Edit(int(a), int(b), str(c)) for a, b, c in edits))
    extra = dict(item.get("extra", {}))
    if "ep" in item:
        extra["edit_positions"] = [(Position(*a), Position(*b)) for a, b in item["ep"]]
    return Diagnostic(
        code=str(item["c"]),
        message=str(item["m"]),
        filename=item.get("f", path),
        start=Position(*item["s"]),
        end=Position(*item["e"]),
        fix=fix,
        cell=item.get("cell"),
        extra=extra,
    )
