"""Jupyter notebooks: checked as one program per notebook, reported and fixed per cell."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from gradguard.check.run.notebook import ipython_to_python
from gradguard.cli import main

MSG = "`torch.no_grad` is used without `()`"


def code(source, **extra):
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    cell.update(extra)
    return cell


def markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(cells, language="python"):
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write(path, nb, indent=1, ensure_ascii=False, newline=True):
    text = json.dumps(nb, indent=indent, ensure_ascii=ensure_ascii)
    path.write_text(text + ("\n" if newline else ""), encoding="utf-8")
    return path


def run_cli(capsys, *args):
    code_ = main(list(args))
    out, err = capsys.readouterr()
    return code_, out, err


TRAIN = notebook(
    [
        markdown(["# Training\n", "Some text."]),
        code(["%matplotlib inline\n", "import torch\n", "from torch import no_grad as ng\n", "!pip install -q tqdm\n"]),
        markdown("More text"),
        code(
            [
                "files = !ls\n",
                "torch.zeros?\n",
                "for step in range(2):\n",
                "    !echo hi\n",
                "    with ng:\n",
                "        y = (3\n",
                "             % 2)",
            ],
            outputs=[{"name": "stdout", "output_type": "stream", "text": ["héllo\n"]}],
            execution_count=7,
        ),
        code("%%time\nwith torch.no_grad:\n    pass\n"),
        code(["%%bash\n", "with torch.no_grad:\n", "echo\n"]),
        code(["with torch.no_grad:  # noqa: GG204\n", "    pass\n"]),
    ]
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "train.ipynb", TRAIN)
    return tmp_path


def test_findings_reported_by_cell_line_and_column(project, capsys):
    code_, out, _ = run_cli(capsys, "check", ".")
    assert code_ == 1
    lines = out.splitlines()
    # Cell numbers count every cell (markdown too); names imported in cell 2 are known in
    # cell 4; magics, shell escapes, help and the %%bash cell are skipped; `% 2` inside
    # brackets is the modulo operator, not a magic; noqa works in cells.
    assert [line.split(": GG204 ")[0] for line in lines[:-1]] == ["train.ipynb:cell 4:5:10", "train.ipynb:cell 5:2:6"]
    assert lines[0].endswith("write `ng()` [*]")
    assert lines[-1] == "Found 2 errors (2 fixable with --fix)."


def test_json_output_has_cell_and_cell_positions(project, capsys):
    _, out, _ = run_cli(capsys, "check", "--format", "json", "train.ipynb")
    first = json.loads(out)[0]
    assert first["cell"] == 4 and first["filename"] == "train.ipynb"
    assert first["location"] == {"row": 5, "column": 10} and first["end_location"] == {"row": 5, "column": 12}
    assert first["fix"]["edits"][0]["location"] == {"row": 5, "column": 12}


def test_fix_rewrites_only_the_fixed_cells(project, capsys):
    before = (project / "train.ipynb").read_text(encoding="utf-8")
    code_, out, _ = run_cli(capsys, "check", "--fix", ".")
    assert code_ == 0 and "2 fixed, 0 remaining" in out
    after = (project / "train.ipynb").read_text(encoding="utf-8")
    expected = before.replace('"    with ng:\\n"', '"    with ng():\\n"').replace(
        '"%%time\\nwith torch.no_grad:\\n', '"%%time\\nwith torch.no_grad():\\n'
    )
    assert expected != before and after == expected
    # Idempotent: a second run changes nothing.
    assert run_cli(capsys, "check", "--fix", ".")[0] == 0
    assert (project / "train.ipynb").read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("indent, ensure_ascii, newline", [(2, True, False), (None, False, True), ("\t", False, True)])
def test_fix_keeps_the_notebooks_json_layout(tmp_path, capsys, indent, ensure_ascii, newline):
    nb = notebook([code(["import torch\n", "x = 'é'\n", "with torch.no_grad:\n", "    pass"]), markdown("é")])
    nb["metadata"]["zz_custom"] = {"b": 1, "a": [1.50, "x/y"]}
    path = write(tmp_path / "n.ipynb", nb, indent=indent, ensure_ascii=ensure_ascii, newline=newline)
    before = path.read_bytes()
    assert run_cli(capsys, "check", "--fix", str(path))[0] == 0
    assert path.read_bytes() == before.replace(b'"with torch.no_grad:\\n"', b'"with torch.no_grad():\\n"')


def test_fix_keeps_crlf_json_and_bom(tmp_path, capsys):
    nb = notebook([code(["import torch\n", "with torch.no_grad:\n", "    pass\n"])])
    text = json.dumps(nb, indent=1).replace("\n", "\r\n")
    path = tmp_path / "n.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert run_cli(capsys, "check", "--fix", str(path))[0] == 0
    expected = b"\xef\xbb\xbf" + text.replace("no_grad:\\n", "no_grad():\\n").encode()
    assert path.read_bytes() == expected


def test_fix_that_inserts_lines_keeps_source_a_list_of_lines(tmp_path, capsys):
    """Splitting a cell's text into lines again after an edit: one JSON string per line."""
    from gradguard.check.run.notebook import Notebook, load_notebook

    nb = notebook([code(["import torch\n", "x = 1"])])
    path = write(tmp_path / "n.ipynb", nb)
    loaded = load_notebook(path.read_bytes())
    new = loaded.to_bytes({1: "import torch\nwith torch.no_grad():\n    x = 1"})
    assert json.loads(new)["cells"][0]["source"] == ["import torch\n", "with torch.no_grad():\n", "    x = 1"]
    assert isinstance(loaded, Notebook) and new.decode().count("\n") == path.read_text().count("\n") + 1


