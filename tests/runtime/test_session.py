"""The guarded session behind ``gradguard run``: runtime twins, must-catch and must-not-flag."""

import contextlib
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import gradguard as gg  # noqa: E402
from gradguard.runtime.session import Session  # noqa: E402

from .helpers import SmallCNN, batches, hooks_registered  # noqa: E402


def codes(session):
    return [f.code for f in session.all_findings()]


def train(model, n=4, *, zero="optimizer", micro=1, seed=0):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    data = list(batches(n * micro, seed))
    for i in range(n):
        if zero == "optimizer":
            opt.zero_grad()
        elif zero == "keep-tensors":
            opt.zero_grad(set_to_none=False)
        elif zero == "none-by-hand":
            for p in model.parameters():
                p.grad = None
        elif zero == "zero-by-hand":
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.zero_()
        for x, y in data[i * micro : (i + 1) * micro]:
            (criterion(model(x), y) / micro).backward()
        opt.step()
    return model


# -- GG303 -------------------------------------------------------------------------------------


def test_gg303_missing_zero_grad_is_caught_with_parameter_name():
    model = SmallCNN()
    with Session() as session:
        train(model, zero="never")
    assert codes(session) == ["GG303"]
    finding = session.all_findings()[0]
    assert "`model." in finding.message and ".grad`" in finding.message
    assert finding.count == 3  # steps 2, 3 and 4 started from the previous step's gradient


@pytest.mark.parametrize("zero", ["optimizer", "keep-tensors", "none-by-hand", "zero-by-hand"])
def test_gg303_any_way_of_zeroing_and_gradient_accumulation_are_not_flagged(zero):
    with Session() as session:
        train(SmallCNN(), zero=zero, micro=3)
    assert codes(session) == []


# -- GG201 -------------------------------------------------------------------------------------


def evaluate(model, grad):
    with torch.set_grad_enabled(grad):
        return sum((model(x).argmax(1) == y).sum().item() for x, y in batches(3, seed=5))


def test_gg201_evaluation_with_grad_is_caught_at_the_calling_line():
    model = SmallCNN()
    with Session() as session:
        train(model)
        evaluate(model, grad=True)
    assert codes(session) == ["GG201"]
    finding = session.all_findings()[0]
    assert finding.count == 3 and finding.bytes > 0
    assert "test_session.py" in finding.where


def test_gg201_not_flagged_for_no_grad_evaluation_autograd_grad_or_training():
    model = SmallCNN()
    with Session() as session:
        train(model)
        evaluate(model, grad=False)
        for _ in range(3):  # outputs used through torch.autograd.grad, no optimizer
            x = torch.randn(2, 3, 8, 8, requires_grad=True)
            (gx,) = torch.autograd.grad(model(x).sum(), x)
    assert codes(session) == []


# -- GG210 -------------------------------------------------------------------------------------


def test_gg210_generator_holding_no_grad_is_caught():
    model = nn.Linear(3, 1)

    def data():
        with torch.no_grad():
            for _ in range(2):
                yield torch.randn(4, 3)

    with Session() as session:
        with pytest.raises(RuntimeError, match="does not require grad"):
            for x in data():
                model(x).sum().backward()
    assert codes(session) == ["GG210"]
    assert "generator data() is suspended" in session.all_findings()[0].message


def test_gg210_not_flagged_for_decorated_generator_or_deliberate_no_grad_step():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.no_grad()
    def data():
        for _ in range(2):
            yield torch.randn(4, 3)

    def plain():
        for _ in range(2):
            with torch.no_grad():
                x = torch.randn(4, 3) * 2
            yield x  # outside the region

    with Session() as session:
        for source in (data(), plain()):
            for x in source:
                opt.zero_grad()
                model(x).sum().backward()
                with torch.no_grad():
                    opt.step()
    assert codes(session) == []


# -- GG503 -------------------------------------------------------------------------------------


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("scale", torch.ones(4))

    def forward(self, x):
        return self.fc(x) * self.scale


def test_gg503_names_the_buffer_and_where_it_was_made():
    model = Scaler()
    with Session() as session:
        with torch.inference_mode():
            model.scale = model(torch.randn(2, 4)).abs().mean(0)  # made here
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            model(torch.randn(2, 4)).sum().backward()
    (finding,) = session.all_findings()
    assert finding.code == "GG503" and "buffer `model.scale`" in finding.message
    assert "made at" in finding.message and "test_session.py" in finding.where


def test_gg503_not_flagged_for_inference_only_use_or_a_clone():
    model = Scaler()
    with Session() as session:
        with torch.inference_mode():
            for _ in range(2):
                model(torch.randn(2, 4))
            fresh = model(torch.randn(2, 4)).abs().mean(0)
        model.scale = fresh.clone()
        model(torch.randn(2, 4)).sum().backward()
    assert codes(session) == []


