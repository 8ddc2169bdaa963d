"""GG001, the code the checker itself reports for a file it cannot read or parse."""

from __future__ import annotations

CODE = "GG001"
NAME = "parse-error"

DOCUMENTATION = """\
A file that could not be read or parsed; it was skipped.

## What it does
Reports a file gradguard could not check: it could not be read (missing, a directory, no
permission), decoded (a wrong `# coding` declaration, NUL bytes), or parsed (a syntax error,
syntax of a newer Python than the one running gradguard, nesting too deep to analyse). In a
notebook, a code cell that does not parse is reported on its own and the other cells are
still checked.

## Why is this bad?
Nothing in the file was checked, so every other rule is silent about it. The message says
why: the syntax error with its line and column, or the Python version a newer syntax needs
(`type` statements, generic functions and classes, `except*`, f-strings that reuse their quote
inside a replacement field, `f"{d["k"]}"`, or whose replacement field spans lines or holds a
backslash or a comment: run gradguard with that Python), or what to write instead of syntax
only an older Python accepted (`x.cuda(async=True)` of PyTorch 0.3: `non_blocking=True`).

Where that older syntax is the only thing that does not parse (`async=` keyword arguments,
Python 2's one-line `print x, y` statements), GG001 is reported at each of them and the rest of
the file is still checked, as if they were written as Python 3 writes them: old training code
is where `Variable`, `loss.data[0]` and evaluation with grad on are found.

## Example
```python
def train(model:
    ...
```

## Use instead
```python
def train(model):
    ...
```

## Fix safety
No fix. GG001 cannot be suppressed with `# noqa` (a file that does not parse has no
comments gradguard can read); leave such files out with `exclude`.
"""