def test_diff_shows_cells_and_changes_nothing(project, capsys):
    before = (project / "train.ipynb").read_bytes()
    code_, out, _ = run_cli(capsys, "check", "--diff", ".")
    assert code_ == 1
    assert "--- train.ipynb:cell 4\n+++ train.ipynb:cell 4\n" in out
    assert "-    with ng:\n+    with ng():\n" in out
    assert "+with torch.no_grad():\n" in out
    assert (project / "train.ipynb").read_bytes() == before


def test_invalid_json_and_non_notebook_are_gg001(tmp_path, capsys):
    (tmp_path / "broken.ipynb").write_text('{"cells": [\n  {"cell_type": "code",\n')
    (tmp_path / "list.ipynb").write_text("[1, 2]\n")
    (tmp_path / "badcell.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": 3}]}))
    code_, out, _ = run_cli(capsys, "check", str(tmp_path))
    assert code_ == 1
    lines = out.splitlines()
    assert any(text.startswith(f"{tmp_path}/broken.ipynb:3:1: GG001 Notebook is not valid JSON") for text in lines), out
    assert f"{tmp_path}/list.ipynb:1:1: GG001 Not a Jupyter notebook: no list of `cells`" in lines
    assert f"{tmp_path}/badcell.ipynb:1:1: GG001 Not a Jupyter notebook: cell 1 `source` is not text" in lines


def test_unparsable_cell_is_gg001_and_other_cells_still_checked(tmp_path, capsys):
    nb = notebook(
        [code("import torch\n"), code("def f(:\n"), code("with torch.no_grad:\n    pass\n"), code("await g()\n")]
    )
    write(tmp_path / "n.ipynb", nb)
    code_, out, _ = run_cli(capsys, "check", "--format", "json", str(tmp_path / "n.ipynb"))
    items = json.loads(out)
    assert [(i["code"], i["cell"], i["location"]["row"]) for i in items] == [("GG001", 2, 1), ("GG204", 3, 1)]
    assert "SyntaxError" in items[0]["message"]


def test_wildcard_help_lines_are_skipped_but_a_real_syntax_error_is_gg001(tmp_path, capsys):
    # `torch.*Tensor?` is IPython's wildcard search (%psearch): it runs in Jupyter. A `*` in
    # ordinary code stays Python, and a broken line stays GG001.
    nb = notebook(
        [
            code("import torch\n"),
            code("# every *Tensor\ntorch.*Tensor?\n?torch.*_like\n"),
            code("with torch.no_grad:\n    pass\n"),
            code("y = 2 *\n"),
        ]
    )
    write(tmp_path / "n.ipynb", nb)
    _, out, _ = run_cli(capsys, "check", "--format", "json", str(tmp_path / "n.ipynb"))
    assert [(i["code"], i["cell"]) for i in json.loads(out)] == [("GG204", 3), ("GG001", 4)]
    assert ipython_to_python("a = b * c\n")[0] == "a = b * c\n"


