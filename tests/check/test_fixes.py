"""gradguard.check.fixes: which fixes apply together, and what a pass does with a broken one."""

from __future__ import annotations

from gradguard.check.fixes import apply_edits, fix_until_stable
from gradguard.check.model import Applicability, Diagnostic, Edit, Fix, Position

TEXT = "a = f(x,\n      y)\nb = g(z)\n"


def _fix(*edits: Edit) -> Fix:
    return Fix(Applicability.SAFE, "fix", edits)


def test_a_fix_whose_own_edits_collide_is_never_applied():
    # An insertion inside the text another edit of the same fix replaces has no one meaning.
    replace_statement = Edit(0, TEXT.index("\nb"), "a = h(x,\n      y)")
    indent_second_line = Edit(TEXT.index("      y"), TEXT.index("      y"), "    ")
    text, applied = apply_edits(TEXT, [_fix(replace_statement, indent_second_line)])
    assert (text, applied) == (TEXT, 0)


def test_an_insertion_where_a_replacement_of_the_same_fix_starts_goes_before_it():
    end = TEXT.index("\nb")
    fix = _fix(Edit(0, end, "a = h(x, y)"), Edit(0, 0, "with c:\n    "))
    text, applied = apply_edits(TEXT, [fix])
    assert applied == 1
    assert text == "with c:\n    a = h(x, y)\nb = g(z)\n"


def _diagnostic(fix: Fix, row: int) -> Diagnostic:
    pos = Position(row, 1)
    return Diagnostic("GG999", "test", "t.py", pos, pos, fix=fix)


def test_a_fix_that_breaks_the_program_does_not_hold_back_the_others():
    broken = _fix(Edit(0, 1, "a a"))  # `a a = f(...)`: no longer parses
    good = _fix(Edit(TEXT.index("g"), TEXT.index("g") + 1, "h"))

    def check(text: str) -> list:
        if "g(z)" not in text:
            return [_diagnostic(broken, 1)] if text.startswith("a =") else []
        return [_diagnostic(broken, 1), _diagnostic(good, 3)]

    text, applied, remaining = fix_until_stable(TEXT, check, unsafe=False)
    assert text == "a = f(x,\n      y)\nb = h(z)\n"
    assert applied == 1
    assert [d.fix for d in remaining] == [broken]


def test_a_diff_of_a_last_line_without_newline_marks_it_as_diff_does():
    from gradguard.check.fixes import unified_diff

    diff = unified_diff("a = 1\nb = x.data", "a = 1\nb = x.detach()", "m.py")
    assert diff.endswith("-b = x.data\n\\ No newline at end of file\n+b = x.detach()\n\\ No newline at end of file\n")
    assert all(line.startswith(("---", "+++", "@@", " ", "-", "+", "\\")) for line in diff.splitlines())
