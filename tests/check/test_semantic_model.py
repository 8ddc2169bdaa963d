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


def test_a_parameter_handed_to_range_is_a_number_whatever_its_name():
    # `total_val_batches` would be a loader by its name; `range` takes only an int
    value, _ = ask(
        """
        def run_val_epoch(self, total_val_batches):
            for i in range(total_val_batches):
                pass
            return total_val_batches  # <- total_val_batches
        """
    )
    assert value.kind is Kind.NUMBER


def test_twin_a_parameter_not_handed_to_range_keeps_what_its_name_says():
    value, _ = ask(
        """
        def run_val_epoch(self, total_val_batches):
            for batch in total_val_batches:
                pass
            return total_val_batches  # <- total_val_batches
        """
    )
    assert value.kind is Kind.LOADER


def test_a_learning_rate_scheduler_is_no_optimizer():
    value, _ = ask(
        """
        import torch
        from torch.optim.lr_scheduler import ReduceLROnPlateau
        net = torch.nn.Linear(2, 2)
        optimizer = torch.optim.Adam(net.parameters())
        scheduler = ReduceLROnPlateau(optimizer, "min")
        scheduler.step(0.5)  # <- scheduler
        """
    )
    assert value.kind is Kind.OTHER and value.ref == "torch.optim.lr_scheduler.ReduceLROnPlateau"


def test_twin_the_optimizer_it_schedules_is_one():
    value, _ = ask(
        """
        import torch
        from torch.optim.lr_scheduler import ReduceLROnPlateau
        net = torch.nn.Linear(2, 2)
        optimizer = torch.optim.Adam(net.parameters())
        scheduler = ReduceLROnPlateau(optimizer, "min")
        optimizer.step()  # <- optimizer
        """
    )
    assert value.kind is Kind.OPTIMIZER


def test_a_call_of_a_plain_class_instance_runs_its_dunder_call():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        class PSNR:
            def __call__(self, x, y):
                return 10 * torch.log10(1.0 / torch.mean((x - y) ** 2))
        generator = nn.Linear(4, 4)
        metric = PSNR()
        psnr = metric(torch.randn(2, 4), generator(torch.randn(2, 4)))
        print(psnr)  # <- psnr
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES and value.has(Role.SCALAR)


def test_twin_a_plain_class_without_dunder_call_gives_nothing_known():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        class PSNR:
            def compute(self, x, y):
                return 10 * torch.log10(1.0 / torch.mean((x - y) ** 2))
        generator = nn.Linear(4, 4)
        metric = PSNR()
        psnr = metric(torch.randn(2, 4), generator(torch.randn(2, 4)))
        print(psnr)  # <- psnr
        """
    )
    assert value.kind is Kind.UNKNOWN


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
    # a number on the first pass, a tensor without graph on the next: either way no graph, and a
    # tensor wherever the code uses it as one (known weakly), not a 0-dim one
    assert value.kind is Kind.TENSOR and value.weak and value.grad is Grad.NO and not value.has(Role.SCALAR)


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


@pytest.mark.parametrize(
    "manager",
    ["torch.autograd.profiler.profile()", "torch.autograd.detect_anomaly()", "torch.autograd.graph.save_on_cpu()"],
)
def test_autograd_context_managers_that_keep_the_mode_keep_it(manager):
    _, mode = ask(
        f"""
        import torch
        with {manager} as prof:
            out = model(x)  # <- x
        """
    )
    assert mode is GradMode.ENABLED


def test_twin_an_unknown_manager_naming_grad_may_change_the_mode():
    _, mode = ask(
        """
        import torch
        from helpers import grad_scope
        with grad_scope(False):
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


_METHOD_CALLED_THROUGH_ANOTHER = """
    import torch

    class CNN(torch.nn.Module):
        def predict(self, x):
            self.eval()
            return self.forward(x)  # <- x

        def get_accuracy(self, x, y):
            return (self.predict(x).argmax(1) == y).float().mean().item()

    model = CNN()
    with torch.no_grad():
        print(model.get_accuracy(X_test, Y_test))
    """


def test_a_method_called_on_instances_and_by_its_class_only_under_no_grad_runs_without_grad():
    # `model.get_accuracy(...)` under no_grad runs `self.predict(x)` under no_grad too
    _, mode = ask(_METHOD_CALLED_THROUGH_ANOTHER)
    assert mode is GradMode.DISABLED


def test_twin_a_method_called_once_on_an_instance_with_grad_runs_with_grad():
    _, mode = ask(_METHOD_CALLED_THROUGH_ANOTHER + "print(model.get_accuracy(X_test, Y_test))\n")
    assert mode is GradMode.ENABLED


def test_twin_a_method_called_on_something_unknown_has_unknown_callers():
    _, mode = ask(_METHOD_CALLED_THROUGH_ANOTHER + "print(other.get_accuracy(X_test, Y_test))\n")
    assert mode is not GradMode.DISABLED


def test_a_function_called_only_by_a_function_run_under_no_grad_runs_without_grad():
    _, mode = ask(
        """
        import torch
        def evaluate_batch(model, x):
            return model(x)  # <- x
        def validate(model, loader):
            return [evaluate_batch(model, x) for x in loader]
        with torch.no_grad():
            validate(net, batches)
        """
    )
    assert mode is GradMode.DISABLED


def test_twin_a_function_called_by_a_function_run_once_with_grad_runs_with_grad():
    _, mode = ask(
        """
        import torch
        def evaluate_batch(model, x):
            return model(x)  # <- x
        def validate(model, loader):
            return [evaluate_batch(model, x) for x in loader]
        with torch.no_grad():
            validate(net, batches)
        validate(net, batches)
        """
    )
    assert mode is GradMode.ENABLED


_SAME_METHOD_NAME_IN_TWO_CLASSES = """
    import torch

    class Trainer:
        def iterate(self, x):
            self.model(x).sum().backward()

        def start_training(self, x):
            self.iterate(x)

    class Evaluator:
        def iterate(self, x):
            return self.net(x)  # <- x

        def start(self, x):
            with torch.no_grad():
                return self.iterate(x)
    """


def test_self_call_of_a_method_another_class_defines_too_is_no_caller_of_this_one():
    # `self.iterate(x)` in `Trainer` calls `Trainer.iterate`: `Evaluator.iterate` runs under no_grad
    _, mode = ask(_SAME_METHOD_NAME_IN_TWO_CLASSES)
    assert mode is GradMode.DISABLED


def test_twin_a_subclass_s_method_is_called_by_its_base_s_self_calls():
    _, mode = ask(_SAME_METHOD_NAME_IN_TWO_CLASSES.replace("class Evaluator:", "class Evaluator(Trainer):"))
    assert mode is GradMode.ENABLED


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


_METHODS_IN_A_TABLE = """
    import torch

    class System:
        def sample(self, x, length):
            self.net.eval()
            sampler = dict(tcn=self.sample_tcn, lstm=self.sample_rnn)
            with torch.no_grad():
                return sampler[self.kind](x, length)

        def sample_rnn(self, x, length):
            return self.net(x)  # <- x

        def sample_tcn(self, x, length):
            return self.net(x)
    """


def test_a_method_called_only_through_a_table_under_no_grad_runs_without_grad():
    # every use of `sampler` is a call of one of its entries, under no_grad
    _, mode = ask(_METHODS_IN_A_TABLE)
    assert mode is GradMode.DISABLED


def test_twin_a_method_called_through_a_table_with_grad_runs_with_grad():
    _, mode = ask(_METHODS_IN_A_TABLE.replace("with torch.no_grad():\n                return", "return"))
    assert mode is GradMode.ENABLED


def test_twin_a_table_handed_on_leaves_its_methods_callers_unknown():
    _, mode = ask(_METHODS_IN_A_TABLE.replace("return sampler[self.kind](x, length)", "run(sampler)"))
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


def test_a_comprehension_name_of_unknown_value_is_not_judged_by_another_comprehensions_uses():
    value, _ = ask(
        """
        import torch
        def f(probs, candidates):
            confs, probs = [t.detach().cpu().numpy() for t in [probs.max(-1)[0], probs]]
            confs, candidates = [t[confs > 0.5] for t in [confs, candidates]]  # <- t
        """
    )
    assert value.kind is not Kind.TENSOR or value.weak


def test_twin_a_comprehension_names_own_uses_are_evidence():
    value, _ = ask(
        """
        import torch
        def f(batch):
            out = [t.detach() for t in batch]  # <- t
        """
    )
    assert value.kind is Kind.TENSOR


