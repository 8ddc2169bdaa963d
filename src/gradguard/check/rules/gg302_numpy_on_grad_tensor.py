"""`.numpy()` on a tensor that requires grad.

## What it does
Flags `.numpy()` called on a tensor that carries a graph (a model output, a loss, a
parameter, or a value computed from them) outside any `no_grad` / `inference_mode` region,
when nothing in the chain detaches it first (`.detach()`, `.data`, `.item()`).
`numpy(force=True)` is not flagged: it detaches by itself. Nor is a name the code binds more than
once and knows to carry a graph only by its uses (`n.backward(g)` of a later `n = d * 2`, after
`n = N[0]` of an array was shown): those uses may be of its other value. A name last bound, before the
use and in the same block, to a value without grad (`y = torch.from_numpy(a)`) is not
flagged even where it held a graph-carrying value earlier, nor is the branch that runs only
when the tensor needs no grad (`t.detach().numpy() if t.requires_grad else t.numpy()`,
`if not t.requires_grad: ...`). The output of torch layers without parameters (`nn.ReLU()`,
`nn.Tanh()`, also taken from a list of them, torchaudio's feature transforms, `MelSpectrogram(...)`, and an
`nn.Sequential` of such layers and of modules of the file without parameters) on a tensor without grad carries no
graph, nor
does that of a module whose every parameter the code froze before (`embed.weight.requires_grad =
False` of an `nn.Embedding`, `model.requires_grad_(False)`). Of
three or more results unpacked from a model the code does not show (`rois, roi_indices,
anchor = self.model_train(x)`), none is known to carry a graph: such models mix outputs with
index and anchor tensors built without one. Nor is an item unpacked from a module of unknown
class where a module class of the file or the run returns, from its `forward`, a tuple of that
length whose item there is drawn from a distribution (`actions = dist.sample()`, then `return
actions, log_prob, entropy, value`): `actions.cpu().numpy()` of a rollout works. In a file that may compute with another framework
(it imports JAX, Flax or Keras, or TensorFlow without torch or with its training:
`tf.GradientTape`, `keras`), a value known to carry a graph only by its names (`loss_v =
mel_loss(y, model(x))`) is not flagged: it may be TensorFlow's, whose `.numpy()` is how values are
read.

## Why is this bad?
`Tensor.numpy()` refuses tensors that require grad: it raises
`RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy()
instead.` Moving the tensor first (`.cpu().numpy()`) does not help: the copy still requires
grad.

## Example
```python
import torch

def predict(model, x):
    out = model(x)
    return out.cpu().numpy()
```

## Use instead
```python
import torch

def predict(model, x):
    out = model(x)
    return out.detach().cpu().numpy()
```

## Fix safety
The fix inserts `.detach()` just before `.numpy()` and is safe: the call it replaces can only
raise when grad is enabled, and under `no_grad` `.detach()` changes nothing (same storage,
same values).
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.steps import frozen_global, frozen_models
from gradguard.check.analysis.values import Kind
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Invalid, Rule, Valid
from gradguard.common.text import short


class NumpyOnGradTensor(Rule):
    code = "GG302"
    name = "numpy-on-grad-tensor"
    summary = "`.numpy()` on a tensor that requires grad raises RuntimeError"
    fix_availability = FixAvailability.SAFE
    severity = Severity.ERROR
    triggers = (".numpy(",)
    function_triggers = ("numpy",)

    valid = (
        # kymatio's scattering transform: a module of fixed wavelet filters (buffers, no parameters), run on
        # data without grad: its output requires none.
        Valid(
            """
            import numpy as np
            import torch
            from kymatio import Scattering1D


            class ScatteringFeatures:
                def __init__(self):
                    self.scattering = Scattering1D(5, 200, 2)

                def extract(self, samples):
                    x = torch.from_numpy(np.asarray(samples)).float()
                    features = self.scattering.forward(x)
                    return features.numpy()
            """
        ),
        # A name bound again later (notebook cells in order): the `backward` of its later value says nothing
        # of the array-made value shown first.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            from normals import coords_to_normals

            N = coords_to_normals(points)
            n = N[0]
            plt.imshow(n.permute(1, 2, 0).numpy())

            d = torch.ones(3, 4, 4)
            d.requires_grad = True
            n = d * 2
            n.backward(torch.ones_like(n))
            """
        ),
        # A spectrogram from an `nn.Sequential` of torchaudio's feature transforms and a module of
        # the file without parameters: no graph, `.numpy()` runs.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn
            import torchaudio


            class NormalizeDBRange(nn.Module):
                def __init__(self, min_db=-60.0, max_db=40.0):
                    super().__init__()
                    self.min_db = min_db
                    self.max_db = max_db

                def forward(self, x):
                    return (torch.clamp(x, self.min_db, self.max_db) - self.min_db) / (self.max_db - self.min_db)


            transform = nn.Sequential(
                torchaudio.transforms.MelSpectrogram(sample_rate=22050, n_mels=128),
                torchaudio.transforms.AmplitudeToDB(),
                NormalizeDBRange(-60, 40),
            )
            waveform, sample_rate = torchaudio.load("song.wav")
            spectrogram = transform(waveform)
            plt.imshow(spectrogram.squeeze().numpy())
            """
        ),
        # An item of what a module of unknown class returns, where a module class of the run draws
        # that item (`actions = dist.sample()`): it may carry no graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, states, actions=None):
                    dist = torch.distributions.Normal(self.fc(states), 1.0)
                    if actions is None:
                        actions = dist.sample()
                    log_prob = dist.log_prob(actions)
                    return actions, log_prob


            def rollout(agent: nn.Module, env, states):
                actions, log_probs = agent.forward(states)
                return env.step(actions.cpu().numpy()), log_probs
            """
        ),
        # A notebook's global model frozen before the function that runs it: its output has no graph.
        Valid(
            """
            import torch
            import torchvision

            VGG16 = torchvision.models.vgg16(weights="DEFAULT")
            for param in VGG16.parameters():
                param.requires_grad = False


            def VGG16_predict(img):
                pred = VGG16(img.unsqueeze(0))
                return pred.numpy().argmax()
            """
        ),
        # A policy whose output is a distribution: `sample()` draws under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mean = nn.Linear(4, 2)

                def forward(self, obs):
                    return torch.distributions.Normal(self.mean(obs), 1.0)


            def act(policy: Policy, ob):
                d = policy(torch.from_numpy(ob).float())
                ac = d.sample((1,)).cpu()
                return ac.numpy()
            """
        ),
        # A leaf whose `requires_grad` is switched off before `.numpy()`: nothing to detach.
        Valid(
            """
            import torch

            x = torch.randn(100, requires_grad=True)
            x.requires_grad = False
            y = x.numpy()

            w = torch.randn(3, requires_grad=True)
            w.requires_grad_(False)
            v = w.numpy()
            """
        ),
        # The model hands back its loss when given labels, else the predicted indices: called
        # without labels, what it returns may be indices, which never require grad.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(32, 64, batch_first=True)
                    self.classifier = nn.Linear(64, 9)
                    self.loss = nn.CrossEntropyLoss()

                def forward(self, text, label=None):
                    out, _ = self.lstm(text)
                    pred = self.classifier(out)
                    if label is not None:
                        return self.loss(pred.reshape(-1, 9), label.reshape(-1))
                    return torch.argmax(pred, dim=-1).reshape(-1)

            model = Tagger()
            for batch_data, batch_label in dev_loader:
                pred = model(batch_data)
                tags = pred.cpu().numpy().tolist()
            """
        ),
        # A grid of generated images made under `no_grad` holds no graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torchvision.utils as vutils

            G = nn.Sequential(nn.Linear(8, 784), nn.Tanh())
            with torch.no_grad():
                samples = G(torch.randn(16, 8)).view(-1, 1, 28, 28)
            grid = vutils.make_grid(samples, nrow=4)
            image = grid.permute(1, 2, 0).numpy()
            """
        ),
        # The output of an embedding whose only parameter the code froze (pretrained vectors).
        Valid(
            """
            import numpy as np
            import torch
            import torch.nn as nn

            vectors = np.random.rand(100, 8).astype("float32")
            embed = nn.Embedding(100, 8)
            embed.weight.data.copy_(torch.from_numpy(vectors))
            embed.weight.requires_grad = False
            word_vectors = [embed(torch.LongTensor([i])).squeeze(0).numpy() for i in range(5)]
            """
        ),
        # A module of the file with a buffer and no parameters, over a tensor without graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            class PositionalEncoding(nn.Module):
                def __init__(self, num_frequencies=6):
                    super().__init__()
                    self.register_buffer("bands", 2.0 ** torch.arange(num_frequencies))

                def forward(self, x):
                    return torch.cat([torch.sin(band * x) for band in self.bands], dim=-1)


            encoding = PositionalEncoding()
            encoded = encoding(torch.linspace(-1, 1, 200).unsqueeze(-1))
            print(encoded[:, 0].numpy()[:3])
            """,
        ),
        # TensorFlow's losses in a notebook that also imports torch (for a vocoder): known as
        # losses by their names alone, they may be TensorFlow's, whose `.numpy()` is how values
        # are read.
        Valid(
            """
            import tensorflow as tf
            import torch
            from tts_losses import *

            vocoder = torch.load("waveglow.pt")
            model = tf.keras.Sequential([tf.keras.layers.Dense(80)])
            for x, y in batches:
                with tf.GradientTape() as tape:
                    loss_mel = mel_loss(y, model(x))
                grads = tape.gradient(loss_mel, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                if step % 20 == 0:
                    loss_v = mel_loss(y, model(x))
                    history.append(loss_v.numpy())
            """,
        ),
        Valid(
            """
            import torch

            def to_numpy(tensor):
                return tensor.detach().cpu().numpy() if tensor.requires_grad else tensor.cpu().numpy()

            x = torch.rand(1, 3, requires_grad=True)
            print(to_numpy(x))
            """
        ),
        Valid(
            """
            import torch

            def f(t):
                return torch.pow(2 * t, 2)

            x = torch.tensor([2.0], requires_grad=True)
            y = f(x)
            y.backward()
            x_t = torch.linspace(-3, 3, 100)
            y = f(x_t)
            print(y.numpy())
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                return model(x).detach().cpu().numpy()
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def f(model, x):
                return model(x).cpu().numpy()
            """,
        ),
        Valid(
            """
            import torch

            @torch.inference_mode
            def f(model, x):
                return model(x).numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.no_grad():
                    out = model(x)
                    return out.numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(batch):
                return batch['image'].numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                return model(x).numpy(force=True)
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                pred = model(x).argmax(1)
                return pred.numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x, loss_fn, y):
                loss = loss_fn(model(x), y)
                return loss.item(), loss.data.numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.inference_mode():
                    out = model(x)
                probs = out.softmax(1)
                return probs.numpy()
            """,
        ),
        Valid(
            """
            import torch

            def f(model, x):
                with torch.set_grad_enabled(flag):
                    return model(x).numpy()
            """,
        ),
        Valid(
            """
            import numpy as np
            import torch

            x = torch.tensor(1., requires_grad=True)
            y = 2 * x
            y.backward()
            y = torch.from_numpy(np.ones(2))
            z = y.numpy()
            """,
        ),
        # A loss class whose `__call__` returns its parts detached: what is summed from them
        # holds no graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            class DetailLoss(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bce = nn.BCEWithLogitsLoss()

                def __call__(self, predict, label):
                    loss = self.bce(predict, label)
                    return loss, torch.stack([loss, loss]).detach()


            model = nn.Linear(4, 4)
            criterion = DetailLoss()
            optimizer = torch.optim.Adam(model.parameters())
            for image, label in loader:
                total = torch.zeros(2)
                loss, detail = criterion(model(image), label)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += detail
                print(total.cpu().numpy())
            """
        ),
        # A Grad-CAM wrapper's own `backward(ids=...)`: a keyword `Tensor.backward` does not take,
        # so no sign that `gbp` is a tensor with a graph (its `generate()` returns an input's `.grad`).
        Valid(
            """
            import torch
            from .wrappers import GuidedBackPropagation


            def explain(model, image, ids):
                gbp = GuidedBackPropagation(model=model)
                gbp.forward(image)
                gbp.backward(ids=ids)
                return gbp.generate().cpu().numpy()
            """
        ),
    )
    invalid = (
        # Bound once, and backpropagated: the value shown requires grad.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            from normals import surface_normals

            n = surface_normals(depth)
            n.backward(torch.ones_like(n))
            plt.imshow(n.permute(1, 2, 0).numpy())
            """,
            line=7,
            column=12,
            message="`n.permute(1, 2, 0)` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import matplotlib.pyplot as plt
            import torch
            from normals import surface_normals

            n = surface_normals(depth)
            n.backward(torch.ones_like(n))
            plt.imshow(n.permute(1, 2, 0).detach().numpy())
            """,
        ),
        # The same pipeline with a convolution in it: the spectrogram requires grad.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn
            import torchaudio


            class NormalizeDBRange(nn.Module):
                def __init__(self, min_db=-60.0, max_db=40.0):
                    super().__init__()
                    self.min_db = min_db
                    self.max_db = max_db

                def forward(self, x):
                    return (torch.clamp(x, self.min_db, self.max_db) - self.min_db) / (self.max_db - self.min_db)


            transform = nn.Sequential(
                torchaudio.transforms.MelSpectrogram(sample_rate=22050, n_mels=128),
                torchaudio.transforms.AmplitudeToDB(),
                NormalizeDBRange(-60, 40),
                nn.Conv2d(1, 1, 3, padding=1),
            )
            waveform, sample_rate = torchaudio.load("song.wav")
            spectrogram = transform(waveform)
            plt.imshow(spectrogram.squeeze().numpy())
            """,
            line=25,
            column=12,
            message="`spectrogram.squeeze()` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn
            import torchaudio


            class NormalizeDBRange(nn.Module):
                def __init__(self, min_db=-60.0, max_db=40.0):
                    super().__init__()
                    self.min_db = min_db
                    self.max_db = max_db

                def forward(self, x):
                    return (torch.clamp(x, self.min_db, self.max_db) - self.min_db) / (self.max_db - self.min_db)


            transform = nn.Sequential(
                torchaudio.transforms.MelSpectrogram(sample_rate=22050, n_mels=128),
                torchaudio.transforms.AmplitudeToDB(),
                NormalizeDBRange(-60, 40),
                nn.Conv2d(1, 1, 3, padding=1),
            )
            waveform, sample_rate = torchaudio.load("song.wav")
            spectrogram = transform(waveform)
            plt.imshow(spectrogram.squeeze().detach().numpy())
            """,
        ),
        # The same item where no module class of the run draws it: the output carries its graph.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, states, actions=None):
                    dist = torch.distributions.Normal(self.fc(states), 1.0)
                    if actions is None:
                        actions = dist.mean
                    log_prob = dist.log_prob(actions)
                    return actions, log_prob


            def rollout(agent: nn.Module, env, states):
                actions, log_probs = agent.forward(states)
                return env.step(actions.cpu().numpy()), log_probs
            """,
            line=20,
            column=21,
            message="`actions.cpu()` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
        ),
        # The same global given a new layer after the freeze (transfer learning): the new layer
        # trains, so the output has a graph.
        Invalid(
            """
            import torch
            import torchvision
            from torch import nn

            model = torchvision.models.resnet18(weights="DEFAULT")
            for p in model.parameters():
                p.requires_grad = False
            model.fc = nn.Linear(512, 10)


            def predict(img):
                out = model(img.unsqueeze(0))
                return out.numpy().argmax()
            """,
            line=13,
            column=12,
            message="`out` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch
            import torchvision
            from torch import nn

            model = torchvision.models.resnet18(weights="DEFAULT")
            for p in model.parameters():
                p.requires_grad = False
            model.fc = nn.Linear(512, 10)


            def predict(img):
                out = model(img.unsqueeze(0))
                return out.detach().numpy().argmax()
            """,
        ),
        # The same policy sampled with `rsample()`, the reparameterised draw: it keeps the graph.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mean = nn.Linear(4, 2)

                def forward(self, obs):
                    return torch.distributions.Normal(self.mean(obs), 1.0)


            def act(policy: Policy, ob):
                d = policy(torch.from_numpy(ob).float())
                ac = d.rsample((1,)).cpu()
                return ac.numpy()
            """,
            line=17,
            column=12,
            message="`ac` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mean = nn.Linear(4, 2)

                def forward(self, obs):
                    return torch.distributions.Normal(self.mean(obs), 1.0)


            def act(policy: Policy, ob):
                d = policy(torch.from_numpy(ob).float())
                ac = d.rsample((1,)).cpu()
                return ac.detach().numpy()
            """,
        ),
        # The same leaf with `requires_grad` switched back on.
        Invalid(
            """
            import torch

            w = torch.randn(3, requires_grad=True)
            w.requires_grad_(False)
            w.requires_grad = True
            v = w.numpy()
            """,
            line=6,
            column=5,
            message="`w` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch

            w = torch.randn(3, requires_grad=True)
            w.requires_grad_(False)
            w.requires_grad = True
            v = w.detach().numpy()
            """,
        ),
        # The same tagger handing back its scores when given no labels: they carry the graph.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(32, 64, batch_first=True)
                    self.classifier = nn.Linear(64, 9)
                    self.loss = nn.CrossEntropyLoss()

                def forward(self, text, label=None):
                    out, _ = self.lstm(text)
                    pred = self.classifier(out)
                    if label is not None:
                        return self.loss(pred.reshape(-1, 9), label.reshape(-1))
                    return pred.softmax(dim=-1)

            model = Tagger()
            for batch_data, batch_label in dev_loader:
                pred = model(batch_data)
                scores = pred.cpu().numpy()
            """,
            line=21,
            column=14,
            message="`pred.cpu()` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch
            import torch.nn as nn

            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(32, 64, batch_first=True)
                    self.classifier = nn.Linear(64, 9)
                    self.loss = nn.CrossEntropyLoss()

                def forward(self, text, label=None):
                    out, _ = self.lstm(text)
                    pred = self.classifier(out)
                    if label is not None:
                        return self.loss(pred.reshape(-1, 9), label.reshape(-1))
                    return pred.softmax(dim=-1)

            model = Tagger()
            for batch_data, batch_label in dev_loader:
                pred = model(batch_data)
                scores = pred.cpu().detach().numpy()
            """,
        ),
        # A grid of generated images keeps the generator's graph: torchvision's `make_grid` stacks them.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torchvision.utils as vutils

            G = nn.Sequential(nn.Linear(8, 784), nn.Tanh())
            samples = G(torch.randn(16, 8)).view(-1, 1, 28, 28)
            grid = vutils.make_grid(samples, nrow=4)
            image = grid.permute(1, 2, 0).numpy()
            """,
            line=8,
            column=9,
            message="`grid.permute(1, 2, 0)` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
        ),
        # The same embedding left trainable.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn

            vectors = np.random.rand(100, 8).astype("float32")
            embed = nn.Embedding(100, 8)
            embed.weight.data.copy_(torch.from_numpy(vectors))

            word_vectors = [embed(torch.LongTensor([i])).squeeze(0).numpy() for i in range(5)]
            """,
            line=9,
            column=17,
            message="`embed(torch.LongTensor([i])).squeeze(0)` requires grad: `.numpy()` on it raises RuntimeError; "
            "call `.detach()` first",
        ),
        # The twin of the buffer-only module: this one has a layer with parameters.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class PositionalEncoding(nn.Module):
                def __init__(self, num_frequencies=6):
                    super().__init__()
                    self.register_buffer("bands", 2.0 ** torch.arange(num_frequencies))
                    self.scale = nn.Linear(1, 1)

                def forward(self, x):
                    return self.scale(x) + torch.cat([torch.sin(band * x) for band in self.bands], dim=-1)


            encoding = PositionalEncoding()
            encoded = encoding(torch.linspace(-1, 1, 200).unsqueeze(-1))
            print(encoded[:, 0].numpy()[:3])
            """,
            line=17,
            column=7,
            message="`encoded[:, 0]` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch
            import torch.nn as nn


            class PositionalEncoding(nn.Module):
                def __init__(self, num_frequencies=6):
                    super().__init__()
                    self.register_buffer("bands", 2.0 ** torch.arange(num_frequencies))
                    self.scale = nn.Linear(1, 1)

                def forward(self, x):
                    return self.scale(x) + torch.cat([torch.sin(band * x) for band in self.bands], dim=-1)


            encoding = PositionalEncoding()
            encoded = encoding(torch.linspace(-1, 1, 200).unsqueeze(-1))
            print(encoded[:, 0].detach().numpy()[:3])
            """,
        ),
        # TensorFlow imported for TensorBoard's summaries alone: the loss is torch's.
        Invalid(
            """
            import tensorflow as tf
            import torch

            writer = tf.summary.create_file_writer("logs")
            model = torch.nn.Linear(4, 1)
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(model(x), y)
                history.append(loss.numpy())
            """,
            line=8,
            column=20,
            message="`loss` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
        ),
        Invalid(
            """
            import torch

            def f(model, x):
                out = model(x)
                return out.cpu().numpy()
            """,
            line=5,
            column=12,
            message="`out.cpu()` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch

            def f(model, x):
                out = model(x)
                return out.cpu().detach().numpy()
            """,
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            def f(model, x):
                probs = F.softmax(model(x), dim=1)
                return probs.numpy()
            """,
            line=6,
            column=12,
            message="`probs` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch
            import torch.nn.functional as F

            def f(model, x):
                probs = F.softmax(model(x), dim=1)
                return probs.detach().numpy()
            """,
        ),
        Invalid(
            """
            import torch

            def dump(model):
                for p in model.parameters():
                    print(p.numpy())
            """,
            line=5,
            column=15,
            message="`p` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch

            def dump(model):
                for p in model.parameters():
                    print(p.detach().numpy())
            """,
        ),
        Invalid(
            """
            import torch

            def f(layer):
                w = (layer.weight
                     .cpu())  # keep
                return w.numpy()
            """,
            line=6,
            column=12,
            message="`w` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fixed="""
            import torch

            def f(layer):
                w = (layer.weight
                     .cpu())  # keep
                return w.detach().numpy()
            """,
        ),
        # The same parts returned with their graph: the running total requires grad.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class DetailLoss(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bce = nn.BCEWithLogitsLoss()

                def __call__(self, predict, label):
                    loss = self.bce(predict, label)
                    return loss, torch.stack([loss, loss])


            model = nn.Linear(4, 4)
            criterion = DetailLoss()
            optimizer = torch.optim.Adam(model.parameters())
            for image, label in loader:
                total = torch.zeros(2)
                loss, detail = criterion(model(image), label)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += detail
                print(total.cpu().numpy())
            """,
            line=25,
            column=11,
            message="`total.cpu()` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr != "numpy" or node.args:
            return
        if any(k.arg == "force" or k.arg is None for k in node.keywords):
            return
        receiver = func.value
        if ctx.model.grad_mode(node) is not GradMode.ENABLED:
            return
        value = ctx.model.value(receiver)
        if not value.carries_grad or (value.weak and ctx.model.other_framework_models):
            return  # `loss.numpy()` of a TensorFlow loss known by its name alone
        if value.weak and _rebound_name(ctx, receiver):
            # `n = N[0]` (a cell's array), then `n.numpy()`; `n = d * 2` and `n.backward(g)` in later
            # cells: what the uses show of a name bound again may be of its other value
            return
        if (
            _guarded_by_requires_grad(ctx, node, receiver)
            or _output_of_frozen_module(ctx, node, receiver)
            or _drawn_by_some_module_class(ctx, receiver)
        ):
            return
        end = ctx.source.node_end(receiver)
        fix = Fix(Applicability.SAFE, "Insert `.detach()` before `.numpy()`", (Edit(end, end, ".detach()"),))
        ctx.report(
            self.code,
            node,
            f"`{short(ctx.text(receiver))}` requires grad: `.numpy()` on it raises RuntimeError; call `.detach()` first",
            fix,
        )


def _rebound_name(ctx, receiver: ast.AST) -> bool:
    """Whether the name a receiver reads (``n`` of ``n.permute(1, 2, 0)``) is bound more than
    once in its scope."""
    node = receiver
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    if not isinstance(node, ast.Name):
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    return not ctx.model.bound_once(scope, node.id)


def _output_of_frozen_module(ctx, call: ast.Call, receiver: ast.AST) -> bool:
    """Whether what ``.numpy()`` reads (or the one binding of the name it reads) is the output of
    a module the code froze before (every parameter: ``embed.weight.requires_grad = False`` of an
    ``nn.Embedding`` holding pretrained vectors; in a function, also a global the module's code
    froze before defining it and gives no new layer), run on inputs without grad: no graph,
    `.numpy()` works."""
    node = receiver
    if isinstance(node, ast.Name):
        # `pred = VGG16(img)`, then `pred.numpy()`: the one binding this use sees
        bindings = ctx.model.definitions(node)
        if len(bindings) != 1 or not isinstance(bindings[0].node, ast.Assign) or bindings[0].value is None:
            return False
        node = bindings[0].value
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Call) and ctx.model.value(node.func).kind is Kind.MODULE:
            scope = ctx.function if ctx.function is not None else ctx.tree
            frozen = ctx.text(node.func) in frozen_models(ctx, scope, call) or (
                # a global the module's code froze before the function (a notebook's `VGG16`)
                isinstance(node.func, ast.Name) and frozen_global(ctx, scope, node.func.id)
            )
            return frozen and not any(ctx.model.value(arg).carries_grad for arg in node.args)
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


