"""A training loop that never zeroes its gradients.

## What it does
Flags a loop that calls `.backward()` and steps an optimizer (`optimizer.step()`,
`scaler.step(optimizer)`) when nothing resets the gradients: no `zero_grad()` (of an
optimizer or a module), `p.grad = None`, `p.grad.zero_()`, `p.grad.data.zero_()`,
`p.grad *= 0` or `del p.grad` (scaling or clipping it, `p.grad /= norm`, `p.grad.clamp_(-1, 1)`,
keeps the sum: no reset) anywhere in the function that holds the loop (for a loop at
module level: in the loop's top-level statement), and no call in that code of a function or
method of the file that does one of those, itself or through the functions and methods of the
file it calls (a meta-learner's `outer_loop` calling the `inner_loop` that zeroes). Also flagged:
a step in one branch of an `if` of the loop while every reset sits in the other branch (`if use_amp:
... scaler.step(optimizer)` / `else: optimizer.zero_grad(); ...`). Not flagged: deliberate accumulation, which
zeroes every k steps (`if (i + 1) % k == 0: opt.step(); opt.zero_grad()`); zeroing in a
function the loop calls; loops that call a function of another file of the run that resets
gradients (`from utils import reset_grad`, whose body runs `net.zero_grad()`), or, where that
file is not part of the run, one named for resetting gradients (`reset_grad`, `zero_grads`); and
loops that call an unknown method named like a reset (`reset`, `clear`, `zero`), which may zero
the gradients there.
Also flagged: a loop that backpropagates and steps on every iteration (both statements of its own
body, no `if` between) where every reset sits outside it, zeroed once before or after it
(`optimizerD.zero_grad()` before a critic's five steps, `optimizer.zero_grad()` once before the
epoch's batches): from its second iteration on, each step applies the earlier iterations' gradients
too. Not where the loop binds the optimizer (`for opt in optimizers:`), nor for a step handed a
closure (LBFGS's `optimizer.step(closure)`).
A manual step in such a loop (`w -= lr * w.grad`, `w.data -= lr * w.grad.data`, `x.data = x + lr *
x.grad`) counts as an optimizer's step: where nothing resets the gradients the loop is flagged, with the advice to zero
`w.grad` after the update (no fix is offered). An environment's `reset()` (`env.reset()`, a
receiver named for an environment) resets no gradient.
A function of the file that runs `.backward()` and steps once, resetting nothing, is flagged
where it is called in a loop whose code (the caller function, or the loop's top-level statement)
resets nothing either (`loss = train(x, y, model, optimizer)` once per iteration).

A loop that steps several optimizers (a GAN's generator and discriminator) whose only resets
are other optimizers' `zero_grad()` is flagged for the one never zeroed, when the file builds
each of them from modules' `.parameters()` and the modules differ: `optimizer_D.zero_grad()`
zeroes the discriminator's gradients alone. Not flagged: an optimizer over parameters another
zeroed optimizer also holds (InfoGAN's `info_optimizer` over `G` and `D`), or one the file
does not build.

## Why is this bad?
`backward()` adds each step's gradients to `.grad`; it never overwrites them. Without a reset,
step `n` applies the sum of the gradients of steps 1 to `n`: the effective learning rate
grows with every step, momentum and Adam's statistics see the running sums, and training
diverges or crawls with no error.

## Example
```python
import torch.nn.functional as F

def train(model, loader, optimizer):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
```

## Use instead
```python
import torch.nn.functional as F

def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
```

## Fix safety
Where the loop holds one `backward()` statement and steps one optimizer, the fix inserts
`optimizer.zero_grad()` (with the loop's optimizer) on the line before the `backward()`. It
is unsafe: it changes the numbers the program computes (which is the point), and a program
that accumulated on purpose without any reset in sight (a reset in another file) would lose
its accumulation.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.imports import callee_name
from gradguard.check.analysis.steps import in_block, stepped_optimizer
from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import PLAIN_VALUE_LIBRARIES, names_an_environment
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_RESET_WORDS = ("zero", "reset", "clear")


@dataclass
class _Seen:
    loops: set = field(default_factory=set)  # ids of loops already judged
    optimizers: set = field(default_factory=set)  # (id of a loop, optimizer's text) already judged


class MissingZeroGrad(Rule):
    code = "GG303"
    name = "missing-zero-grad"
    summary = "A loop calls `backward()` and steps an optimizer but never zeroes the gradients"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = (".step(", ".grad")
    function_triggers = (".step(", ".grad")

    valid = (
        # A helper of another file named for resetting gradients (`from utils import reset_grad`), called
        # before each backward: it may zero them there (read from that file where it is part of the run).
        Valid(
            """
            import torch
            from torch import nn, optim
            from utils import reset_grad

            encoder, decoder = nn.Linear(4, 4), nn.Linear(4, 4)
            opt = optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))
            for x in loader:
                loss = (decoder(encoder(x)) - x).abs().mean()
                reset_grad([encoder, decoder])
                loss.backward()
                opt.step()
            """
        ),
        # Accumulation zeroed once before the loop, then after each conditional step; an LBFGS
        # step whose closure zeroes.
        Valid(
            """
            import torch
            from torch import nn

            model = nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


            def train(loader, accumulation_steps=4):
                optimizer.zero_grad()
                for i, (x, y) in enumerate(loader):
                    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
                    loss.backward()
                    if (i + 1) % accumulation_steps == 0:
                        optimizer.step()
                        optimizer.zero_grad()


            def fit_lbfgs(x, y):
                optimizer = torch.optim.LBFGS(model.parameters())

                def closure():
                    optimizer.zero_grad()
                    loss = nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    return loss

                for _ in range(10):
                    loss = nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer.step(closure)
            """
        ),
        # The same loop zeroing before the `if`: both branches start from zero.
        Valid(
            """
            import torch


            def train(model, loader, optimizer, loss_fn, scaler, use_amp):
                model.train()
                for x, y in loader:
                    optimizer.zero_grad()
                    if use_amp:
                        with torch.autocast("cuda"):
                            loss = loss_fn(model(x), y)
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        loss = loss_fn(model(x), y)
                        loss.backward()
                        optimizer.step()
            """
        ),
        # Distributed autograd (its import in another cell): each iteration's context holds the
        # gradients `DistributedOptimizer.step(context_id)` applies; nothing accumulates in `.grad`.
        Valid(
            """
            def run_trainer(model, opt, criterion, batches):
                for data, target in batches:
                    with dist_autograd.context() as context_id:
                        loss = criterion(model(data), target)
                        dist_autograd.backward(context_id, [loss])
                        opt.step(context_id)
            """
        ),
        # The same manual step, zeroing the gradient after the update.
        Valid(
            """
            import torch

            w = torch.randn(4, 1, requires_grad=True)
            for x, y in loader:
                loss = ((x @ w - y) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
                    w.grad.zero_()
            """
        ),
        # The same ascent, its gradient reset after each update.
        Valid(
            """
            import torch

            def maximise(model, steps=30, alpha=1.0):
                img = torch.randn(1, 1, 28, 28, requires_grad=True)
                for _ in range(steps):
                    loss = model(img).mean()
                    loss.backward()
                    img.grad /= img.grad.std() + 1e-5
                    img.data = img + alpha * img.grad
                    img.grad.data.mul_(0)
                return img
            """
        ),
        # The loop that calls the step function zeroes the gradients before each call.
        Valid(
            """
            def train(src, tgt, model, optimizer, criterion):
                loss = criterion(model(src), tgt)
                loss.backward()
                optimizer.step()
                return loss.item()


            def main(pairs, model, optimizer, criterion):
                for src, tgt in pairs:
                    optimizer.zero_grad()
                    print(train(src, tgt, model, optimizer, criterion))
            """,
        ),
        # A meta-learner's loop: the method it calls zeroes the model's gradients two calls down.
        Valid(
            """
            class MAMLTrainer:
                def train(self, episodes):
                    for episode in episodes:
                        results = self.outer_loop(episode)
                        results["loss"].backward()
                        self.meta_optimizer.step()

                def outer_loop(self, episode):
                    return {"loss": sum(self.inner_loop(task) for task in episode)}

                def inner_loop(self, task):
                    self.model.zero_grad()
                    return self.model.adapt(task)
            """
        ),
        # A second optimizer over both models' parameters: the other two zero them all.
        Valid(
            """
            import itertools
            import torch

            G, D = torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)
            G_optimizer = torch.optim.Adam(G.parameters())
            D_optimizer = torch.optim.Adam(D.parameters())
            info_optimizer = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()))
            for x in loader:
                D_optimizer.zero_grad()
                D(x).mean().backward()
                D_optimizer.step()
                G_optimizer.zero_grad()
                D(G(x)).mean().backward(retain_graph=True)
                G_optimizer.step()
                G(x).pow(2).mean().backward()
                info_optimizer.step()
            """,
        ),
        Valid(
            """
            import torch.nn.functional as F

            def train(model, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    F.cross_entropy(model(x), y).backward()
                    optimizer.step()
            """,
        ),
        # Deliberate accumulation: zeroed every k steps.
        Valid(
            """
            import torch.nn.functional as F

            def train(model, loader, optimizer, k=4):
                for i, (x, y) in enumerate(loader):
                    (F.cross_entropy(model(x), y) / k).backward()
                    if (i + 1) % k == 0:
                        optimizer.step()
                        optimizer.zero_grad(set_to_none=True)
            """,
        ),
        # Zeroed in a function the loop calls.
        Valid(
            """
            import torch.nn.functional as F

            def reset(model):
                for p in model.parameters():
                    p.grad = None

            def train(model, loader, optimizer):
                for x, y in loader:
                    reset(model)
                    F.cross_entropy(model(x), y).backward()
                    optimizer.step()
            """,
        ),
        # A method of another file named like a reset may zero the gradients.
        Valid(
            """
            def train(trainer, loader, optimizer):
                for batch in loader:
                    trainer.reset_state()
                    trainer.loss(batch).backward()
                    optimizer.step()
            """,
        ),
        # Not an optimizer: a learning-rate scheduler.
        Valid(
            """
            def train(model, loader, scheduler, loss_fn):
                for x, y in loader:
                    loss_fn(model(x), y).backward()
                    scheduler.step()
            """,
        ),
    )
    invalid = (
        # Another file's helper named for resetting something else: nothing says it zeroes gradients.
        Invalid(
            """
            import torch
            from torch import nn, optim
            from utils import reset_state

            encoder, decoder = nn.Linear(4, 4), nn.Linear(4, 4)
            opt = optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))
            for x in loader:
                loss = (decoder(encoder(x)) - x).abs().mean()
                reset_state([encoder, decoder])
                loss.backward()
                opt.step()
            """,
            line=10,
            column=5,
            message="`loss.backward()` adds to gradients that this loop never zeroes: each `opt.step()` applies the sum of all earlier steps' gradients; call `opt.zero_grad()` before `backward()`",
        ),
        # A critic's inner loop zeroed only once per batch, before it: from the second of its
        # five steps on, each applies the earlier steps' gradients too.
        Invalid(
            """
            import torch
            from torch import nn

            netD = nn.Linear(4, 1)
            optimizerD = torch.optim.Adam(netD.parameters())


            def train(loader, n_critic=5):
                for real in loader:
                    optimizerD.zero_grad()
                    for _ in range(n_critic):
                        loss = -netD(real).mean()
                        loss.backward()
                        optimizerD.step()
            """,
            line=13,
            column=13,
            message="`loss.backward()` adds to gradients that this loop zeroes only outside it "
            "(`optimizerD.zero_grad()`, line 10): from its second iteration on, each `optimizerD.step()` applies the "
            "sum of the earlier iterations' gradients; call `optimizerD.zero_grad()` inside the loop, before "
            "`backward()`",
            fixed="""
            import torch
            from torch import nn

            netD = nn.Linear(4, 1)
            optimizerD = torch.optim.Adam(netD.parameters())


            def train(loader, n_critic=5):
                for real in loader:
                    optimizerD.zero_grad()
                    for _ in range(n_critic):
                        loss = -netD(real).mean()
                        optimizerD.zero_grad()
                        loss.backward()
                        optimizerD.step()
            """,
            unsafe=True,
        ),
        # The mixed-precision branch of the loop never zeroes: `zero_grad()` runs only in the
        # other branch of the `if`.
        Invalid(
            """
            import torch


            def train(model, loader, optimizer, loss_fn, scaler, use_amp):
                model.train()
                for x, y in loader:
                    if use_amp:
                        with torch.autocast("cuda"):
                            loss = loss_fn(model(x), y)
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        loss = loss_fn(model(x), y)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
            """,
            line=10,
            column=13,
            message="`scaler.scale(loss).backward()` adds to gradients that this branch never zeroes (only the other "
            "branch of `if use_amp:` does): each `scaler.step(optimizer)` applies the sum of all earlier steps' "
            "gradients; call `optimizer.zero_grad()` before `backward()`",
        ),
        # A manual gradient step that never zeroes `w.grad`.
        Invalid(
            """
            import torch

            w = torch.randn(4, 1, requires_grad=True)
            for x, y in loader:
                loss = ((x @ w - y) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
            """,
            line=6,
            column=5,
            message="`loss.backward()` adds to gradients that this loop never zeroes: each `w -= 0.1 * w.grad` "
            "applies the sum of all earlier steps' gradients; zero them after the update (`w.grad.zero_()`, or "
            "`w.grad = None`)",
        ),
        # Gradient ascent on an input, its gradient scaled but never reset, written back through
        # `.data`: scaling keeps the sum of every earlier step's gradient.
        Invalid(
            """
            import torch

            def maximise(model, steps=30, alpha=1.0):
                img = torch.randn(1, 1, 28, 28, requires_grad=True)
                for _ in range(steps):
                    loss = model(img).mean()
                    loss.backward()
                    img.grad /= img.grad.std() + 1e-5
                    img.data = img + alpha * img.grad
                return img
            """,
            line=7,
            column=9,
            message="`loss.backward()` adds to gradients that this loop never zeroes: each `img.data = img + alpha * "
            "img.grad` applies the sum of all earlier steps' gradients; zero them after the update (`img.grad.zero_()`, "
            "or `img.grad = None`)",
        ),
        # The same calls, none of which zeroes anything.
        Invalid(
            """
            class MAMLTrainer:
                def train(self, episodes):
                    for episode in episodes:
                        results = self.outer_loop(episode)
                        results["loss"].backward()
                        self.meta_optimizer.step()

                def outer_loop(self, episode):
                    return {"loss": sum(self.inner_loop(task) for task in episode)}

                def inner_loop(self, task):
                    return self.model.adapt(task)
            """,
            line=5,
            column=13,
            message='`results["loss"].backward()` adds to gradients that this loop never zeroes: each '
            "`self.meta_optimizer.step()` applies the sum of all earlier steps' gradients; call "
            "`self.meta_optimizer.zero_grad()` before `backward()`",
        ),
        # An RL loop: `env.reset()` starts an episode, it resets no gradient.
        Invalid(
            """
            def train(env, policy, optimizer, episodes):
                for episode in range(episodes):
                    state = env.reset()
                    loss = -policy(state).log().mean()
                    loss.backward()
                    optimizer.step()
            """,
            line=5,
            column=9,
            message="`loss.backward()` adds to gradients that this loop never zeroes: each `optimizer.step()` "
            "applies the sum of all earlier steps' gradients; call `optimizer.zero_grad()` before `backward()`",
        ),
        # A seq2seq step function that backpropagates and steps, called once per iteration of
        # the training loop: nothing zeroes the gradients in either.
        Invalid(
            """
            def train(src, tgt, model, optimizer, criterion):
                loss = criterion(model(src), tgt)
                loss.backward()
                optimizer.step()
                return loss.item()


            def main(pairs, model, optimizer, criterion):
                for src, tgt in pairs:
                    print(train(src, tgt, model, optimizer, criterion))
            """,
            line=3,
            column=5,
            message="`loss.backward()` adds to gradients that nothing zeroes: `train(...)` runs on every iteration of "
            "the loop at line 9, so each `optimizer.step()` applies the sum of all earlier steps' gradients; call "
            "`optimizer.zero_grad()` before `backward()`",
            fixed="""
            def train(src, tgt, model, optimizer, criterion):
                loss = criterion(model(src), tgt)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.item()


            def main(pairs, model, optimizer, criterion):
                for src, tgt in pairs:
                    print(train(src, tgt, model, optimizer, criterion))
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch.nn.functional as F

            def train(model, loader, optimizer):
                for x, y in loader:
                    loss = F.cross_entropy(model(x), y)
                    loss.backward()
                    optimizer.step()
            """,
            line=6,
            column=9,
            message="`loss.backward()` adds to gradients that this loop never zeroes: each `optimizer.step()` applies "
            "the sum of all earlier steps' gradients; call `optimizer.zero_grad()` before `backward()`",
            fixed="""
            import torch.nn.functional as F

            def train(model, loader, optimizer):
                for x, y in loader:
                    loss = F.cross_entropy(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch

            model = torch.nn.Linear(3, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            scaler = torch.amp.GradScaler()
            for epoch in range(10):
                for x, y in data:
                    loss = ((model(x) - y) ** 2).mean()
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
            line=9,
            column=9,
            message="`scaler.scale(loss).backward()` adds to gradients that this loop never zeroes: each "
            "`scaler.step(opt)` applies the sum of all earlier steps' gradients; call `opt.zero_grad()` before "
            "`backward()`",
            fixed="""
            import torch

            model = torch.nn.Linear(3, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            scaler = torch.amp.GradScaler()
            for epoch in range(10):
                for x, y in data:
                    loss = ((model(x) - y) ** 2).mean()
                    opt.zero_grad()
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
            unsafe=True,
        ),
        # Two backward passes per step: no fix (where the reset goes is the author's choice).
        Invalid(
            """
            import torch.nn.functional as F

            class Trainer:
                def __init__(self, model, optimizer):
                    self.model = model
                    self.optimizer = optimizer

                def fit(self, loader):
                    for x, y in loader:
                        d_loss = F.mse_loss(self.model(x), y)
                        g_loss = F.l1_loss(self.model(x), y)
                        d_loss.backward()
                        g_loss.backward()
                        self.optimizer.step()
            """,
            line=12,
            column=13,
            message="`d_loss.backward()` adds to gradients that this loop never zeroes: each `self.optimizer.step()` "
            "applies the sum of all earlier steps' gradients; call `self.optimizer.zero_grad()` before `backward()`",
        ),
        # Two optimizers, one zeroed: the other's gradients pile up.
        Invalid(
            """
            import itertools
            import torch

            E1, G1, D1 = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)
            optimizer_G = torch.optim.Adam(itertools.chain(E1.parameters(), G1.parameters()))
            optimizer_D1 = torch.optim.Adam(D1.parameters())
            for x in loader:
                recon = G1(E1(x))
                G_loss = (recon - x).abs().mean() - D1(recon).mean()
                G_loss.backward()
                optimizer_G.step()

                optimizer_D1.zero_grad()
                D1_loss = D1(recon.detach()).mean() - D1(x).mean()
                D1_loss.backward()
                optimizer_D1.step()
            """,
            line=10,
            column=5,
            message="`G_loss.backward()` adds to the gradients of `optimizer_G`'s parameters, which this loop "
            "never zeroes (`optimizer_D1.zero_grad()` zeroes only its own): each `optimizer_G.step()` applies the "
            "sum of all earlier steps' gradients; call `optimizer_G.zero_grad()` before `backward()`",
            fixed="""
            import itertools
            import torch

            E1, G1, D1 = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)
            optimizer_G = torch.optim.Adam(itertools.chain(E1.parameters(), G1.parameters()))
            optimizer_D1 = torch.optim.Adam(D1.parameters())
            for x in loader:
                recon = G1(E1(x))
                G_loss = (recon - x).abs().mean() - D1(recon).mean()
                optimizer_G.zero_grad()
                G_loss.backward()
                optimizer_G.step()

                optimizer_D1.zero_grad()
                D1_loss = D1(recon.detach()).mean() - D1(x).mean()
                D1_loss.backward()
                optimizer_D1.step()
            """,
            unsafe=True,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        optimizer = stepped_optimizer(ctx, node)
        if optimizer is None:
            return
        scope = ctx.function if ctx.function is not None else ctx.tree
        if isinstance(scope, ast.Lambda):
            return
        loop, backwards = self._training_loop(ctx, node, scope)
        if loop is None:
            self._step_function_in_a_loop(ctx, node, optimizer, scope)
            return
        seen = ctx.state(_Seen)
        if id(loop) in seen.loops:
            return
        region = scope if not isinstance(scope, ast.Module) else ctx.top_level_statement(loop)
        branch = None
        if _may_reset(ctx, region):
            branch = _branch_never_resetting(ctx, node, loop, region)
            if branch is None:
                reset = _reset_before_loop_only(ctx, node, optimizer, loop, backwards, region)
                if reset is not None:
                    self._zeroed_outside_the_loop(ctx, node, optimizer, loop, backwards, reset)
                    return
                self._one_optimizer_not_zeroed(ctx, node, optimizer, loop, backwards, region)
                return
            # `if args.scaler: ...; scaler.step(optimizer)` / `else: optimizer.zero_grad(); ...`:
            # the resets sit in the other branch of an `if` only
            backwards = [c for c in backwards if in_block([branch], c)] or backwards
        seen.loops.add(id(loop))
        steps = [c for c in _calls(loop) if stepped_optimizer(ctx, c) is not None]
        first = backwards[0]
        opt_text = ctx.text(optimizer)
        where = (
            "this loop never zeroes"
            if branch is None
            else f"this branch never zeroes (only the other branch of `if {short(ctx.text(branch.test), 40)}:` does)"
        )
        ctx.report(
            self.code,
            first,
            f"`{short(ctx.text(first), 50)}` adds to gradients that {where}: each "
            f"`{short(ctx.text(node), 40)}` applies the sum of all earlier steps' gradients; call "
            f"`{short(opt_text, 40)}.zero_grad()` before `backward()`",
            _fix(ctx, backwards, steps, optimizer),
        )

    def _zeroed_outside_the_loop(
        self, ctx, step: ast.Call, optimizer: ast.expr, loop: ast.AST, backwards: list, reset: ast.AST
    ) -> None:
        """A loop that backpropagates and steps on every iteration, whose gradients are zeroed
        only outside it (``optimizerD.zero_grad()`` before a critic's five steps)."""
        seen = ctx.state(_Seen)
        if id(loop) in seen.loops:
            return
        seen.loops.add(id(loop))
        first = backwards[0]
        opt_text = ctx.text(optimizer)
        ctx.report(
            self.code,
            first,
            f"`{short(ctx.text(first), 50)}` adds to gradients that this loop zeroes only outside it "
            f"(`{short(ctx.text(reset), 40)}`, line {reset.lineno}): from its second iteration on, each "
            f"`{short(ctx.text(step), 40)}` applies the sum of the earlier iterations' gradients; call "
            f"`{short(opt_text, 40)}.zero_grad()` inside the loop, before `backward()`",
            _fix(ctx, backwards, [c for c in _calls(loop) if stepped_optimizer(ctx, c) is not None], optimizer),
        )

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        """A manual step (``theta -= lr * theta.grad``, ``w.data -= lr * w.grad.data``) in a loop
        that backpropagates and resets no gradient: each step applies the sum of all earlier
        steps' gradients, as an optimizer's would."""
        self._manual_step(node, node.target, ctx)

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        """The same step written back through ``.data``: ``x.data = x + lr * x.grad``."""
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) and node.targets[0].attr == "data":
            self._manual_step(node, node.targets[0], ctx)

    def _manual_step(self, node, written: ast.expr, ctx) -> None:
        updated = _manual_step_target(node)
        if updated is None:
            return
        target = written.value if isinstance(written, ast.Attribute) and written.attr == "data" else written
        if ctx.model.value(target).kind is not Kind.TENSOR:
            return  # a hand-made autograd value (micrograd's `p.data -= lr * p.grad`), or not known to be a tensor
        scope = ctx.function if ctx.function is not None else ctx.tree
        if isinstance(scope, ast.Lambda):
            return
        loop, backwards = self._training_loop(ctx, node, scope)
        if loop is None:
            return
        seen = ctx.state(_Seen)
        if id(loop) in seen.loops:
            return
        region = scope if not isinstance(scope, ast.Module) else ctx.top_level_statement(loop)
        if _may_reset(ctx, region):
            return
        seen.loops.add(id(loop))
        first = backwards[0]
        ctx.report(
            self.code,
            first,
            f"`{short(ctx.text(first), 50)}` adds to gradients that this loop never zeroes: each "
            f"`{short(ctx.text(node), 40)}` applies the sum of all earlier steps' gradients; zero them after "
            f"the update (`{updated}.grad.zero_()`, or `{updated}.grad = None`)",
        )

    def _one_optimizer_not_zeroed(
        self, ctx, step: ast.Call, optimizer: ast.expr, loop: ast.AST, backwards: list, region: ast.AST
    ) -> None:
        """A loop stepping several optimizers (a GAN's generator and discriminator) whose only
        resets are ``zero_grad()`` of the others: each zeroes its own parameters alone, so the
        one never zeroed applies the sum of every earlier step's gradients."""
        opt_text = ctx.text(optimizer)
        seen = ctx.state(_Seen)
        key = (id(loop), opt_text)
        if key in seen.optimizers:
            return
        seen.optimizers.add(key)
        stepped = {ctx.text(o) for o in (stepped_optimizer(ctx, c) for c in _calls(loop)) if o is not None}
        if len(stepped) < 2:
            return
        zeroed = []
        for reset in ctx.model.grad_resets_in(region):
            func = reset.func if isinstance(reset, ast.Call) else None
            if not (isinstance(func, ast.Attribute) and func.attr == "zero_grad"):
                return  # `p.grad = None`, `model.zero_grad()`...: may reset this optimizer's parameters
            receiver = ctx.text(func.value)
            if receiver == opt_text or receiver not in stepped:
                return
            zeroed.append(reset)
        if not zeroed or _calls_a_reset(ctx, region, set(map(id, zeroed))):
            return
        own = _parameter_sources(ctx, optimizer)
        if own is None:
            return  # an optimizer whose modules the code does not show: its parameters may be another's
        for zeroing in zeroed:
            theirs = _parameter_sources(ctx, zeroing.func.value)
            if theirs is None or any(_overlap(a, b) for a in own for b in theirs):
                return  # `info_optimizer` over `G` and `D`, both zeroed by their own optimizers
        before = [b for b in backwards if (b.lineno, b.col_offset) < (step.lineno, step.col_offset)]
        backward = before[-1] if before else backwards[0]
        others = sorted({ctx.text(z.func.value) for z in zeroed})
        ctx.report(
            self.code,
            backward,
            f"`{short(ctx.text(backward), 50)}` adds to the gradients of `{short(opt_text, 40)}`'s parameters, "
            f"which this loop never zeroes (`{short(others[0], 40)}.zero_grad()` zeroes only its own): each "
            f"`{short(ctx.text(step), 40)}` applies the sum of all earlier steps' gradients; call "
            f"`{short(opt_text, 40)}.zero_grad()` before `backward()`",
            _fix(ctx, [backward], [step], optimizer),
        )

    def _step_function_in_a_loop(self, ctx, step: ast.Call, optimizer: ast.expr, scope: ast.AST) -> None:
        """A function of the file that backpropagates and steps once, resetting nothing, called in
        a loop that resets nothing either (``loss = train(x, y, encoder, decoder, optimizer)`` once
        per iteration): each call's step applies the sum of all earlier calls' gradients."""
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
            isinstance(ancestor, _LOOPS) for ancestor in ctx.ancestors(step) if ancestor is not scope
        ):
            return
        seen = ctx.state(_Seen)
        if id(scope) in seen.loops:
            return
        seen.loops.add(id(scope))
        backwards = sorted(
            (
                c
                for c in _calls(scope)
                if _is_backward(ctx, c) and (c.lineno, c.col_offset) < (step.lineno, step.col_offset)
            ),
            key=lambda c: (c.lineno, c.col_offset),
        )
        if not backwards or _may_reset(ctx, scope):
            return
        for site in ctx.model.callers(scope) or ():
            caller = site.frame.node
            if isinstance(caller, ast.Lambda):
                continue
            loop = next(
                (a for a in ctx.ancestors(site.call) if isinstance(a, _LOOPS)),
                None,
            )
            if loop is None or not _inside_scope(ctx, loop, caller):
                continue
            region = caller if not isinstance(caller, ast.Module) else ctx.top_level_statement(loop)
            if _may_reset(ctx, region):
                continue
            first = backwards[0]
            ctx.report(
                self.code,
                first,
                f"`{short(ctx.text(first), 50)}` adds to gradients that nothing zeroes: `{scope.name}(...)` runs on "
                f"every iteration of the loop at line {loop.lineno}, so each `{short(ctx.text(step), 40)}` applies the "
                f"sum of all earlier steps' gradients; call `{short(ctx.text(optimizer), 40)}.zero_grad()` before "
                f"`backward()`",
                _fix(ctx, backwards, [step], optimizer),
            )
            return

    @staticmethod
    def _training_loop(ctx, step: ast.Call, scope: ast.AST):
        """The innermost loop around ``step`` (inside ``scope``) that also runs a backward pass,
        with the backward calls in it (in source order)."""
        for ancestor in ctx.ancestors(step):
            if ancestor is scope or isinstance(ancestor, _SCOPES):
                return None, []
            if isinstance(ancestor, _LOOPS):
                backwards = [c for c in _calls(ancestor) if _is_backward(ctx, c)]
                if backwards:
                    return ancestor, sorted(backwards, key=lambda c: (c.lineno, c.col_offset))
        return None, []


