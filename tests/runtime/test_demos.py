import re

import pytest

pytest.importorskip("torch")

from gradguard.runtime.demos import available_demos, run_demo  # noqa: E402

REQUIRED = {
    "GG101",
    "GG102",
    "GG103",
    "GG104",
    "GG201",
    "GG202",
    "GG204",
    "GG205",
    "GG301",
    "GG302",
    "GG401",
    "GG402",
    "GG501",
    "GG502",
    "GG503",
}


def test_required_demos_exist():
    assert REQUIRED <= set(available_demos())


def test_unknown_code_raises_key_error():
    with pytest.raises(KeyError):
        run_demo("GG999")


def test_gg102_shows_wrong_gradient_next_to_right_one():
    text = run_demo("GG102")
    assert "[2.72, 7.39, 20.09]" in text and "[0.00, 0.00, 0.00]" in text
    assert "modified by an inplace operation" in text
    assert re.search(r"SilentMutationError: GG102 .*ExpBackward0.*demos\.py:\d+", text)


def test_gg301_shows_memory_growing_only_when_accumulating():
    lines = run_demo("GG301").splitlines()
    grows = next(line for line in lines if "total += loss:" in line)
    flat = next(line for line in lines if "total += loss.item():" in line)
    values = grows.split(":", 1)[1].split(",")
    assert len(set(v.strip() for v in values)) == len(values)  # a new figure every batch
    assert len(set(v.strip() for v in flat.split(":", 1)[1].split(","))) == 1


@pytest.mark.parametrize(
    "code, evidence",
    [
        ("GG101", "y._version = 0"),
        ("GG103", "requires_grad=False"),
        ("GG104", "grad_fn=MmBackward0"),
        ("GG201", "torch.no_grad(): 0 B"),
        ("GG202", "does not require grad"),
        ("GG204", "TypeError"),
        ("GG205", "after it returned: False"),
        ("GG302", "Can't call numpy()"),
        ("GG401", "leaf Variable that requires grad"),
        ("GG402", "x.requires_grad = False"),
        ("GG501", "grad 60"),
        ("GG502", "second 2"),
        ("GG503", "Inference tensors cannot be saved for backward"),
    ],
)
def test_demo_shows_its_evidence(code, evidence):
    import torch

    before = torch.is_grad_enabled()
    text = run_demo(code)
    assert text.startswith(f"{code} on torch {torch.__version__}")
    assert evidence in text
    assert torch.is_grad_enabled() == before  # demos leave no global state behind
