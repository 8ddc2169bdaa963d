"""Match the checker's findings to labels and count recall, quiet look-alikes and precision.

A label stands for one site: every finding of its code in its file (and notebook cell) whose
line lies between the label's ``line`` and ``end_line`` (the statement that starts on
``line``; ``end_line`` defaults to ``line``). A bug label is *found* when at least one
finding matches it; an ok label is *quiet* when none does. A finding that matches no label
is *unlabelled*: it has to be read and labelled before the precision figure covers it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str  # relative to the repository root
    line: int
    code: str
    message: str = ""
    cell: int | None = None
    column: int = 1

    @property
    def where(self) -> str:
        cell = f":cell {self.cell}" if self.cell is not None else ""
        return f"{self.repo}/{self.path}{cell}:{self.line}"


class FindingsError(Exception):
    """Checker output that is not the JSON list of findings ``--format json`` writes."""


def split_filename(filename: str, repos: set) -> tuple:
    """(repository, path inside it) for a finding's filename, which may be relative to the
    corpus root, to the repository, or absolute; (None, filename) if no repository matches."""
    parts = filename.replace("\\", "/").split("/")
    for index, part in enumerate(parts):
        if part in repos:
            return part, "/".join(parts[index + 1 :])
    return None, filename


def parse_findings(data, repos: set, default_repo: str | None = None) -> list:
    """Findings from the checker's JSON (a list of objects with code, filename, location, cell)."""
    if not isinstance(data, list):
        raise FindingsError("expected a JSON list of findings")
    findings = []
    for index, item in enumerate(data):
        try:
            code = item["code"]
            filename = item["filename"]
            line = int(item["location"]["row"])
            column = int(item["location"].get("column", 1))
        except (KeyError, TypeError, ValueError):
            raise FindingsError(f"finding {index} lacks code, filename or location.row") from None
        repo, path = split_filename(filename, repos)
        if repo is None:
            if default_repo is None:
                continue  # a file outside the corpus repositories being measured
            repo, path = default_repo, filename.replace("\\", "/")
        cell = item.get("cell")
        findings.append(Finding(repo, path, line, code, item.get("message", ""), cell, column))
    return findings


@dataclass
class Outcome:
    """Labels and findings after matching."""

    found: list = field(default_factory=list)  # bug labels with a finding
    missed: list = field(default_factory=list)  # bug labels without one
    quiet: list = field(default_factory=list)  # ok labels without a finding
    noisy: list = field(default_factory=list)  # ok labels with a finding
    unlabelled: list = field(default_factory=list)  # findings that match no label
    hits: dict = field(default_factory=dict)  # label -> findings matching it


def match(labels: list, findings: list, superseded: dict | None = None) -> Outcome:
    """``superseded``: code -> the codes whose finding at a site replaces it (a rule's
    ``superseded_by``): a label of GG101 on `loss.data[0]` is found by GG105's finding there,
    the site's one finding (an ok label stays the superseded rule's own)."""
    index = defaultdict(list)
    for label in labels:
        index[(label.repo, label.path, label.cell, label.code)].append(label)
        for other in (superseded or {}).get(label.code, ()) if label.verdict == "bug" else ():
            index[(label.repo, label.path, label.cell, other)].append(label)
    outcome = Outcome()
    hits = defaultdict(list)
    for finding in findings:
        candidates = index.get((finding.repo, finding.path, finding.cell, finding.code), [])
        matched = [lab for lab in candidates if lab.line <= finding.line <= lab.last_line]
        if not any(lab.code == finding.code for lab in matched):
            outcome.unlabelled.append(finding)
        for label in matched:
            hits[label].append(finding)
    for label in labels:
        hit = label in hits
        if label.verdict == "bug":
            (outcome.found if hit else outcome.missed).append(label)
        else:
            (outcome.noisy if hit else outcome.quiet).append(label)
    outcome.hits = dict(hits)
    return outcome


@dataclass
class Tally:
    bugs: int = 0
    found: int = 0
    oks: int = 0
    quiet: int = 0
    unlabelled: int = 0

    def add(self, other: Tally) -> None:
        self.bugs += other.bugs
        self.found += other.found
        self.oks += other.oks
        self.quiet += other.quiet
        self.unlabelled += other.unlabelled

    @property
    def recall(self) -> float | None:
        return self.found / self.bugs if self.bugs else None

    @property
    def specificity(self) -> float | None:
        return self.quiet / self.oks if self.oks else None

    @property
    def precision(self) -> float | None:
        """Of the labelled sites the checker flags, the share that are bugs."""
        flagged = self.found + (self.oks - self.quiet)
        return self.found / flagged if flagged else None


def tally(outcome: Outcome, key) -> dict:
    """Tallies grouped by ``key(item)``, computed for labels and unlabelled findings alike."""
    groups = defaultdict(Tally)
    for label in outcome.found:
        groups[key(label)].bugs += 1
        groups[key(label)].found += 1
    for label in outcome.missed:
        groups[key(label)].bugs += 1
    for label in outcome.quiet:
        groups[key(label)].oks += 1
        groups[key(label)].quiet += 1
    for label in outcome.noisy:
        groups[key(label)].oks += 1
    sites = {(f.repo, f.path, f.cell, f.line, f.code): f for f in outcome.unlabelled}
    for finding in sites.values():  # several findings of one code on one line are one site
        groups[key(finding)].unlabelled += 1
    return dict(groups)