def test_notebooks_without_torch_or_not_python_are_skipped(tmp_path, capsys):
    write(tmp_path / "plain.ipynb", notebook([code("def f(:\n")]))
    write(tmp_path / "r.ipynb", notebook([code("import torch\nwith torch.no_grad:\n    pass\n")], language="R"))
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    write(checkpoints / "train-checkpoint.ipynb", TRAIN)
    assert run_cli(capsys, "check", str(tmp_path))[0] == 0
    assert run_cli(capsys, "check", "--all-files", str(tmp_path / "plain.ipynb"))[0] == 1


def test_sarif_and_github_point_at_the_notebook_line(project, capsys):
    raw_lines = (project / "train.ipynb").read_text(encoding="utf-8").splitlines()
    _, out, _ = run_cli(capsys, "check", "--format", "sarif", "train.ipynb")
    result = json.loads(out)["runs"][0]["results"][0]
    assert result["properties"]["cell"] == 4
    assert result["properties"]["cellRegion"]["startLine"] == 5
    row = result["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert raw_lines[row - 1].strip() == '"    with ng:\\n",'
    _, out, _ = run_cli(capsys, "check", "--format", "github", "train.ipynb")
    assert out.splitlines()[0].startswith(
        f"::error file=train.ipynb,line={row},title=GG204 (cell 4)::cell 4, line 5, column 10: "
    )


def test_notebook_on_stdin(project):
    data = (project / "train.ipynb").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--stdin-filename", "nb/train.ipynb", "-"],
        input=data,
        capture_output=True,
        cwd=project,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("nb/train.ipynb:cell 4:5:10: GG204 ")
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--fix", "--stdin-filename", "train.ipynb", "-"],
        input=data,
        capture_output=True,
        cwd=project,
        timeout=60,
    )
    assert json.loads(proc.stdout)["cells"][3]["source"][4] == "    with ng():\n"


@pytest.mark.parametrize(
    "cell, replaced",
    [
        ("%time x = 1\n", {1}),
        ("!ls \\\n  -l\nx = 1\n", {1, 2}),
        ("y = (3\n% 2)\n", set()),  # inside brackets: modulo
        ('s = """\n!not a shell escape\n"""\n', set()),  # inside a string
        ("x = 1  # what?\n", set()),
        ("obj.attr??\n", {1}),
        ("out = %timeit -o f()\n", {1}),
        ("%%writefile a.py\nimport torch\n", {1, 2}),
        ("%%capture\nimport torch\n", {1}),
    ],
)
def test_ipython_syntax_masking(cell, replaced):
    python, rows = ipython_to_python(cell)
    assert rows == replaced
    assert python.count("\n") == cell.count("\n")
    compile(python, "<cell>", "exec")


def test_file_rows_when_the_last_source_line_ends_with_a_newline(tmp_path, capsys):
    nb = notebook([code(["import torch\n", "with torch.no_grad:\n", "    pass\n"])])
    path = write(tmp_path / "n.ipynb", nb)
    _, out, _ = run_cli(capsys, "check", "--format", "github", str(path))
    row = int(out.split("line=")[1].split(",")[0])
    assert path.read_text().splitlines()[row - 1].strip() == '"with torch.no_grad:\\n",'


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="%!?=x( )[]\\\n\"'#:.\t", max_size=60))
def test_masking_keeps_line_count_and_never_raises(cell):
    python, rows = ipython_to_python(cell)
    assert python.count("\n") == cell.count("\n")
    assert all(1 <= r <= max(1, cell.count("\n") + 1) for r in rows)


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["cells", "cell_type", "source", "metadata", "x"]), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_any_json_is_a_notebook_or_a_notebook_error(document):
    from gradguard.check.rules import all_rules
    from gradguard.check.run.notebook import NotebookError, check_notebook, load_notebook

    try:
        nb = load_notebook(json.dumps(document).encode())
    except NotebookError:
        return
    check_notebook(nb, "n.ipynb", [r() for r in all_rules()], require_torch_import=False)


