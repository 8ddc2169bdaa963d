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


def test_the_version_is_written_once():
    """``gradguard/_version.py`` is the one source; the README's pre-commit example names it,
    and nothing else in the package or pyproject.toml spells it out."""
    import re

    from gradguard._version import __version__

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"rev: v(\S+)", readme) == [__version__]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and 'attr = "gradguard._version.__version__"' in pyproject
    spelled = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "src" / "gradguard").rglob("*.py")) + [ROOT / "pyproject.toml"]
        if path.name != "_version.py" and f'"{__version__}"' in path.read_text(encoding="utf-8")
    ]
    assert spelled == []
