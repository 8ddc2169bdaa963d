"""The generated docs match the rule modules."""

from pathlib import Path

from tools import docgen

ROOT = Path(__file__).resolve().parents[2]


def test_rules_doc_is_up_to_date():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == docgen.rules_markdown(), (
        "docs/rules.md is stale: run python -m tools.docgen"
    )


def test_readme_rule_table_is_up_to_date():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docgen.updated_readme(text) == text, "README rule table is stale: run python -m tools.docgen"


def test_every_rule_is_in_the_docs():
    from gradguard.check.rules import all_rules

    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in all_rules():
        assert f'<a id="{rule.code.lower()}"></a>' in doc