def _manual_step_target(node: ast.AST) -> Optional[str]:
    """The tensor a manual gradient step updates (``theta -= lr * theta.grad``, ``w.data -=
    lr * w.grad.data``, ``self.W += -lr * self.W.grad``, ``x.data = x + lr * x.grad``): the
    name whose ``.grad`` the value reads, or None."""
    if isinstance(node, ast.AugAssign):
        if not isinstance(node.op, (ast.Sub, ast.Add)):
            return None
        target, step = node.target, node.value
    elif (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.BinOp)
        and isinstance(node.value.op, (ast.Sub, ast.Add))
    ):
        target = node.targets[0]
        kept = node.value.left  # `x.data = x + lr * x.grad`: the tensor itself, plus a step
        if isinstance(kept, ast.Attribute) and kept.attr == "data":
            kept = kept.value
        if ast.unparse(kept) != ast.unparse(target.value if isinstance(target, ast.Attribute) else target):
            return None
        step = node.value.right
    else:
        return None
    if isinstance(target, ast.Attribute) and target.attr == "data":
        target = target.value
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    shown = ast.unparse(target)
    for sub in ast.walk(step):
        if isinstance(sub, ast.Attribute) and sub.attr == "grad" and ast.unparse(sub.value) == shown:
            return shown
    return None


