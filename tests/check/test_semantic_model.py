"""The semantic model: what a name holds at a point, and the grad mode there.

Each test writes a small program and asks the model about the name marked with a comment
``# <- name`` on its line (the last use of that name on the line).
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.imports import ImportMap
from gradguard.check.analysis.values import Grad, Kind, Role, Split
from gradguard.check.engine.context import FileContext
from gradguard.check.source import SourceText


def _context(text: str) -> FileContext:
    tree = ast.parse(text)
    ctx = FileContext("example.py", SourceText(text), tree, ImportMap(tree))
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child._gg_parent = node  # type: ignore[attr-defined]
    tree._gg_parent = None  # type: ignore[attr-defined]
    return ctx


def ask(code: str):
    """The value of the name marked ``# <- name``, and the grad mode there."""
    text = textwrap.dedent(code)
    ctx = _context(text)
    marks = [(i + 1, line.split("# <-")[1].strip()) for i, line in enumerate(text.splitlines()) if "# <-" in line]
    assert len(marks) == 1, "mark exactly one line"
    row, name = marks[0]
    found = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == name and n.lineno == row]
    assert found, f"no use of {name} on line {row}"
    node = max(found, key=lambda n: n.col_offset)
    return ctx.model.value(node), ctx.model.grad_mode(node)


# -- evidence from how a value is made ------------------------------------------------------
def test_instance_of_own_module_class_is_a_module_whatever_its_name():
    value, _ = ask(
        """
        import torch.nn as nn
        class CNN(nn.Module):
            def forward(self, x):
                return x
        cnn = CNN()
        out = cnn(x)  # <- cnn
        """
    )
    assert value.kind is Kind.MODULE and not value.weak and value.ref == "CNN"


def test_subclass_of_own_module_subclass_is_a_module():
    value, _ = ask(
        """
        from torch import nn
        class Base(nn.Module):
            pass
        class Net(Base):
            pass
        thing = Net()
        thing  # <- thing
        """
    )
    assert value.kind is Kind.MODULE


