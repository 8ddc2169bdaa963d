"""The recall tool (``python -m tools.recall``): labels, matching, tallies and the report.

Small synthetic manifests, labels and findings only: no network, no corpus, no checker run.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tools.recall.__main__ import main, summary_rows
from tools.recall.labels import Label, LabelError, load_manifest, locate_problems, parse_labels
from tools.recall.matching import Finding, FindingsError, match, parse_findings, split_filename, tally
from tools.recall.sources import iter_units


def label(line, code="GG101", verdict="bug", path="a.py", cell=None, end_line=None, repo="r"):
    return Label(repo, path, line, code, verdict, "why", cell, end_line)


def finding(line, code="GG101", path="a.py", cell=None, repo="r"):
    return Finding(repo, path, line, code, "msg", cell)


# -- label files ---------------------------------------------------------------------------


def test_parse_labels_reads_every_field():
    data = {
        "label": [
            {"path": "a.py", "line": 3, "end_line": 5, "code": "GG201", "verdict": "bug", "note": " n "},
            {"path": "nb.ipynb", "cell": 4, "line": 2, "code": "GG101", "verdict": "ok", "note": "m"},
        ]
    }
    first, second = parse_labels("r", data, "f.toml")
    assert (first.path, first.line, first.last_line, first.code, first.verdict, first.note) == (
        "a.py",
        3,
        5,
        "GG201",
        "bug",
        "n",
    )
    assert (second.cell, second.line, second.last_line) == (4, 2, 2)
    assert second.where == "r/nb.ipynb:cell 4:2"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"path": "a.py", "line": 1, "code": "GG101", "verdict": "maybe", "note": "x"}, "verdict must be"),
        ({"path": "a.py", "line": 1, "code": "GG101", "verdict": "bug"}, "lacks 'note'"),
        ({"path": "a.py", "line": 0, "code": "GG101", "verdict": "bug", "note": "x"}, "line must be"),
        ({"path": "a.py", "line": 4, "end_line": 3, "code": "GG101", "verdict": "bug", "note": "x"}, "end_line"),
        ({"path": "a.py", "line": 1, "code": "101", "verdict": "bug", "note": "x"}, "not a GGnnn code"),
        ({"path": "nb.ipynb", "line": 1, "code": "GG101", "verdict": "bug", "note": "x"}, "needs 'cell'"),
        ({"path": "a.py", "cell": 2, "line": 1, "code": "GG101", "verdict": "bug", "note": "x"}, "only for notebooks"),
        ({"path": "a.py", "line": 1, "code": "GG101", "verdict": "bug", "note": "x", "col": 3}, "unknown keys col"),
    ],
)
def test_parse_labels_rejects_malformed_entries(entry, message):
    with pytest.raises(LabelError, match=message):
        parse_labels("r", {"label": [entry]}, "f.toml")


def test_parse_labels_rejects_a_repeated_site():
    entry = {"path": "a.py", "line": 1, "code": "GG101", "verdict": "bug", "note": "x"}
    with pytest.raises(LabelError, match="repeats label 1"):
        parse_labels("r", {"label": [entry, dict(entry, verdict="ok")]}, "f.toml")
    # the same line under another code is another site
    assert len(parse_labels("r", {"label": [entry, dict(entry, code="GG105")]}, "f.toml")) == 2


def test_manifest_needs_split_source_and_commit(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(
        textwrap.dedent(
            """
            [repo."o+n"]
            split = "dev"
            source = "github:o/n"
            commit = "abc"
            kind = "gan"
            language = "en"
            exclude = ["docs/"]

            [repo."lib-1.0"]
            split = "holdout"
            source = "pypi:lib==1.0"
            kind = "library"
            language = "en"
            """
        )
    )
    corpus = load_manifest(good)
    assert corpus.repos["o+n"].side == "user" and corpus.repos["o+n"].exclude == ("docs/",)
    assert corpus.repos["lib-1.0"].side == "library"
    assert [r.name for r in corpus.in_split("holdout")] == ["lib-1.0"]
    assert len(corpus.in_split("all")) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('[repo."o+n"]\nsplit = "dev"\nsource = "github:o/n"\nkind = "gan"\nlanguage = "en"\n')
    with pytest.raises(LabelError, match="names no commit"):
        load_manifest(bad)


def test_locate_problems_finds_labels_outside_the_corpus(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\ny = 2\n")
    cells = [
        {"cell_type": "markdown", "source": "# title"},
        {"cell_type": "code", "source": ["import torch\n", "x = 1"]},
    ]
    (repo / "nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    labels = [
        label(2),
        label(9),
        label(1, path="gone.py"),
        label(2, path="nb.ipynb", cell=2),
        label(1, path="nb.ipynb", cell=1),
    ]
    problems = locate_problems(labels, str(tmp_path))
    assert problems == [
        "r/a.py:9: past the last line (2)",
        "r/gone.py:1: no such file",
        "r/nb.ipynb:cell 1:1: no code cell 1",
    ]


# -- matching ------------------------------------------------------------------------------


def test_match_sorts_labels_and_findings():
    labels = [
        label(3),  # found
        label(7),  # missed
        label(10, verdict="ok"),  # quiet
        label(12, verdict="ok"),  # noisy
        label(20, code="GG201", end_line=24),  # found through its span
    ]
    findings = [finding(3), finding(3), finding(12), finding(22, code="GG201"), finding(30)]
    outcome = match(labels, findings)
    assert [lab.line for lab in outcome.found] == [3, 20]
    assert [lab.line for lab in outcome.missed] == [7]
    assert [lab.line for lab in outcome.quiet] == [10]
    assert [lab.line for lab in outcome.noisy] == [12]
    assert [f.line for f in outcome.unlabelled] == [30]
    assert len(outcome.hits[labels[0]]) == 2


def test_match_needs_the_same_code_file_and_cell():
    labels = [label(5, path="nb.ipynb", cell=3)]
    near_misses = [
        finding(5, path="nb.ipynb", cell=4),
        finding(5, path="other.ipynb", cell=3),
        finding(5, code="GG102", path="nb.ipynb", cell=3),
        finding(5, path="nb.ipynb", cell=3, repo="s"),
        finding(6, path="nb.ipynb", cell=3),
    ]
    outcome = match(labels, near_misses)
    assert outcome.missed == labels
    assert len(outcome.unlabelled) == len(near_misses)
    assert match(labels, [finding(5, path="nb.ipynb", cell=3)]).found == labels


def test_a_bug_label_is_found_by_the_finding_that_supersedes_its_code_at_the_site():
    bug = label(5)  # GG101 on `loss.data[0]`
    ok = label(9, verdict="ok")
    findings = [finding(5, code="GG105"), finding(9, code="GG105")]
    outcome = match([bug, ok], findings, {"GG101": ("GG105",)})
    assert outcome.found == [bug] and outcome.quiet == [ok]  # an ok label stays GG101's own
    assert [f.line for f in outcome.unlabelled] == [5, 9]  # no GG105 label covers them
    assert match([bug], findings).missed == [bug]  # without the mapping, codes must agree


def test_tally_counts_sites_and_derives_the_rates():
    labels = [label(1), label(2), label(3), label(4, verdict="ok"), label(5, verdict="ok"), label(6, verdict="ok")]
    findings = [finding(1), finding(2), finding(4), finding(9), finding(9), finding(11, code="GG102")]
    by_code = tally(match(labels, findings), lambda item: item.code)
    t = by_code["GG101"]
    assert (t.bugs, t.found, t.oks, t.quiet, t.unlabelled) == (3, 2, 3, 2, 1)  # two findings on line 9: one site
    assert t.recall == pytest.approx(2 / 3)
    assert t.specificity == pytest.approx(2 / 3)
    assert t.precision == pytest.approx(2 / 3)  # 2 bugs found among 3 flagged labelled sites
    empty = by_code["GG102"]
    assert (empty.recall, empty.specificity, empty.precision, empty.unlabelled) == (None, None, None, 1)


def test_summary_keeps_off_by_default_rules_out_of_the_totals():
    labels = [label(1), label(2, code="GG206"), label(3, code="GG105")]
    outcome = match(labels, [finding(1), finding(2, code="GG206")])
    rows = {(name, side): t for name, side, t in summary_rows(outcome, {"r": "user"}, off={"GG206"})}
    assert rows[("GG206 (off)", "user")].found == 1
    assert rows[("existing rules", "user")].bugs == 1
    assert rows[("new rules (issue 13)", "user")].bugs == 1
    assert rows[("all rules", "user")].bugs == 2


# -- checker output ------------------------------------------------------------------------


def test_split_filename_finds_the_repository_anywhere_in_the_path():
    repos = {"o+n", "lib-1.0"}
    assert split_filename("o+n/src/a.py", repos) == ("o+n", "src/a.py")
    assert split_filename("/work/corpus/lib-1.0/lib/x.py", repos) == ("lib-1.0", "lib/x.py")
    assert split_filename("elsewhere/a.py", repos) == (None, "elsewhere/a.py")


def test_parse_findings_reads_the_json_report():
    data = [
        {"code": "GG101", "filename": "o+n/nb.ipynb", "location": {"row": 4, "column": 2}, "cell": 3, "message": "m"},
        {"code": "GG104", "filename": "o+n/a.py", "location": {"row": 9, "column": 1}},
        {"code": "GG104", "filename": "unrelated/a.py", "location": {"row": 1, "column": 1}},
    ]
    first, second = parse_findings(data, {"o+n"})
    assert (first.repo, first.path, first.cell, first.line, first.column) == ("o+n", "nb.ipynb", 3, 4, 2)
    assert (second.path, second.cell, second.line) == ("a.py", None, 9)
    with pytest.raises(FindingsError, match="lacks code"):
        parse_findings([{"code": "GG101"}], {"o+n"})
    with pytest.raises(FindingsError, match="JSON list"):
        parse_findings({"code": "GG101"}, {"o+n"})


# -- the command line ----------------------------------------------------------------------


@pytest.fixture
def tiny_corpus(tmp_path):
    manifest = tmp_path / "corpus.toml"
    manifest.write_text(
        '[repo."o+n"]\nsplit = "dev"\nsource = "github:o/n"\ncommit = "abc"\nkind = "rnn"\nlanguage = "en"\n'
        '[repo."h+x"]\nsplit = "holdout"\nsource = "github:h/x"\ncommit = "def"\nkind = "gan"\nlanguage = "en"\n'
    )
    labels_dir = tmp_path / "labels"
    (labels_dir / "dev").mkdir(parents=True)
    (labels_dir / "holdout").mkdir(parents=True)
    (labels_dir / "dev" / "o+n.toml").write_text(
        "label = [\n"
        '  {path = "a.py", line = 2, code = "GG101", verdict = "bug", note = "out.data read"},\n'
        '  {path = "a.py", line = 5, code = "GG201", verdict = "bug", note = "eval loop with grad"},\n'
        '  {path = "a.py", line = 7, code = "GG101", verdict = "ok", note = "dataset.data"},\n'
        "]\n"
    )
    (labels_dir / "holdout" / "h+x.toml").write_text("this is not toml [")
    findings = tmp_path / "findings.json"
    findings.write_text(
        json.dumps(
            [
                {"code": "GG101", "filename": "o+n/a.py", "location": {"row": 2, "column": 1}},
                {"code": "GG302", "filename": "o+n/a.py", "location": {"row": 9, "column": 1}, "message": "numpy"},
            ]
        )
    )
    return ["--manifest", str(manifest), "--labels-dir", str(labels_dir), "--gradguard-json", str(findings)]


def test_cli_reports_recall_missed_and_unlabelled(tiny_corpus, capsys, tmp_path):
    code = main(
        ["--split", "dev", "--corpus", str(tmp_path / "absent"), "--missed", "--noisy", "--unlabelled", *tiny_corpus]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "split dev: 1 repositories (1 user, 0 library), 3 labels, 2 findings" in out
    row = next(line.split() for line in out.splitlines() if line.startswith("GG101"))
    assert row[:8] == ["GG101", "user", "1", "1", "100.0%", "1", "1", "100.0%"]
    assert "GG201 o+n/a.py:5  eval loop with grad" in out
    assert "GG302 o+n/a.py:9  numpy" in out


def test_cli_fails_cleanly_on_a_broken_label_file(tiny_corpus, capsys):
    assert main(["--split", "holdout", *tiny_corpus]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tools.recall: error:") and "h+x.toml" in err and "Traceback" not in err


def test_cli_fails_cleanly_without_the_corpus(tiny_corpus, capsys, tmp_path):
    args = [a for a in tiny_corpus]
    del args[args.index("--gradguard-json") : args.index("--gradguard-json") + 2]
    assert main(["--split", "dev", "--corpus", str(tmp_path / "absent"), *args]) == 2
    assert "materialize" in capsys.readouterr().err


# -- reading sources like the checker -----------------------------------------------------


def test_notebook_cells_are_numbered_as_the_checker_numbers_them(tmp_path):
    cells = [
        {"cell_type": "markdown", "source": "text"},
        {"cell_type": "code", "source": "%matplotlib inline\nx = 1"},
        {"cell_type": "code", "source": "print('%d'\n      % 3)\ny = (1,\n%2)"},
        {"cell_type": "raw", "source": "raw"},
        {"cell_type": "code", "source": "%%bash\nls"},
    ]
    (tmp_path / "nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    units = {u.cell: u.text for u in iter_units(str(tmp_path))}
    assert units[2] == "pass\nx = 1"
    assert units[3] == cells[2]["source"]  # a % inside an open bracket is the modulo operator
    assert units[5] == "pass\npass"
    assert set(units) == {2, 3, 5}