def _drawn_by_some_module_class(ctx, receiver: ast.AST) -> bool:
    """Whether what ``.numpy()`` reads is an item of the tuple a module of a class the code does
    not show returns (``actions, log_probs, _, values = agent.forward(states)``) where a module
    class of the run draws that item (``actions = dist.sample()``): it may carry no graph, and
    `.numpy()` may work."""
    base = _base(receiver)
    if not isinstance(base, ast.Name):
        return False
    bindings = ctx.model.definitions(base)
    if (
        len(bindings) != 1
        or not isinstance(bindings[0].node, ast.Assign)
        or not isinstance(bindings[0].value, ast.Call)
    ):
        return False
    target = bindings[0].node.targets[0]
    if not isinstance(target, (ast.Tuple, ast.List)):
        return False
    position = next(
        (i for i, item in enumerate(target.elts) if isinstance(item, ast.Name) and item.id == base.id), None
    )
    callee = bindings[0].value.func
    if isinstance(callee, ast.Attribute) and callee.attr == "forward":
        callee = callee.value
    module = ctx.model.value(callee)
    if position is None or module.kind is not Kind.MODULE or module.ref is not None:
        return False
    return ctx.model.some_module_draws(len(target.elts), position)


def _base(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _guarded_by_requires_grad(ctx, call: ast.Call, receiver: ast.AST) -> bool:
    """``t.detach().numpy() if t.requires_grad else t.numpy()``: the branch taken only when
    the tensor needs no grad (also ``if not t.requires_grad:``)."""
    base = _base(receiver)
    if not isinstance(base, ast.Name):
        return False
    child: ast.AST = call
    parent = ctx.parent(call)
    while parent is not None and not isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)
    ):
        if isinstance(parent, (ast.If, ast.IfExp)):
            test = parent.test
            negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            if negated:
                test = test.operand  # type: ignore[attr-defined]
            if (
                isinstance(test, ast.Attribute)
                and test.attr == "requires_grad"
                and isinstance(test.value, ast.Name)
                and test.value.id == base.id
            ):
                in_else = child is parent.orelse or (isinstance(parent.orelse, list) and child in parent.orelse)
                in_body = child is parent.body or (isinstance(parent.body, list) and child in parent.body)
                if (in_else and not negated) or (in_body and negated):
                    return True
        child, parent = parent, ctx.parent(parent)
    return False