def test_a_traced_or_scripted_module_is_the_module():
    value, _ = ask(
        """
        import torch
        import torchvision
        model = torchvision.models.resnet18(pretrained=True)
        traced = torch.jit.trace(model, torch.rand(1, 3, 224, 224))
        traced  # <- traced
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_a_traced_function_is_not_a_module():
    value, _ = ask(
        """
        import torch
        def f(x):
            return x * 2
        traced = torch.jit.trace(f, torch.rand(3))
        traced  # <- traced
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_method_named_like_a_model_is_not_a_submodule():
    text = textwrap.dedent(
        """
        import torch.nn as nn
        class Trainer(nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model
            def evaluate_model(self, loader):
                return 0.0
        trainer = Trainer(nn.Linear(2, 2))
        trainer.evaluate_model
        trainer.model
        """
    )
    ctx = _context(text)
    method, held = [n.value for n in ctx.tree.body[-2:]]
    assert ctx.model.value(method).kind is not Kind.MODULE
    assert ctx.model.value(held).kind is Kind.MODULE


def test_a_field_of_a_model_output_dict_is_a_tensor_with_its_graph():
    text = textwrap.dedent(
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.l_out = nn.Linear(4, 3)
            def forward(self, x):
                return {"out": self.l_out(x)}
        net = Net()
        output = net(x)
        output["out"]
        batch["image"]
        """
    )
    ctx = _context(text)
    field, record = [n.value for n in ctx.tree.body[-2:]]
    assert ctx.model.value(field).kind is Kind.TENSOR
    assert ctx.model.value(record).kind is not Kind.TENSOR  # a batch's field: not known


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
        "MyDataset(root, test=True)",
        "MyDataset(root, is_val=True)",
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


@pytest.mark.parametrize(
    "made,split",
    [
        ("DataLoader(dataset=data, batch_size=8)", Split.EVAL),
        ("DataLoader(batch_size=8, dataset=data)", Split.EVAL),
        ("DataLoader(dataset=train_data, batch_size=8)", Split.TRAIN),
    ],
)
def test_a_loader_given_its_dataset_by_keyword_has_its_split(made, split):
    value, _ = ask(
        f"""
        import torchvision
        from torch.utils.data import DataLoader
        data = torchvision.datasets.CIFAR10("data", train=False)
        train_data = torchvision.datasets.CIFAR10("data", train=True)
        loader = {made}
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is split


@pytest.mark.parametrize(
    "name,split",
    [
        ("mnist_testloader", Split.EVAL),
        ("cifar10_val_loader", Split.EVAL),
        ("svhn_train_loader", Split.TRAIN),
    ],
)
def test_a_loader_named_after_its_data_set_and_split_is_a_loader_of_that_split(name, split):
    value, _ = ask(
        f"""
        def run(model, {name}):
            for x, y in {name}:  # <- {name}
                model(x)
        """
    )
    assert value.kind is Kind.LOADER and value.split is split


def test_twin_a_name_ending_like_a_loader_without_a_split_word_says_no_split():
    value, _ = ask(
        """
        def run(model, contest_loader):
            for x, y in contest_loader:  # <- contest_loader
                model(x)
        """
    )
    assert value.split is None


@pytest.mark.parametrize("handed,split", [("val_ds", Split.EVAL), ("test_set", Split.EVAL), ("train_ds", Split.TRAIN)])
def test_a_loader_from_a_helper_takes_the_split_of_the_data_handed_to_it(handed, split):
    value, _ = ask(
        f"""
        import torch
        def get_loader(ds, batch_size, shuffle):
            return torch.utils.data.DataLoader(dataset=ds, batch_size=batch_size, shuffle=shuffle)
        loader = get_loader({handed}, 16, shuffle=False)
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is split


def test_twin_a_loader_from_a_helper_handed_data_of_no_known_split_has_none():
    value, _ = ask(
        """
        import torch
        def get_loader(ds, batch_size):
            return torch.utils.data.DataLoader(ds, batch_size=batch_size)
        loader = get_loader(ds, 16)
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is None


@pytest.mark.parametrize("dataset", ["MyDataset(root, test=False)", "MyDataset(root, test=flag)"])
def test_twin_an_evaluation_flag_not_set_says_nothing_of_the_split(dataset):
    value, _ = ask(
        f"""
        import torch
        class MyDataset(torch.utils.data.Dataset):
            pass
        train_data = {dataset}
        loader = torch.utils.data.DataLoader(train_data, batch_size=8)
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is not Split.EVAL


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


def test_parameters_handed_on_unchanged_are_known_from_the_callers_callers():
    value, _ = ask(
        """
        import torch.nn as nn
        class Searcher(nn.Module):
            def forward(self, x):
                return x
        def evaluate(searcher, sentence):
            return searcher(sentence)  # <- searcher
        def evaluate_input(searcher):
            while True:
                print(evaluate(searcher, input()))
        evaluate_input(Searcher())
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "Searcher"


def test_twin_a_parameter_the_caller_rebinds_is_not_handed_on():
    value, _ = ask(
        """
        import torch.nn as nn
        class Searcher(nn.Module):
            def forward(self, x):
                return x
        def evaluate(searcher, sentence):
            return searcher(sentence)  # <- searcher
        def evaluate_input(searcher):
            searcher = make_searcher(searcher)
            print(evaluate(searcher, input()))
        evaluate_input(Searcher())
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_function_of_one_return_is_read_with_the_arguments_of_its_call():
    value, _ = ask(
        """
        import torch
        w = torch.randn(3, 2, requires_grad=True)
        def act(x):
            return x.exp()
        def model(xb):
            return act(xb @ w)
        out = model(batch)
        print(out)  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_twin_a_function_of_one_return_over_plain_tensors_gives_no_graph():
    value, _ = ask(
        """
        import torch
        w = torch.randn(3, 2)
        def act(x):
            return x.exp()
        def model(xb):
            return act(xb @ w)
        out = model(torch.ones(1, 3))
        print(out)  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


@pytest.mark.parametrize(
    "registration",
    ["model.layer4.register_forward_hook(self.save)", "model.layer4.register_full_backward_hook(self.save)"],
)
def test_a_method_registered_as_a_module_hook_is_handed_tensors(registration):
    value, _ = ask(
        f"""
        import torch
        class Probe:
            def __init__(self, model):
                {registration}
            def save(self, module, inputs, outputs):
                self.kept = outputs  # <- outputs
        """
    )
    assert value.is_tensor or (value.kind is Kind.CONTAINER and value.elem is not None and value.elem.is_tensor)


def test_twin_a_method_registered_as_no_hook_is_handed_nothing_known():
    value, _ = ask(
        """
        import torch
        class Probe:
            def __init__(self, model):
                model.layer4.register_buffer("save", self.save)
            def save(self, module, inputs, outputs):
                self.kept = outputs  # <- outputs
        """
    )
    assert value.kind is Kind.UNKNOWN


@pytest.mark.parametrize(
    "made,kind",
    [
        ("iaa.arithmetic.JpegCompression(compression=70)", Kind.OTHER),  # an image augmenter
        ("SVC(kernel='rbf')", Kind.OTHER),  # sklearn's
        ("ptcv_get_model('resnet110_cifar10', pretrained=True)", Kind.MODULE),  # a model (by its name)
    ],
)
def test_calls_of_plain_value_libraries_make_no_model(made, kind):
    value, _ = ask(
        f"""
        import torch
        import imgaug.augmenters as iaa
        from sklearn.svm import SVC
        from pytorchcv.model_provider import get_model as ptcv_get_model
        cmp_model = {made}
        out = cmp_model(x)  # <- cmp_model
        """
    )
    assert value.kind is kind


@pytest.mark.parametrize(
    "made,split",
    [
        ('DataLoader(CIFAR100(".", train=False, download=True))', Split.EVAL),  # a class not known
        ('DataLoader(CIFAR100(".", train=True, download=True))', Split.TRAIN),
        ('DataLoader(TensorDataset(val_set["images"], val_set["labels"]))', Split.EVAL),
        ('DataLoader(TensorDataset(batch["images"], batch["labels"]))', None),
    ],
)
def test_a_loaders_split_from_its_dataset_call(made, split):
    value, _ = ask(
        f"""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        loader = {made}
        for x, y in loader:  # <- loader
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is split


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


# -- what a loss reduces to, and a module's train/eval switch -------------------------------
@pytest.mark.parametrize(
    "made,scalar",
    [
        ("nn.CrossEntropyLoss()", True),
        ("nn.CrossEntropyLoss(reduction='sum')", True),
        ("nn.CrossEntropyLoss(size_average=False)", True),
        ("nn.CrossEntropyLoss(reduction='none')", False),
        ("nn.CrossEntropyLoss(reduce=False)", False),
        ("nn.MSELoss(reduction=how)", False),
    ],
)
def test_a_loss_module_call_is_0_dim_unless_built_unreduced(made, scalar):
    value, _ = ask(
        f"""
        import torch.nn as nn
        criterion = {made}
        loss = criterion(out, y)
        loss  # <- loss
        """
    )
    assert value.has(Role.LOSS) and value.has(Role.SCALAR) is scalar


@pytest.mark.parametrize(
    "call,scalar",
    [
        ("F.nll_loss(out, y)", True),
        ("F.nll_loss(out, y, reduction='none')", False),
        ("F.nll_loss(out, y, reduce=False)", False),
    ],
)
def test_a_functional_loss_is_0_dim_unless_unreduced(call, scalar):
    value, _ = ask(
        f"""
        import torch.nn.functional as F
        loss = {call}
        loss  # <- loss
        """
    )
    assert value.has(Role.SCALAR) is scalar


@pytest.mark.parametrize(
    "switch,role",
    [
        ("model.eval()", Role.EVALUATING),
        ("model.train(False)", Role.EVALUATING),
        ("model.train(mode=False)", Role.EVALUATING),
        ("model.train()", Role.TRAINING),
        ("model.train(True)", Role.TRAINING),
        ("model.train(flag)", Role.NONE),
    ],
)
def test_train_false_switches_to_eval_mode(switch, role):
    value, _ = ask(
        f"""
        import torch.nn as nn
        model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
        model.eval() if flag else model.train()
        {switch}
        model  # <- model
        """
    )
    assert value.roles & (Role.TRAINING | Role.EVALUATING) == role


@pytest.mark.parametrize("call,scalar", [("loss.backward()", True), ("loss.backward(torch.ones(3))", False)])
def test_a_name_backpropagated_without_a_gradient_is_a_0_dim_loss(call, scalar):
    value, _ = ask(
        f"""
        import torch
        def step(make):
            loss = make()
            {call}
            return loss  # <- loss
        """
    )
    assert value.has(Role.LOSS) and value.carries_grad
    assert value.has(Role.SCALAR) is scalar and value.weak is scalar


@pytest.mark.parametrize(
    "made,scalar",
    [
        ("torch.mean(logp)", True),
        ("torch.mean(logp, 0)", False),
        ("-torch.mean(logp, 0) - torch.mean(other, 0)", False),
        ("torch.log(out).sum(dim=1).cpu()", False),
        ("F.mse_loss(out, y, reduction='none')", False),
    ],
)
def test_a_reduction_over_named_dimensions_backpropagated_is_no_0_dim_loss(made, scalar):
    # `backward()` without a gradient shows one element, of shape () or (1,): only a full
    # reduction says which
    value, _ = ask(
        f"""
        import torch
        import torch.nn.functional as F
        def step(out, y, logp, other):
            loss = {made}
            loss.backward()
            return loss  # <- loss
        """
    )
    assert value.has(Role.LOSS) and value.has(Role.SCALAR) is scalar
    assert value.has(Role.UNREDUCED) is not scalar


@pytest.mark.parametrize(
    "comment,kind", [("# tagger.requires_grad", Kind.MODULE), ("print(tagger.requires_grad)", Kind.TENSOR)]
)
def test_uses_in_comments_are_no_evidence(comment, kind):
    value, _ = ask(
        f"""
        from models import Tagger
        def build(size):
            tagger = Tagger(size)
            {comment}
            params = tagger.parameters()
            return tagger  # <- tagger
        """
    )
    assert value.kind is kind


def test_a_value_taken_for_a_tensor_that_is_called_runs_as_a_module():
    # only modules are called: what the uses took for a tensor gives a model's output
    value, _ = ask(
        """
        from models import Tagger
        def run(size, x):
            tagger = Tagger(size)
            print(tagger.requires_grad)
            out = tagger(x)
            return out  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.OUTPUT)


@pytest.mark.parametrize("fields,packed", [("x.data, x.batch_sizes", True), ("x.data, x.size(0)", False)])
def test_a_value_whose_packed_sequence_fields_are_read_is_no_tensor(fields, packed):
    value, _ = ask(
        f"""
        import torch.nn as nn
        class SequenceWise(nn.Module):
            def forward(self, x):
                t = x.size(0)
                data, sizes = {fields}
                return x  # <- x
        """
    )
    assert (value.kind is Kind.TENSOR) is not packed


@pytest.mark.parametrize("earlier,tensor", [("df[cols].values", False), ("torch.zeros(3)", True)])
def test_an_attribute_the_method_set_before_holds_that_value(earlier, tensor):
    # the class also sets `self.x` to a tensor (the statement after): the method's own order decides
    text = textwrap.dedent(
        f"""
        import torch
        from torch.utils.data import Dataset
        class Houses(Dataset):
            def __init__(self, df, cols):
                self.x = {earlier}
                self.x = torch.tensor(self.x)
        """
    )
    ctx = _context(text)
    read = next(
        n for n in ast.walk(ctx.tree) if isinstance(n, ast.Attribute) and n.attr == "x" and isinstance(n.ctx, ast.Load)
    )
    assert (ctx.model.value(read).kind is Kind.TENSOR) is tensor


@pytest.mark.parametrize(
    "call,loss",
    [
        ("cam.backward(retain_graph=True)", True),
        ("cam.backward(ids=ids)", False),
        ("cam.backward(ids, index=i)", False),
    ],
)
def test_a_backward_call_with_a_keyword_tensors_do_not_take_is_another_class_method(call, loss):
    # `gcam.backward(ids=ids)` of a Grad-CAM wrapper says nothing of a tensor with a graph.
    value, _ = ask(
        f"""
        import torch
        def explain(make, ids, i):
            cam = make()
            {call}
            return cam  # <- cam
        """
    )
    assert value.has(Role.LOSS) is loss


@pytest.mark.parametrize(
    "call,loss",
    [
        ("accelerator.backward(loss)", False),  # Accelerate's: the loss is what runs backward
        ("accelerator.backward(outputs.loss)", False),
        ("accelerator.backward(torch.ones_like(x))", True),  # a gradient: `Tensor.backward`'s own argument
        ("accelerator.backward(grad_output)", True),
    ],
)
def test_a_backward_call_handed_a_loss_is_a_wrapper_running_it(call, loss):
    value, _ = ask(
        f"""
        import torch
        def step(accelerator, loss, outputs, x, grad_output):
            {call}
            return accelerator  # <- accelerator
        """
    )
    assert value.has(Role.LOSS) is loss


@pytest.mark.parametrize(
    "made,kind",
    [
        ("abs(gt - pred[0].detach().numpy()).mean()", Kind.NUMBER),  # an array's reduction
        ("pred.detach().cpu().numpy().sum()", Kind.NUMBER),
        ("pred[0].mean()", Kind.TENSOR),  # a tensor's: a tensor
    ],
)
def test_a_reduction_of_an_array_is_a_number_not_a_loss(made, kind):
    value, _ = ask(
        f"""
        import torch
        def score(model, image, gt):
            pred = model(image)
            l1_loss = {made}
            return l1_loss  # <- l1_loss
        """
    )
    assert value.kind is kind


def test_a_name_backpropagated_once_and_bound_again_tells_nothing_of_its_new_value():
    # `y.backward()` is about the first `y`; the second holds what `f(x_t)` returns.
    value, _ = ask(
        """
        import torch
        def f(t):
            return torch.pow(2 * t, 2)
        x = torch.tensor([2.0], requires_grad=True)
        y = f(x)
        y.backward()
        x_t = torch.linspace(-3, 3, 100)
        y = f(x_t)
        y  # <- y
        """
    )
    assert not value.has(Role.LOSS) and not value.carries_grad


def test_of_several_bindings_of_a_name_the_one_backpropagated_is_a_loss():
    value, _ = ask(
        """
        import torch
        def f(t):
            return torch.pow(2 * t, 2)
        y = f(torch.linspace(-3, 3, 100))
        for i in range(3):
            y = f(make())
            y.backward()
            losses.append(y)  # <- y
        """
    )
    assert value.has(Role.LOSS) and value.carries_grad


def test_a_name_bound_once_and_backpropagated_is_a_loss_with_a_graph():
    value, _ = ask(
        """
        import torch
        def f(t):
            return torch.pow(2 * t, 2)
        y = f(make())
        y.backward()
        y  # <- y
        """
    )
    assert value.has(Role.LOSS) and value.carries_grad


def test_an_augmented_assignment_changes_a_tensor_in_place_and_keeps_it_a_leaf():
    value, _ = ask(
        """
        import torch
        w = torch.randn(3, requires_grad=True)
        for x in data:
            w -= 0.1 * w.grad
            w  # <- w
        """
    )
    assert value.has(Role.LEAF) and value.carries_grad


def test_requires_grad_switched_off_gives_a_tensor_without_graph():
    for switch in ("x.requires_grad = False", "x.requires_grad_(False)", "x.requires_grad_(requires_grad=False)"):
        value, _ = ask(
            f"""
            import torch
            x = torch.randn(3, requires_grad=True)
            {switch}
            print(x)  # <- x
            """
        )
        assert value.kind is Kind.TENSOR and value.grad is Grad.NO, switch


def test_twin_requires_grad_switched_back_on_requires_grad():
    value, _ = ask(
        """
        import torch
        x = torch.randn(3, requires_grad=True)
        x.requires_grad = False
        x.requires_grad_()
        print(x)  # <- x
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_a_copy_made_to_require_grad_is_a_leaf_tensor():
    # `content.clone().requires_grad_(True)` of an argument of unknown type: only a tensor has
    # `clone`, so the copy is a tensor, a leaf that requires grad (a style transfer's image)
    for made in ("content.clone().requires_grad_(True)", "content.detach().requires_grad_()"):
        value, _ = ask(
            f"""
            import torch
            def transfer(content):
                target = {made}
                print(target)  # <- target
            """
        )
        assert value.kind is Kind.TENSOR and value.grad is Grad.YES and value.has(Role.LEAF), made


def test_twin_requires_grad_on_an_unknown_value_stays_unknown():
    # `model.requires_grad_(True)`: a module has the method too, and gives back itself
    value, _ = ask(
        """
        import torch
        def thaw(part):
            thawed = part.requires_grad_(True)
            print(thawed)  # <- thawed
        """
    )
    assert value.kind is not Kind.TENSOR


def test_what_tensorflow_loads_is_no_torch_module():
    # `tf.keras.models.load_model(path)` in a notebook that imports torch too: its `predict`
    # records no graph, whatever the name it is bound to
    value, _ = ask(
        """
        import tensorflow as tf
        import torch
        model = tf.keras.models.load_model("classifier.keras")
        print(model)  # <- model
        """
    )
    assert value.kind is Kind.OTHER


def test_twin_what_torch_loads_and_the_code_calls_is_no_other_frameworks():
    value, _ = ask(
        """
        import tensorflow as tf
        import torch
        model = torch.load("classifier.pt")
        print(model(torch.rand(1, 4)))  # <- model
        """
    )
    assert value.kind is not Kind.OTHER


def test_a_functional_copy_entered_by_higher_is_the_module():
    # `with higher.innerloop_ctx(net, opt) as (fnet, diffopt):` runs `net`'s layers on fast weights
    value, _ = ask(
        """
        import higher
        import torch
        net = torch.nn.Linear(3, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        with higher.innerloop_ctx(net, opt) as (fnet, diffopt):
            print(fnet)  # <- fnet
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_another_librarys_context_enters_nothing_known():
    value, _ = ask(
        """
        import contextlib
        import torch
        net = torch.nn.Linear(3, 2)
        with contextlib.nullcontext(net) as (fnet, other):
            print(fnet)  # <- fnet
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_plain_class_replaced_later_by_a_module_class_keeps_its_instances():
    # a notebook's numpy `class MLP:` used in its early cells, a torch `class MLP(nn.Module)` later:
    # the early instance is the plain class's
    value, _ = ask(
        """
        import numpy as np
        class MLP:
            def predict(self, x):
                return np.tanh(x)
        mlp = MLP()
        print(mlp)  # <- mlp
        import torch
        from torch import nn
        class MLP(nn.Module):
            def forward(self, x):
                return x
        """
    )
    assert value.kind is not Kind.MODULE


def test_twin_a_module_class_defined_again_is_the_later_one_for_its_instances():
    value, _ = ask(
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                return x
        net = Net()
        print(net)  # <- net
        class Net(nn.Module):
            def forward(self, x):
                return x * 2
        """
    )
    assert value.kind is Kind.MODULE


def test_a_loaded_object_the_code_calls_is_a_model():
    # `torch.load` of a whole pickled model, moved to the GPU: calling it shows what it is
    value, _ = ask(
        """
        import torch
        siamese_pre = torch.load("siamese.pt").cuda()
        out = siamese_pre(img0, img1)  # <- siamese_pre
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_a_loaded_object_the_code_does_not_call_is_not_known():
    value, _ = ask(
        """
        import torch
        weights_pre = torch.load("siamese.pt")
        net.load_state_dict(weights_pre)  # <- weights_pre
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_parameter_annotated_as_a_module_is_the_module_its_callers_hand_it():
    # `target_net: nn.Module` says a module; the script's call hands its own, switched to eval mode
    value, _ = ask(
        """
        import torch.nn as nn
        class DQN(nn.Module):
            def forward(self, x):
                return x
        target_net = DQN()
        target_net.eval()
        def optimize_model(target_net: nn.Module, batch):
            return target_net(batch)  # <- target_net
        optimize_model(target_net, batch)
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "DQN" and value.has(Role.EVALUATING)


def test_twin_a_parameter_annotated_as_a_module_without_known_callers_is_a_module():
    value, _ = ask(
        """
        import torch.nn as nn
        def optimize_model(target_net: nn.Module, batch):
            return target_net(batch)  # <- target_net
        """
    )
    assert value.kind is Kind.MODULE and not value.has(Role.EVALUATING)


def test_isinstance_of_a_torch_layer_narrows_to_that_layer_and_its_parameters():
    value, _ = ask(
        """
        import torch.nn as nn
        def init(cell):
            if isinstance(cell, nn.LSTMCell):
                print(cell.weight_ih)  # <- cell
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.LSTMCell"


def test_twin_isinstance_of_a_class_of_the_file_says_nothing_of_torch():
    value, _ = ask(
        """
        import torch.nn as nn
        class Cell:
            pass
        def init(cell):
            if isinstance(cell, Cell):
                print(cell.weight_ih)  # <- cell
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_recurrent_layers_parameter_names_say_parameter_whatever_holds_them():
    for spelt in (
        'getattr(lstm_unit, "weight_ih_l{}".format(l))',
        "lstm_unit.bias_hh_l0_reverse",
        "lstm_unit.weight_hh",
    ):
        value, _ = ask(
            f"""
            def lstm_init_(lstm_unit, l):
                p = {spelt}
                print(p)  # <- p
            """
        )
        assert value.kind is Kind.TENSOR and value.has(Role.PARAM), spelt


def test_twin_other_names_of_an_unknown_value_are_not_known():
    for spelt in ('getattr(lstm_unit, "hidden_size")', "lstm_unit.weight_scale"):
        value, _ = ask(
            f"""
            def lstm_init_(lstm_unit, l):
                p = {spelt}
                print(p)  # <- p
            """
        )
        assert value.kind is not Kind.TENSOR, spelt


def _without_parameters(code: str) -> bool:
    text = textwrap.dedent(code)
    ctx = _context(text)
    node = next(
        n
        for n in ast.walk(ctx.tree)
        if isinstance(n, ast.Name) and n.id == "capsule_loss" and isinstance(n.ctx, ast.Load)
    )
    return ctx.model.module_without_parameters(ctx.model.value(node))


def test_a_loss_class_using_functional_relu_holds_no_parameters():
    # `F.relu(...)` in `forward` is a function, not a layer the class holds
    assert _without_parameters(
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class CapsuleLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.reconstruction_loss = nn.MSELoss(reduction="sum")
            def forward(self, labels, classes):
                return (labels * F.relu(0.9 - classes) ** 2).sum()
        capsule_loss = CapsuleLoss()
        print(capsule_loss)
        """
    )


def test_twin_a_class_building_a_linear_layer_holds_parameters():
    assert not _without_parameters(
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class CapsuleLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Linear(1, 1)
            def forward(self, labels, classes):
                return (labels * F.relu(0.9 - classes) ** 2).sum()
        capsule_loss = CapsuleLoss()
        print(capsule_loss)
        """
    )


def test_a_tensor_that_requires_grad_still_does_after_an_update_under_no_grad():
    value, _ = ask(
        """
        import torch
        w = torch.randn(3).cuda().requires_grad_()
        for x in data:
            with torch.no_grad():
                w -= 0.1 * w.grad
            w  # <- w
        """
    )
    assert value.carries_grad


@pytest.mark.parametrize("name", ["optimizer", "opt", "optD", "opt_G", "D_optimizer", "gen_optim", "optimizer_g"])
def test_a_parameter_named_like_an_optimizer_is_a_weak_optimizer(name):
    value, _ = ask(
        f"""
        def step({name}):
            {name}.step()  # <- {name}
        """
    )
    assert value.kind is Kind.OPTIMIZER and value.weak


@pytest.mark.parametrize("name", ["options", "optional", "adopt", "option_parser"])
def test_other_names_are_not_optimizers(name):
    value, _ = ask(
        f"""
        def step({name}):
            {name}.step()  # <- {name}
        """
    )
    assert value.kind is not Kind.OPTIMIZER


def test_an_optimizer_attribute_of_self_set_from_a_parameter_is_a_weak_optimizer():
    value, _ = ask(
        """
        class Trainer:
            def __init__(self, optimizer_G):
                self.optimizer_G = optimizer_G
            def step(self):
                opt = self.optimizer_G
                opt  # <- opt
        """
    )
    assert value.kind is Kind.OPTIMIZER and value.weak


@pytest.mark.parametrize(
    "line,zeroes",
    [
        ("optimizer.zero_grad()", True),
        ("model.zero_grad(set_to_none=True)", True),
        ("p.grad = None", True),
        ("p.grad.zero_()", True),
        ("p.grad.data.zero_()", True),
        ("p.grad *= 0", True),
        ("del p.grad", True),
        ("p.grad.data.fill_(0)", True),
        ("print(p.grad)", False),
        ("g = p.grad.clone()", False),
        ("optimizer.step()", False),
        ("p.grad.data.mul_(0)", True),
        ("p.grad.detach_().zero_()", True),
        ("p.grad /= p.grad.norm()", False),
        ("p.grad *= scale", False),
        ("p.grad.data.clamp_(-1, 1)", False),
        ("p.grad.div_(world_size)", False),
        ("p.grad.mul_(mask)", False),
    ],
)
def test_what_resets_gradients(line, zeroes):
    ctx = _context(f"for p in params:\n    {line}\n")
    assert ctx.model.zeroes_grad_in(ctx.tree.body[0]) is zeroes


def test_callee_finds_functions_and_methods_of_the_file():
    text = textwrap.dedent(
        """
        def helper():
            pass
        class Base:
            def reset(self):
                pass
        class Trainer(Base):
            def run(self):
                self.reset()
                helper()
                other()
        """
    )
    ctx = _context(text)
    calls = {ast.unparse(n.func): n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call)}
    assert getattr(ctx.model.callee(calls["self.reset"]), "name", None) == "reset"
    assert getattr(ctx.model.callee(calls["helper"]), "name", None) == "helper"
    assert ctx.model.callee(calls["other"]) is None


def test_a_module_known_from_an_annotation_has_no_known_mode():
    value, _ = ask(
        """
        import torch.nn as nn
        class Net(nn.Module):
            pass
        def evaluate(model: Net):
            model  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "Net"
    assert not value.has(Role.TRAINING) and not value.has(Role.EVALUATING)


@pytest.mark.parametrize(
    "made,has",
    [
        ("nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))", True),
        ("nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.BatchNorm1d(2)))", True),
        ("nn.Sequential(nn.Linear(2, 2), nn.ReLU())", False),
        ("nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])", False),
        ("nn.Sequential(*layers)", None),
        ("nn.Sequential(OrderedDict(fc=nn.Linear(2, 2)))", None),
        ("nn.Sequential(Block(), nn.ReLU())", True),
    ],
)
def test_the_layers_of_a_sequential_built_in_the_file_are_known(made, has):
    text = textwrap.dedent(
        f"""
        from collections import OrderedDict
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout()
            def forward(self, x):
                return self.drop(x)
        net = {made}
        net
        """
    )
    ctx = _context(text)
    node = ctx.tree.body[-1].value
    value = ctx.model.value(node)
    assert ctx.model.module_has_layers(value, frozenset({"Dropout", "BatchNorm1d"})) is has


def _definition_lines(text: str, line: int, name: str) -> list:
    ctx = _context(textwrap.dedent(text))
    found = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == name and n.lineno == line]
    use = max(found, key=lambda n: n.col_offset)
    return sorted(
        ctx.model._where(b.node).statement.lineno if not isinstance(b.node, ast.stmt) else b.node.lineno
        for b in ctx.model.definitions(use)
    )


def test_definitions_of_a_use_are_the_last_binding_before_it():
    text = """
    fake = G(z)
    out = D(fake)
    fake = G(z2)
    loss = out.mean() + D(fake).mean()
    """
    assert _definition_lines(text, 3, "fake") == [2]
    assert _definition_lines(text, 5, "fake") == [4]
    assert _definition_lines(text, 5, "out") == [3]


def test_definitions_in_a_loop_include_the_previous_iteration():
    text = """
    for x in data:
        total = step(h)
        h = f(x)
    """
    assert _definition_lines(text, 3, "h") == [4]
    assert _definition_lines(text, 4, "x") == [2]


def test_definitions_of_a_loop_target_are_its_own_binding_not_the_body_rebinding_it():
    text = """
    for imgs, caps in loader:
        imgs = torch.tensor(imgs)
        imgs = encoder(imgs)
    else:
        last = imgs
    """
    # Each turn binds `imgs` afresh: the body's `imgs = encoder(imgs)` never reaches line 3.
    assert _definition_lines(text, 3, "imgs") == [2]
    # The `else` clause runs after the last turn: the body's last binding reaches it.
    assert _definition_lines(text, 6, "imgs") == [4]


def test_twin_definitions_in_an_inner_loop_include_the_outer_loop_target_rebound_in_it():
    text = """
    for imgs in loader:
        for k in range(3):
            use(imgs)
            imgs = refine(imgs)
    """
    assert _definition_lines(text, 4, "imgs") == [2, 5]


def test_a_rebinding_reads_the_earlier_binding():
    text = """
    w = make()
    w = w - 1
    """
    assert _definition_lines(text, 3, "w") == [2]


def test_an_optimizer_knows_the_module_whose_parameters_it_updates():
    value, _ = ask(
        """
        import torch
        class GAN:
            def __init__(self, D, G):
                self.D = D
                self.d_opt = torch.optim.Adam(self.D.parameters(), lr=1e-4)
            def step(self):
                opt = self.d_opt
                opt  # <- opt
        """
    )
    assert value.kind is Kind.OPTIMIZER and value.ref == "self.D"


def test_attributes_of_self_set_together_from_parameters():
    value, _ = ask(
        """
        import torch
        class GAN:
            def __init__(self, G, D):
                self.G, self.D = G, D
            def step(self, x):
                d = self.D
                d  # <- d
        """
    )
    assert value.kind is Kind.MODULE and value.weak


def test_answers_do_not_depend_on_the_order_of_the_questions():
    # Asking first about `__init__` makes the model analyse `train` (which sets `self.k`)
    # while `__init__` is still being analysed: that analysis of `train` must not be kept.
    text = textwrap.dedent(
        """
        import torch.nn as nn
        from loader import dataloader
        class Generator(nn.Module):
            def forward(self, z):
                return z
        class GAN:
            def __init__(self, args):
                self.batch_size = args.batch_size
                self.data_loader = dataloader(self.batch_size)
                data = self.data_loader.__iter__().__next__()[0]
                self.G = Generator()
                self.k = 0.0
            def train(self):
                for x_, _ in self.data_loader:
                    G_ = self.G(x_)
                    self.k = self.k + 1
                    G_
        """
    )

    def fake_value(ask_init_first: bool):
        ctx = _context(text)
        if ask_init_first:
            first = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Subscript))
            ctx.model.value(first.value)
        fake = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "G_"][-1]
        return ctx.model.value(fake)

    assert fake_value(True) == fake_value(False)
    assert fake_value(True).has(Role.OUTPUT)


@pytest.mark.parametrize("joined", ["torch.cat((fake, labels), 1)", "torch.cat([fake, labels], 1)"])
def test_cat_of_a_tuple_or_list_holding_a_model_output_carries_grad(joined):
    value, _ = ask(
        f"""
        import torch
        import torch.nn as nn
        G = nn.Linear(4, 4)
        fake = G(torch.randn(2, 4))
        labels = torch.zeros(2, 1)
        both = {joined}
        both  # <- both
        """
    )
    assert value.carries_grad


@pytest.mark.parametrize(
    "params,ref",
    [
        ("G.parameters()", "G"),
        ("itertools.chain(G_AB.parameters(), G_BA.parameters())", "G_AB+G_BA"),
        ("list(G.parameters()) + list(E.parameters())", "G+E"),
        ("[{'params': G.parameters()}, {'params': self.head.parameters(), 'lr': 0.1}]", "G+self.head"),
        ("chained", "G+E"),
        ("params", None),
        ("models['D'].parameters()", 'models["D"]'),
        ("models[k].parameters()", None),
    ],
)
def test_the_modules_an_optimizer_updates(params, ref):
    value, _ = ask(
        f"""
        import itertools
        import torch
        def make(self, G, E, G_AB, G_BA, params, models, k):
            chained = itertools.chain(G.parameters(), E.parameters())
            opt = torch.optim.Adam({params}, lr=1e-3)
            opt  # <- opt
        """
    )
    assert value.kind is Kind.OPTIMIZER and value.ref == ref


def _frames_run(code: str) -> int:
    """How many flows the model runs to answer a question about each function's last line."""
    from gradguard.check.analysis import model as model_module

    text = textwrap.dedent(code)
    ctx = _context(text)
    runs = []
    original = model_module.ScopeFlow

    class CountingFlow(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            runs.append(1)
            super().__init__(*args, **kwargs)

    model_module.ScopeFlow = CountingFlow
    try:
        for fn in [n for n in ctx.tree.body if isinstance(n, ast.FunctionDef)]:
            ctx.model.value(fn.body[-1].value)
    finally:
        model_module.ScopeFlow = original
    return len(runs)


def test_query_reuses_summary_when_no_summary_was_skipped():
    # A model given as a parameter: its call needs no class's forward, so the function's
    # summary flow is its query flow too (one flow for the function, one for the module's
    # first pass, where callers are looked for).
    assert (
        _frames_run(
            """
        import torch

        def predict(model, x):
            out = model(x)
            return out
        """
        )
        == 2
    )


def test_query_recomputed_when_a_forward_summary_was_skipped():
    # The summary flow does not follow the project's Net.forward; the query flow does:
    # the module's first pass, predict's summary, Net.forward's summary, predict's query.
    assert (
        _frames_run(
            """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x.detach()

        def predict(x):
            model = Net()
            out = model(x)
            return out
        """
        )
        == 4
    )


def test_a_call_statement_is_not_followed_until_asked_about():
    # `log(out)` is a statement: its result is kept nowhere, so the query flow of `predict`
    # does not run `log`'s summary (the module's first pass, predict's summary, its query:
    # Net.forward's summary is needed for `out`)...
    code = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x.detach()

        def log(value):
            print(value.sum().item())
            return torch.zeros(1)

        def predict(x):
            model = Net()
            out = model(x)
            log(out)
            return out
        """
    assert _frames_run(code) == 5  # with log's summary too: 6
    # ... and a question about that call gets the answer the summary gives.
    ctx = _context(textwrap.dedent(code))
    call = next(
        n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "log"
    )
    value = ctx.model.value(call)
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


def test_query_with_its_own_start_runs_no_summary_flow_of_its_function():
    # Every caller passes a module: the query starts from other values than the summary
    # would, so predict's summary flow is not run (the module's first pass and full pass,
    # where the callers are, and predict's query).
    code = """
        import torch

        def predict(net, x):
            out = net(x)
            return out

        predict(torch.nn.Linear(2, 2), torch.ones(2))
        """
    text = textwrap.dedent(code)
    ctx = _context(text)
    kinds = []
    from gradguard.check.analysis import model as model_module

    original = model_module.ScopeFlow

    class Recording(original):  # type: ignore[misc, valid-type]
        def __init__(self, model, frame, entry):
            kinds.append(frame.kind)
            super().__init__(model, frame, entry)

    model_module.ScopeFlow = Recording
    try:
        fn = next(n for n in ctx.tree.body if isinstance(n, ast.FunctionDef))
        value = ctx.model.value(fn.body[0].value.func)
    finally:
        model_module.ScopeFlow = original
    assert value.kind is Kind.MODULE and not value.weak
    assert "summary" not in kinds and "query" in kinds


def test_assigning_an_attribute_does_not_work_out_what_it_held():
    # `self.total = 0` binds no name: the flow of `reset` does not ask what `self.total`
    # holds, which would run `__init__` (it assigns `self.total` from a parameter).
    from gradguard.check.analysis import model as model_module

    text = textwrap.dedent(
        """
        class Counter:
            def __init__(self, start):
                self.total = start

            def reset(self):
                self.total = 0
                self.total += 1
                return self
        """
    )
    ctx = _context(text)
    flows = []
    original = model_module.ScopeFlow

    class Recording(original):  # type: ignore[misc, valid-type]
        def __init__(self, model, frame, entry):
            flows.append(getattr(frame.node, "name", "<module>"))
            super().__init__(model, frame, entry)

    model_module.ScopeFlow = Recording
    try:
        reset = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == "reset")
        value = ctx.model.value(reset.body[-1].value)
    finally:
        model_module.ScopeFlow = original
    assert value.kind is Kind.OTHER and value.ref == "Counter"
    assert "reset" in flows and "__init__" not in flows


def test_a_container_may_carry_a_graph_only_through_a_tensor_it_holds():
    from gradguard.check.analysis.values import NUMBER, UNKNOWN, Value

    with_graph = Value(Kind.TENSOR, Grad.YES)
    no_graph = Value(Kind.TENSOR, Grad.NO)
    assert Value(Kind.CONTAINER, Grad.NO, items=(no_graph, with_graph)).may_carry_graph
    assert Value(Kind.CONTAINER, Grad.NO, elem=with_graph).may_carry_graph
    assert not Value(Kind.CONTAINER, Grad.NO, items=(no_graph, NUMBER)).may_carry_graph
    assert not Value(Kind.CONTAINER, Grad.NO, elem=UNKNOWN).may_carry_graph  # words, indices
    assert UNKNOWN.may_carry_graph and with_graph.may_carry_graph and not no_graph.may_carry_graph


def test_may_name_lets_through_every_spelling_of_a_name():
    tree = ast.parse("import torch\nfrom torch.autograd import grad as agrad\n")
    imports = ImportMap(tree)
    names = ("grad", "backward")
    for code in ("torch.autograd.grad", "agrad", "x.backward", "autograd.grad"):
        node = ast.parse(code, mode="eval").body
        assert imports.may_name(node, names), code
    for code in ("x.step", "helper", "torch.autograd.functional.jacobian", "f()"):
        node = ast.parse(code, mode="eval").body
        assert not imports.may_name(node, names), code


def test_text_built_from_builtins_is_no_tensor():
    value, _ = ask(
        """
        import torch

        def spell(ids):
            word = "a"
            for i in ids:
                word += chr(i) + str(i) + format(i, "d")
            return word  # <- word
        """
    )
    assert value.kind is Kind.OTHER and value.grad is Grad.NO


def test_abs_of_a_tensor_keeps_its_graph():
    value, _ = ask(
        """
        import torch

        w = torch.ones(2, requires_grad=True)
        d = abs(w * 2)
        d  # <- d
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_a_list_holds_what_is_appended_to_it():
    value, _ = ask(
        """
        import torch
        from torch import nn

        net = nn.Linear(2, 2)
        outs = []
        for x in torch.ones(3, 2):
            outs.append(net(x))
        outs  # <- outs
        """
    )
    assert value.kind is Kind.CONTAINER and value.elem is not None and value.elem.is_tensor
    assert value.may_carry_graph


@pytest.mark.parametrize("name", ["net2", "rnn", "lstm1", "cnn", "model_0", "netD", "G", "dqn", "q_network"])
def test_names_that_say_model_are_weak_evidence_of_one(name):
    value, _ = ask(
        f"""
        import torch
        {name} = torch.load("weights.pt")
        {name}  # <- {name}
        """
    )
    assert value.kind is Kind.MODULE and value.weak


@pytest.mark.parametrize("name", ["options", "mlp_head", "G2", "netting", "rnn_state", "dqn_config", "networks"])
def test_names_that_do_not_say_model_are_no_evidence(name):
    value, _ = ask(
        f"""
        import torch
        {name} = torch.load("weights.pt")
        {name}  # <- {name}
        """
    )
    assert value.kind is not Kind.MODULE


def test_assigned_names_reads_every_kind_of_target():
    from gradguard.check.analysis.imports import assigned_names

    tree = ast.parse(
        textwrap.dedent(
            """
            import n
            a, (b, *c) = f()
            d += 1
            e: int = 1
            obj.attr = 1
            lst[0] = 2
            for g in x:
                if y:
                    with open(p) as (h, i), q:
                        pass
            def fn(arg):
                k = 1
            class Cls:
                m = 2
            try:
                pass
            except E as err:
                o = 3
            """
        )
    )
    assert assigned_names(tree.body) == {"a", "b", "c", "d", "e", "g", "h", "i", "k", "m", "o"}


def test_is_import_holds_for_imported_names_never_assigned():
    ctx = _context("import numpy as np\nimport model\nfrom torch.nn import init\nmodel = model.Net()\n")

    def expr(code):
        return ast.parse(code, mode="eval").body

    assert ctx.model.is_import(expr("np.mean"))
    assert ctx.model.is_import(expr("init.uniform_"))
    assert not ctx.model.is_import(expr("model"))  # assigned after its import
    assert not ctx.model.is_import(expr("torch.cat"))  # not imported here
    assert not ctx.model.is_import(expr("np.mean(x).sum"))  # a call's result


@pytest.mark.parametrize(
    "weights,reads",
    [
        ("w = torch.randn(3, 1, requires_grad=True)", True),
        ("w = torch.nn.Parameter(torch.randn(3, 1))", True),
        ("w = torch.randn(3, 1)", False),  # no grad: a constant
        ("w = torch.randn(3, 1, requires_grad=True).detach()", False),
    ],
)
def test_a_function_reading_module_weights_that_require_grad_computes_a_model_by_hand(weights, reads):
    text = textwrap.dedent(
        f"""
        import torch
        {weights}
        def net(x):
            return x @ w
        """
    )
    ctx = _context(text)
    fn = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef))
    assert ctx.model.reads_grad_globals(fn) is reads


def test_a_module_whose_forward_returns_reduced_losses_gives_0_dim_tensors_when_unpacked():
    value, _ = ask(
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class PairLoss(nn.Module):
            def forward(self, out, target):
                return F.smooth_l1_loss(out, target), F.cross_entropy(out, target)
        criterion = PairLoss()
        loss_l, loss_c = criterion(net(x), y)
        loss_l  # <- loss_l
        """
    )
    assert value.is_tensor and value.has(Role.SCALAR) and value.has(Role.OUTPUT)


def test_a_module_known_from_its_uses_is_switched_to_eval_mode():
    # `Classifier` comes from a module the run does not see: `.parameters()` shows a module.
    value, _ = ask(
        """
        import torch
        from models import Classifier
        model = Classifier()
        optim = torch.optim.Adam(model.parameters())
        model.eval()
        model  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.has(Role.EVALUATING)


@pytest.mark.parametrize("call", ['"".join(chars)', '"{} {}".format(a, b)', 'f"{x}".strip()', '"a,b".split(",")'])
def test_a_strings_method_returns_no_tensor(call):
    value, _ = ask(
        f"""
        import torch
        out = {call}
        out  # <- out
        """
    )
    assert not value.is_tensor and value.kind is not Kind.UNKNOWN


def test_a_number_on_one_path_and_a_0_dim_tensor_on_the_other_is_a_0_dim_tensor():
    value, _ = ask(
        """
        import torch
        criterion = torch.nn.MSELoss()
        total = 0
        for x, y in loader:
            total += criterion(x, y)
        print(total)  # <- total
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.SCALAR)


def test_twin_a_number_or_a_tensor_of_unknown_shape_is_no_0_dim_tensor():
    value, _ = ask(
        """
        import torch
        total = 0
        for x in loader:
            total += torch.randn(3)
        print(total)  # <- total
        """
    )
    assert not value.has(Role.SCALAR) and value.grad is Grad.NO


def _on_some_path(code: str) -> bool:
    """``tensor_on_some_path`` for the name marked ``# <- name``."""
    text = textwrap.dedent(code)
    ctx = _context(text)
    row, name = next(
        (i + 1, line.split("# <-")[1].strip()) for i, line in enumerate(text.splitlines()) if "# <-" in line
    )
    node = max(
        (n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == name and n.lineno == row),
        key=lambda n: n.col_offset,
    )
    return ctx.model.tensor_on_some_path(node)


def test_a_hidden_state_unknown_before_the_loop_and_a_tensor_in_it_is_a_tensor_on_some_path():
    code = """
        import torch
        h = net.init_hidden(8)
        for x, y in loader:
            h = tuple([each for each in h])  # <- each
            out, h = net(x, h)
        """
    assert _on_some_path(code)
    # `h` itself is a tuple on one path: not a tensor
    assert not _on_some_path(code.replace("# <- each", "# <- h"))


def test_twin_a_name_that_is_something_else_on_another_path_is_not_a_tensor_on_some_path():
    assert not _on_some_path(
        """
        import torch
        h = net.init_hidden(8)
        for x, y in loader:
            h = tuple([each for each in h])  # <- each
            out, h = net(x, h)
            h = "done"
        """
    )
    assert not _on_some_path(
        """
        import torch
        h = net.init_hidden(8)
        for x, y in loader:
            h = tuple([each for each in h])  # <- each
            h = [x.shape for x in h]
        """
    )


def test_a_global_unknown_where_made_is_what_the_module_s_uses_show():
    value, _ = ask(
        """
        import torch
        G_AB = Generator()
        optimizer = torch.optim.Adam(G_AB.parameters())
        def sample(x):
            return G_AB(x)  # <- G_AB
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_a_local_of_the_same_name_is_not_the_global():
    value, _ = ask(
        """
        import torch
        G_AB = Generator()
        optimizer = torch.optim.Adam(G_AB.parameters())
        def sample(x, G_AB):
            return G_AB(x)  # <- G_AB
        """
    )
    assert value.kind is not Kind.MODULE or value.weak


def test_a_global_bound_twice_is_what_it_holds_where_the_module_calls_the_function():
    value, _ = ask(
        """
        import torch.nn as nn
        class CNN(nn.Module):
            pass
        class MLP(nn.Module):
            pass
        model = CNN()
        def show(img):
            return model(img)  # <- model
        show(img)
        model = MLP()
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "CNN"


def test_twin_a_function_called_by_another_function_sees_the_module_s_last_binding():
    value, _ = ask(
        """
        import torch.nn as nn
        class CNN(nn.Module):
            pass
        class MLP(nn.Module):
            pass
        model = CNN()
        def show(img):
            return model(img)  # <- model
        def main():
            show(img)
        show(img)
        model = MLP()
        main()
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "MLP"


def test_calls_at_two_bindings_join_their_values():
    value, _ = ask(
        """
        import torch.nn as nn
        class CNN(nn.Module):
            pass
        class MLP(nn.Module):
            pass
        model = CNN()
        def show(img):
            return model(img)  # <- model
        show(img)
        model = MLP()
        show(img)
        model = None
        """
    )
    assert value.kind is Kind.MODULE and value.ref is None


def _attribute_value(code: str, text: str):
    """The value of the attribute spelt ``text`` (``self.block``) on the line marked ``# <- here``."""
    source = textwrap.dedent(code)
    ctx = _context(source)
    row = next(i + 1 for i, line in enumerate(source.splitlines()) if "# <- here" in line)
    node = next(
        n for n in ast.walk(ctx.tree) if isinstance(n, ast.Attribute) and n.lineno == row and ctx.text(n) == text
    )
    return ctx.model.value(node)


_BUILDER = """
    import torch
    import torch.nn as nn
    def deconv(c_in, c_out, batch_norm=True):
        layers = [nn.ConvTranspose2d(c_in, c_out, 4)]
        if batch_norm:
            layers.append(nn.BatchNorm2d(c_out))
        return {returned}
    class Generator(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.fc = nn.Linear(10, dim)
            self.block = deconv(dim, 3)
        def forward(self, x):
            return self.block(self.fc(x))  # <- here
"""


def test_a_layer_a_helper_of_the_file_builds_is_a_module_on_the_instance():
    value = _attribute_value(_BUILDER.format(returned="nn.Sequential(*layers)"), "self.block")
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.Sequential"


def test_twin_a_helper_returning_a_tensor_builds_no_layer():
    value = _attribute_value(_BUILDER.format(returned="torch.randn(c_out)"), "self.block")
    assert value.kind is not Kind.MODULE


def test_a_helper_built_layer_makes_the_generator_s_output_carry_a_graph():
    value, _ = ask(
        textwrap.dedent(_BUILDER.format(returned="nn.Sequential(*layers)")).replace("  # <- here", "")
        + "G = Generator(8)\nfake = G(z)\nprint(fake)  # <- fake\n"
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


@pytest.mark.parametrize("sample", ["torch.normal(mean, std)", "torch.normal(mean, 1.0)", "torch.bernoulli(mean)"])
def test_a_sample_of_tensors_with_a_graph_keeps_the_graph(sample):
    value, _ = ask(
        f"""
        import torch
        mean = torch.zeros(3, requires_grad=True)
        std = torch.ones(3)
        action = {sample}
        print(action)  # <- action
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_twin_a_sample_of_numbers_is_a_fresh_tensor():
    value, _ = ask(
        """
        import torch
        noise = torch.normal(0.0, 1.0, size=(3,))
        print(noise)  # <- noise
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


@pytest.mark.parametrize("call", ["torch.abs(diff)", "torch.clamp(diff, 0, 1)", "torch.sqrt(diff)"])
def test_an_element_wise_function_of_a_0_dim_tensor_is_0_dim(call):
    value, _ = ask(
        f"""
        import torch
        diff = torch.mean(a - b)
        m = {call}
        print(m)  # <- m
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.SCALAR)


def test_twin_an_element_wise_function_of_a_tensor_of_unknown_shape_is_not_0_dim():
    value, _ = ask(
        """
        import torch
        diff = torch.randn(3)
        m = torch.abs(diff)
        print(m)  # <- m
        """
    )
    assert value.kind is Kind.TENSOR and not value.has(Role.SCALAR)


def test_isinstance_of_a_tensor_class_narrows_a_name_in_the_branch():
    value, _ = ask(
        """
        import torch
        def add(v):
            if isinstance(v, (torch.Tensor, torch.nn.Parameter)):
                print(v)  # <- v
        """
    )
    assert value.kind is Kind.TENSOR


def test_twin_isinstance_of_another_class_narrows_nothing():
    value, _ = ask(
        """
        import torch
        def add(v):
            if isinstance(v, (torch.Tensor, list)):
                print(v)  # <- v
        """
    )
    assert value.kind is not Kind.TENSOR


def test_assert_isinstance_of_a_plain_class_of_the_file_narrows_to_its_instance():
    value, _ = ask(
        """
        import torch
        class Container:
            def predict(self, x):
                with torch.no_grad():
                    return x
        class Attack:
            def __init__(self, container):
                assert isinstance(container, Container)
                print(container)  # <- container
        """
    )
    assert value.kind is Kind.OTHER and value.ref == "Container"


def test_twin_isinstance_of_a_module_class_of_the_file_is_left_to_the_code():
    value, _ = ask(
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                return x
        def run(model):
            assert isinstance(model, Net)
            print(model)  # <- model
        """
    )
    assert value.kind is not Kind.OTHER and value.ref is None  # what its name says, nothing narrowed


def test_eval_taking_nothing_on_another_librarys_object_makes_a_module_in_eval_mode():
    value, _ = ask(
        """
        from diffusers import StableDiffusionPipeline
        pipe = StableDiffusionPipeline.from_pretrained("x")
        encoder = pipe.text_encoder.eval()
        print(encoder)  # <- encoder
        """
    )
    assert value.kind is Kind.MODULE and value.has(Role.EVALUATING)


def test_twin_pandas_eval_of_an_expression_is_no_module():
    value, _ = ask(
        """
        import pandas as pd
        frame = pd.read_csv("x.csv")
        total = frame.eval("a + b")
        print(total)  # <- total
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_tensor_on_one_path_and_none_on_the_other_is_the_tensor():
    value, _ = ask(
        """
        import torch.nn.functional as F
        def reconstruction_loss(x, x_recon, distribution):
            if distribution == "bernoulli":
                recon_loss = F.binary_cross_entropy_with_logits(x_recon, x, reduction="sum")
            else:
                recon_loss = None
            return recon_loss  # <- recon_loss
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.LOSS)


def test_a_module_on_one_path_and_none_on_the_other_is_the_module_where_it_is_used():
    # `model = None`, then the branch that picks it: wherever the code uses it as a module it is one
    value, _ = ask(
        """
        import torch.nn as nn
        layer = None
        if pretrained:
            layer = nn.Linear(4, 2)
        print(layer)  # <- layer
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.Linear"


def test_twin_a_module_on_one_path_and_a_tensor_on_the_other_stays_unknown():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        layer = torch.ones(2)
        if pretrained:
            layer = nn.Linear(4, 2)
        print(layer)  # <- layer
        """
    )
    assert value.kind is Kind.UNKNOWN  # both happen, and neither is used as the other


def test_modules_of_different_classes_on_two_paths_keep_both_classes():
    value, _ = ask(
        """
        import torch.nn as nn
        class LSTMNet(nn.Module):
            pass
        class TransformerNet(nn.Module):
            pass
        if kind == "lstm":
            model = LSTMNet()
        elif kind == "transformer":
            model = TransformerNet()
        else:
            model = None
        model  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.ref is None
    assert value.alternatives == ("LSTMNet", "TransformerNet")


def test_twin_a_module_of_unknown_class_on_one_path_keeps_no_classes():
    value, _ = ask(
        """
        import torch.nn as nn
        class LSTMNet(nn.Module):
            pass
        if kind == "lstm":
            model = LSTMNet()
        else:
            model = load_model(path)
        model  # <- model
        """
    )
    assert value.alternatives is None


def test_a_module_of_either_class_holds_a_layer_only_where_both_classes_hold_it():
    ctx = _context(
        textwrap.dedent(
            """
            import torch.nn as nn
            class A(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(0.2)
                def forward(self, x):
                    return self.drop(x)
            class B(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(0.1)
                    self.bn = nn.BatchNorm1d(4)
                def forward(self, x):
                    return self.bn(self.drop(x))
            model = A() if flag else B()
            print(model)
            """
        )
    )
    model = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "model"][-1]
    value = ctx.model.value(model)
    assert ctx.model.module_has_layers(value, frozenset({"Dropout"})) is True
    # twin: only one of the two classes holds batch norm: not known
    assert ctx.model.module_has_layers(value, frozenset({"BatchNorm1d"})) is None


# -- sizes and classes that define __call__ ------------------------------------------------------
def test_a_size_read_from_a_shape_is_a_number_whatever_holds_it():
    value, _ = ask(
        """
        def f(batch):
            size = batch[0].shape[0]
            print(size)  # <- size
        """
    )
    assert value.kind is Kind.NUMBER


def test_twin_an_item_of_an_unknown_value_is_unknown():
    value, _ = ask(
        """
        def f(batch):
            first = batch[0][0]
            print(first)  # <- first
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_module_class_defining_call_is_run_through_it():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        class DetailLoss(nn.Module):
            def __call__(self, predict, label):
                loss = ((predict - label) ** 2).mean()
                return loss, torch.stack([loss, loss]).detach()
        criterion = DetailLoss()
        loss, detail = criterion(net(x), y)
        print(detail)  # <- detail
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


def test_twin_a_module_class_with_forward_gives_outputs_with_graph():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        class DetailLoss(nn.Module):
            def forward(self, predict, label):
                loss = ((predict - label) ** 2).mean()
                return loss, torch.stack([loss, loss]).detach()
        criterion = DetailLoss()
        loss, detail = criterion(net(x), y)
        print(detail)  # <- detail
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is not Grad.NO


# -- what a function hands back -------------------------------------------------------------
def test_function_returning_its_parameter_gives_the_argument_at_each_call():
    value, _ = ask(
        """
        class LinearSVM:
            def predict(self, X):
                return X
        def fit(cls, data):
            cls.train(data)
            return cls, 0.5
        svm, acc = fit(LinearSVM(), data)
        svm  # <- svm
        """
    )
    assert value.kind is Kind.OTHER and value.ref == "LinearSVM"


def test_function_rebinding_its_parameter_hands_back_no_argument():
    value, _ = ask(
        """
        class LinearSVM:
            pass
        def fit(cls, data):
            cls = make(data)
            return cls
        model = fit(LinearSVM(), data)
        model  # <- model
        """
    )
    assert value.ref != "LinearSVM"


def test_method_returning_its_parameter_gives_the_argument_not_its_name():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
        class Runner:
            def load_ckp(self, path, model, optimizer):
                checkpoint = torch.load(path)
                model.load_state_dict(checkpoint["state_dict"])
                return model, optimizer, checkpoint["episode"]

            def run(self, resume):
                net = Net()
                opt = torch.optim.Adam(net.parameters())
                if resume:
                    net, opt, episode = self.load_ckp("ckp.pt", net, opt)
                return net  # <- net
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "Net" and not value.weak


def test_method_returning_a_new_model_gives_no_argument():
    value, _ = ask(
        """
        import torch.nn as nn
        class Net(nn.Module):
            pass
        class Other(nn.Module):
            pass
        class Runner:
            def rebuild(self, model):
                model = Other()
                return model

            def run(self):
                net = self.rebuild(Net())
                return net  # <- net
        """
    )
    assert value.ref != "Net"


def test_plain_instance_or_none_is_the_instance():
    value, _ = ask(
        """
        class LinearSVM:
            pass
        best = None
        for lr in rates:
            if lr > 0:
                best = LinearSVM()
        best  # <- best
        """
    )
    assert value.kind is Kind.OTHER and value.ref == "LinearSVM"


def test_items_of_a_parameter_named_for_parameters_are_weak_parameters():
    value, _ = ask(
        """
        def get_parameter_norm(parameters, norm_type=2):
            total = 0
            for p in parameters:
                total += p.norm()  # <- p
            return total
        """
    )
    assert value.is_tensor and value.weak and value.has(Role.PARAM)


def test_twin_items_of_a_parameter_named_otherwise_are_unknown():
    value, _ = ask(
        """
        def get_norm(values, norm_type=2):
            total = 0
            for p in values:
                total += p.norm()  # <- p
            return total
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_parameter_named_params_holds_parameters():
    value, _ = ask(
        """
        import torch
        def sgd(params, lr):
            for p in params:  # <- params
                p.data -= lr * p.grad
        """
    )
    assert value.kind is Kind.CONTAINER and value.elem is not None and value.elem.has(Role.PARAM)


def test_twin_a_name_params_bound_to_a_loaded_file_holds_no_parameters():
    # `params = torch.load(path)`: a state dict read from a file, whose tensors need no grad.
    value, _ = ask(
        """
        import torch
        params = torch.load("skipgram.pt")
        matrix = params["embedding.weight"].cpu().numpy()  # <- params
        """
    )
    assert not (value.elem is not None and value.elem.has(Role.PARAM))


def test_a_list_of_placeholders_filled_by_index_holds_what_is_stored():
    value, _ = ask(
        """
        import torch.nn as nn
        class Agents:
            def __init__(self, n):
                self.actors = [None for _ in range(n)]
                for i in range(n):
                    self.actors[i] = nn.Linear(4, 2)

            def act(self, states):
                return [actor(s) for actor, s in zip(self.actors, states)]

            def first(self):
                for actor in self.actors:
                    return actor  # <- actor
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.Linear"


def test_a_list_of_placeholders_filled_in_another_method_over_several_lines():
    value, _ = ask(
        """
        import torch.nn as nn
        class Agents:
            def __init__(self, n):
                self.actors = [None] * n
                print(self.actors[0])

            def reset(self, n, big):
                for i in range(n):
                    if big:
                        self.actors[i] = (
                            nn.Linear(8, 2)
                        )
                    else:
                        self.actors[i] = nn.Linear(4, 2)

            def first(self):
                for actor in self.actors:
                    return actor  # <- actor
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.Linear"


def test_a_scripts_list_of_placeholders_filled_in_a_loop_holds_its_models():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        actors = [None for _ in range(3)]
        for i in range(3):
            actors[i] = nn.Linear(4, 2)
            actors[i].load_state_dict(torch.load(f"agent{i}.pt"))
        for j in range(3):
            out = actors[j](torch.randn(4))  # <- actors
        """
    )
    assert value.kind is Kind.CONTAINER and value.elem is not None and value.elem.ref == "torch.nn.Linear"


def test_twin_a_scripts_list_of_numbers_filled_by_index_is_not_a_list_of_models():
    value, _ = ask(
        """
        import torch.nn as nn
        scores = [0.0] * 3
        for i in range(3):
            scores[i] = nn.Linear(4, 2)
        print(scores)  # <- scores
        """
    )
    assert value.elem is None or value.elem.kind is not Kind.MODULE


def test_twin_a_list_of_placeholders_never_filled_holds_nothing_known():
    value, _ = ask(
        """
        import torch.nn as nn
        class Agents:
            def __init__(self, n):
                self.actors = [None for _ in range(n)]

            def first(self):
                for actor in self.actors:
                    return actor  # <- actor
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_list_of_zeros_filled_by_index_with_tensors_no_longer_holds_numbers():
    value, _ = ask(
        """
        import torch
        def decode(decoder, x, n):
            top = [0] * n
            out, (h, c) = decoder(x)
            for b in range(n):
                top[b] = h[:, b : b + 1, :]
            for b in range(n):
                kept = top[b]  # <- top
        """
    )
    assert value.kind is Kind.CONTAINER and value.elem is not None and value.elem.kind is not Kind.NUMBER


def test_twin_a_list_of_zeros_filled_by_index_with_counts_holds_numbers():
    value, _ = ask(
        """
        def count(labels, n):
            counts = [0] * n
            for y in labels:
                counts[y] = counts[y] + 1
            return counts  # <- counts
        """
    )
    assert value.kind is Kind.CONTAINER and value.elem is not None and value.elem.kind is Kind.NUMBER


def test_join_of_a_list_of_placeholders_and_a_filled_one_holds_what_fills_it():
    from gradguard.check.analysis.values import NONE_VALUE, container, join, module

    filled = join(container(NONE_VALUE), container(module("torch.nn.Linear")))
    assert filled is not None and filled.elem is not None and filled.elem.ref == "torch.nn.Linear"
    # twin: two lists of different things join to a list of unknown elements
    mixed = join(container(module("torch.nn.Linear")), container(module("torch.nn.Conv2d")))
    assert mixed is not None and (mixed.elem is None or mixed.elem.ref is None)


def test_item_gives_a_number_whatever_the_model_returns():
    # a stub `forward` returning a float: `.item()` of its result is still a Python number
    value, _ = ask(
        """
        import torch.nn as nn
        class Captioner(nn.Module):
            def forward(self, images, captions):
                loss = 0.0
                return loss
        model = Captioner()
        loss = model(images, captions).item()
        print(loss)  # <- loss
        """
    )
    assert value.kind is Kind.NUMBER


def test_twin_item_of_a_tensor_is_a_number_and_a_name_alone_no_tensor():
    value, _ = ask(
        """
        import torch
        loss = torch.ones(3).sum().item()
        print(loss)  # <- loss
        """
    )
    assert value.kind is Kind.NUMBER


def test_an_item_of_a_tolist_is_a_number():
    # `.tolist()` gives plain numbers: an item of it is one, whatever the name it is bound to
    value, _ = ask(
        """
        import torch
        loss = torch.ones(3, requires_grad=True).sum()
        loss = loss.view(-1).data.tolist()[0]
        print(loss)  # <- loss
        """
    )
    assert value.kind is Kind.NUMBER


def test_twin_an_item_of_a_tensor_keeps_its_graph():
    value, _ = ask(
        """
        import torch
        loss = torch.ones(3, requires_grad=True).sum()
        loss = loss.view(-1)[0]
        print(loss)  # <- loss
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_a_layer_of_a_torchvision_models_part_is_a_module():
    # `alexnet.features` is torchvision's `nn.Sequential` of pretrained layers: `[0]` is its conv
    value, _ = ask(
        """
        import torchvision.models as models
        alexnet = models.alexnet(pretrained=True)
        convlayer1 = alexnet.features[0]
        fmap = convlayer1(img)  # <- convlayer1
        """
    )
    assert value.kind is Kind.MODULE and not value.weak


def test_twin_an_index_of_a_tensor_a_model_returns_is_no_module():
    value, _ = ask(
        """
        import torchvision.models as models
        alexnet = models.alexnet(pretrained=True)
        first = alexnet(img)[0]
        print(first)  # <- first
        """
    )
    assert value.kind is Kind.TENSOR


def test_a_call_of_an_attribute_the_class_uses_as_a_module_is_a_model_output():
    value, _ = ask(
        """
        class Engine:
            def __init__(self, m, optim):
                self.Model = m
                self.optim = optim

            def evaluate(self, loader):
                self.Model.eval()

            def train(self, img, gt):
                loss_dict = self.Model(img, gt)
                print(loss_dict)  # <- loss_dict
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.OUTPUT)


def test_twin_a_call_of_an_attribute_nothing_uses_as_a_module_is_unknown():
    value, _ = ask(
        """
        class Engine:
            def __init__(self, score):
                self.Score = score

            def train(self, img, gt):
                result = self.Score(img, gt)
                print(result)  # <- result
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_dict_of_named_parameters_holds_parameters():
    value, _ = ask(
        """
        import torch.nn as nn
        net = nn.Linear(2, 2)
        params = dict(net.named_parameters())
        w = params["weight"]
        print(w)  # <- w
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.PARAM)


def test_twin_a_dict_of_other_pairs_holds_no_parameters():
    value, _ = ask(
        """
        sizes = dict(zip(names, counts))
        w = sizes["weight"]
        print(w)  # <- w
        """
    )
    assert value.kind is not Kind.TENSOR


def test_sizes_unpacked_are_numbers_and_keep_a_reshape_without_graph():
    value, _ = ask(
        """
        import torch
        def to_mask(prediction):
            B, C, H, W = prediction.size()
            out = torch.zeros(C, B * H * W)
            out = torch.reshape(out, (C, B, H, W))
            return out  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


NESTED = """
    import torch

    def score(model, images):
        def get_pred(x):
            return model(x)  # <- x
        return [get_pred(b) for b in images]

    def test(model, images):
        with torch.no_grad():
            {calls}
"""


def test_a_nested_function_runs_where_its_enclosing_function_runs():
    _, mode = ask(NESTED.format(calls="return score(model, images)"))
    assert mode is not GradMode.ENABLED


def test_twin_a_nested_function_of_a_function_also_called_with_grad_on_runs_with_grad_on():
    _, mode = ask(NESTED.format(calls="first = score(model, images[:1])\n        return first, score(model, images)"))
    assert mode is GradMode.ENABLED


CLOSURE = """
import torch.nn as nn

class Actor(nn.Module):
    def forward(self, x):
        return x

def evaluate(actor, env):
    def policy(state):
        return actor(state)  # <- actor
    return policy(env.reset())

{calls}
"""


def test_a_free_name_of_a_nested_function_holds_what_the_callers_hand_the_enclosing_one():
    # `policy` reads `actor` from `evaluate`, whose only caller hands it a module of the file
    value, _ = ask(CLOSURE.format(calls="evaluate(Actor(), env)"))
    assert value.kind is Kind.MODULE and value.ref == "Actor"


def test_twin_a_free_name_of_a_nested_function_of_an_uncalled_function_stays_unknown():
    value, _ = ask(CLOSURE.format(calls=""))
    assert value.kind is Kind.UNKNOWN


# -- dicts written with string keys -----------------------------------------------------------
def test_a_dict_with_string_keys_keeps_each_keys_value():
    # `criterions["cls"]` is the parameterless loss, not the join with the KD module
    value, _ = ask(
        """
        import torch.nn as nn
        criterions = {"cls": nn.CrossEntropyLoss(), "kd": nn.Linear(4, 4)}
        criterion = criterions["cls"]
        criterion(x, y)  # <- criterion
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.CrossEntropyLoss"


def test_twin_a_dict_indexed_by_a_name_joins_its_values():
    value, _ = ask(
        """
        import torch.nn as nn
        criterions = {"cls": nn.CrossEntropyLoss(), "kd": nn.Linear(4, 4)}
        criterion = criterions[key]
        criterion(x, y)  # <- criterion
        """
    )
    assert value.ref is None


def test_a_model_taken_from_a_dict_has_no_known_mode():
    # the code keeping models in a dict switches them in a loop over it
    value, _ = ask(
        """
        import torch.nn as nn
        vae = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        context = {"vae": vae}
        for key in context:
            context[key].eval()
        model = context["vae"]
        model(x)  # <- model
        """
    )
    assert value.kind is Kind.MODULE and not value.has(Role.TRAINING) and not value.has(Role.EVALUATING)


def test_a_loader_taken_from_a_dict_by_its_split_has_that_split():
    value, _ = ask(
        """
        import torch
        loaders = {"train": torch.utils.data.DataLoader(a), "val": torch.utils.data.DataLoader(b)}
        batches = loaders["val"]
        for x, y in batches:  # <- batches
            pass
        """
    )
    assert value.kind is Kind.LOADER and value.split is Split.EVAL


@pytest.mark.parametrize(
    "returned,kind", [("nn.Module", Kind.MODULE), ("torch.optim.Optimizer", Kind.OPTIMIZER), ("int", Kind.UNKNOWN)]
)
def test_a_parameter_annotated_callable_returns_what_its_annotation_says(returned, kind):
    # `make_critic: Callable[[Tuple[int, ...], int], nn.Module]` of a CS285 agent: its call is a module.
    value, _ = ask(
        f"""
        from typing import Callable, Tuple
        import torch
        import torch.nn as nn
        def build(make_critic: Callable[[Tuple[int, ...], int], {returned}], shape, n):
            critic = make_critic(shape, n)
            return critic  # <- critic
        """
    )
    assert value.kind is kind


def test_an_attribute_a_class_calls_module_methods_on_is_a_module_though_made_by_calling_a_net():
    # `net` is the network's class, handed in: `net(o_dim, a_dim)` builds the module, which
    # `self.online_net.parameters()` shows (its name made the call look like a forward pass).
    value, _ = ask(
        """
        import torch
        class Agent:
            def __init__(self, net, o_dim, a_dim):
                self.online_net = net(o_dim, a_dim)
                self.optimizer = torch.optim.Adam(self.online_net.parameters())

            def act(self, state):
                online = self.online_net
                return online  # <- online
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_an_attribute_made_by_calling_a_net_and_used_as_a_tensor_stays_a_tensor():
    value, _ = ask(
        """
        class Encoder:
            def __init__(self, net, x):
                self.features = net(x)

            def pooled(self):
                found = self.features
                return found.mean()  # <- found
        """
    )
    assert value.kind is Kind.TENSOR


# -- call sites of a script's functions --------------------------------------------------------
_GUARDED_SCRIPT = """
    import torch

    if __name__ == "__main__":
        def evaluate(x):
            return model(x)

        for x in loader:
            print(evaluate(x).argmax(1))
"""


def _call_sites(text: str):
    ctx = _context(textwrap.dedent(text))
    function = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == "evaluate")
    return ctx.model.callers(function)


def test_a_function_under_the_main_guard_has_known_callers():
    sites = _call_sites(_GUARDED_SCRIPT)
    assert sites is not None and [site.call.lineno for site in sites] == [9]


def test_twin_a_function_under_another_if_has_unknown_callers():
    assert _call_sites(_GUARDED_SCRIPT.replace('__name__ == "__main__"', "args.evaluate")) is None


def _summary(code: str, name: str):
    ctx = _context(textwrap.dedent(code))
    function = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return ctx.model.function_summary(function)


def test_a_function_calling_torch_autograd_grad_trains():
    summary = _summary(
        """
        import torch

        def langevin_step(model, x, lr):
            x = x.requires_grad_(True)
            energy = model(x).sum()
            grad = torch.autograd.grad(energy, x)[0]
            return (x - lr * grad).detach()
        """,
        "langevin_step",
    )
    assert summary.calls_backward and summary.trains


def test_twin_a_function_calling_another_torch_autograd_function_does_not_train():
    summary = _summary(
        """
        import torch

        def wrap(x):
            return torch.autograd.Variable(x)
        """,
        "wrap",
    )
    assert not summary.trains


def _custom_function(forward_line: str, backward_line: str) -> str:
    return f"""
import torch

class Product(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, scale):
        ctx.save_for_backward(q, k)
        {forward_line}
        return q * k * scale

    @staticmethod
    def backward(ctx, grad_out):
        q, k = ctx.saved_tensors
        {backward_line}
        return grad_out * k, q, None
"""


@pytest.mark.parametrize(
    ("forward_line", "backward_line"),
    [
        ("print(q)  # <- q", "pass"),
        ("print(k)  # <- k", "pass"),
        ("pass", "print(q)  # <- q"),
        ("pass", "print(k)  # <- k"),
        ("pass", "print(grad_out)  # <- grad_out"),
    ],
)
def test_custom_function_inputs_it_saves_and_what_backward_is_handed_are_tensors(forward_line, backward_line):
    value, _ = ask(_custom_function(forward_line, backward_line))
    assert value.kind is Kind.TENSOR


def test_twin_a_custom_function_input_it_does_not_save_is_not_known():
    value, _ = ask(_custom_function("print(scale)  # <- scale", "pass"))
    assert value.kind is Kind.UNKNOWN


def test_twin_saved_tensors_of_something_else_is_not_known():
    value, _ = ask(
        """
        import torch

        class Cache:
            def restore(self, store):
                q, k = store.saved_tensors
                return q  # <- q
        """
    )
    assert value.kind is Kind.UNKNOWN


_TRAINER = """
import torch
from torch import nn

class Trainer:
    def __init__(self):
        self.model = nn.Linear(2, 2)

    def run(self, x, flag):
{body}
"""


def _trainer(*lines: str) -> str:
    return _TRAINER.format(body="\n".join("        " + line for line in lines))


def test_an_instance_module_switched_to_eval_is_in_eval_mode_for_the_rest_of_the_scope():
    lines = ("self.model.eval()", "y = x", "print(self.model)")
    value = _instance_model_at(_trainer(*lines), 9 + len(lines))
    assert value.kind is Kind.MODULE and value.has(Role.EVALUATING) and not value.has(Role.TRAINING)


def test_twin_an_instance_module_not_switched_is_in_training_mode():
    value = _instance_model_at(_trainer("print(self.model)"), 10)
    assert value.kind is Kind.MODULE and not value.has(Role.EVALUATING)


def _instance_model_at(text: str, row: int):
    ctx = _context(textwrap.dedent(text))
    node = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Attribute) and n.attr == "model" and n.lineno == row)
    return ctx.model.value(node)


@pytest.mark.parametrize(
    "lines",
    [
        ("self.model.eval()", "self.model = nn.Linear(2, 2)", "print(self.model)"),  # assigned again
        ("self.model.eval()", "self.train_epoch(x)", "print(self.model)"),  # a method may switch it back
        ("if flag:", "    self.model.eval()", "print(self.model)"),  # switched on one path only
    ],
)
def test_twin_an_instance_module_whose_switch_may_not_hold_is_not_in_eval_mode(lines):
    value = _instance_model_at(_trainer(*lines), 9 + len(lines))
    assert not value.has(Role.EVALUATING)


def test_an_instance_module_switched_on_both_paths_stays_switched():
    lines = ("if flag:", "    self.model.eval()", "else:", "    self.model.eval()", "print(self.model)")
    value = _instance_model_at(_trainer(*lines), 9 + len(lines))
    assert value.has(Role.EVALUATING)


def test_a_number_joined_with_a_tensor_without_graph_carries_no_graph():
    value, _ = ask(
        """
        import torch

        def score(model, batches):
            total = 0
            with torch.no_grad():
                for x in batches:
                    total += model(x).sum(1)
            return total  # <- total
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


def test_twin_a_number_joined_with_a_tensor_that_may_carry_a_graph_is_not_known():
    value, _ = ask(
        """
        import torch

        def score(model, batches):
            total = 0
            for x in batches:
                total += model(x).sum(1)
            return total  # <- total
        """
    )
    assert value.grad is not Grad.NO


def test_an_attribute_moved_in_place_holds_what_it_was_given():
    text = """
import torch
from torch import nn

class Trainer:
    def build(self):
        self.model = nn.Linear(2, 2)
        if torch.cuda.is_available():
            self.model = self.model.cuda()

    def run(self, x):
        print(self.model)
"""
    value = _instance_model_at(text, 12)
    assert value.kind is Kind.MODULE and not value.weak


def test_twin_an_attribute_given_something_else_too_is_not_known():
    text = """
import torch
from torch import nn

class Trainer:
    def build(self, other):
        self.model = nn.Linear(2, 2)
        if torch.cuda.is_available():
            self.model = other.cuda()

    def run(self, x):
        print(self.model)
"""
    value = _instance_model_at(text, 12)
    assert value.kind is not Kind.MODULE or value.weak


def test_running_a_switched_instance_module_keeps_its_mode():
    lines = ("self.model.eval()", "y = self.model(x)", "print(self.model)")
    value = _instance_model_at(_trainer(*lines), 9 + len(lines))
    assert value.has(Role.EVALUATING)


def test_a_straight_line_function_is_evaluated_over_its_call_arguments():
    value, _ = ask(
        """
        import torch

        w = torch.zeros(4, 2, requires_grad=True)

        def softmax(x):
            x_exp = x.exp()
            partition = x_exp.sum(dim=1, keepdim=True)
            return x_exp / partition

        def net(x):
            logits = torch.mm(x, w)
            return softmax(logits)

        out = net(torch.ones(3, 4))
        print(out)  # <- out
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is not Grad.NO


def test_twin_a_function_with_a_branch_is_not_evaluated_over_its_call_arguments():
    value, _ = ask(
        """
        import torch

        def softmax(x, flag):
            if flag:
                x = x * 2
            x_exp = x.exp()
            return x_exp / x_exp.sum(dim=1, keepdim=True)

        out = softmax(torch.ones(3, 4), True)
        print(out)  # <- out
        """
    )
    assert value.kind is Kind.UNKNOWN


# -- tools that backpropagate through the model they are handed -------------------------------
def _tool_calls(code: str) -> dict:
    """The source of each call of the program -> whether the model says it runs a tool that
    backpropagates through its model."""
    text = textwrap.dedent(code)
    ctx = _context(text)
    return {
        ast.unparse(node): ctx.model.backpropagating_tool_call(node)
        for node in ast.walk(ctx.tree)
        if isinstance(node, ast.Call)
    }


def test_a_gradient_attack_of_torchattacks_backpropagates_through_its_model():
    calls = _tool_calls(
        """
        import torchattacks
        atk = torchattacks.PGD(model, eps=8 / 255)
        adv = atk(images, labels)
        """
    )
    assert calls["atk(images, labels)"] is True


def test_twin_a_query_based_attack_of_torchattacks_needs_no_gradient():
    calls = _tool_calls(
        """
        import torchattacks
        atk = torchattacks.Square(model, eps=8 / 255)
        adv = atk(images, labels)
        """
    )
    assert calls["atk(images, labels)"] is False


def test_twin_a_callable_of_another_package_is_no_attack():
    calls = _tool_calls(
        """
        import albumentations
        atk = albumentations.Blur()
        adv = atk(image=images)
        """
    )
    assert calls["atk(image=images)"] is False


# -- methods only tensors have, and methods no tensor has ---------------------------------------
def test_a_weak_tensor_given_a_method_no_tensor_has_gives_an_unknown_value():
    # `loss` is a loss wrapper of another file: `get_loss()` (a float) is no tensor method
    value, _ = ask(
        """
        def train_batch(self, x, y):
            loss = self.loss
            loss.eval_batch(self.model(x), y)
            loss.backward()
            result = loss.get_loss()
            result  # <- result
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_twin_a_weak_tensor_given_a_tensor_method_stays_a_tensor():
    value, _ = ask(
        """
        def train_batch(self, x, y):
            loss = self.loss
            loss.eval_batch(self.model(x), y)
            loss.backward()
            result = loss.mean()
            result  # <- result
        """
    )
    assert value.is_tensor


def test_a_parameter_asked_for_the_size_of_a_dimension_is_a_tensor():
    value, _ = ask(
        """
        def show(input_seqs):
            batch_size = input_seqs.size()[0]
            rows = [seq for seq in input_seqs]
            input_seqs  # <- input_seqs
        """
    )
    assert value.is_tensor


@pytest.mark.parametrize("use", ["memory.size()", "memory.size", "len(memory)"])
def test_twin_a_parameter_whose_size_is_a_number_is_unknown(use):
    value, _ = ask(
        f"""
        def learn(memory):
            if {use} > 100:
                memory  # <- memory
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_topk_of_something_unknown_gives_tensors():
    value, _ = ask(
        """
        def backtrack(self, s):
            s, idx = s.topk(self.k)
            idx  # <- idx
        """
    )
    assert value.is_tensor and not value.may_carry_graph


def test_twin_a_method_named_otherwise_leaves_the_value_unknown():
    value, _ = ask(
        """
        def backtrack(self, s):
            s, idx = s.best(self.k)
            idx  # <- idx
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_tensor_backpropagated_without_a_gradient_is_a_reduced_loss():
    # autograd takes `backward()` with no gradient only of a one-element output
    value, _ = ask(
        """
        def train(self, batches, optimizer):
            for batch in batches:
                out = self.model(batch, is_train=True)
                out.backward()
                optimizer.step()
                print(out)  # <- out
        """
    )
    assert value.has(Role.LOSS) and value.has(Role.SCALAR)


def test_twin_a_tensor_backpropagated_with_a_gradient_may_have_any_shape():
    value, _ = ask(
        """
        def train(self, batches, optimizer):
            for batch in batches:
                out = self.model(batch, is_train=True)
                out.backward(torch.ones_like(out))
                optimizer.step()
                print(out)  # <- out
        """
    )
    assert not value.has(Role.SCALAR)


# -- a notebook's course helpers: classes defined again, `to_device`, inherited methods ----------
def test_a_class_defined_again_in_a_later_cell_gives_its_later_methods():
    value, _ = ask(
        """
        import torch.nn as nn

        class MnistModel(nn.Module):
            def forward(self, xb):
                return self.linear(xb)

        class MnistModel(nn.Module):
            def forward(self, xb):
                return self.linear(xb)

            def validation_epoch_end(self, outputs):
                return {"val_loss": outputs[0].item()}

        model = MnistModel()
        result = model.validation_epoch_end(outputs)
        result  # <- result
        """
    )
    assert value.kind is Kind.CONTAINER and not value.may_carry_graph


def test_a_method_a_base_class_of_the_file_gives_is_read():
    value, _ = ask(
        """
        import torch.nn as nn

        class ImageClassificationBase(nn.Module):
            def validation_epoch_end(self, outputs):
                return {"val_loss": outputs[0].item()}

        class CIFAR10Model(ImageClassificationBase):
            def forward(self, xb):
                return self.linear(xb)

        model = CIFAR10Model()
        result = model.validation_epoch_end(outputs)
        result  # <- result
        """
    )
    assert value.kind is Kind.CONTAINER and not value.may_carry_graph


_TO_DEVICE = """
    import torch.nn as nn

    def to_device(data, device):
        \"\"\"Move tensor(s) to chosen device\"\"\"
        if isinstance(data, (list, tuple)):
            return [to_device(x, device) for x in data]
        return data.to(device, non_blocking=True)

    class Net(nn.Module):
        def forward(self, x):
            return x

    model = to_device(Net(), device)
    model  # <- model
"""


def test_a_helper_moving_a_list_item_by_item_or_else_the_value_gives_back_a_module():
    value, _ = ask(_TO_DEVICE)
    assert value.kind is Kind.MODULE and value.ref == "Net"


def test_twin_a_helper_guarding_on_another_type_is_not_read_through():
    value, _ = ask(_TO_DEVICE.replace("isinstance(data, (list, tuple))", "isinstance(data, nn.Module)"))
    assert value.kind is not Kind.MODULE or value.ref is None


def test_a_subclass_of_torchkeras_model_is_a_module():
    # torchkeras' `Model` derives from `nn.Module` and adds a Keras-style `fit`
    value, _ = ask(
        """
        import torchkeras

        class DNNModel(torchkeras.Model):
            def forward(self, x):
                return self.fc(x)

        model = DNNModel()
        model  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "DNNModel"


def test_twin_a_subclass_of_keras_model_is_no_torch_module():
    value, _ = ask(
        """
        from tensorflow import keras

        class DNNModel(keras.Model):
            def call(self, x):
                return self.fc(x)

        model = DNNModel()
        model  # <- model
        """
    )
    assert value.kind is not Kind.MODULE


_CONSTRUCTED = """
    import torch
    import torch.nn as nn

    cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])

    class Normalization(nn.Module):
        def __init__(self, mean):
            super(Normalization, self).__init__()
            self.mean = torch.tensor(mean).view(-1, 1, 1)  # <- mean

    def build(normalization_mean):
        return nn.Sequential(Normalization(normalization_mean))

    model = build(cnn_normalization_mean)
"""


def test_the_parameters_of_init_are_known_from_the_calls_of_the_class():
    # `Normalization(normalization_mean)` runs `__init__(self, mean)`
    value, _ = ask(_CONSTRUCTED)
    assert value.is_tensor


def test_twin_a_class_the_file_subclasses_has_init_callers_not_all_known():
    # `super().__init__(...)` of the subclass runs it too, with what the subclass hands it
    value, _ = ask(_CONSTRUCTED + "\n    class Scaled(Normalization):\n        pass\n")
    assert value.kind is Kind.UNKNOWN


def test_twin_a_class_handed_on_has_init_callers_not_all_known():
    value, _ = ask(_CONSTRUCTED + "\n    layers = [Normalization]\n")
    assert value.kind is Kind.UNKNOWN


def test_an_argument_a_caller_takes_from_another_methods_result_is_read_from_its_full_flow():
    # `forward`'s summary does not follow `self.prediction(x)`; what it hands `make_roi` is read
    # from a flow of `forward` that does: the tuple's second tensor, with a graph
    code = """
        import torch
        from torch import nn

        class RPN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 1)

            def prediction(self, x):
                a = self.conv(x)
                return a, a.flatten(1)

            def make_roi(self, reg):
                return reg[0]

            def forward(self, x):
                a, b = self.prediction(x)
                return self.make_roi(b)
        """
    ctx = _context(textwrap.dedent(code))
    reg = next(
        n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "reg" and isinstance(n.ctx, ast.Load)
    )
    value = ctx.model.value(reg)
    assert value.kind is Kind.TENSOR and value.grad is Grad.YES


def test_twin_an_argument_the_callers_full_flow_does_not_know_stays_unknown():
    code = """
        import torch
        from torch import nn

        class RPN(nn.Module):
            def make_roi(self, reg):
                return reg[0]

            def forward(self, x):
                b = load_somehow(x)
                return self.make_roi(b)
        """
    ctx = _context(textwrap.dedent(code))
    reg = next(
        n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "reg" and isinstance(n.ctx, ast.Load)
    )
    assert ctx.model.value(reg).kind is Kind.UNKNOWN


def test_an_instance_of_a_registry_of_classes_is_a_module_of_one_of_them():
    # `MODEL_REGISTRY[name]()` of `{"mlp": MLP, "hnn": HNN}`: a module of either class
    value, _ = ask(
        """
        import torch.nn as nn
        class MLP(nn.Module):
            pass
        class HNN(nn.Module):
            pass
        MODEL_REGISTRY = {"mlp": MLP, "hnn": HNN}
        model = MODEL_REGISTRY[name]()
        model  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.alternatives == ("HNN", "MLP")


def test_twin_a_registry_holding_something_else_than_classes_gives_no_classes():
    value, _ = ask(
        """
        import torch.nn as nn
        class MLP(nn.Module):
            pass
        FACTORIES = {"mlp": MLP, "other": make_other}
        model = FACTORIES[name]()
        model  # <- model
        """
    )
    assert value.alternatives is None


def test_an_item_read_by_name_from_a_parameter_named_params_is_no_model_parameter():
    # `params["g"]`: a dict of settings (gravity), not the parameters of a model
    value, _ = ask(
        """
        import torch
        def dynamics(X, params):
            g = params["g"]
            g  # <- g
        """
    )
    assert not (value.kind is Kind.TENSOR and value.has(Role.PARAM))


def test_twin_an_item_of_a_parameter_named_params_read_by_position_is_a_parameter():
    value, _ = ask(
        """
        import torch
        def sgd(params, lr):
            w = params[0]
            w  # <- w
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.PARAM)


# -- torch's losses ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("code", "evident", "expected"),
    [
        ("import torch.nn.functional as F\nF.nll_loss(out, y)\n", True, True),
        ("import torch.nn as nn\ncrit = nn.CrossEntropyLoss().cuda()\ncrit(out, y)\n", True, True),
        ("import torch.nn as nn\nf = nn.Linear(2, 2)\nf(out, y)\n", False, False),  # a module, no loss
        ("import torch.nn.functional as F\nF.relu(out, y)\n", False, False),  # a function, no loss
        ("def run(criterion, out, y):\n    criterion(out, y)\n", False, False),  # a name is no loss module
    ],
)
def test_torch_loss_from_how_the_callee_is_made(code, evident, expected):
    ctx = _context(code)
    call = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and ast.unparse(n).endswith("(out, y)"))
    assert ctx.model.is_torch_loss(call.func, evident=evident) is expected


def test_a_method_computing_with_a_parameter_runs_the_module():
    ctx = _context(
        textwrap.dedent(
            """
            import torch
            import torch.nn as nn
            class RBM(nn.Module):
                def __init__(self, n_visible, n_hidden):
                    super().__init__()
                    self.W = nn.Parameter(torch.randn(n_hidden, n_visible) * 0.01)
                    self.h_bias = nn.Parameter(torch.zeros(n_hidden))
                def sample_h(self, v):
                    return torch.sigmoid(v @ self.W.t() + self.h_bias)
                def n_hidden(self):
                    return self.W.shape[0]
                def init_weights(self):
                    nn.init.normal_(self.W, std=0.01)
                def string(self):
                    return f"bias = {self.h_bias.tolist()}, rows = {self.W.shape[0]}"
            rbm = RBM(784, 128)
            print(rbm)
            """
        )
    )
    rbm = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "rbm"][-1]
    value = ctx.model.value(rbm)
    assert ctx.model.method_runs_module(value, "sample_h") is True
    # twins: a shape probe and an initialiser compute nothing with the parameter
    assert ctx.model.method_runs_module(value, "n_hidden") is False
    assert ctx.model.method_runs_module(value, "init_weights") is False
    assert ctx.model.method_runs_module(value, "string") is False  # values read, nothing computed


def test_state_dict_of_an_unknown_value_holds_tensors():
    value, _ = ask(
        """
        def copy_weights(net, mod):
            entry = list(net.state_dict().items())[0][1]
            print(entry)  # <- entry
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO
    # twin: a method of another name on the same unknown value says nothing
    value, _ = ask(
        """
        def copy_weights(net, mod):
            entry = list(net.settings().items())[0][1]
            print(entry)  # <- entry
        """
    )
    assert value.kind is Kind.UNKNOWN


@pytest.mark.parametrize("guard,kind", [("isinstance(d, Variable)", Kind.TENSOR), ("d is not None", Kind.UNKNOWN)])
def test_a_conditional_expression_narrows_its_first_branch(guard, kind):
    # `d.data[0] if isinstance(d, Variable) else d`: a tensor where the first branch runs
    text = textwrap.dedent(
        f"""
        from torch.autograd import Variable
        def value_of(d):
            return d.data[0] if {guard} else d
        """
    )
    ctx = _context(text)
    first = min(
        (n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "d" and isinstance(n.ctx, ast.Load)),
        key=lambda n: n.col_offset,
    )
    assert ctx.model.value(first).kind is kind


@pytest.mark.parametrize("receiver,graph", [("tagger", True), ("self.criterion_module", False)])
def test_a_models_own_loss_method_carries_its_parameters_graph(receiver, graph):
    # `model.neg_ll_loss(sentence, tags)` of inputs without a graph: the model's parameters give it one
    value, _ = ask(
        f"""
        import torch
        import torch.nn as nn
        from models import Tagger
        class Trainer(nn.Module):
            def step(self, ids, tag_ids):
                tagger = Tagger()
                params = tagger.parameters()
                sentence = torch.LongTensor(ids)
                tags = torch.LongTensor(tag_ids)
                nll = {receiver}.neg_ll_loss(sentence, tags)
                return nll  # <- nll
        """
    )
    assert value.has(Role.LOSS) and (value.grad is Grad.YES) is graph


@pytest.mark.parametrize("receiver,loss", [("loss_fn", True), ("encoder", False)])
def test_the_forward_of_something_named_for_a_loss_computes_a_loss(receiver, loss):
    value, _ = ask(
        f"""
        def val(model, {receiver}, image, text):
            image_features, text_features = model(image, text)
            val_loss = {receiver}.forward(image_features, text_features)
            return val_loss  # <- val_loss
        """
    )
    assert value.has(Role.LOSS) is loss


_TRAINER_WITH_HELPERS = """
import torch
from torch import nn

class Trainer:
    def __init__(self):
        self.model = nn.Linear(2, 2)
        self.criterion = nn.MSELoss()

    def accuracy(self, out):
        return out.argmax(1)

    def restart(self):
        self.model.train()

    def run(self, x, flag):
{body}
"""


@pytest.mark.parametrize(
    "call",
    ["acc = self.accuracy(x)", "loss = self.criterion(x, x)"],  # a method switching nothing; a module attribute
)
def test_an_instance_module_stays_switched_through_calls_that_switch_no_mode(call):
    text = _TRAINER_WITH_HELPERS.format(
        body="\n".join("        " + line for line in ("self.model.eval()", call, "print(self.model)"))
    )
    value = _instance_model_at(text, 19)
    assert value.has(Role.EVALUATING)


def test_twin_a_method_of_the_class_that_switches_a_mode_ends_the_switch():
    text = _TRAINER_WITH_HELPERS.format(
        body="\n".join("        " + line for line in ("self.model.eval()", "self.restart()", "print(self.model)"))
    )
    value = _instance_model_at(text, 19)
    assert not value.has(Role.EVALUATING)


_GENERATOR_CLASS = """
import torch
from torch import nn

class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def predict(self, x):
        return self.fc(x)  # <- self

    def generate(self, x):
        self.eval()
        return self.predict(x)

    def warm_up(self, x):
        {other}
"""


def test_a_method_every_caller_runs_on_an_instance_switched_to_eval_runs_in_eval_mode():
    value, _ = ask(_GENERATOR_CLASS.format(other="return x"))
    assert value.kind is Kind.MODULE and value.has(Role.EVALUATING) and not value.has(Role.TRAINING)


def test_twin_a_method_one_caller_runs_in_training_mode_runs_as_built():
    value, _ = ask(_GENERATOR_CLASS.format(other="self.train()\n        return self.predict(x)"))
    assert value.kind is Kind.MODULE and not value.has(Role.EVALUATING)


_PROPERTY_HELD_MODEL = """
    import torch
    import torch.nn as nn


    class Client:
        def __init__(self, model: nn.Module):
            self._model = model

        @property
        def model(self):
            return self._model

        @model.setter
        def model(self, model):
            self._model = model

        def test(self, x):
            out = self.model(x)
            return out  # <- out
"""


def test_a_property_handing_back_a_held_module_is_that_module_and_its_call_runs_it():
    value, _ = ask(_PROPERTY_HELD_MODEL)
    assert value.kind is Kind.TENSOR and value.has(Role.OUTPUT)


def test_twin_a_method_of_the_same_name_is_called_not_read():
    value, _ = ask(_PROPERTY_HELD_MODEL.replace("        @property\n", "").replace("        @model.setter\n", ""))
    assert not (value.kind is Kind.TENSOR and value.has(Role.OUTPUT))


@pytest.mark.parametrize("call", ["dice(out, y)", "dice(out, y, 1e-3)"])
def test_a_short_function_is_read_over_the_arguments_of_a_call_that_leaves_defaults_out(call):
    value, _ = ask(
        f"""
        import torch
        net = torch.nn.Linear(4, 1)
        def dice(pred, target, eps=1e-6):
            inter = (pred * target).sum()
            return (2 * inter + eps) / (pred.sum() + target.sum() + eps)
        out = net(torch.randn(2, 4))
        score = {call}
        score  # <- score
        """
    )
    assert value.kind is Kind.TENSOR and value.carries_grad


def test_twin_a_call_with_a_keyword_is_not_read_so():
    value, _ = ask(
        """
        import torch
        net = torch.nn.Linear(4, 1)
        def dice(pred, target, eps=1e-6):
            inter = (pred * target).sum()
            return (2 * inter + eps) / (pred.sum() + target.sum() + eps)
        out = net(torch.randn(2, 4))
        score = dice(out, out, eps=1e-3)
        score  # <- score
        """
    )
    assert value.kind is Kind.UNKNOWN


def test_a_tensor_written_into_takes_the_graph_of_what_it_is_given():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        gru = nn.GRUCell(8, 8)
        x = torch.randn(4, 8)
        h = torch.zeros(4, 8)
        states = torch.zeros(5, 4, 8)
        for i in range(5):
            h = gru(x, h)
            states[i] = h
        print(states)  # <- states
        """
    )
    # the loop may not have run: a graph on some path
    assert value.kind is Kind.TENSOR and value.grad is Grad.MAYBE


def test_twin_a_tensor_written_into_under_no_grad_has_no_graph():
    value, _ = ask(
        """
        import torch
        import torch.nn as nn
        gru = nn.GRUCell(8, 8)
        x = torch.randn(4, 8)
        h = torch.zeros(4, 8)
        states = torch.zeros(5, 4, 8)
        with torch.no_grad():
            for i in range(5):
                h = gru(x, h)
                states[i] = h
        print(states)  # <- states
        """
    )
    assert value.kind is Kind.TENSOR and value.grad is Grad.NO


def test_a_tuple_whose_part_another_method_makes_is_asked_as_run():
    ctx = _context(
        textwrap.dedent(
            """
            import torch
            import torch.nn as nn
            class Embedder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.embedding = nn.Embedding(10, 4)
                def batch(self, ids):
                    embedded = self._embed(ids)
                    return embedded, len(ids)
                def _embed(self, ids):
                    return self.embedding(torch.tensor(ids))
            """
        )
    )
    method = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == "batch")
    returned = ctx.model.returns_as_called(method)
    assert returned.kind is Kind.CONTAINER and returned.items is not None
    assert returned.items[0].kind is Kind.TENSOR and returned.may_carry_graph


def test_a_model_loaded_from_torch_hub_is_a_module():
    value, _ = ask(
        """
        import torch
        net = torch.hub.load("pytorch/vision:v0.10.0", "alexnet", pretrained=True)
        out = net(x)  # <- net
        """
    )
    assert value.kind is Kind.MODULE


def test_twin_a_tokenizer_loaded_from_torch_hub_is_no_module():
    value, _ = ask(
        """
        import torch
        tok = torch.hub.load("huggingface/pytorch-transformers", "tokenizer", "bert-base-uncased")
        ids = tok(text)  # <- tok
        """
    )
    assert value.kind is not Kind.MODULE


def test_a_module_whose_init_ends_in_eval_mode_is_made_in_eval_mode():
    value, _ = ask(
        """
        import torch.nn as nn
        class Ensemble(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(8, 5)
                self.eval()
        model = Ensemble()
        out = model(x)  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.has(Role.EVALUATING) and not value.has(Role.TRAINING)


def test_twin_a_module_whose_init_switches_back_to_training_is_made_in_training_mode():
    value, _ = ask(
        """
        import torch.nn as nn
        class Student(nn.Module):
            def __init__(self, teacher):
                super().__init__()
                self.teacher = teacher
                self.eval()
                self.train()
        model = Student(None)
        out = model(x)  # <- model
        """
    )
    assert value.kind is Kind.MODULE and value.has(Role.TRAINING) and not value.has(Role.EVALUATING)


def test_a_call_of_an_item_of_a_list_of_criteria_is_a_loss():
    value, _ = ask(
        """
        def step(model, criterion, x, y):
            a, b = model(x)
            cos_loss = criterion[0](a, b, y)
            return cos_loss  # <- cos_loss
        """
    )
    assert value.kind is Kind.TENSOR and value.has(Role.LOSS)


def test_twin_a_call_of_an_item_of_a_list_of_layers_is_no_loss():
    value, _ = ask(
        """
        def step(layers, x):
            out = layers[0](x)
            return out  # <- out
        """
    )
    assert not value.has(Role.LOSS)


def _attribute_read(text: str, attr: str, line: int):
    ctx = _context(textwrap.dedent(text))
    read = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Attribute) and n.attr == attr and n.lineno == line]
    return ctx.model.value(read[0])


def test_an_attribute_reshaped_into_itself_keeps_what_it_holds():
    value = _attribute_read(
        """
        import torch
        class GenModel:
            def generate(self, x):
                self.gen = torch.cat([self.dec(x), self.dec(x)], 1)
                self.gen = self.gen.view(-1, 4 * self.opt.seq_len)

            def visuals(self):
                return self.gen
        """,
        "gen",
        9,
    )
    assert value.kind is Kind.TENSOR


def test_twin_an_attribute_set_to_an_array_and_reshaped_is_no_tensor():
    value = _attribute_read(
        """
        import numpy as np
        class Buffer:
            def fill(self, n):
                self.values = np.zeros(n)
                self.values = self.values.reshape(-1, 2)

            def read(self):
                return self.values
        """,
        "values",
        9,
    )
    assert value.kind is not Kind.TENSOR


def test_a_torch_layer_made_from_pretrained_weights_is_a_module_of_its_class():
    value, _ = ask(
        """
        import torch.nn as nn
        emb = nn.Embedding.from_pretrained(weights, freeze=False)
        print(emb)  # <- emb
        """
    )
    assert value.kind is Kind.MODULE and value.ref == "torch.nn.Embedding"


def test_twin_a_frozen_layer_made_from_pretrained_weights_is_no_module_to_evaluate():
    # `freeze=True` by default: its weights do not require grad, its calls record no graph
    value, _ = ask(
        """
        import torch.nn as nn
        emb = nn.Embedding.from_pretrained(weights)
        print(emb)  # <- emb
        """
    )
    assert value.kind is not Kind.MODULE


def test_twin_a_library_s_from_pretrained_is_not_taken_for_a_torch_layer():
    value, _ = ask(
        """
        from transformers import AutoModel
        emb = AutoModel.from_pretrained("bert-base-uncased")
        print(emb)  # <- emb
        """
    )
    assert value.ref != "torch.nn.AutoModel"