def test_lines_named_in_messages_are_cell_lines(tmp_path, capsys):
    nb = notebook(
        [
            code(["import torch\n", "model = torch.nn.Linear(2, 2)\n", 'model.load_state_dict(torch.load("m.pt"))\n']),
            markdown("Evaluate"),
            code(["x = torch.ones(2)\n", "model.eval()\n", "y = model(x)\n"]),
            code(["with torch.no_grad():\n", "    with torch.no_grad():\n", "        pass\n"]),
        ]
    )
    path = write(tmp_path / "eval.ipynb", nb)
    _, out, _ = run_cli(capsys, "check", "--select", "GG201,GG203", str(path))
    assert "eval.ipynb:cell 3:3:5: GG201" in out
    assert "after `model.eval()` (line 2)" in out
    assert "eval.ipynb:cell 4:2:10: GG203" in out
    assert "on line 1;" in out


_TRAINED = [
    code(
        [
            "import torch\n",
            "from torch import nn\n",
            "model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))\n",
        ]
    ),
    code(
        [
            "opt = torch.optim.SGD(model.parameters(), lr=0.01)\n",
            "for _ in range(50):\n",
            "    opt.zero_grad()\n",
            "    nn.functional.mse_loss(model(X), Y).backward()\n",
            "    opt.step()\n",
        ]
    ),
]


@pytest.mark.parametrize("shown", ["model(val_x)\n", "model(val_x)[0]\n", "model(val_x), val_x\n"])
def test_a_trained_models_output_shown_as_a_cells_last_line_is_only_read(tmp_path, capsys, shown):
    nb = notebook([*_TRAINED, code(["val_x = torch.tensor([[10., 11.]])\n", shown])])
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG201", str(write(tmp_path / "n.ipynb", nb)))
    assert "n.ipynb:cell 3:2:1: GG201" in out
    assert "its output is only read" in out


@pytest.mark.parametrize(
    "cells",
    [
        # an untrained model's demo, before its training cell
        [_TRAINED[0], code(["model(torch.tensor([[10., 11.]]))\n"]), _TRAINED[1]],
        # not the cell's last line: nothing shows the result
        [*_TRAINED, code(["model(val_x)\n", "print('done')\n"])],
        # the last line of the cell, but inside a loop: not shown
        [*_TRAINED, code(["for x in xs:\n", "    model(x)\n"])],
        # the last line of the cell, with a semicolon that keeps the notebook from showing it
        [*_TRAINED, code(["val_x = torch.tensor([[10., 11.]])\n", "model(val_x);\n"])],
        # beside other values, with a semicolon
        [*_TRAINED, code(["val_x = torch.tensor([[10., 11.]])\n", "model(val_x), val_x;\n"])],
        # the only instance of the notebook's class, in eval mode, shown on made-up input
        [
            *_TRAINED,
            code(
                [
                    "class NetBN(nn.Module):\n",
                    "    def __init__(self):\n",
                    "        super().__init__()\n",
                    "        self.bn = nn.BatchNorm1d(5)\n",
                    "    def forward(self, x):\n",
                    "        return self.bn(x)\n",
                    "inp = torch.randn(10).unsqueeze(0)\n",
                    "bn_model = NetBN().eval()\n",
                    "bn_model(inp)\n",
                ]
            ),
        ],
    ],
)
def test_twin_a_call_alone_that_is_not_a_shown_output_of_a_trained_model(tmp_path, capsys, cells):
    _, out, _ = run_cli(
        capsys, "check", "--no-cache", "--select", "GG201", str(write(tmp_path / "n.ipynb", notebook(cells)))
    )
    assert "GG201" not in out


_EXERCISE = [
    code(["import torch\n", "from torch import nn\n", "data = torch.load('train.pt')\n"]),
    code(["net = nn.Sequential(nn.Linear(2, <???>))\n"]),  # an exercise's placeholder: does not parse
    code(["net(data[:5])\n"]),
]
_LATER_TRAINING = code(
    [
        "opt = torch.optim.SGD(net.parameters(), lr=0.01)\n",
        "for x, y in loader:\n",
        "    opt.zero_grad()\n",
        "    nn.functional.mse_loss(net(x), y).backward()\n",
        "    opt.step()\n",
    ]
)