def _inside_scope(ctx, node: ast.AST, scope: ast.AST) -> bool:
    """Whether ``node`` belongs to ``scope``'s own code (no function or class between)."""
    for ancestor in ctx.ancestors(node):
        if ancestor is scope:
            return True
        if isinstance(ancestor, _SCOPES):
            return False
    return isinstance(scope, ast.Module)


def _parameter_sources(ctx, optimizer: ast.AST) -> Optional[frozenset]:
    """The modules whose ``.parameters()`` the optimizer at ``optimizer`` was built over, as the
    semantic model knows them (``Adam(chain(E1.parameters(), G1.parameters()))``: ``{"E1",
    "G1"}``); None where the code does not show them."""
    value = ctx.model.value(optimizer)
    return frozenset(value.ref.split("+")) if value.ref else None


def _overlap(a: str, b: str) -> bool:
    """Whether two modules' parameters may be shared (the same module, or one inside the other)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _branch_never_resetting(ctx, step: ast.Call, loop: ast.AST, region: ast.AST) -> Optional[ast.If]:
    """The ``if`` of the loop whose branch holding ``step`` resets nothing while the other one
    does: every reset of ``region`` (``SemanticModel.grad_resets_in``) lies in that other branch,
    and no call outside it may reset (``_calls_a_reset``); None otherwise. Asked only where
    ``_may_reset`` holds for ``region``."""
    for ancestor in ctx.ancestors(step):
        if ancestor is loop:
            return None
        if not isinstance(ancestor, ast.If):
            continue
        other = ancestor.orelse if in_block(ancestor.body, step) else ancestor.body
        if not other:
            continue
        in_other = {id(call) for statement in other for call in _calls(statement)}
        if all(in_block(other, reset) for reset in ctx.model.grad_resets_in(region)) and not _calls_a_reset(
            ctx, region, in_other
        ):
            return ancestor
        return None
    return None


def _reset_before_loop_only(
    ctx, step: ast.Call, optimizer: ast.expr, loop: ast.AST, backwards: list, region: ast.AST
) -> Optional[ast.AST]:
    """The first reset of ``region`` where every reset lies outside ``loop`` and the loop runs a
    backward pass and ``step`` on every iteration (both statements of its own body, no ``if``
    between; ``step`` taking no closure, on an optimizer the loop does not bind) and calls no
    function that may reset (``_calls_a_reset``): zeroed once, before or after the loop, its
    second iteration steps with the first one's gradients too. None otherwise (accumulation
    steps under an ``if``)."""
    body = getattr(loop, "body", [])
    if step.args or step.keywords or not _runs_at_top(body, step):
        return None
    if not any(_runs_at_top(body, b) for b in backwards):
        return None
    root = optimizer
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if isinstance(root, ast.Name) and any(
        isinstance(sub, ast.Name) and sub.id == root.id and isinstance(sub.ctx, ast.Store) for sub in ast.walk(loop)
    ):
        return None  # `for opt in optimizers:` or rebound in the loop: another optimizer each time
    if ctx.model.zeroes_grad_in(loop) or _calls_a_reset(ctx, loop, set()):
        return None  # a reset in the loop (its body, its `else`, a closure in it) or a call that may reset
    resets = ctx.model.grad_resets_in(region)
    return min(resets, key=lambda r: (r.lineno, r.col_offset)) if resets else None


def _runs_at_top(body: list, call: ast.Call) -> bool:
    """Whether ``call`` is a statement of ``body`` itself (or the value such a statement
    assigns), not one under an ``if``, a nested loop or a ``try``."""
    return any(
        isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)) and statement.value is call
        for statement in body
    )


def _calls(node: ast.AST):
    """The calls in ``node``'s own code (not in nested functions or classes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, _SCOPES):
                stack.append(child)