# -- GG301 over a window -----------------------------------------------------------------------


def _loop(monitor, n, keep_every=0, validation_every=0):
    model = nn.Linear(8, 2)
    kept = []
    for step in range(n):
        out = model(torch.randn(4, 8))
        out.sum().backward()
        if keep_every and step % keep_every == 0:
            kept.append(out)  # grows every keep_every-th step
        if validation_every and step % validation_every == validation_every - 1:
            total = 0
            for _ in range(2):  # a two-batch validation loop with grad on, once per "epoch"
                total = total + model(torch.randn(4, 8)).sum()
                monitor.step()
            del total
        monitor.step()
    return kept


@pytest.mark.parametrize("keep_every", [2, 3])
def test_leak_growing_every_few_steps_is_caught(keep_every):
    with pytest.warns(gg.GraphLeakWarning, match="GG301.*of the last"):
        with gg.LeakMonitor() as monitor:
            _loop(monitor, 12, keep_every=keep_every)


def test_bounded_per_epoch_validation_leak_is_caught():
    with pytest.warns(gg.GraphLeakWarning, match="GG301"):
        with gg.LeakMonitor() as monitor:
            _loop(monitor, 20, validation_every=5)


def test_clean_loops_stay_clean_under_the_window():
    with warnings.catch_warnings():
        warnings.simplefilter("error", gg.GraphLeakWarning)
        with gg.LeakMonitor(strict=True) as monitor:
            _loop(monitor, 40)
        # a GAN-like loop that keeps one output for an extra step, at a steady level
        with gg.LeakMonitor(strict=True) as monitor:
            model = nn.Linear(8, 2)
            previous = None
            for _ in range(30):
                out = model(torch.randn(4, 8))
                (out.sum() + (previous.sum() if previous is not None else 0)).backward(retain_graph=True)
                previous = out
                monitor.step()


def test_two_nested_monitors_keep_their_own_steps():
    with gg.LeakMonitor() as outer, gg.LeakMonitor() as inner:
        lin = nn.Linear(4, 4)
        kept = [lin(torch.randn(2, 4))]
        for _ in range(3):
            inner.step()
        kept.append(lin(torch.randn(2, 4)))
    assert [f.step for f in inner.report()] == [0, 1, 2]
    assert outer.report() == []
    assert outer.live_graph_nodes() == inner.live_graph_nodes() == 2  # the two kept outputs' nodes


# -- the session as a whole --------------------------------------------------------------------


def _trained_state(context):
    torch.manual_seed(0)
    model = SmallCNN().train()
    with context():
        train(model, n=3)
    return [p.detach().clone() for p in model.parameters()] + [p.grad.clone() for p in model.parameters()]


def test_session_leaves_gradients_bit_identical_and_nothing_registered():
    reference = _trained_state(contextlib.nullcontext)
    guarded = _trained_state(Session)
    assert all(torch.equal(a, b) for a, b in zip(reference, guarded, strict=True))
    assert not hooks_registered()
    assert torch.autograd.backward.__module__ == "torch.autograd"


def test_strict_session_stops_with_strict_stop():
    from gradguard.runtime.errors import StrictStop

    with pytest.raises(StrictStop):
        with Session(strict=True):
            train(SmallCNN(), zero="never")
    assert not hooks_registered()


def test_gg303_not_flagged_for_a_gan_whose_generator_loss_reaches_the_discriminator():
    # The DCGAN loop: G's loss backpropagates through D after D's step and adds to D's .grad;
    # D zeroes its gradients before its own next backward, so D never steps on the sum.
    torch.manual_seed(0)
    G, D = nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
    opt_g, opt_d = torch.optim.SGD(G.parameters(), lr=0.01), torch.optim.SGD(D.parameters(), lr=0.01)
    bce = nn.BCELoss()
    for zero_kwargs in ({}, {"set_to_none": False}):
        with Session() as session:
            for _ in range(4):
                real, z = torch.randn(8, 4), torch.randn(8, 4)
                D.zero_grad(**zero_kwargs)
                fake = G(z)
                loss_d = bce(D(real), torch.ones(8, 1)) + bce(D(fake.detach()), torch.zeros(8, 1))
                loss_d.backward()
                opt_d.step()
                G.zero_grad(**zero_kwargs)
                bce(D(fake), torch.ones(8, 1)).backward()
                opt_g.step()
        assert codes(session) == [], zero_kwargs


def test_gg201_not_flagged_for_parameterless_modules_used_for_logging():
    model, softmax = SmallCNN(), nn.Softmax(dim=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with Session() as session:
        for x, y in batches(4):
            logits = model(x)
            confidence = softmax(logits).max(1).values.mean().item()  # logged, never backpropagated
            opt.zero_grad()
            nn.functional.cross_entropy(logits, y).backward()
            opt.step()
    assert confidence > 0 and codes(session) == []