def test_a_model_of_a_cell_that_does_not_parse_shown_before_its_training_is_a_demo(tmp_path, capsys):
    nb = notebook([*_EXERCISE, _LATER_TRAINING])
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG201", str(write(tmp_path / "n.ipynb", nb)))
    assert "GG201" not in out


def test_twin_a_model_of_a_cell_that_does_not_parse_and_no_training_after_is_reported(tmp_path, capsys):
    nb = notebook([_EXERCISE[0], _EXERCISE[1], _LATER_TRAINING, _EXERCISE[2]])
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG201", str(write(tmp_path / "n.ipynb", nb)))
    assert "n.ipynb:cell 4:1:1: GG201" in out


def test_a_rule_bug_in_a_notebook_is_an_internal_error(tmp_path):
    """As for a Python file: the failing rule is reported, the other rules' findings kept."""
    from gradguard.check.config import Config
    from gradguard.check.rules import rule_by_code
    from gradguard.check.rules.base import Rule
    from gradguard.check.run.pipeline import run

    class Exploding(Rule):
        code = "GG998"
        name = "exploding"
        summary = "test rule that raises"

        def visit_Call(self, node, ctx):
            raise ZeroDivisionError("rule bug")

    path = tmp_path / "n.ipynb"
    write(path, notebook([code("import torch\n"), code("with torch.no_grad:\n    f()\n")]))
    result = run([str(path)], Config(rules=(rule_by_code("GG204"), Exploding)))
    assert [e.where for e in result.internal_errors] == ["GG998"]
    assert [(d.code, d.cell, d.start.row) for d in result.diagnostics] == [("GG204", 2, 1)]


def test_a_fix_inserting_at_the_first_line_of_a_cell_goes_into_that_cell(tmp_path, capsys):
    # GG201's `@torch.no_grad()` before a `def` that opens a cell, torch imported in the cell before.
    nb = notebook(
        [
            code(["import torch\n"]),
            code(
                [
                    "def evaluate(model, val_iter):\n",
                    "    model.eval()\n",
                    "    for x, y in val_iter:\n",
                    "        out = model(x)",
                ]
            ),
        ]
    )
    path = write(tmp_path / "n.ipynb", nb)
    code_, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG201", "--fix", "--unsafe-fixes", str(path))
    assert code_ == 0 and "1 fixed, 0 remaining" in out
    cells = json.loads(path.read_text())["cells"]
    assert cells[0]["source"] == ["import torch\n"]
    assert cells[1]["source"][0] == "@torch.no_grad()\n"


SOFT_UPDATE = ["for p, tp in zip(model.parameters(), target.parameters()):\n", "    tp.data.copy_(p.data)\n"]


@pytest.mark.parametrize(
    "first_cell,checked",
    [
        # `import torch` in a cell that does not parse (left out of the program): torch code
        (["import torch\n", "x = <YOUR CODE>\n"], True),
        (["import numpy\n", "x = <YOUR CODE>\n"], False),
        # a package's star import that re-exports torch, and code that uses it
        (["from torch_snippets import *\n", "w = torch.zeros(3, requires_grad=True)\n"], True),
        (["from torch_snippets import *\n", "w = read('x.png')\n"], False),
    ],
    ids=["import-in-a-cell-that-does-not-parse", "never-imports-torch", "star-import-used", "star-import-unused"],
)
def test_which_notebooks_are_torch_code(tmp_path, capsys, first_cell, checked):
    nb = notebook([code(first_cell), code(SOFT_UPDATE)])
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG102", str(write(tmp_path / "a.ipynb", nb)))
    assert ("GG102" in out) is checked