def _is_backward(ctx, call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "backward":
        if len(call.args) >= 2 and isinstance(call.args[1], (ast.List, ast.Tuple)):
            # `dist_autograd.backward(context_id, [loss])` (its import not shown): distributed
            # autograd keeps the gradients in the context, not in `.grad` (`Tensor.backward`'s
            # second parameter is `retain_graph`, a flag)
            return False
        return ctx.imports.qualified_name(func) in (None, "torch.autograd.backward")
    if ctx.imports.qualified_name(func) == "torch.autograd.backward":
        return True
    callee = ctx.model.callee(call)
    return callee is not None and ctx.model.function_summary(callee).calls_backward


def _may_reset(ctx, region: ast.AST) -> bool:
    """Does the code of ``region`` reset gradients, call a function of the file that does, or
    call an unknown function named like a reset?"""
    return ctx.model.zeroes_grad_in(region) or _calls_a_reset(ctx, region, set())


def _calls_a_reset(ctx, region: ast.AST, besides: set, seen: Optional[set] = None) -> bool:
    """Does the code of ``region`` call a function of the file that resets gradients (itself or
    through the functions it calls: a MAML step's `outer_loop` calling the `inner_loop` that
    runs `self.model.zero_grad()`), or an unknown function named like a reset (other than the
    calls whose ids are in ``besides``)?"""
    model = ctx.model
    seen = set() if seen is None else seen
    for call in _calls(region):
        if id(call) in besides:
            continue
        callee = model.callee(call)
        if callee is not None:
            if id(callee) in seen:
                continue
            seen.add(id(callee))
            if model.zeroes_grad_in(callee) or _calls_a_reset(ctx, callee, set(), seen):
                return True
            continue
        func = call.func
        name = callee_name(call)
        if isinstance(func, ast.Attribute) and names_an_environment(func.value):
            continue  # `env.reset()`: the environment's episode, not gradients
        qualified = ctx.imports.qualified_name(func)
        if qualified is not None:
            found = model.project_function(qualified)
            if found is not None:
                if model.zeroes_grad_in(found[1]):
                    return True  # `reset_grad([enc, dec])` of `from utils import reset_grad`, which zeroes them
                continue
            # another file's function, not in the run, named for resetting gradients (not `zero_pad`)
            if "grad" in name.lower() and not qualified.startswith(("torch.", *PLAIN_VALUE_LIBRARIES)):
                if any(word in name.lower() for word in _RESET_WORDS):
                    return True
            continue
        if any(word in name.lower() for word in _RESET_WORDS):
            return True
    return False


def _fix(ctx, backwards: list, steps: list, optimizer: ast.expr) -> Optional[Fix]:
    if len(backwards) != 1 or len({ctx.text(s.func) for s in steps}) != 1:
        return None
    call = backwards[0]
    stmt = ctx.parent(call)
    if not isinstance(stmt, ast.Expr) or stmt.value is not call:
        return None
    src = ctx.source
    line_start = src.line_starts[stmt.lineno - 1]
    if src.line(stmt.lineno)[: src.node_start(stmt) - line_start].strip():
        return None  # shares its line with another statement
    indent = src.indentation(stmt.lineno)
    text = f"{indent}{ctx.text(optimizer)}.zero_grad(){src.newline}"
    return Fix(
        Applicability.UNSAFE,
        f"Call `{short(ctx.text(optimizer), 40)}.zero_grad()` before `backward()`",
        (Edit(line_start, line_start, text),),
    )
