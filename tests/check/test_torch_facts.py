"""The torch behaviours that rule messages state, checked on the installed torch.

A message is right only where its advice is: these tests fail if a torch release changes what a
message claims.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_set_through_data_leaves_the_tensor_as_it_was():
    # GG102: `x.data.set_(y)` gives the new storage only to the alias `.data` returns
    weight = torch.nn.Embedding(4, 2).weight
    before = weight.detach().clone()
    weight.data.set_(torch.arange(8.0).view(4, 2))
    assert torch.equal(weight.detach(), before)


def test_set_on_the_parameter_under_no_grad_takes_the_new_storage():
    # GG102's advice for a parameter: `x.set_(y)` under `torch.no_grad()`
    weight = torch.nn.Embedding(4, 2).weight
    glove = torch.arange(8.0).view(4, 2)
    with torch.no_grad():
        weight.set_(glove)
    assert torch.equal(weight.detach(), glove) and weight.is_leaf and weight.requires_grad


def test_reshaping_through_data_leaves_the_shape_as_it_was():
    # GG102: `feature.data.t_()` reshapes only the alias
    feature = torch.zeros(2, 3)
    feature.data.t_()
    assert feature.shape == (2, 3)


def test_backward_without_a_gradient_needs_a_one_element_output():
    # the semantic model: `x.backward()` with no gradient shows a reduced (one-element) output
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * 2).backward()
    (x * 2).sum().backward()
    assert x.grad is not None


def test_indexing_a_reduced_loss_raises():
    # GG105: a reduced loss is 0-dim since PyTorch 0.4
    loss = torch.nn.functional.mse_loss(torch.ones(3, requires_grad=True), torch.zeros(3))
    assert loss.dim() == 0
    with pytest.raises(IndexError):
        loss.data[0]