@pytest.mark.parametrize(
    "line,parses",
    [
        ("pip install torchviz\n", True),  # IPython's automagic: `%pip install torchviz`
        ("matplotlib inline\n", True),
        ("conda install -c conda-forge tqdm\n", True),
        ("pip = 3\n", True),  # Python: an assignment, kept
        ("ls -al output/\n", True),  # an option after the magic's name
        ("ls - x\n", True),  # Python: arithmetic, kept
        ("cd /content/drive/MyDrive/YOLOv6/\n", True),  # a path (no longer parsed as a division)
        ("cd ..\n", True),
        ("ls ../data\n", True),
        ("cd / 2\n", True),  # Python: arithmetic, kept
        ("pipx install torchviz\n", False),  # no magic of that name: a syntax error
    ],
)
def test_automagic_lines_are_magics_and_python_stays_python(tmp_path, capsys, line, parses):
    nb = write(tmp_path / "nb.ipynb", notebook([code(line), code(["import torch\n", "x = torch.zeros(1)\n"])]))
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "ALL", str(nb))
    assert ("GG001" not in out) is parses
    converted, replaced = ipython_to_python(line)
    assert bool(replaced) is (parses and not line.startswith(("pip =", "ls - ", "cd / ")))


# An assignment's `raise NotImplementedError` placeholder stops its own cell; Jupyter still runs
# the next cells from what the earlier statements left.
PLACEHOLDER_CELL = ["loss = model(x).sum()\n", 'raise NotImplementedError("train the model")\n']
LATER_CELL = ["layer = torch.nn.Linear(4, 4)\n", "layer.weight.data[...] = torch.eye(4)\n"]


def test_a_cell_that_raises_does_not_end_the_notebook(tmp_path, capsys):
    nb = notebook(
        [code(["import torch\n", "model = torch.nn.Linear(4, 4)\n"]), code(PLACEHOLDER_CELL), code(LATER_CELL)]
    )
    path = write(tmp_path / "assignment.ipynb", nb)
    _, out, _ = run_cli(capsys, "check", "--select", "GG102", "--no-cache", str(path))
    assert "assignment.ipynb:cell 3:2:1: GG102" in out


def test_code_after_the_raise_in_its_own_cell_is_still_unreachable(tmp_path, capsys):
    nb = notebook([code(["import torch\n", "model = torch.nn.Linear(4, 4)\n"]), code(PLACEHOLDER_CELL + LATER_CELL)])
    path = write(tmp_path / "assignment.ipynb", nb)
    _, out, _ = run_cli(capsys, "check", "--select", "GG102", "--no-cache", str(path))
    assert "GG102" not in out


# -- notebooks kept as `.py` scripts (`# %%` cells) with IPython lines --------------------------

PERCENT_SCRIPT = """\
# %%
import torch
import torch.nn as nn
%matplotlib inline

# %%
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).sum().backward()
    optimizer.step()

# %%
!nvidia-smi
with torch.no_grad:
    print(model.weight)
"""


def test_a_notebook_kept_as_a_script_with_ipython_lines_is_checked(tmp_path, capsys):
    path = tmp_path / "explore.py"
    path.write_text(PERCENT_SCRIPT, encoding="utf-8")
    _, out, _ = run_cli(capsys, "check", "--no-cache", str(path))
    assert "GG001" not in out
    assert "explore.py:16:6: GG204" in out  # rows and columns of the file itself


def test_fix_in_a_notebook_script_keeps_its_ipython_lines(tmp_path, capsys):
    path = tmp_path / "explore.py"
    path.write_bytes(PERCENT_SCRIPT.replace("\n", "\r\n").encode("utf-8"))
    code_, out, _ = run_cli(capsys, "check", "--fix", "--no-cache", str(path))
    assert code_ == 0 and "1 fixed, 0 remaining" in out
    expected = PERCENT_SCRIPT.replace("with torch.no_grad:", "with torch.no_grad():").replace("\n", "\r\n")
    assert path.read_bytes().decode("utf-8") == expected


def test_twin_a_real_syntax_error_in_a_notebook_script_is_gg001_where_it_is(tmp_path, capsys):
    path = tmp_path / "explore.py"
    path.write_text(PERCENT_SCRIPT + "# %%\nprint(model(torch.ones(4))\n", encoding="utf-8")
    _, out, _ = run_cli(capsys, "check", "--no-cache", str(path))
    assert "explore.py:19:6: GG001" in out and "never closed" in out and "GG204" not in out


