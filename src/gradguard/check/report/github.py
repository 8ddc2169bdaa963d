"""GitHub Actions workflow-command annotations: one ``::error`` line per finding.

GitHub shows each line as an annotation on the pull request's diff. Annotations carry
``col``/``endColumn`` only when the finding starts and ends on one line (GitHub ignores
columns otherwise). A finding in a notebook cell names the cell in its title and message.
"""

from __future__ import annotations

from gradguard.check.model import Diagnostic


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    props = [f"file={_escape_property(d.filename)}"]
    if d.cell is not None:
        # A notebook cell's rows are not the notebook file's rows: point at the file line
        # holding the cell's source line when known, else annotate the whole file.
        file_row = d.extra.get("file_row")
        if file_row:
            props.append(f"line={file_row}")
    elif d.start.row == d.end.row:
        props.append(f"line={d.start.row}")
        props.append(f"col={d.start.column}")
        props.append(f"endLine={d.end.row}")
        props.append(f"endColumn={max(d.end.column, d.start.column)}")
    else:
        props.append(f"line={d.start.row}")
        props.append(f"endLine={d.end.row}")
    title = d.code if d.cell is None else f"{d.code} (cell {d.cell})"
    props.append(f"title={_escape_property(title)}")
    message = (
        d.message if d.cell is None else f"cell {d.cell}, line {d.start.row}, column {d.start.column}: {d.message}"
    )
    return f"::error {','.join(props)}::{_escape_data(message)}"


def render(diagnostics: list[Diagnostic]) -> str:
    return "".join(annotation(d) + "\n" for d in diagnostics)
