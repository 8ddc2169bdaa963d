"""%load_ext gradguard / %gradguard on in IPython (skipped where IPython is not installed)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("IPython", reason="IPython is not installed (pip install ipython)")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    yield ip
    ip.run_line_magic("gradguard", "off")
    InteractiveShell.clear_instance()


def test_magic_reports_findings_after_the_cell_and_at_off(shell, capsys):
    shell.run_line_magic("load_ext", "gradguard")
    shell.run_line_magic("gradguard", "on")
    assert "gradguard: on" in capsys.readouterr().out
    shell.run_cell(
        "import torch\n"
        "w = torch.nn.Parameter(torch.ones(3))\n"
        "opt = torch.optim.SGD([w], lr=0.1)\n"
        "for _ in range(3):\n"
        "    (w * 2).sum().backward()\n"
        "    opt.step()\n"
    )
    assert "GG303 gradients accumulate across optimizer steps" in capsys.readouterr().err
    shell.run_line_magic("gradguard", "off")
    out = capsys.readouterr().out
    assert "GG303" in out and "gradguard: off" in out
    import torch

    assert torch._C._autograd._top_saved_tensors_default_hooks(False) is None


def test_clean_cell_prints_nothing_and_status(shell, capsys):
    shell.run_line_magic("load_ext", "gradguard")
    shell.run_line_magic("gradguard", "on")
    capsys.readouterr()
    shell.run_cell("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n")
    assert "gradguard" not in capsys.readouterr().err
    shell.run_line_magic("gradguard", "status")
    assert capsys.readouterr().out.strip() == "gradguard: on"