def test_twin_a_script_python_rejects_without_ipython_lines_stays_gg001(tmp_path, capsys):
    path = tmp_path / "old.py"
    path.write_text("import torch\n# %%\nprint 'loss', torch.ones(1)\n", encoding="utf-8")
    _, out, _ = run_cli(capsys, "check", "--no-cache", str(path))
    assert "old.py:3:1: GG001" in out


@pytest.mark.parametrize("line, fixed", [("y = torch.ones(3) * 2", True), ("%time y = torch.ones(3) * 2", False)])
def test_a_fix_spanning_an_ipython_line_is_not_offered(tmp_path, capsys, line, fixed):
    # GG203's fix removes the inner `with` and dedents its body: it would rewrite a `%time`
    # line in it, so there it is not offered and the finding stays.
    path = tmp_path / "explore.py"
    text = f"# %%\n!nvidia-smi\nimport torch\nwith torch.no_grad():\n    with torch.no_grad():\n        {line}\n        print(y)\n"
    path.write_text(text, encoding="utf-8")
    _, out, _ = run_cli(capsys, "check", "--select", "GG203", "--fix", "--no-cache", str(path))
    assert (path.read_text(encoding="utf-8") != text) is fixed
    assert ("1 fixed, 0 remaining" in out) is fixed and ("0 fixed, 1 remaining" in out) is not fixed


def test_script_cells_start_at_their_markers():
    from gradguard.check.run.notebook import script_to_python

    script = script_to_python("x = 1\n#%%\n%%bash\nls -al\n# In[3]:\n!pip install tqdm\ny = 2\n")
    assert script is not None
    assert script.cell_starts == (2, 5)
    assert script.replaced_rows == frozenset({3, 4, 6})
    assert script.python == "x = 1\n#%%\npass\npass\n# In[3]:\npass\ny = 2\n"
    assert script_to_python("x = 1\n# %%\ny = x % 2\n") is None


_OUT_OF_ORDER = [
    code(["import torch\n", "from torch import nn\n", "images = torch.load('batch.pt')\n"]),
    code(["preds = network(images)\n", "print(preds.argmax(1))\n"]),  # run before the cell below
    code(
        [
            "class Network(nn.Module):\n",
            "    def __init__(self):\n",
            "        super().__init__()\n",
            "        self.fc = nn.Linear(4, 2)\n",
            "    def forward(self, x):\n",
            "        return self.fc(x)\n",
            "network = Network()\n",
        ]
    ),
]


def test_a_cell_run_before_the_untrained_model_is_built_is_a_demo(tmp_path, capsys):
    # The notebook was run out of order: `network` is built (and never trained) in a later cell.
    path = write(tmp_path / "n.ipynb", notebook(_OUT_OF_ORDER))
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG201", str(path))
    assert "GG201" not in out


def test_twin_a_cell_run_before_a_model_given_weights_later_is_reported(tmp_path, capsys):
    cells = [*_OUT_OF_ORDER, code(["network.load_state_dict(torch.load('net.pt'))\n"])]
    _, out, _ = run_cli(
        capsys, "check", "--no-cache", "--select", "GG201", str(write(tmp_path / "n.ipynb", notebook(cells)))
    )
    assert "n.ipynb:cell 2:1:9: GG201" in out


def test_a_torchvision_classification_items_label_is_an_int(tmp_path, capsys):
    # `image, label = train_set[0]`: MNIST's label is `int(self.targets[i])`, not a tensor.
    source = (
        "import torch\nimport torchvision\n"
        "train_set = torchvision.datasets.FashionMNIST('data', train=True, download=True)\n"
        "image, label = next(iter(train_set))\nprint(torch.tensor(label))\n"
        "x, y = train_set[0]\nprint(torch.tensor(y))\n"
    )
    path = tmp_path / "d.py"
    path.write_text(source)
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG103", str(path))
    assert "GG103" not in out
    # twin: a target_transform may make the label a tensor: not known to be an int
    path.write_text(source.replace("download=True)", "download=True, target_transform=torch.tensor)"))
    _, out, _ = run_cli(capsys, "check", "--no-cache", "--select", "GG103", str(path))
    assert "d.py:5:7: GG103" in out
