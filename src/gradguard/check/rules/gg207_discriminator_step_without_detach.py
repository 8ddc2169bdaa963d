"""The discriminator's loss built on the generator's output without `.detach()`.

## What it does
Flags a model `D` called on the output of another model `G` (`D(fake)`,
`D(torch.cat([fake, labels], 1))`, with `fake = G(z)` not detached) when that call feeds a
backward pass which also backpropagates `D` called on data that no model made (`D(real)`, or one
batch joining both along the batch dimension: `D(torch.cat((real, fake)))`),
followed by the step of an optimizer that updates `D` and not `G`: the discriminator's step.
Where the code does not show which models an optimizer updates, it must step two optimizers
(the two updates of a GAN). It is reported at the `D(fake)` call. Not flagged: the
generator's step (`D(fake)` alone in its loss), steps whose optimizer also updates `G`
(an encoder and a classifier trained together, cycle-consistency losses of two generators), or a
part of it (a VAE-GAN's encoder step, `RMSprop(gen.encoder.parameters())` beside `fake = gen(x)`),
`D(fake.detach())`, `D(fake.data)`, a detached copy passed on under another name
(`f = fake.detach(); D(f)`), fakes made under `no_grad`, and fakes of a generator whose
parameters the code last froze before the call (`G.requires_grad_(False)`, `for p in
G.parameters(): p.requires_grad = False`, or a helper of the file doing that loop for its
argument: `requires_grad(G, False)`, `self.set_requires_grad([netG], False)`); nor a call of a
discriminator the code last froze before it: that is the generator's step, even where its loss
also reads `D(real)` (a relativistic GAN's generator loss); nor the call whose input a gradient
penalty differentiates (`autograd.grad(outputs=D(x_hat), inputs=x_hat)`: that input must stay in
the graph). Where the same `D(fake)` output also feeds the generator's loss (one `D_fake` read
by both losses), the message says to give the discriminator's loss a call of its own on the
detached input instead: detaching this call's input would cut the generator off from its loss.

## Why is this bad?
The discriminator's loss only needs gradients for `D`'s parameters, but a graph that still
reaches `G` makes `backward()` run through the whole generator as well: a second backward
pass through `G` every step, and `D`'s loss gradients added into `G`'s `.grad`. Unless the
code zeroes `G`'s gradients between that backward and the generator's own step, the
generator is then updated with the sum of both losses' gradients, the second of which
pushes it the wrong way.

## Example
```python
import torch
import torch.nn.functional as F

def train(G, D, loader, opt_g, opt_d, z_dim=64):
    for real in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
```

## Use instead
```python
import torch
import torch.nn.functional as F

def train(G, D, loader, opt_g, opt_d, z_dim=64):
    for real in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
```

## Fix safety
The fix detaches the argument that carries the generator's graph (`D(fake.detach())`) and is
unsafe: the discriminator's values and gradients stay the same, but the generator's `.grad`
no longer receives the discriminator loss's contribution, which changes the generator's
update where the code did not zero it. No fix is offered where the same `D(fake)` output
also feeds another backward pass (the generator's loss), which needs it undetached.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.model import parameterless_layer
from gradguard.check.analysis.scopes import FUNCTION_TYPES
from gradguard.check.analysis.steps import (
    backward_roots,
    frozen_models,
    graph_sources,
    module_name,
    module_receiver,
    stepped_optimizer,
)
from gradguard.check.analysis.values import Kind
from gradguard.check.analysis.vocabulary import call_argument
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short

_PLAIN = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


@dataclass
class _Seen:
    groups: set = field(default_factory=set)
    reported: set = field(default_factory=set)


@dataclass
class _Step:
    """The backward passes of one update, between two optimizer steps."""

    backwards: list
    step: ast.Call
    optimizer: ast.expr


class DiscriminatorStepWithoutDetach(Rule):
    code = "GG207"
    name = "discriminator-step-without-detach"
    summary = "The discriminator's loss uses the generator's output undetached: backward runs through the generator"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    triggers = ("backward",)
    function_triggers = ("backward",)

    valid = (
        # Models and optimizers kept in dicts, the discriminator's fakes detached.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn

            model = {"generator": nn.Linear(64, 8), "discriminator": nn.Linear(8, 1)}
            optimizer = {
                "generator": torch.optim.Adam(model["generator"].parameters()),
                "discriminator": torch.optim.Adam(model["discriminator"].parameters()),
            }


            def fit(loader, z_dim=64):
                for real in loader:
                    fake = model["generator"](torch.randn(real.size(0), z_dim))
                    optimizer["discriminator"].zero_grad()
                    real_score = model["discriminator"](real)
                    fake_score = model["discriminator"](fake.detach())
                    loss_d = F.softplus(-real_score).mean() + F.softplus(fake_score).mean()
                    loss_d.backward()
                    optimizer["discriminator"].step()
                    optimizer["generator"].zero_grad()
                    loss_g = F.softplus(-model["discriminator"](fake)).mean()
                    loss_g.backward()
                    optimizer["generator"].step()
            """
        ),
        # A VAE-GAN's encoder step: its optimizer updates a part of the generator (`gen.encoder`), which
        # learns through the discriminator's features.
        Valid(
            """
            import torch
            from torch import nn


            class VAE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = nn.Linear(8, 4)
                    self.decoder = nn.Linear(4, 8)

                def forward(self, x):
                    return self.decoder(self.encoder(x))


            gen = VAE()
            discrim = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
            optim_E = torch.optim.RMSprop(gen.encoder.parameters())
            criterion = nn.BCELoss()
            for data in loader:
                rec = gen(data)
                real = discrim(data)
                fake = discrim(rec)
                err_enc = criterion(fake, torch.ones_like(fake)) + criterion(real, torch.zeros_like(real))
                optim_E.zero_grad()
                err_enc.backward()
                optim_E.step()
            """
        ),
        # The same step with the generator's output detached.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(8, 8)
                    self.cam = nn.Linear(8, 1)

                def forward(self, x):
                    out = self.body(x)
                    return out, self.cam(out), out.mean(1)


            class UGATIT:
                def __init__(self, D):
                    self.genA2B = Generator()
                    self.disGB = D
                    self.MSE_loss = nn.MSELoss()
                    self.optimizer_G = torch.optim.Adam(self.genA2B.parameters())
                    self.optimizer_D = torch.optim.Adam(self.disGB.parameters())

                def train(self, real_A, real_B):
                    self.optimizer_D.zero_grad()
                    fake_A2B, _, _ = self.genA2B(real_A)
                    real_logit = self.disGB(real_B)
                    fake_logit = self.disGB(fake_A2B.detach())
                    self.loss_D = self.MSE_loss(real_logit, torch.ones_like(real_logit)) + self.MSE_loss(
                        fake_logit, torch.zeros_like(fake_logit)
                    )
                    self.loss_D.backward()
                    self.optimizer_D.step()
            """
        ),
        # The same method detaching the generator's output.
        Valid(
            """
            import torch

            class Trainer:
                def __init__(self, G, D, z_dim):
                    self.G, self.D, self.z_dim = G, D, z_dim

                def train_D(self, images):
                    G_output = self.G(torch.randn(images.shape[0], self.z_dim)).detach()
                    DX_score = self.D(images)
                    DG_score = self.D(G_output)
                    return torch.mean(DG_score) - torch.mean(DX_score)

                def train(self, loader):
                    D_optimizer = torch.optim.Adam(self.D.parameters())
                    for images, _ in loader:
                        D_optimizer.zero_grad()
                        D_loss = self.train_D(images)
                        D_loss.backward()
                        D_optimizer.step()
            """
        ),
        # A conditional GAN joins labels to its samples along the features, not the batch: the
        # generator's step reads `D(torch.cat([fake, labels], 1))`, no real data.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def train(G, D, loader, opt_g, opt_d):
                for real, labels in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    opt_d.zero_grad()
                    d_loss = F.softplus(-D(torch.cat([real, labels], 1))).mean()
                    d_loss = d_loss + F.softplus(D(torch.cat([fake.detach(), labels], 1))).mean()
                    d_loss.backward()
                    opt_d.step()
                    opt_g.zero_grad()
                    g_loss = F.softplus(-D(torch.cat([fake, labels], 1))).mean()
                    g_loss.backward()
                    opt_g.step()
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F

            def train(G, D, loader, opt_g, opt_d):
                for real in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    opt_d.zero_grad()
                    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
                    d_loss.backward()
                    opt_d.step()
                    opt_g.zero_grad()
                    F.softplus(-D(fake)).mean().backward()
                    opt_g.step()
            """,
        ),
        # A detached copy passed on under another name.
        Valid(
            """
            import torch

            def train(netG, netD, loader, optD, optG, bce):
                for real, ones, zeros in loader:
                    fake = netG(torch.randn(64, 100))
                    fake_for_d = fake.detach()
                    optD.zero_grad()
                    (bce(netD(real), ones) + bce(netD(fake_for_d), zeros)).backward()
                    optD.step()
                    optG.zero_grad()
                    bce(netD(fake), ones).backward()
                    optG.step()
            """,
        ),
        # Fakes made under no_grad.
        Valid(
            """
            import torch

            def d_step(G, D, real, opt_d, opt_g):
                with torch.no_grad():
                    fake = G(torch.randn(real.size(0), 64))
                loss = D(fake).mean() - D(real).mean()
                loss.backward()
                opt_d.step()
                opt_g.step()
            """,
        ),
        # Cycle consistency: one optimizer updates both generators, each fed the other's output.
        Valid(
            """
            import itertools
            import torch
            import torch.nn.functional as F

            def train(G_AB, G_BA, D_A, loader, opt_d):
                opt_g = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()))
                for real_A, real_B in loader:
                    fake_B, fake_A = G_AB(real_A), G_BA(real_B)
                    cycle = F.l1_loss(G_BA(fake_B), real_A) + F.l1_loss(G_AB(fake_A), real_B)
                    identity = F.l1_loss(G_BA(real_A), real_A) + F.l1_loss(G_AB(real_B), real_B)
                    opt_g.zero_grad()
                    (cycle + identity).backward()
                    opt_g.step()
                    opt_d.zero_grad()
                    (D_A(real_A).mean() - D_A(fake_A.detach()).mean()).backward()
                    opt_d.step()
            """,
        ),
        # One optimizer: an encoder and a classifier trained together, on purpose.
        Valid(
            """
            import torch.nn.functional as F

            def train(encoder, classifier, loader, optimizer):
                for x, y, noise in loader:
                    optimizer.zero_grad()
                    loss = F.cross_entropy(classifier(encoder(x)), y) + F.cross_entropy(classifier(noise), y)
                    loss.backward()
                    optimizer.step()
            """,
        ),
    )
    invalid = (
        # Models and optimizers kept in dicts by name (a notebook's `model["generator"]`, `optimizer["discriminator"]`).
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn

            model = {"generator": nn.Linear(64, 8), "discriminator": nn.Linear(8, 1)}
            optimizer = {
                "generator": torch.optim.Adam(model["generator"].parameters()),
                "discriminator": torch.optim.Adam(model["discriminator"].parameters()),
            }


            def fit(loader, z_dim=64):
                for real in loader:
                    fake = model["generator"](torch.randn(real.size(0), z_dim))
                    optimizer["discriminator"].zero_grad()
                    real_score = model["discriminator"](real)
                    fake_score = model["discriminator"](fake)
                    loss_d = F.softplus(-real_score).mean() + F.softplus(fake_score).mean()
                    loss_d.backward()
                    optimizer["discriminator"].step()
                    optimizer["generator"].zero_grad()
                    loss_g = F.softplus(-model["discriminator"](fake)).mean()
                    loss_g.backward()
                    optimizer["generator"].step()
            """,
            line=17,
            column=22,
            message='`model["discriminator"](fake)` gives the discriminator\'s loss the output of `model["generator"](torch.randn(real.size(0), z_...` without `.detach()`: `loss_d.backward()` also runs through `model["generator"]` and adds to its gradients; pass `fake.detach()`',
            fixed="""
            import torch
            import torch.nn.functional as F
            from torch import nn

            model = {"generator": nn.Linear(64, 8), "discriminator": nn.Linear(8, 1)}
            optimizer = {
                "generator": torch.optim.Adam(model["generator"].parameters()),
                "discriminator": torch.optim.Adam(model["discriminator"].parameters()),
            }


            def fit(loader, z_dim=64):
                for real in loader:
                    fake = model["generator"](torch.randn(real.size(0), z_dim))
                    optimizer["discriminator"].zero_grad()
                    real_score = model["discriminator"](real)
                    fake_score = model["discriminator"](fake.detach())
                    loss_d = F.softplus(-real_score).mean() + F.softplus(fake_score).mean()
                    loss_d.backward()
                    optimizer["discriminator"].step()
                    optimizer["generator"].zero_grad()
                    loss_g = F.softplus(-model["discriminator"](fake)).mean()
                    loss_g.backward()
                    optimizer["generator"].step()
            """,
            unsafe=True,
        ),
        # The same losses stepped by the discriminator's optimizer: the generator's graph is run for nothing.
        Invalid(
            """
            import torch
            from torch import nn


            class VAE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = nn.Linear(8, 4)
                    self.decoder = nn.Linear(4, 8)

                def forward(self, x):
                    return self.decoder(self.encoder(x))


            gen = VAE()
            discrim = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
            optim_E = torch.optim.RMSprop(discrim.parameters())
            criterion = nn.BCELoss()
            for data in loader:
                rec = gen(data)
                real = discrim(data)
                fake = discrim(rec)
                err_enc = criterion(fake, torch.ones_like(fake)) + criterion(real, torch.zeros_like(real))
                optim_E.zero_grad()
                err_enc.backward()
                optim_E.step()
            """,
            line=22,
            column=12,
            message="`discrim(rec)` gives the discriminator's loss the output of `gen(data)` without `.detach()`: `err_enc.backward()` also runs through `gen` and adds to its gradients; pass `rec.detach()`",
        ),
        # A discriminator's loss kept on the instance (`self.loss_D`), fed a generator's output
        # (the first of the three tensors its `forward` returns).
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(8, 8)
                    self.cam = nn.Linear(8, 1)

                def forward(self, x):
                    out = self.body(x)
                    return out, self.cam(out), out.mean(1)


            class UGATIT:
                def __init__(self, D):
                    self.genA2B = Generator()
                    self.disGB = D
                    self.MSE_loss = nn.MSELoss()
                    self.optimizer_G = torch.optim.Adam(self.genA2B.parameters())
                    self.optimizer_D = torch.optim.Adam(self.disGB.parameters())

                def train(self, real_A, real_B):
                    self.optimizer_D.zero_grad()
                    fake_A2B, _, _ = self.genA2B(real_A)
                    real_logit = self.disGB(real_B)
                    fake_logit = self.disGB(fake_A2B)
                    self.loss_D = self.MSE_loss(real_logit, torch.ones_like(real_logit)) + self.MSE_loss(
                        fake_logit, torch.zeros_like(fake_logit)
                    )
                    self.loss_D.backward()
                    self.optimizer_D.step()
            """,
            line=28,
            column=22,
            message="`self.disGB(fake_A2B)` gives the discriminator's loss the output of `self.genA2B(real_A)` without "
            "`.detach()`: `self.loss_D.backward()` also runs through `self.genA2B` and adds to its gradients; pass "
            "`fake_A2B.detach()`",
            fixed="""
            import torch
            import torch.nn as nn


            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(8, 8)
                    self.cam = nn.Linear(8, 1)

                def forward(self, x):
                    out = self.body(x)
                    return out, self.cam(out), out.mean(1)


            class UGATIT:
                def __init__(self, D):
                    self.genA2B = Generator()
                    self.disGB = D
                    self.MSE_loss = nn.MSELoss()
                    self.optimizer_G = torch.optim.Adam(self.genA2B.parameters())
                    self.optimizer_D = torch.optim.Adam(self.disGB.parameters())

                def train(self, real_A, real_B):
                    self.optimizer_D.zero_grad()
                    fake_A2B, _, _ = self.genA2B(real_A)
                    real_logit = self.disGB(real_B)
                    fake_logit = self.disGB(fake_A2B.detach())
                    self.loss_D = self.MSE_loss(real_logit, torch.ones_like(real_logit)) + self.MSE_loss(
                        fake_logit, torch.zeros_like(fake_logit)
                    )
                    self.loss_D.backward()
                    self.optimizer_D.step()
            """,
            unsafe=True,
        ),
        # The discriminator's loss built by a method of the trainer, backpropagated and stepped
        # by its caller: the generator's output goes into it undetached.
        Invalid(
            """
            import torch

            class Trainer:
                def __init__(self, G, D, z_dim):
                    self.G, self.D, self.z_dim = G, D, z_dim

                def train_D(self, images):
                    G_output = self.G(torch.randn(images.shape[0], self.z_dim))
                    DX_score = self.D(images)
                    DG_score = self.D(G_output)
                    return torch.mean(DG_score) - torch.mean(DX_score)

                def train(self, loader):
                    D_optimizer = torch.optim.Adam(self.D.parameters())
                    for images, _ in loader:
                        D_optimizer.zero_grad()
                        D_loss = self.train_D(images)
                        D_loss.backward()
                        D_optimizer.step()
            """,
            line=10,
            column=20,
            message="`self.D(G_output)` gives the discriminator's loss the output of `self.G(torch.randn(images.shape[0], "
            "self.z_dim))` without `.detach()`: `D_loss.backward()` also runs through `self.G` and adds to its "
            "gradients; pass `G_output.detach()`",
        ),
        # Real and generated samples joined into one batch for the discriminator's step.
        Invalid(
            """
            import torch
            from torch import nn

            discriminator = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
            generator = nn.Sequential(nn.Linear(2, 2))
            loss_function = nn.BCELoss()
            optimizer_discriminator = torch.optim.Adam(discriminator.parameters())
            optimizer_generator = torch.optim.Adam(generator.parameters())

            for epoch in range(10):
                for real_samples, _ in train_loader:
                    generated_samples = generator(torch.randn((64, 2)))
                    all_samples = torch.cat((real_samples, generated_samples))
                    all_samples_labels = torch.cat((torch.ones((64, 1)), torch.zeros((64, 1))))

                    discriminator.zero_grad()
                    output_discriminator = discriminator(all_samples)
                    loss_discriminator = loss_function(output_discriminator, all_samples_labels)
                    loss_discriminator.backward()
                    optimizer_discriminator.step()

                    generator.zero_grad()
                    output_discriminator_generated = discriminator(generator(torch.randn((64, 2))))
                    loss_generator = loss_function(output_discriminator_generated, torch.ones((64, 1)))
                    loss_generator.backward()
                    optimizer_generator.step()
            """,
            line=17,
            column=32,
            message="`discriminator(all_samples)` gives the discriminator's loss the output of "
            "`generator(torch.randn((64, 2)))` without `.detach()`: `loss_discriminator.backward()` also runs "
            "through `generator` and adds to its gradients; pass `all_samples.detach()`",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            def train(G, D, loader, opt_g, opt_d):
                for real in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    opt_d.zero_grad()
                    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
                    d_loss.backward()
                    opt_d.step()
                    opt_g.zero_grad()
                    g_loss = F.softplus(-D(fake)).mean()
                    g_loss.backward()
                    opt_g.step()
            """,
            line=8,
            column=59,
            message="`D(fake)` gives the discriminator's loss the output of `G(torch.randn(real.size(0), 64))` without "
            "`.detach()`: `d_loss.backward()` also runs through `G` and adds to its gradients; pass `fake.detach()`",
            fixed="""
            import torch
            import torch.nn.functional as F

            def train(G, D, loader, opt_g, opt_d):
                for real in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    opt_d.zero_grad()
                    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
                    d_loss.backward()
                    opt_d.step()
                    opt_g.zero_grad()
                    g_loss = F.softplus(-D(fake)).mean()
                    g_loss.backward()
                    opt_g.step()
            """,
            unsafe=True,
        ),
        # WGAN critic: the real and fake terms backpropagated separately, then one step.
        Invalid(
            """
            import torch

            class WGAN:
                def __init__(self, G, D):
                    self.G, self.D = G, D
                    self.d_optimizer = torch.optim.RMSprop(self.D.parameters(), lr=5e-5)
                    self.g_optimizer = torch.optim.RMSprop(self.G.parameters(), lr=5e-5)

                def critic_step(self, images, one, mone):
                    self.D.zero_grad()
                    d_loss_real = self.D(images).mean()
                    d_loss_real.backward(one)
                    fake_images = self.G(torch.randn(64, 100, 1, 1))
                    d_loss_fake = self.D(fake_images).mean()
                    d_loss_fake.backward(mone)
                    self.d_optimizer.step()
            """,
            line=14,
            column=23,
            message="`self.D(fake_images)` gives the discriminator's loss the output of "
            "`self.G(torch.randn(64, 100, 1, 1))` without `.detach()`: `d_loss_fake.backward(mone)` also runs "
            "through `self.G` and adds to its gradients; pass `fake_images.detach()`",
            fixed="""
            import torch

            class WGAN:
                def __init__(self, G, D):
                    self.G, self.D = G, D
                    self.d_optimizer = torch.optim.RMSprop(self.D.parameters(), lr=5e-5)
                    self.g_optimizer = torch.optim.RMSprop(self.G.parameters(), lr=5e-5)

                def critic_step(self, images, one, mone):
                    self.D.zero_grad()
                    d_loss_real = self.D(images).mean()
                    d_loss_real.backward(one)
                    fake_images = self.G(torch.randn(64, 100, 1, 1))
                    d_loss_fake = self.D(fake_images.detach()).mean()
                    d_loss_fake.backward(mone)
                    self.d_optimizer.step()
            """,
            unsafe=True,
        ),
        # A gradient penalty: the critic's input `x_hat` is what `autograd.grad` differentiates
        # by, so `D(x_hat)` is not reported (detaching it there would raise); `D(fake)` is.
        Invalid(
            """
            import torch

            def critic_step(G, D, real, opt_d, opt_g):
                fake = G(torch.randn(real.size(0), 64))
                eps = torch.rand(real.size(0), 1)
                x_hat = eps * real + (1 - eps) * fake
                grad = torch.autograd.grad(outputs=D(x_hat).sum(), inputs=x_hat, create_graph=True)[0]
                loss = D(fake).mean() - D(real).mean() + ((grad.norm(2, dim=1) - 1) ** 2).mean()
                loss.backward()
                opt_d.step()
                opt_g.step()
            """,
            line=8,
            column=12,
            message="`D(fake)` gives the discriminator's loss the output of `G(torch.randn(real.size(0), 64))` without "
            "`.detach()`: `loss.backward()` also runs through `G` and adds to its gradients; pass `fake.detach()`",
        ),
        # One `d_fake` read by both losses: detaching `fake` in it would cut the generator off
        # from its own loss. No fix: the discriminator's loss needs a call of its own.
        Invalid(
            """
            import torch

            def train(G, D, loader, opt_g, opt_d):
                for real in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    d_real, d_fake = D(real), D(fake)
                    d_loss = -torch.mean(torch.log(d_real) + torch.log(1 - d_fake))
                    g_loss = torch.mean(torch.log(1 - d_fake))
                    opt_d.zero_grad()
                    opt_g.zero_grad()
                    d_loss.backward(retain_graph=True)
                    g_loss.backward()
                    opt_d.step()
                    opt_g.step()
            """,
            line=6,
            column=35,
            message="`D(fake)` gives the discriminator's loss the output of `G(torch.randn(real.size(0), 64))` without "
            "`.detach()`: `d_loss.backward(retain_graph=True)` also runs through `G` and adds to its gradients; the "
            "generator's loss reads this output too: give the discriminator's loss a call of its own on `fake.detach()`",
            fixed="""
            import torch

            def train(G, D, loader, opt_g, opt_d):
                for real in loader:
                    fake = G(torch.randn(real.size(0), 64))
                    d_real, d_fake = D(real), D(fake)
                    d_loss = -torch.mean(torch.log(d_real) + torch.log(1 - d_fake))
                    g_loss = torch.mean(torch.log(1 - d_fake))
                    opt_d.zero_grad()
                    opt_g.zero_grad()
                    d_loss.backward(retain_graph=True)
                    g_loss.backward()
                    opt_d.step()
                    opt_g.step()
            """,
            unsafe=True,
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        roots = backward_roots(ctx, node)
        if not roots:
            return
        scope = ctx.function if ctx.function is not None else ctx.tree
        if isinstance(scope, ast.Lambda):
            return
        seen = ctx.state(_Seen)
        update = _update_of(ctx, node, scope)
        if update is None or id(update.step) in seen.groups:
            return
        seen.groups.add(id(update.step))
        all_roots = [root for call in update.backwards for root in (backward_roots(ctx, call) or [])]
        by_model: dict = {}
        for call in graph_sources(ctx, all_roots):
            receiver = module_receiver(ctx, call)
            if receiver is not None and not parameterless_layer(
                ctx.model.value(receiver)
            ):  # a loss is no discriminator
                by_model.setdefault(module_name(ctx, receiver), []).append(call)
        # The models whose parameters the stepped optimizer updates, when the code shows them
        # (and names them as these calls do).
        ref = ctx.model.value(update.optimizer).ref
        updated = set(ref.split("+")) if ref else set()
        if not any(_updates(updated, shown) for shown in by_model):
            updated = set()
            if not _steps_two_optimizers(ctx, scope):
                return
        for shown, calls in by_model.items():
            if updated and not _updates(updated, shown):
                continue  # this step does not update that model
            if not any(_on_data(ctx, call) or _mixes_data(ctx, call) for call in calls):
                continue  # not the discriminator's step: it never sees real data here
            for call in calls:
                fake = _fed_by_other_model(ctx, call, shown)
                if fake is None or id(call) in seen.reported:
                    continue
                generator = module_name(ctx, module_receiver(ctx, fake[1]))
                if _updates(updated, generator):
                    continue  # the step updates the generator too: backpropagating through it is the point
                inner = next((s for s in ctx.model.enclosing(call) if isinstance(s, FUNCTION_TYPES)), scope)
                if _differentiated_input(ctx, fake[0], scope) or (
                    inner is not scope and _differentiated_input(ctx, fake[0], inner)
                ):
                    continue  # a gradient penalty: the input must stay in the graph
                if not updated and _fed_by_other_model_anywhere(ctx, by_model.get(generator, ()), generator):
                    continue  # each model is fed the other's output (a cycle loss): a generators' step
                seen.reported.add(id(call))
                self._report(ctx, call, fake, update, scope)

    def _report(self, ctx, call: ast.Call, fake: tuple, update: _Step, scope: ast.AST) -> None:
        argument, generator_call = fake
        generator = module_receiver(ctx, generator_call)
        backward = update.backwards[-1] if len(update.backwards) == 1 else _feeding_backward(ctx, call, update)
        detached = _detached_text(ctx, argument)
        shared = _feeds_another_backward(ctx, call, backward, scope)
        advice = (
            # detaching this call's input would cut the generator's loss off from the generator
            f"the generator's loss reads this output too: give the discriminator's loss a call of its own on "
            f"`{short(detached, 50)}`"
            if shared
            else f"pass `{short(detached, 50)}`"
        )
        ctx.report(
            self.code,
            call,
            f"`{short(ctx.text(call), 50)}` gives the discriminator's loss the output of "
            f"`{short(ctx.text(generator_call), 50)}` without `.detach()`: `{short(ctx.text(backward), 50)}` also runs "
            f"through `{short(ctx.text(generator), 30)}` and adds to its gradients; {advice}",
            None if shared else _fix(ctx, call, argument),
        )


def _updates(updated: set, shown: str) -> bool:
    """Whether an optimizer over the parameters of the models ``updated`` names updates the model
    shown as ``shown``: the same one, a part of it (``RMSprop(gen.encoder.parameters())`` beside
    ``gen(x)``), or a whole it is part of (``Adam(gen.parameters())`` beside ``gen.decoder(z)``)."""
    return any(u == shown or u.startswith(shown + ".") or shown.startswith(u + ".") for u in updated)


def _update_of(ctx, backward: ast.Call, scope: ast.AST) -> Optional[_Step]:
    """The backward passes in the same loop body as ``backward`` between the optimizer step
    before it and the one after it, and that next step; None without a step after it."""
    loop = ctx.innermost_loop(backward, scope)
    region = loop if loop is not None else scope
    calls = [c for c in ctx.model.uses(scope).calls if _within(c, region)]
    steps = sorted((c for c in calls if stepped_optimizer(ctx, c) is not None), key=_position)
    at = _position(backward)
    before = [s for s in steps if _position(s) < at]
    after = [s for s in steps if _position(s) > at]
    if not after:
        return None
    low = _position(before[-1]) if before else (0, 0)
    high = _position(after[0])
    backwards = sorted(
        (c for c in calls if low < _position(c) < high and backward_roots(ctx, c)),
        key=_position,
    )
    if ctx.model.grad_mode(backward) is not GradMode.ENABLED:
        return None
    return _Step(backwards, after[0], stepped_optimizer(ctx, after[0]))


def _steps_two_optimizers(ctx, scope: ast.AST) -> bool:
    stepped = set()
    for call in ctx.model.uses(scope).calls:
        optimizer = stepped_optimizer(ctx, call)
        if optimizer is not None:
            stepped.add(ctx.text(optimizer))
    return len(stepped) >= 2


def _on_data(ctx, call: ast.Call) -> bool:
    """A model call on inputs that no model made and that carry no graph (real data)."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not arguments or graph_sources(ctx, arguments):
        return False
    return not any(ctx.model.value(a).carries_grad for a in arguments)


# Torch functions joining tensors into one batch.
_JOINING = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.vstack"})


def _mixes_data(ctx, call: ast.Call) -> bool:
    """A model call on one batch joining real data and another model's output along the batch
    dimension (``D(torch.cat((real_samples, generated_samples)))``, or through a name bound to
    that join): the discriminator sees real data there too."""
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        joined = argument
        if isinstance(joined, ast.Name):
            bindings = [b for b in ctx.model.definitions(joined) if b.value is not None]
            if len(bindings) != 1:
                continue
            joined = bindings[0].value
        if not (isinstance(joined, ast.Call) and ctx.imports.qualified_name(joined.func) in _JOINING and joined.args):
            continue
        items = joined.args[0]
        if not isinstance(items, (ast.Tuple, ast.List)):
            continue
        dim = call_argument(joined, 1, "dim")
        if dim is not None and not (isinstance(dim, ast.Constant) and dim.value == 0):
            continue  # joined along features (`torch.cat([fake, labels], 1)`): a conditional input, not a batch
        made = [bool(graph_sources(ctx, [item])) for item in items.elts]
        if any(made) and any(
            not was_made and not ctx.model.value(item).carries_grad for item, was_made in zip(items.elts, made)
        ):
            return True
    return False


def _holds_graph(value) -> bool:
    """A tensor with autograd history, or a tuple or list holding one (`fake, cam_logit, heatmap =
    self.genA2B(real_A)` of a generator whose `forward` returns three tensors)."""
    if value.carries_grad:
        return True
    parts = (*(value.items or ()), *((value.elem,) if value.elem is not None else ()))
    return value.kind is Kind.CONTAINER and any(part.carries_grad for part in parts)


def _fed_by_other_model(ctx, call: ast.Call, shown: str) -> Optional[tuple]:
    """(argument, the other model's call) when an argument of ``call`` carries the graph of a
    call of another model."""
    if ctx.model.grad_mode(call) is not GradMode.ENABLED:
        return None
    frozen: Optional[frozenset] = None
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if not ctx.model.value(argument).carries_grad:
            continue
        for source in graph_sources(ctx, [argument]):
            receiver = module_receiver(ctx, source)
            if receiver is None or module_name(ctx, receiver) == shown or not _holds_graph(ctx.model.value(source)):
                continue
            if frozen is None:
                frozen = frozen_models(ctx, ctx.function if ctx.function is not None else ctx.tree, call)
            if shown in frozen:
                # the discriminator frozen before the call: the generator's step, whose loss
                # may read `D(real)` too (a relativistic GAN)
                return None
            if module_name(ctx, receiver) not in frozen:  # a frozen model records no graph of its own
                return argument, source
    return None


def _differentiated_input(ctx, argument: ast.AST, scope: ast.AST) -> bool:
    """Whether ``torch.autograd.grad`` differentiates with respect to the input itself (a
    gradient penalty: ``autograd.grad(outputs=D(x_hat), inputs=x_hat, ...)``): detaching it
    there would take it out of the graph that call needs (it raises)."""
    shown = ctx.text(argument)
    for call in ctx.model.uses(scope).calls:
        if ctx.model.imports.qualified_name(call.func) == "torch.autograd.grad":
            inputs = call_argument(call, 1, "inputs")
            if inputs is None:
                continue
            parts = inputs.elts if isinstance(inputs, (ast.Tuple, ast.List)) else [inputs]
            if any(ctx.text(part) == shown for part in parts):
                return True
    return False


def _feeds_another_backward(ctx, call: ast.Call, backward: ast.Call, scope: ast.AST) -> bool:
    """Whether the discriminator's output also reaches another backward pass than the
    discriminator loss's (one ``D_fake = D(G(z))`` read by both losses: the generator's
    gradient flows through it, and detaching its input would cut it; stepping between the two
    backward passes is GG208's)."""
    for other in ctx.model.uses(scope).calls:
        if other is backward:
            continue
        roots = backward_roots(ctx, other)
        if roots and any(source is call for source in graph_sources(ctx, roots)):
            return True
    return False


def _fed_by_other_model_anywhere(ctx, calls, shown: str) -> bool:
    return any(_fed_by_other_model(ctx, call, shown) is not None for call in calls)


def _feeding_backward(ctx, call: ast.Call, update: _Step) -> ast.Call:
    for backward in update.backwards:
        if any(source is call for source in graph_sources(ctx, backward_roots(ctx, backward) or [])):
            return backward
    return update.backwards[-1]


def _detached_text(ctx, argument: ast.expr) -> str:
    text = ctx.text(argument)
    return f"{text}.detach()" if isinstance(argument, _PLAIN) else f"({text}).detach()"


def _fix(ctx, call: ast.Call, argument: ast.expr) -> Fix:
    """``D(fake.detach())`` (not where the call's output also feeds another step's backward:
    ``_feeds_another_backward``)."""
    src = ctx.source
    start, end = src.node_start(argument), src.node_end(argument)
    if isinstance(argument, _PLAIN):
        edits = (Edit(end, end, ".detach()"),)
    else:
        edits = (Edit(start, start, "("), Edit(end, end, ").detach()"))
    return Fix(Applicability.UNSAFE, "Detach the generator's output for the discriminator's loss", edits)


def _within(node: ast.AST, region: ast.AST) -> bool:
    if isinstance(region, ast.Module):
        return True
    return region.lineno <= node.lineno <= (region.end_lineno or region.lineno)  # type: ignore[attr-defined]


def _position(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]
