"""GG201's reading of method calls on a model: which ones run it for evaluation."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.check.rules.gg201_eval_with_grad import EvalWithGrad
from tests.check.test_semantic_model import _context

_NET = """
    import torch


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.fc(x)

        def {method}(self, loader, epochs=1):
            for _ in range(epochs):
                for x, y in loader:
                    self(x)


    net = Net()
    logs = net.{method}(loader, epochs=3)
"""


def _runs_for_evaluation(method: str) -> bool:
    ctx = _context(textwrap.dedent(_NET.format(method=method)))
    call = next(
        node
        for node in ast.walk(ctx.tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
    )
    return EvalWithGrad._model_method_call(ctx, call.func)


@pytest.mark.parametrize("method", ["fit", "train_epochs", "fit_model"])
def test_a_method_named_for_training_given_data_is_no_model_call(method):
    # `logs = model.fit(train, dev=dev, epochs=10)` of a Keras-like module: it trains
    assert not _runs_for_evaluation(method)


@pytest.mark.parametrize("method", ["predict", "evaluate_batches"])
def test_twin_a_method_named_otherwise_that_runs_the_model_is_a_model_call(method):
    assert _runs_for_evaluation(method)
