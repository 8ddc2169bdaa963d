import gc
import inspect
import warnings
from collections import namedtuple
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import gradguard as gg  # noqa: E402
from gradguard.runtime import hooks  # noqa: E402

from .helpers import SmallCNN, batches, hooks_registered  # noqa: E402


def _line(func, text):
    lines, start = inspect.getsourcelines(func)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _validation_accumulating_loss(monitor, n=6):
    model = SmallCNN().eval()
    criterion = nn.CrossEntropyLoss()
    total = 0
    for x, y in batches(n):
        total += criterion(model(x), y)  # GG301
        monitor.step()
    return total


def test_validation_loop_accumulating_loss_warns_with_site():
    torch.manual_seed(0)
    with pytest.warns(gg.GraphLeakWarning) as record:
        with gg.LeakMonitor() as monitor:
            _validation_accumulating_loss(monitor)
    message = str(record[0].message)
    assert "GG301" in message
    model_line = _line(SmallCNN.forward, "torch.relu(self.bn(self.conv(x)))")
    assert f"{inspect.getsourcefile(SmallCNN)}:{model_line}" in message
    figures = monitor.report()
    assert [f.step for f in figures] == list(range(6))
    retained = [f.retained_bytes for f in figures]
    assert retained[0] == 0 and all(b > a for a, b in zip(retained, retained[1:]))
    assert len(record) == 1  # warns once, not at every step


def test_strict_raises():
    torch.manual_seed(0)
    with pytest.raises(gg.GraphLeakError, match="GG301"):
        with gg.LeakMonitor(strict=True) as monitor:
            _validation_accumulating_loss(monitor)
    assert not hooks_registered()


def test_training_loop_appending_outputs_is_caught():
    torch.manual_seed(0)
    model = SmallCNN().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    history = []
    with pytest.raises(gg.GraphLeakError) as info:
        with gg.LeakMonitor(strict=True) as monitor:
            for x, y in batches(8):
                out = model(x)
                history.append(out)  # keeps every step's graph nodes alive
                loss = criterion(out, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                monitor.step()
    assert "graph nodes" in str(info.value)
    assert monitor.report()[-1].retained_nodes > monitor.report()[0].retained_nodes


def test_normal_loop_and_one_step_keeping_do_not_warn():
    torch.manual_seed(0)
    model = SmallCNN().train()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("error", gg.GraphLeakWarning)
        with gg.LeakMonitor(strict=True) as monitor:
            total = 0.0
            for x, y in batches(8):
                out = model(x)  # survives until the next iteration
                loss = criterion(out, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item()
                monitor.step()
            # evaluation with grad enabled, but only the last batch's graph survives
            model.eval()
            correct = 0
            for x, y in batches(8, seed=3):
                logits = model(x)
                correct += (logits.argmax(1) == y).sum().item()
                monitor.step()
    assert max(f.retained_bytes for f in monitor.report()) <= max(f.live_bytes for f in monitor.report())


def test_checkpoint_and_create_graph_do_not_warn():
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
    with gg.LeakMonitor(strict=True) as monitor:
        for _ in range(6):
            x = torch.randn(4, 8, requires_grad=True)
            out = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False).sum()
            (gx,) = torch.autograd.grad(out, x, create_graph=True)
            (out + gx.pow(2).sum()).backward()
            monitor.step()


def test_guard_memory_does_not_grow():
    """Run many steps under both guards: nothing of theirs may survive the loop."""
    torch.manual_seed(0)
    model = SmallCNN().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    gc.collect()
    gc.disable()  # graphs must be freed by reference counting alone: no cycles
    try:
        with gg.LeakMonitor(strict=True) as monitor, gg.SavedTensorGuard():
            for _, (x, y) in enumerate(batches(40)):
                loss = criterion(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                monitor.step()
            del loss
            assert monitor.live_graph_bytes() == 0
            assert monitor.live_graph_nodes() == 0
        assert len(monitor._storages) == 0 and not monitor._sites_by_step
        packed_alive = sum(type(o) is hooks.PackRecord for o in gc.get_objects())
        assert packed_alive == 0
    finally:
        gc.enable()


def test_assert_no_graph_walks_containers_and_names_paths():
    Batch = namedtuple("Batch", "logits target")

    @dataclass
    class Result:
        loss: object
        extra: dict

    lin = nn.Linear(64, 32)
    x = torch.randn(16, 64)
    logits = lin(x)
    value = {"out": [Batch(logits, torch.zeros(3))], "res": Result(logits.sum(), {"ok": 1.0})}
    with pytest.raises(gg.GraphLeakError) as info:
        gg.assert_no_graph(value)
    text = str(info.value)
    assert "value['out'][0].logits: grad_fn=AddmmBackward0, 4 nodes, 4.0 KiB saved" in text
    assert "value['res'].loss: grad_fn=SumBackward0" in text
    assert "target" not in text and "GG301" in text
    gg.assert_no_graph({"logits": logits.detach(), "n": 3, "w": lin.weight})


def test_assert_no_graph_names_creation_site_when_recorded():
    lin = nn.Linear(4, 4)
    with gg.LeakMonitor():
        out = lin(torch.randn(2, 4)).tanh()  # made here
    with pytest.raises(gg.GraphLeakError) as info:
        gg.assert_no_graph(out, name="out")
    assert f"made at {__file__}:{_line(test_assert_no_graph_names_creation_site_when_recorded, '# made here')}" in str(
        info.value
    )


def test_no_graph_leak_decorator():
    lin = nn.Linear(4, 2)

    @gg.no_graph_leak
    def evaluate(x, detach):
        out = lin(x)
        return {"logits": out.detach() if detach else out}

    assert evaluate(torch.randn(3, 4), True)["logits"].grad_fn is None
    with pytest.raises(gg.GraphLeakError, match=r"evaluate\(\)\['logits'\]"):
        evaluate(torch.randn(3, 4), False)
