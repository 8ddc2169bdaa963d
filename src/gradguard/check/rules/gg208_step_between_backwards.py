"""An optimizer step between two backward passes through the same graph.

## What it does
Flags a backward pass (`b.backward()`, `torch.autograd.grad(b, ...)`) that runs after an
optimizer step (`opt.step()`) through a graph that an earlier backward pass kept alive for
it (`a.backward(retain_graph=True)`, or `create_graph=True`, or the removed
`retain_variables=True`): both losses are computed from the same model calls, made before the
step (also models and optimizers an object holds: `model.d_opt.step()` of an optimizer its class
builds over `self.d`, then `model.d(...)`). It is reported at the second backward pass. Also flagged: one backward pass with
`retain_graph=True` and a step in a loop, through a graph built before the loop (`value_loss`
computed once, then `for _ in range(80): value_loss.backward(retain_graph=True); opt.step()`):
the next round backpropagates it after the step (a helper of the file the loop calls builds its
graph again at each call). Not flagged: both backward passes before
the step (`retain_graph=True` used as intended), a second backward pass on a graph built
again after the step (a new forward; `torch.zeros_like(fake_preds)` of an output computed before
it takes only its shape), a step of an optimizer whose model the shared graph
does not run through, backward passes in branches that exclude each other, and a loop that has
no next round (`for i in range(1):`).

## Why is this bad?
A retained graph keeps the tensors its operations saved, among them the weights of every
layer it ran through. `optimizer.step()` updates those weights in place, so the second
backward pass would use a graph that no longer matches the parameters: since PyTorch 1.5 it
raises `RuntimeError: one of the variables needed for gradient computation has been
modified by an inplace operation` (measured on torch 2.13); before that it silently
computed wrong gradients. The pattern comes from GAN tutorials that backpropagate the
discriminator's loss, step, and then backpropagate the generator's loss through the same
`D(G(z))`.

## Example
```python
import torch

def gan_step(G, D, z, real, opt_g, opt_d):
    score_fake = D(G(z))
    d_loss = -(torch.log(D(real)) + torch.log(1 - score_fake)).mean()
    g_loss = torch.log(1 - score_fake).mean()
    opt_d.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
```

## Use instead
```python
import torch

def gan_step(G, D, z, real, opt_g, opt_d):
    fake = G(z)
    d_loss = -(torch.log(D(real)) + torch.log(1 - D(fake.detach()))).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = torch.log(1 - D(fake)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
```

## Fix safety
No fix is offered: the repair is either moving the step after the second backward pass (if
the two updates may use the same forward pass) or computing the second loss again after the
step, and which one is right depends on the training algorithm.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from gradguard.check.analysis.steps import (
    backward_roots,
    graph_sources,
    module_name,
    module_receiver,
    retains_graph,
    stepped_optimizer,
)
from gradguard.check.model import FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short


class StepBetweenBackwards(Rule):
    code = "GG208"
    name = "step-between-backwards"
    summary = "A backward pass through a retained graph after an optimizer step changed its weights: RuntimeError"
    fix_availability = FixAvailability.NONE
    severity = Severity.ERROR
    triggers = ("retain_graph", "retain_variables", "create_graph")
    function_triggers = ("retain_graph", "retain_variables", "create_graph")

    valid = (
        # The same losses, both backpropagated before either step.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def gan_losses(g, d, x_real, z_dim=8):
                d_fake = d(g(torch.randn(x_real.shape[0], z_dim)))
                g_loss = -F.logsigmoid(d_fake).mean()
                d_loss = F.softplus(-d(x_real)).mean() + F.softplus(d_fake).mean()
                return d_loss, g_loss


            g = torch.nn.Linear(8, 4)
            d = torch.nn.Linear(4, 1)
            g_opt = torch.optim.Adam(g.parameters())
            d_opt = torch.optim.Adam(d.parameters())
            for x_real in torch.randn(10, 3, 4):
                d_loss, g_loss = gan_losses(g, d, x_real)
                d_opt.zero_grad()
                g_opt.zero_grad()
                d_loss.backward(retain_graph=True)
                g_loss.backward()
                d_opt.step()
                g_opt.step()
            """
        ),
        # The generator's loss runs a new discriminator forward after the step; `torch.zeros_like(fake_preds)`
        # takes only the shape of the output computed before it.
        Valid(
            """
            import torch


            def train_step(generator, discriminator, g_opt, d_opt, states, actions, criterion):
                fake = generator(states)
                real_preds = discriminator(states, actions)
                fake_preds = discriminator(states, fake)
                d_opt.zero_grad()
                d_loss = criterion(real_preds, torch.ones_like(real_preds)) + criterion(fake_preds, torch.zeros_like(fake_preds))
                d_loss.backward(retain_graph=True)
                d_opt.step()
                g_opt.zero_grad()
                g_loss = -criterion(discriminator(states, fake), torch.zeros_like(fake_preds))
                g_loss.backward()
                g_opt.step()
            """
        ),
        # `for i in range(1):` has no next round: the kept graph is not backpropagated after the step.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def attack_step(netG, netDisc, model, images, optimizer_G):
                perturbation = netG(images)
                adv_images = images + perturbation
                for i in range(1):
                    optimizer_G.zero_grad()
                    pred_fake = netDisc(adv_images)
                    loss_fake = F.mse_loss(pred_fake, torch.ones_like(pred_fake))
                    loss_fake.backward(retain_graph=True)
                    loss_adv = model(adv_images).max(1)[0].mean()
                    loss_adv.backward()
                    optimizer_G.step()
            """
        ),
        # The discriminator's loss made by a helper of the file at each round: its graph is new.
        Valid(
            """
            import torch
            from torch import nn

            gen = nn.Linear(4, 4)
            disc = nn.Linear(4, 1)
            gen_opt = torch.optim.Adam(gen.parameters())
            disc_opt = torch.optim.Adam(disc.parameters())
            loss_func = nn.BCEWithLogitsLoss()


            def calc_disc_loss(loss_func, gen, disc, real):
                fake = gen(torch.randn(8, 4))
                d_fake = disc(fake.detach())
                d_real = disc(real)
                return loss_func(d_fake, torch.zeros_like(d_fake)) + loss_func(d_real, torch.ones_like(d_real))


            for real in [torch.randn(8, 4)] * 3:
                disc_opt.zero_grad()
                disc_loss = calc_disc_loss(loss_func, gen, disc, real)
                disc_loss.backward(retain_graph=True)
                disc_opt.step()
            """
        ),
        # The generator's loss computed again after the discriminator's step: a new graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Discriminator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(4, 4)
                    self.cls = nn.Linear(4, 3)
                    self.adv = nn.Linear(4, 1)

                def forward(self, x):
                    h = self.body(x)
                    return self.cls(h), self.adv(h)


            def train(G, D, loader, bce, D_optim, G_optim):
                for img in loader:
                    fake = G(torch.randn(4, 8))
                    fake_cls, fake_adv = D(fake)
                    real_cls, real_adv = D(img)
                    loss_D = bce(real_adv, torch.ones_like(real_adv)) + bce(fake_adv, torch.zeros_like(fake_adv))
                    D_optim.zero_grad()
                    loss_D.backward(retain_graph=True)
                    D_optim.step()
                    fake_cls, fake_adv = D(fake)
                    loss_G = bce(fake_adv, torch.ones_like(fake_adv))
                    G_optim.zero_grad()
                    loss_G.backward()
                    G_optim.step()
            """
        ),
        # The same value loss computed again in each round of the loop: a new graph each time.
        Valid(
            """
            import torch

            def fit_value(value_net, optimizer, obs, ret, iters):
                for _ in range(iters):
                    value_loss = (value_net(obs) - ret).pow(2).mean()
                    optimizer.zero_grad()
                    value_loss.backward(retain_graph=True)
                    optimizer.step()
            """
        ),
        # Both backward passes before the step.
        Valid(
            """
            import torch

            def step(model, x, opt):
                out = model(x)
                opt.zero_grad()
                out.mean().backward(retain_graph=True)
                out.std().backward()
                opt.step()
            """,
        ),
        # The second loss comes from a new forward pass after the step.
        Valid(
            """
            import torch

            def gan_step(G, D, z, real, opt_g, opt_d):
                fake = G(z)
                d_loss = (D(fake) - D(real)).mean()
                opt_d.zero_grad()
                d_loss.backward(retain_graph=True)
                opt_d.step()
                fake = G(z)
                g_loss = -D(fake).mean()
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
            """,
        ),
        # A step in one branch, the second backward pass in the other.
        Valid(
            """
            import torch

            def step(model, x, opt, phase):
                out = model(x)
                if phase == "a":
                    out.mean().backward(retain_graph=True)
                    opt.step()
                else:
                    out.std().backward()
            """,
        ),
    )
    invalid = (
        # Both losses handed back by a helper of the file (`d_loss, g_loss = gan_losses(g, d, x_real)`), built on one `d(g(z))`.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def gan_losses(g, d, x_real, z_dim=8):
                d_fake = d(g(torch.randn(x_real.shape[0], z_dim)))
                g_loss = -F.logsigmoid(d_fake).mean()
                d_loss = F.softplus(-d(x_real)).mean() + F.softplus(d_fake).mean()
                return d_loss, g_loss


            g = torch.nn.Linear(8, 4)
            d = torch.nn.Linear(4, 1)
            g_opt = torch.optim.Adam(g.parameters())
            d_opt = torch.optim.Adam(d.parameters())
            for x_real in torch.randn(10, 3, 4):
                d_loss, g_loss = gan_losses(g, d, x_real)
                d_opt.zero_grad()
                d_loss.backward(retain_graph=True)
                d_opt.step()
                g_opt.zero_grad()
                g_loss.backward()
                g_opt.step()
            """,
            line=22,
            column=5,
            message="`g_loss.backward()` runs through the graph that `d_loss.backward(retain_graph=True)` kept, after `d_opt.step()` changed weights saved in it: RuntimeError (modified by an inplace operation); compute the loss again after the step (a new forward pass), or, where both updates may use this forward pass, run both backward passes before the step",
        ),
        # Models and optimizers held by a plain object: `model.d_opt` updates what its class calls `self.d`.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class GAN(object):
                def __init__(self, g, d):
                    self.g = g
                    self.d = d
                    self.ct = nn.BCELoss()
                    self.g_opt = torch.optim.Adam(self.g.parameters())
                    self.d_opt = torch.optim.Adam(self.d.parameters())


            def train(model, loader, ones, zeros):
                for real, noise in loader:
                    model.d_opt.zero_grad()
                    d1 = model.d(real)
                    d2 = model.d(model.g(noise))
                    loss = model.ct(d1, ones) + model.ct(d2, zeros)
                    loss.backward(retain_graph=True)
                    model.d_opt.step()
                    model.g_opt.zero_grad()
                    loss_g = model.ct(d2, ones)
                    loss_g.backward()
                    model.g_opt.step()


            gan = GAN(nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 1), nn.Sigmoid()))
            train(gan, loader, torch.ones(8, 1), torch.zeros(8, 1))
            """,
            line=24,
            column=9,
            message="`loss_g.backward()` runs through the graph that `loss.backward(retain_graph=True)` kept, after `model.d_opt.step()` changed weights saved in it: RuntimeError (modified by an inplace operation); compute the loss again after the step (a new forward pass), or, where both updates may use this forward pass, run both backward passes before the step",
        ),
        # The same helper called once, before the loop: every round backpropagates that graph.
        Invalid(
            """
            import torch
            from torch import nn

            gen = nn.Linear(4, 4)
            disc = nn.Linear(4, 1)
            gen_opt = torch.optim.Adam(gen.parameters())
            disc_opt = torch.optim.Adam(disc.parameters())
            loss_func = nn.BCEWithLogitsLoss()


            def calc_disc_loss(loss_func, gen, disc, real):
                fake = gen(torch.randn(8, 4))
                d_fake = disc(fake.detach())
                d_real = disc(real)
                return loss_func(d_fake, torch.zeros_like(d_fake)) + loss_func(d_real, torch.ones_like(d_real))


            real = torch.randn(8, 4)
            disc_loss = calc_disc_loss(loss_func, gen, disc, real)
            for step in range(3):
                disc_opt.zero_grad()
                disc_loss.backward(retain_graph=True)
                disc_opt.step()
            """,
            line=22,
            column=5,
            message="`disc_loss.backward(retain_graph=True)` runs again in the next round of the loop (line 20) "
            "through the graph it kept, built before the loop, after `disc_opt.step()` changed weights saved in it: "
            "RuntimeError (modified by an inplace operation); compute the loss again inside the loop",
        ),
        # A discriminator of the file whose `forward` returns two heads, unpacked: the generator's
        # loss reuses the head computed before the discriminator's step.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Discriminator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(4, 4)
                    self.cls = nn.Linear(4, 3)
                    self.adv = nn.Linear(4, 1)

                def forward(self, x):
                    h = self.body(x)
                    return self.cls(h), self.adv(h)


            def train(G, D, loader, bce, D_optim, G_optim):
                for img in loader:
                    fake = G(torch.randn(4, 8))
                    fake_cls, fake_adv = D(fake)
                    real_cls, real_adv = D(img)
                    loss_D = bce(real_adv, torch.ones_like(real_adv)) + bce(fake_adv, torch.zeros_like(fake_adv))
                    D_optim.zero_grad()
                    loss_D.backward(retain_graph=True)
                    D_optim.step()
                    loss_G = bce(fake_adv, torch.ones_like(fake_adv))
                    G_optim.zero_grad()
                    loss_G.backward()
                    G_optim.step()
            """,
            line=28,
            column=9,
            message="`loss_G.backward()` runs through the graph that `loss_D.backward(retain_graph=True)` kept, "
            "after `D_optim.step()` changed weights saved in it: RuntimeError (modified by an inplace operation); "
            "compute the loss again after the step (a new forward pass), or, where both updates may use this "
            "forward pass, run both backward passes before the step",
        ),
        # TRPO's value fitting: one forward pass before the loop, backpropagated again in every
        # round after the previous round's step.
        Invalid(
            """
            import torch

            def fit_value(value_net, optimizer, obs, ret, iters):
                value_loss = (value_net(obs) - ret).pow(2).mean()
                for _ in range(iters):
                    optimizer.zero_grad()
                    value_loss.backward(retain_graph=True)
                    optimizer.step()
            """,
            line=7,
            column=9,
            message="`value_loss.backward(retain_graph=True)` runs again in the next round of the loop (line 5) through "
            "the graph it kept, built before the loop, after `optimizer.step()` changed weights saved in it: "
            "RuntimeError (modified by an inplace operation); compute the loss again inside the loop",
        ),
        Invalid(
            """
            import torch

            def gan_step(G, D, z, real, opt_g, opt_d):
                score_fake = D(G(z))
                d_loss = -(torch.log(D(real)) + torch.log(1 - score_fake)).mean()
                g_loss = torch.log(1 - score_fake).mean()
                opt_d.zero_grad()
                d_loss.backward(retain_graph=True)
                opt_d.step()
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
            """,
            line=11,
            column=5,
            message="`g_loss.backward()` runs through the graph that `d_loss.backward(retain_graph=True)` kept, after "
            "`opt_d.step()` changed weights saved in it: RuntimeError (modified by an inplace operation); compute "
            "the loss again after the step (a new forward pass), or, where both updates may use this forward "
            "pass, run both backward passes before the step",
        ),
        Invalid(
            """
            import torch

            class InfoGAN:
                def __init__(self, G, D):
                    self.G, self.D = G, D
                    self.G_optimizer = torch.optim.Adam(self.G.parameters())
                    self.info_optimizer = torch.optim.Adam(list(self.G.parameters()) + list(self.D.parameters()))

                def step(self, z, bce, mse, codes):
                    G_ = self.G(z)
                    D_fake, D_cont = self.D(G_)
                    G_loss = bce(D_fake)
                    G_loss.backward(retain_graph=True)
                    self.G_optimizer.step()
                    info_loss = mse(D_cont, codes)
                    info_loss.backward()
                    self.info_optimizer.step()
            """,
            line=16,
            column=9,
            message="`info_loss.backward()` runs through the graph that `G_loss.backward(retain_graph=True)` kept, "
            "after `self.G_optimizer.step()` changed weights saved in it: RuntimeError (modified by an inplace "
            "operation); compute the loss again after the step (a new forward pass), or, where both updates may "
            "use this forward pass, run both backward passes before the step",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        first_roots = backward_roots(ctx, node)
        if not first_roots or not retains_graph(node):
            return
        scope = ctx.function if ctx.function is not None else ctx.tree
        if isinstance(scope, ast.Lambda):
            return
        calls = sorted(ctx.model.uses(scope).calls, key=_position)
        at = _position(node)
        step = next((c for c in calls if _position(c) > at and stepped_optimizer(ctx, c) is not None), None)
        if step is None or _exclusive(ctx, node, step):
            return
        first_sources = {id(c): c for c in graph_sources(ctx, first_roots)}
        if not first_sources:
            return
        optimizer = stepped_optimizer(ctx, step)
        stepped = _as_seen_here(ctx, optimizer, ctx.model.value(optimizer).ref)
        named = _named_for(ctx.text(optimizer)) if stepped is None else None
        loop = ctx.innermost_loop(node, scope)
        if loop is not None and _within(step, loop) and not _one_round(loop):
            # `for _ in range(80): opt.zero_grad(); loss.backward(retain_graph=True); opt.step()` with
            # `loss` computed once before the loop: the next round backpropagates it after the step
            before = [
                c
                for c in first_sources.values()
                if _position(c) < _position(loop)
                and not _run_by_a_call_in(ctx, c, scope, loop)
                and ctx.model.value(c).holds_graph
            ]
            if before and _runs_through(ctx, before, stepped, named):
                ctx.report(
                    self.code,
                    node,
                    f"`{short(ctx.text(node), 50)}` runs again in the next round of the loop (line {loop.lineno}) "
                    f"through the graph it kept, built before the loop, after `{short(ctx.text(step), 40)}` changed "
                    "weights saved in it: RuntimeError (modified by an inplace operation); compute the loss again "
                    "inside the loop",
                )
                return
        for later in calls:
            if _position(later) <= _position(step) or _exclusive(ctx, node, later) or _exclusive(ctx, step, later):
                continue
            roots = backward_roots(ctx, later)
            if not roots:
                continue
            shared = [
                c
                for c in graph_sources(ctx, roots)
                if id(c) in first_sources and _position(c) < _position(step) and ctx.model.value(c).holds_graph
            ]
            if not shared or not _runs_through(ctx, shared, stepped, named):
                continue
            ctx.report(
                self.code,
                later,
                f"`{short(ctx.text(later), 50)}` runs through the graph that `{short(ctx.text(node), 50)}` kept, "
                f"after `{short(ctx.text(step), 40)}` changed weights saved in it: RuntimeError (modified by an "
                "inplace operation); compute the loss again after the step (a new forward pass), or, where both "
                "updates may use this forward pass, run both backward passes before the step",
            )
            return


def _run_by_a_call_in(ctx, node: ast.AST, scope: ast.AST, loop: ast.AST) -> bool:
    """Whether node is in the body of a function of the file (not scope) that the loop
    calls by name: a helper's disc(fake), written above the loop, runs again at each call
    (disc_loss = calc_disc_loss(gen, disc, real) in the loop)."""
    function = next(
        (
            statement
            for statement in ctx.model.enclosing(node)
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement is not scope
        ),
        None,
    )
    if function is None:
        return False
    name = function.name  # type: ignore[attr-defined]
    return any(
        isinstance(sub, ast.Call)
        and (
            (isinstance(sub.func, ast.Name) and sub.func.id == name)
            or (isinstance(sub.func, ast.Attribute) and sub.func.attr == name)
        )
        for statement in loop.body  # type: ignore[attr-defined]
        for sub in ast.walk(statement)
    )


def _as_seen_here(ctx, optimizer: ast.AST, stepped: Optional[str]) -> Optional[str]:
    """The modules an optimizer held by an object updates, spelt as this code reaches them:
    ``self.d`` of ``Adam(self.d.parameters())`` in the holder's class is ``model.d`` where the
    code steps ``model.d_opt``."""
    if stepped is None or not isinstance(optimizer, ast.Attribute):
        return stepped
    holder = optimizer.value
    if isinstance(holder, ast.Name) and holder.id == "self":
        return stepped
    spelt = ctx.text(holder)
    return "+".join(spelt + name[len("self") :] if name.startswith("self.") else name for name in stepped.split("+"))


def _one_round(loop: ast.AST) -> bool:
    """``for i in range(1):``: a loop with no next round."""
    it = getattr(loop, "iter", None)
    return (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and len(it.args) == 1
        and isinstance(it.args[0], ast.Constant)
        and it.args[0].value in (0, 1)
    )


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return _position(outer) <= _position(node) and (node.end_lineno or 0) <= (outer.end_lineno or 0)  # type: ignore[attr-defined]


_OPTIMIZER_WORDS = re.compile(
    r"^(?:self|optimi[sz]er|optim|opt|solver|trainer)|(?:optimi[sz]er|optim|opt|solver)$", re.I
)


def _named_for(name: str) -> Optional[str]:
    """The model an optimizer whose parameters the code does not show is named for
    (``D_optim``, ``optimizer_G``, ``self.opt_disc``, ``optimizerD``: ``D``, ``G``, ``disc``),
    as the ``+``-joined names ``ref`` holds; None where its name names none (``optimizer``)."""
    last = name.rsplit(".", 1)[-1]
    words = [_OPTIMIZER_WORDS.sub("", word) for word in last.split("_")]
    words = [word for word in words if word and word.lower() not in ("optimi", "optimizer", "optim", "opt")]
    return "+".join(words) if len(words) == 1 else None


def _runs_through(ctx, shared: list, stepped: Optional[str], named: Optional[str] = None) -> bool:
    """Does the shared graph run through a model the stepped optimizer updates (``stepped``:
    their names joined by "+")? Where the code does not show what it updates, the model its
    name is for (``named``: ``D_optim`` steps no ``G``), else assume so.
    A model call's inputs count too (``D(G(z))`` runs through ``G``)."""
    if stepped is None and named is None:
        return True
    receivers = set()
    for call in graph_sources(ctx, shared):
        receiver = module_receiver(ctx, call)
        if receiver is not None:
            receivers.add(module_name(ctx, receiver))
    if not receivers:
        return True
    if stepped is not None:
        return bool(set(stepped.split("+")) & receivers)
    word = named.lower()  # type: ignore[union-attr]
    for receiver in receivers:
        last = receiver.rsplit(".", 1)[-1].lower()
        if last == word or last.startswith(word) or word.startswith(last) or last.endswith(word):
            return True  # `netD` of `D_optim`, `self.discriminator` of `opt_disc`
    return False


def _exclusive(ctx, a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` sit in different branches of one ``if``."""
    a_path = _path(ctx, a)
    b_path = _path(ctx, b)
    for (node, a_field), (other, b_field) in zip(a_path, b_path):
        if node is not other:
            return False
        if a_field != b_field:
            return isinstance(node, ast.If) and {a_field, b_field} == {"body", "orelse"}
    return False


def _path(ctx, node: ast.AST) -> list:
    """(ancestor, the field of it that holds the path), outermost first."""
    out = []
    child = node
    for ancestor in ctx.ancestors(node):
        field = next((name for name, value in ast.iter_fields(ancestor) if _holds(value, child)), "")
        out.append((ancestor, field))
        child = ancestor
    out.reverse()
    return out


def _holds(value, child: ast.AST) -> bool:
    if isinstance(value, list):
        return any(item is child for item in value)
    return value is child


def _position(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]