def test_call_of_a_module_gives_a_graph_carrying_output():
    value, _ = ask(
        """
        import torch.nn as nn
        class Net(nn.Module):
            pass
        model = Net()
        out = model(x)
        out  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES and value.has(Role.OUTPUT)


def test_plain_class_instance_is_not_a_module():
    value, _ = ask(
        """
        import torch
        class Holder:
            pass
        model = Holder()
        model  # <- model
        """
    )
    assert value.kind is Kind.OTHER


def test_name_alone_is_weak_evidence():
    value, _ = ask(
        """
        import torch
        def f(model, x):
            return model(x)  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.weak


# -- order ----------------------------------------------------------------------------------
def test_reassigned_parameter_has_its_new_value_after_reassignment():
    value, _ = ask(
        """
        import torch
        def f(t):
            t = torch.ones(2)
            return torch.tensor(t)  # <- t
        """
    )
    assert value.kind is Kind.TENSOR


def test_value_before_reassignment_is_the_old_one():
    value, _ = ask(
        """
        import torch
        import numpy as np
        def f():
            y = np.ones(2)
            print(y)  # <- y
            y = torch.ones(2)
        """
    )
    assert value.kind is Kind.OTHER


def test_branches_join_to_what_both_agree_on():
    value, _ = ask(
        """
        import torch
        import numpy as np
        if flag:
            a = torch.ones(2)
        else:
            a = np.ones(2)
        a  # <- a
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_branches_that_agree_keep_the_kind_and_drop_what_differs():
    value, _ = ask(
        """
        import torch
        w = torch.ones(2, requires_grad=True)
        if flag:
            a = w * 2
        else:
            a = torch.zeros(2)
        a  # <- a
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.MAYBE


def test_loop_reaches_a_fixpoint_over_the_back_edge():
    value, _ = ask(
        """
        import torch
        total = 0
        for x in range(3):
            print(total)  # <- total
            total = total + torch.ones(1)
        """
    )
    assert value.kind is Kind.UNKNOWN  # a number on the first pass, a tensor on the next


def test_return_ends_a_path():
    value, _ = ask(
        """
        import torch
        import numpy as np
        def f(flag):
            a = torch.ones(2)
            if flag:
                a = np.ones(2)
                return a
            return a  # <- a
        """
    )
    assert value.kind is Kind.TENSOR


def test_try_handler_sees_what_the_body_may_have_bound():
    value, _ = ask(
        """
        import torch
        a = torch.ones(2)
        try:
            a = load()
        except OSError:
            print(a)  # <- a
        """
    )
    assert value.kind is Kind.UNKNOWN


# -- grad mode ------------------------------------------------------------------------------
def test_with_no_grad_disables_grad_in_its_body_only():
    code = """
        import torch
        with torch.no_grad():
            out = model(x)
        y = model(x)
        {use}
        """
    inside, mode_inside = ask(code.format(use="out  # <- out"))
    after, mode_after = ask(code.format(use="y  # <- y"))
    assert inside.grad is Grad.NO and mode_inside is GradMode.ENABLED
    assert after.grad is Grad.YES


def test_mode_inside_the_region():
    _, mode = ask(
        """
        import torch
        with torch.inference_mode():
            out = model(x)  # <- x
        """
    )
    assert mode is GradMode.INFERENCE


def test_set_grad_enabled_statement_rules_the_rest_of_the_flow():
    _, mode = ask(
        """
        import torch
        torch.set_grad_enabled(False)
        out = model(x)  # <- x
        """
    )
    assert mode is GradMode.DISABLED


def test_set_grad_enabled_with_a_value_is_maybe():
    _, mode = ask(
        """
        import torch
        for phase in ["train", "val"]:
            with torch.set_grad_enabled(phase == "train"):
                out = model(x)  # <- x
        """
    )
    assert mode is GradMode.MAYBE


def test_decorated_function_starts_with_grad_disabled():
    _, mode = ask(
        """
        import torch
        @torch.no_grad()
        def evaluate(model, x):
            return model(x)  # <- x
        """
    )
    assert mode is GradMode.DISABLED


def test_function_called_only_under_no_grad_runs_without_grad():
    _, mode = ask(
        """
        import torch
        def evaluate(model, x):
            return model(x)  # <- x
        with torch.no_grad():
            evaluate(net, batch)
        """
    )
    assert mode is GradMode.DISABLED


def test_function_called_once_with_grad_runs_with_grad():
    _, mode = ask(
        """
        import torch
        def evaluate(model, x):
            return model(x)  # <- x
        with torch.no_grad():
            evaluate(net, batch)
        evaluate(net, batch)
        """
    )
    assert mode is GradMode.ENABLED  # the rules report what happens on the path with grad on


def test_function_passed_as_a_value_has_unknown_callers():
    _, mode = ask(
        """
        import torch
        def evaluate(model, x):
            return model(x)  # <- x
        with torch.no_grad():
            evaluate(net, batch)
        hooks.append(evaluate)
        """
    )
    assert mode is GradMode.ENABLED  # assumed: callers elsewhere are not known


# -- containers, tuples, loops --------------------------------------------------------------
def test_tuple_result_of_a_model_unpacks_to_tensors():
    value, _ = ask(
        """
        import torch
        from torch import nn
        rnn = nn.GRU(4, 4)
        out, h = rnn(x, h0)
        h = h.data  # <- h
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_tensor_only_attribute_makes_an_unknown_loop_variable_a_tensor():
    value, _ = ask(
        """
        import torch
        for p in params:
            p.data -= lr * p.grad  # <- p
        """
    )
    assert value.kind is Kind.TENSOR


def test_parameters_are_parameters():
    value, _ = ask(
        """
        import torch
        for name, p in model.named_parameters():
            p  # <- p
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.PARAM) and value.grad is Grad.YES


def test_comprehension_targets():
    value, _ = ask(
        """
        import torch
        from torch import nn
        layer = nn.Linear(2, 2)
        xs = [p.data for p in layer.parameters()]  # <- p
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.PARAM)


# -- annotations ----------------------------------------------------------------------------
def test_annotations_are_read():
    value, _ = ask(
        """
        import torch
        def f(t: torch.Tensor, m: torch.nn.Module):
            return t  # <- t
        """
    )
    assert value.kind is Kind.TENSOR and not value.weak


def test_string_annotation():
    value, _ = ask(
        """
        import torch
        from torch import nn
        def f(m: "nn.Module"):
            return m  # <- m
        """
    )
    assert value.kind is Kind.MODULE and not value.weak


# -- loaders and their split ------------------------------------------------------------------
@pytest.mark.parametrize(
    "dataset",
    [
        'torchvision.datasets.MNIST("data", train=False)',
        "torchvision.datasets.CIFAR10(root, train=False, download=True)",
        'torchvision.datasets.ImageFolder("data/val")',
        'torchvision.datasets.ImageFolder(os.path.join(root, "test"))',
        'MyDataset(split="test")',
    ],
)
def test_loader_built_from_an_evaluation_split(dataset):
    value, _ = ask(
        f"""
        import os
        import torch
        import torchvision
        class MyDataset(torch.utils.data.Dataset):
            pass
        data = {dataset}
        loader = torch.utils.data.DataLoader(data, batch_size=8)
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is Split.EVAL and not value.weak


def test_loader_from_a_train_split_is_not_an_evaluation_loader():
    value, _ = ask(
        """
        import torch
        import torchvision
        data = torchvision.datasets.MNIST("data", train=True)
        loader = torch.utils.data.DataLoader(data)
        loader  # <- loader
        """
    )
    assert value.kind is Kind.LOADER and value.split is Split.TRAIN


def test_loader_dict_entry_named_for_validation():
    value, _ = ask(
        """
        import torch
        for x, y in dataloader["val"]:
            pass
        x  # <- x
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


# -- functions of the file --------------------------------------------------------------------
def test_helper_returning_item_is_a_number_not_a_loss():
    value, _ = ask(
        """
        import torch
        def compute_loss(out, y):
            return criterion(out, y).item()
        loss = compute_loss(out, y)
        loss  # <- loss
        """
    )
    assert value.kind is Kind.NUMBER


def test_helper_returning_a_model():
    value, _ = ask(
        """
        import torch
        from torch import nn
        def build():
            return nn.Sequential(nn.Linear(2, 2))
        thing = build()
        thing  # <- thing
        """
    )
    assert value.kind is Kind.MODULE and not value.weak


def test_parameters_known_from_callers():
    value, _ = ask(
        """
        import torch
        import torchvision
        def evaluate(m, data):
            for x, y in data:  # <- data
                m(x)
        test_set = torchvision.datasets.MNIST("d", train=False)
        evaluate(net, torch.utils.data.DataLoader(test_set))
        """
    )
    assert value.kind is Kind.LOADER and value.split is Split.EVAL


def test_self_attribute_assigned_in_init():
    value, _ = ask(
        """
        import numpy as np
        import torch
        class Edge:
            def __init__(self):
                self.weight = np.ones(3)
            def raw(self):
                return self.weight  # <- self
        """
    )
    assert value.kind is Kind.OTHER and value.ref == "Edge"


# -- module train/eval state --------------------------------------------------------------------
def test_eval_and_train_are_tracked():
    code = """
        import torch
        from torch import nn
        model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
        {switch}
        model  # <- model
        """
    training, _ = ask(code.format(switch="model.train()"))
    evaluating, _ = ask(code.format(switch="model.eval()"))
    unknown, _ = ask(code.format(switch="if flag:\n            model.eval()"))
    assert training.has(Role.TRAINING) and not training.has(Role.EVALUATING)
    assert evaluating.has(Role.EVALUATING) and not evaluating.has(Role.TRAINING)
    assert not unknown.has(Role.TRAINING) and not unknown.has(Role.EVALUATING)


# -- leaves -------------------------------------------------------------------------------------
def test_moved_leaf_is_not_a_leaf():
    code = """
        import torch
        w = torch.randn(3, requires_grad=True){tail}
        w  # <- w
        """
    leaf, _ = ask(code.format(tail=""))
    moved, _ = ask(code.format(tail=".to(device)"))
    assert leaf.has(Role.LEAF) and leaf.grad is Grad.YES
    assert not moved.has(Role.LEAF) and moved.grad is Grad.YES


def test_zero_dim_results():
    value, _ = ask(
        """
        import torch
        import torch.nn.functional as F
        loss = F.cross_entropy(out, y)
        loss  # <- loss
        """
    )
    assert value.has(Role.SCALAR) and value.has(Role.LOSS)
