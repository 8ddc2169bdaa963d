"""The corpus manifest and the labels: loading, checking their form, and their location in the corpus."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpus.toml"
LABEL_DIR = HERE / "labels"
SPLITS = ("dev", "holdout")
USER_KINDS = {"tutorial", "notebook", "gan", "rnn", "detection", "rl", "research"}
LIBRARY_KINDS = {"library"}
VERDICTS = {"bug", "ok"}
# The rules of issue 13, which the checker does not have yet: reported apart from the others.
NEW_CODES = ("GG105", "GG106", "GG107", "GG207", "GG208", "GG209", "GG210", "GG303", "GG403", "GG404")


class LabelError(Exception):
    """A manifest or label file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class Repo:
    name: str  # folder name under the corpus root: owner+name, or name-version for an sdist
    split: str
    source: str
    kind: str
    language: str
    commit: str | None = None
    exclude: tuple = ()  # path prefixes of the repository left out of the corpus

    @property
    def side(self) -> str:
        """'user' or 'library': the two populations the targets are stated for."""
        return "library" if self.kind in LIBRARY_KINDS else "user"


@dataclass(frozen=True)
class Label:
    repo: str
    path: str
    line: int
    code: str
    verdict: str
    note: str
    cell: int | None = None
    end_line: int | None = None

    @property
    def last_line(self) -> int:
        return self.end_line if self.end_line is not None else self.line

    @property
    def where(self) -> str:
        cell = f":cell {self.cell}" if self.cell is not None else ""
        span = f"-{self.end_line}" if self.end_line is not None else ""
        return f"{self.repo}/{self.path}{cell}:{self.line}{span}"


@dataclass
class Corpus:
    repos: dict = field(default_factory=dict)  # name -> Repo

    def in_split(self, split: str) -> list:
        return [r for r in self.repos.values() if split == "all" or r.split == split]


def load_manifest(path: Path = MANIFEST) -> Corpus:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabelError(f"{path}: cannot read the manifest: {exc}") from None
    corpus = Corpus()
    for name, entry in data.get("repo", {}).items():
        if not isinstance(entry, dict):
            raise LabelError(f"{path}: repo {name!r} is not a table")
        missing = [k for k in ("split", "source", "kind", "language") if k not in entry]
        if missing:
            raise LabelError(f"{path}: repo {name!r} lacks {', '.join(missing)}")
        if entry["split"] not in SPLITS:
            raise LabelError(f"{path}: repo {name!r} has split {entry['split']!r}, not one of {', '.join(SPLITS)}")
        if entry["kind"] not in USER_KINDS | LIBRARY_KINDS:
            raise LabelError(f"{path}: repo {name!r} has unknown kind {entry['kind']!r}")
        if entry["source"].startswith("github:") and not entry.get("commit"):
            raise LabelError(f"{path}: repo {name!r} comes from GitHub but names no commit")
        exclude = entry.get("exclude", [])
        if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
            raise LabelError(f"{path}: repo {name!r}: exclude must be a list of path prefixes")
        corpus.repos[name] = Repo(
            name, entry["split"], entry["source"], entry["kind"], entry["language"], entry.get("commit"), tuple(exclude)
        )
    return corpus


def _int(value, what: str, where: str, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise LabelError(f"{where}: {what} must be an integer >= {minimum}, not {value!r}")
    return value


def parse_labels(repo: str, data: dict, where: str) -> list:
    """The labels of one repository from a parsed label file (``label = [ {...}, ... ]``)."""
    entries = data.get("label", [])
    if not isinstance(entries, list):
        raise LabelError(f"{where}: 'label' must be an array of tables")
    labels, seen = [], {}
    for index, entry in enumerate(entries, start=1):
        at = f"{where}: label {index}"
        if not isinstance(entry, dict):
            raise LabelError(f"{at} is not a table")
        unknown = set(entry) - {"path", "line", "end_line", "cell", "code", "verdict", "note"}
        if unknown:
            raise LabelError(f"{at} has unknown keys {', '.join(sorted(unknown))}")
        for key in ("path", "line", "code", "verdict", "note"):
            if key not in entry:
                raise LabelError(f"{at} lacks {key!r}")
        code = str(entry["code"])
        if not (len(code) == 5 and code.startswith("GG") and code[2:].isdigit()):
            raise LabelError(f"{at}: code {code!r} is not a GGnnn code")
        if entry["verdict"] not in VERDICTS:
            raise LabelError(f"{at}: verdict must be 'bug' or 'ok', not {entry['verdict']!r}")
        path = str(entry["path"])
        if path.endswith(".ipynb") and "cell" not in entry:
            raise LabelError(f"{at}: a notebook label needs 'cell'")
        if "cell" in entry and not path.endswith(".ipynb"):
            raise LabelError(f"{at}: 'cell' is only for notebooks")
        line = _int(entry["line"], "line", at)
        end_line = _int(entry["end_line"], "end_line", at, minimum=line) if "end_line" in entry else None
        cell = _int(entry["cell"], "cell", at) if "cell" in entry else None
        label = Label(repo, path, line, code, entry["verdict"], str(entry["note"]).strip(), cell, end_line)
        key = (path, cell, line, code)
        if key in seen:
            raise LabelError(f"{at} repeats label {seen[key]} (same path, cell, line and code)")
        seen[key] = index
        labels.append(label)
    return labels


def label_file(split: str, repo: str, label_dir: Path = LABEL_DIR) -> Path:
    return Path(label_dir) / split / f"{repo}.toml"


def load_labels(repo: Repo, label_dir: Path = LABEL_DIR) -> list:
    path = label_file(repo.split, repo.name, label_dir)
    if not path.exists():
        return []
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabelError(f"{path}: {exc}") from None
    return parse_labels(repo.name, data, str(path))


def stray_label_files(corpus: Corpus, label_dir: Path = LABEL_DIR) -> list:
    """Label files for repositories that the manifest does not list, or lists under another split."""
    stray = []
    for split in SPLITS:
        folder = Path(label_dir) / split
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            repo = corpus.repos.get(path.stem)
            if repo is None or repo.split != split:
                stray.append(path)
    return stray


def locate_problems(labels: list, corpus_root: str) -> list:
    """Labels whose file, cell or line is not in the corpus on disk (a moved or mistyped label)."""
    from tools.recall.sources import notebook_cells

    problems, cache = [], {}
    for label in labels:
        full = os.path.join(corpus_root, label.repo, label.path)
        if full not in cache:
            if not os.path.isfile(full):
                cache[full] = None
            elif full.endswith(".ipynb"):
                cache[full] = {n: len(t.splitlines()) or 1 for n, t in notebook_cells(full)}
            else:
                with open(full, encoding="utf-8", errors="replace") as handle:
                    cache[full] = {None: len(handle.read().splitlines()) or 1}
        lines = cache[full]
        if lines is None:
            problems.append(f"{label.where}: no such file")
        elif label.cell not in lines:
            problems.append(f"{label.where}: no code cell {label.cell}")
        elif label.last_line > lines[label.cell]:
            problems.append(f"{label.where}: past the last line ({lines[label.cell]})")
    return problems
