"""Evaluation under `no_grad` of a model left in training mode.

## What it does
Flags a call of a model inside `with torch.no_grad():` / `torch.inference_mode()` (or a
function decorated with them; also a call of a method of the model's class that runs its
layers, `model.predict(x)`) when the code shows all of:
- the model's class has `Dropout` or `BatchNorm` layers (also those of the modules its constructor is handed,
  `Head(Backbone())`, `Seq2Seq(encoder, decoder)`; also those a module-level function of the file
  builds for it, `self.features = make_layers(cfg, batch_norm=True)`, leaving out those built only under
  `if batch_norm:` where the call leaves the flag false; a recurrent layer built with dropout
  between its layers, `nn.LSTM(d, h, n, dropout=0.2)`, counts as dropout; its own layers, not one only stored in an
  attribute its code never reads, those of the module
  classes it builds, of the file or of another file of the run: where two classes of the run
  share a name, the one its file imports; a torch layer, or a torchvision classification model:
  `resnet18(...)` holds batch norm, `vgg16(...)` dropout (not where the code replaces the
  classifier that holds it by one without dropout, `vgg16.classifier = nn.Sequential(nn.Linear(...),
  nn.Linear(...))`), and so does its `VGG` class built directly, `torchvision.models.VGG(layers,
  num_classes=10)`; a module class building a
  torchvision model, whole or in part, `nn.Sequential(*list(resnet.children())[:-3])` (also a class
  of another file calling a builder its file imports by name, `from torchvision.models import resnet18`), holds
  its batch norm, not its dropout, which sits in the classifier a part often leaves out, and
  nothing where the class switches something to eval mode itself: `models.resnet50(...).eval()`; a
  torchvision model another file of the run builds at module level and this file imports,
  `from nets import mnist_resnet18`);
- the model is in training mode on every path to the call: built and never switched, or
  switched back with `.train()`; no `.eval()` / `.train(False)` of it anywhere in the file (also at
  the end of a chain of moves, `self.model.to(device).eval()`: `nn.Module.to` returns the module)
  other than on the code's paths to the call, and none of the module evaluated: in a script, a
  `net.train(False)` in a function that ran before `net = Net16()` built the module afresh
  switched the one it replaced; in a method that builds `self.model` afresh before the call
  (`self.model = self.init_model()`), with no call between of a method switching it, another
  method's `self.model.eval()` switched the module that was there before; in a method,
  `self.encoder` of an instance the file switches (`model.eval()` switches every submodule; the
  instance, not a module it keeps: `self.model.eval()` in the class's own methods); a method that switches `self.model` to eval mode keeps it
  there through calls of the class's methods that switch no mode (`self.accuracy(out, y)`: no `.train(`
  or `.eval(` in it, no call of another method) and of attributes that are no methods
  (`self.criterion(out, y)`), in a class with no base but `object`; not through others; and it is
  not handed before the
  call to a function that may switch it (a function of the file that calls `.eval()`, or a function
  of another file); nor is a parameter of a function that switches a module-level name to eval mode
  every call of the function hands it (`tinypointnet.eval()` in `train(model, ...)`, run only as
  `train(tinypointnet, ...)`);
- the call evaluates: it runs in a function named for evaluation (`evaluate`, `validate`,
  `test`, `predict`, ...) or in one called only from such functions (`run_test` handing its
  loaded `netG` to `get_profile_pred(netG, X_test, ...)`), inside a loop over validation or
  test data, or on such data (also
  known by its names alone: `model(test_categorical, test_cont)`, `net(X_test)`, unless each
  is made from a shape alone: `test_input = torch.randn(1, 3, 224, 224)` is a shape check).
A module its function builds from a class of the run, neither trains nor loads, and runs on
made-up input (`encoder = Encoder(); out = encoder(torch.randn(4, 1, 28, 28))` in
`test_encoder()`) is a check that the code runs: an untrained model's statistics are nothing to
keep. Models without dropout or batch norm, whose class the run does not show (nor one of torchvision's
classification models), and `no_grad` code that
is not evaluation (computing GAN fakes or RL targets) are not flagged; nor is a region that
itself calls `.train()` on the model (re-estimating batch-norm statistics). A model is reported once
per function (one fix), and in a script's or notebook's own code once per top-level statement (each
`with torch.no_grad():` block or cell is evaluated, and fixed, on its own).

## Why is this bad?
`no_grad` only stops autograd from recording: it does not switch layers to evaluation
behaviour. In training mode dropout still zeroes a random part of the activations and batch
norm normalises with the statistics of the evaluation batch (and updates its running
averages with them), so validation accuracy is noisy and lower than the model's, changes
from run to run, and evaluating changes the model. `model.eval()` switches those layers;
`model.train()` switches them back for the next epoch.

## Example
```python
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(x)

model = Net()

def evaluate(loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct
```

## Use instead
```python
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(x)

model = Net()

def evaluate(loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct
```

## Fix safety
No fix is offered: where to switch the model back to training mode (and whether the caller
expects it in one mode or the other) is the program's choice.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from typing import Optional

from gradguard.check.analysis.grad_mode import GradState
from gradguard.check.analysis.model import split_of_text
from gradguard.check.analysis.project import current as current_project
from gradguard.check.analysis.scopes import walk_in_order
from gradguard.check.analysis.values import Kind, Role, Split
from gradguard.check.analysis.vocabulary import (
    BATCHNORM_MODULES,
    DROPOUT_MODULES,
    EVALUATION_FUNCTION_WORDS,
    MODULE_MOVES,
    SHAPE_FACTORIES,
    TRAIN_MODE_MODULES,
    call_argument,
)
from gradguard.check.model import FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

_LOOPS = (ast.For, ast.AsyncFor)
_BUILTINS = frozenset(dir(builtins))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_WORDS_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass
class _Reported:
    seen: set = field(default_factory=set)  # (scope id, receiver text)


class NoGradWithoutEval(Rule):
    code = "GG209"
    name = "no-grad-without-eval"
    summary = "Evaluation under `no_grad` of a model with dropout or batch norm still in training mode"
    fix_availability = FixAvailability.NONE
    severity = Severity.WARNING
    triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    function_triggers = ("no_grad", "inference_mode", "set_grad_enabled")
    function_names = ("torch.no_grad", "torch.inference_mode")

    valid = (
        # The model another method switched is the one evaluated: callers may run that method
        # first; and a method that builds the model afresh, then calls the method switching it.
        Valid(
            """
            import torch
            from torchvision import models


            class Learner:
                def __init__(self):
                    self.model = models.resnet18()

                def test(self, batches):
                    with torch.no_grad():
                        for x, y in batches:
                            print(self.model(x).argmax(1) == y)

                def reload(self, path):
                    self.model = models.resnet18()
                    self.model.load_state_dict(torch.load(path))
                    self.prepare()
                    with torch.no_grad():
                        return self.model(torch.load("x.pt")).argmax(1)

                def prepare(self):
                    self.model.eval()
            """
        ),
        # The same backbone without dropout: nothing in the model depends on its mode.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Backbone(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)
                    self.drop = nn.Identity()

                def forward(self, x):
                    return self.drop(self.lin(x))


            class Head(nn.Module):
                def __init__(self, backbone):
                    super().__init__()
                    self.backbone = backbone
                    self.out = nn.Linear(8, 3)

                def forward(self, x):
                    return self.out(self.backbone(x))


            def fit(train_loader, valid_loader, epochs):
                model = Head(Backbone())
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(epochs):
                    model.train()
                    for x, y in train_loader:
                        opt.zero_grad()
                        nn.functional.cross_entropy(model(x), y).backward()
                        opt.step()
                    with torch.no_grad():
                        for x, y in valid_loader:
                            print(model(x).argmax(-1))
            """
        ),
        # The same helper called without batch norm: the layers it builds have no training mode.
        Valid(
            """
            import torch
            import torch.nn as nn


            def make_layers(cfg, batch_norm=False):
                layers = []
                channels = 3
                for width in cfg:
                    layers += [nn.Conv2d(channels, width, 3, padding=1)]
                    if batch_norm:
                        layers += [nn.BatchNorm2d(width)]
                    layers += [nn.ReLU(inplace=True)]
                    channels = width
                return nn.Sequential(*layers)


            class CSRNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.frontend = make_layers([64, 64], batch_norm=False)
                    self.output = nn.Conv2d(64, 1, 1)

                def forward(self, x):
                    return self.output(self.frontend(x))


            def infer(image):
                model = CSRNet()
                model.load_state_dict(torch.load("csrnet.pth"))
                with torch.set_grad_enabled(False):
                    density = model(image.unsqueeze(0))
                return density.sum().item()
            """
        ),
        # The same recurrent layer without dropout: training mode changes nothing there.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.LSTM(8, 16, 3, batch_first=True, dropout=0.0)
                    self.fc = nn.Linear(16, 4)

                def forward(self, x):
                    out, _ = self.rnn(x)
                    return self.fc(out)


            def main(train_loader, valid_loader, crit):
                model = Net()
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(10):
                    for x, y in train_loader:
                        opt.zero_grad()
                        crit(model(x), y).backward()
                        opt.step()
                    with torch.no_grad():
                        for x, y in valid_loader:
                            print(crit(model(x), y).item())
            """
        ),
        # The function switches the global it is always handed (`train(descriptor, ...)`) by the global's name:
        # the module evaluated is in eval mode.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Descriptor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv1d(3, 64, 1)
                    self.bn = nn.BatchNorm1d(64)

                def forward(self, x):
                    return self.bn(self.conv(x)).max(dim=2)[0]


            def train(model, train_loader, valid_loader, epochs=30):
                criterion = nn.TripletMarginLoss()
                for epoch in range(epochs):
                    model.train()
                    for anchor, positive, negative in train_loader:
                        optimizer.zero_grad()
                        loss = criterion(model(anchor), model(positive), model(negative))
                        loss.backward()
                        optimizer.step()
                    descriptor.eval()
                    with torch.no_grad():
                        for anchor, positive, negative in valid_loader:
                            loss = criterion(model(anchor), model(positive), model(negative))
                            print(loss.item())


            if __name__ == "__main__":
                descriptor = Descriptor()
                optimizer = torch.optim.Adam(descriptor.parameters(), lr=5e-4)
                train(descriptor, train_loader, valid_loader)
            """
        ),
        # The same batch after `model.eval()`.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import datasets, transforms

            model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 10))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_loader = torch.utils.data.DataLoader(datasets.MNIST(".", train=True, transform=transforms.ToTensor()), batch_size=64)
            testloader = torch.utils.data.DataLoader(datasets.MNIST(".", train=False, transform=transforms.ToTensor()), batch_size=4)
            for x, y in train_loader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()

            model.eval()
            with torch.no_grad():
                images, true_labels = next(iter(testloader))
                y_pred = torch.argmax(model(images), 1)
                print(y_pred.tolist())
            """
        ),
        # A VGG whose classifier (where its dropout sits) the code replaces by one without dropout: nothing
        # behaves differently in training mode.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models

            vgg16 = models.vgg16(pretrained=True)
            vgg16.classifier = nn.Sequential(nn.Linear(25088, 256), nn.Linear(256, 3))
            optimizer = torch.optim.SGD(vgg16.parameters(), lr=0.01)
            vgg16.train()
            for x, y in trainloader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(vgg16(x), y)
                loss.backward()
                optimizer.step()

            with torch.no_grad():
                for images, labels in testloader:
                    print(vgg16(images).argmax(1))
            """
        ),
        # The same model switched to eval mode after loading.
        Valid(
            """
            import torch
            from torch import nn


            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                    self.dropout = nn.Dropout(0.2)

                def forward(self, x):
                    return self.fc(self.dropout(x))

                def predict(self, x):
                    return self.forward(x).argmax(-1)


            def predict_tags(model, sequence):
                with torch.no_grad():
                    return model.predict(sequence)


            if __name__ == "__main__":
                model = Tagger()
                model.load_state_dict(torch.load("tagger.pth"))
                model.eval()
                print(predict_tags(model, torch.zeros(1, 8)))
            """
        ),
        # A helper method of the class called in the loop, switching no module's mode: the model stays
        # in the eval mode the method set.
        Valid(
            """
            import torch
            from torch import nn


            class Trainer:
                def __init__(self):
                    self.model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.2))

                def accuracy(self, preds, tags):
                    return (preds.argmax(dim=1) == tags).float().mean()

                def evaluate(self, iterator):
                    self.model.eval()
                    total = 0.0
                    with torch.no_grad():
                        for batch, tags in iterator:
                            predictions = self.model(batch)
                            total += self.accuracy(predictions, tags).item()
                    return total
            """
        ),
        # A check that an untrained module runs on made-up input: its statistics are nothing to keep.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())

                def forward(self, x):
                    return self.body(x)


            def test_encoder():
                encoder = Encoder()
                x = torch.randn(4, 1, 28, 28)
                with torch.no_grad():
                    out = encoder(x)
                print(out.shape)
            """
        ),
        # A method run after `model.eval()`, which switches `self.target` with the rest of the model.
        Valid(
            """
            import torch
            import torch.nn as nn


            class BYOL(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.online = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))
                    self.target = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))

                def forward(self, x):
                    return self.online(x)

                def embeddings(self, x):
                    with torch.no_grad():
                        return self.target(x)


            def test_byol():
                model = BYOL()
                x = torch.randn(4, 8)
                model.train()
                print(model(x).sum().item())
                model.eval()
                print(model.embeddings(x).shape)
            """
        ),
        # A torchvision backbone the class switches to eval mode itself: its batch norm layers use
        # their running averages whatever mode the outer module is in.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models


            class Detector(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.backbone = models.resnet50(pretrained=True).eval()

                def forward(self, x):
                    return self.backbone(x)


            def infer(images):
                model = Detector()
                with torch.no_grad():
                    for image in images:
                        print(model(image).argmax(1))
            """
        ),
        # A dropout layer built but never run (its one use in `forward` is commented out), beside a
        # pretrained backbone of another library: no layer of the file's model changes with the mode.
        Valid(
            """
            import torch
            from torch import nn
            from transformers import AutoModel


            class Model(nn.Module):
                def __init__(self, name):
                    super().__init__()
                    self.backbone = AutoModel.from_pretrained(name)
                    self.dropout = nn.Dropout(0.1)
                    self.head = nn.Linear(768, 2)

                def forward(self, ids):
                    out = self.backbone(ids)[0]
                    # out = self.dropout(out)
                    return self.head(out)


            def predict(model, loader):
                preds = []
                with torch.no_grad():
                    for ids in loader:
                        preds.append(model(ids).argmax(-1))
                return preds


            model = Model("xlm-roberta-base")
            print(predict(model, test_loader))
            """
        ),
        # Switched at the end of a chain of moves: `nn.Module.to` returns the module itself.
        Valid(
            """
            import torch
            from torch import nn


            class Classifier:
                def __init__(self, path):
                    self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                    self.model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))
                    self.model.load_state_dict(torch.load(path, map_location=self.device))
                    self.model.to(self.device).eval()

                @torch.no_grad()
                def predict(self, image):
                    return self.model(image.to(self.device)).argmax(1)
            """
        ),
        # The trainer switches the model it holds to eval mode before handing it to the helper:
        # the helper's `model` is in eval mode (the flow follows `self.model.eval()`).
        Valid(
            """
            import torch
            from torch import nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.fc(self.drop(x))

            class Trainer:
                def __init__(self):
                    self.model = Net()

                def train(self, train_iter, test_iter):
                    for x, y in train_iter:
                        self.model(x).sum().backward()
                    self.model.eval()
                    print(self.evaluate(test_iter, self.model))
                    self.model.train()

                @staticmethod
                def evaluate(data_iter, model):
                    with torch.no_grad():
                        return sum(model(x).argmax(1).eq(y).sum().item() for x, y in data_iter)
            """
        ),
        # The same helper also called from the training loop: not only evaluation.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.drop(self.fc(x))

            def profile_pred(model, patches):
                out = []
                for patch in patches:
                    with torch.no_grad():
                        out.append(model(patch).numpy())
                return out

            def run_test(net, patches):
                return profile_pred(net, patches)

            def train(net, patches, opt):
                targets = profile_pred(net, patches)
                loss = net(patches[0]).sum()
                loss.backward()
                opt.step()
            """
        ),
        # The same decoder switched to evaluation mode before the script hands it on.
        Valid(
            """
            import torch
            import torch.nn as nn

            class AttnDecoderRNN(nn.Module):
                def __init__(self, hidden_size, output_size, dropout_p=0.1):
                    super().__init__()
                    self.embedding = nn.Embedding(output_size, hidden_size)
                    self.dropout = nn.Dropout(dropout_p)
                    self.gru = nn.GRU(hidden_size, hidden_size)
                    self.out = nn.Linear(hidden_size, output_size)

                def forward(self, input, hidden):
                    output, hidden = self.gru(self.dropout(self.embedding(input)), hidden)
                    return self.out(output[0]), hidden

            def evaluate(decoder, max_length=10):
                with torch.no_grad():
                    decoder_input = torch.tensor([[0]])
                    decoder_hidden = torch.zeros(1, 1, 256)
                    words = []
                    for di in range(max_length):
                        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
                        topv, topi = decoder_output.topk(1)
                        words.append(topi.item())
                        decoder_input = topi.squeeze().detach()
                    return words

            def evaluateRandomly(decoder, n=10):
                for i in range(n):
                    print(evaluate(decoder))

            attn_decoder1 = AttnDecoderRNN(256, 100, dropout_p=0.1)
            attn_decoder1.eval()
            evaluateRandomly(attn_decoder1)
            """
        ),
        # Models kept in a dict and switched in a loop over it: their mode is not followed.
        Valid(
            """
            import torch
            import torch.nn as nn


            def eval_mode(context):
                for key in context:
                    if hasattr(context[key], "eval"):
                        context[key].eval()


            def eval_step(context, x):
                with torch.no_grad():
                    vae = context["vae"]
                    return vae(x)


            def run(x):
                vae = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
                context = {"vae": vae}
                eval_mode(context)
                return eval_step(context, x)
            """
        ),
        # A torchvision model switched to eval mode where it is made.
        Valid(
            """
            import torch
            import torchvision

            model = torchvision.models.resnet18(weights="DEFAULT").eval()


            def evaluate_testset(test_loader):
                correct = 0
                with torch.no_grad():
                    for images, labels in test_loader:
                        correct += (model(images).argmax(1) == labels).sum().item()
                return correct
            """
        ),
        # A shape check on an input made from a shape alone, however it is named.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Classifier(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 2)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.fc(self.drop(x))


            if __name__ == "__main__":
                model = Classifier()
                test_input = torch.randn(1, 8)
                with torch.no_grad():
                    output = model(test_input)
                    print(output.shape)
            """
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2), nn.Linear(8, 2))

            def evaluate(loader):
                model.eval()
                with torch.no_grad():
                    return [model(x) for x, _ in loader]
            """,
        ),
        # No dropout, no batch norm: training and evaluation mode compute the same.
        Valid(
            """
            import torch
            import torch.nn as nn

            model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))

            def evaluate(loader):
                with torch.no_grad():
                    return [model(x) for x, _ in loader]
            """,
        ),
        # Not evaluation: the generator's fakes for the discriminator's step.
        Valid(
            """
            import torch
            import torch.nn as nn

            G = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 2))

            def d_step(D, real, opt_d):
                with torch.no_grad():
                    fake = G(torch.randn(real.size(0), 16))
                loss = D(fake).mean() - D(real).mean()
                loss.backward()
                opt_d.step()
            """,
        ),
        # Switched to eval mode by a function of the file before the region.
        Valid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))

            def freeze(m):
                m.eval()

            freeze(net)
            with torch.no_grad():
                for x in test_loader:
                    net(x)
            """,
        ),
        # Re-estimating batch-norm statistics on purpose.
        Valid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))

            def validate_bn(loader):
                with torch.no_grad():
                    net.train()
                    for x in loader:
                        net(x)
            """,
        ),
        # A method running `self.forward(x)` under `no_grad`, called after `model.eval()`: its
        # callers switch the instance.
        Valid(
            """
            import torch
            from torch import nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))

                def predict(self, x):
                    with torch.no_grad():
                        return torch.argmax(self.forward(x), dim=1)

                def forward(self, x):
                    return self.body(x)


            def classify(path, xs):
                model = Net()
                model.load_state_dict(torch.load(path))
                model.eval()
                return [model.predict(x) for x in xs]
            """
        ),
        Valid(
            # one of the classes the branches pick holds no dropout and no batch norm: not known
            """
            import torch
            import torch.nn as nn

            class LSTMNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(4, 8, batch_first=True)
                    self.drop = nn.Dropout(0.2)
                    self.head = nn.Linear(8, 1)

                def forward(self, x):
                    return self.head(self.drop(self.lstm(x)[0][:, -1]))

            class LinearNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Linear(4, 1)

                def forward(self, x):
                    return self.head(x[:, -1])

            def predict_sequence(model, window, steps):
                predictions = []
                with torch.no_grad():
                    for _ in range(steps):
                        predictions.append(model(window)[0].cpu().numpy())
                return predictions

            model = LSTMNet() if choice == "LSTM" else LinearNet()
            model.load_state_dict(torch.load("model.pth"))
            predictions = predict_sequence(model, window, 24)
            """
        ),
    )
    invalid = (
        # A method builds the model afresh before evaluating it: another method's
        # `self.model.eval()` switched the module that was there before, not this one.
        Invalid(
            """
            import torch
            from torchvision import models


            class Learner:
                def test(self, path, batches):
                    self.model = models.resnet18()
                    self.model.load_state_dict(torch.load(path))
                    with torch.no_grad():
                        for x, y in batches:
                            print(self.model(x).argmax(1) == y)

                def validate(self, batches):
                    self.model.eval()
                    with torch.no_grad():
                        for x, y in batches:
                            print(self.model(x).argmax(1) == y)
            """,
            line=11,
            column=23,
            message="`self.model` is evaluated under `no_grad` in training mode: its batch norm layers normalise "
            "with the batch's statistics and update their running averages; call `self.model.eval()` before "
            "evaluating (and `self.model.train()` to resume training)",
        ),
        # The dropout sits in a backbone the model's constructor is handed.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Backbone(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)
                    self.drop = nn.Dropout(0.1)

                def forward(self, x):
                    return self.drop(self.lin(x))


            class Head(nn.Module):
                def __init__(self, backbone):
                    super().__init__()
                    self.backbone = backbone
                    self.out = nn.Linear(8, 3)

                def forward(self, x):
                    return self.out(self.backbone(x))


            def fit(train_loader, valid_loader, epochs):
                model = Head(Backbone())
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(epochs):
                    model.train()
                    for x, y in train_loader:
                        opt.zero_grad()
                        nn.functional.cross_entropy(model(x), y).backward()
                        opt.step()
                    with torch.no_grad():
                        for x, y in valid_loader:
                            print(model(x).argmax(-1))
            """,
            line=36,
            column=23,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # Batch norm built by a helper of the file (VGG's `make_layers(cfg, batch_norm=True)`), the
        # model run with grad switched off by `set_grad_enabled(False)`.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def make_layers(cfg, batch_norm=False):
                layers = []
                channels = 3
                for width in cfg:
                    layers += [nn.Conv2d(channels, width, 3, padding=1)]
                    if batch_norm:
                        layers += [nn.BatchNorm2d(width)]
                    layers += [nn.ReLU(inplace=True)]
                    channels = width
                return nn.Sequential(*layers)


            class CSRNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.frontend = make_layers([64, 64], batch_norm=True)
                    self.output = nn.Conv2d(64, 1, 1)

                def forward(self, x):
                    return self.output(self.frontend(x))


            def infer(image):
                model = CSRNet()
                model.load_state_dict(torch.load("csrnet.pth"))
                with torch.set_grad_enabled(False):
                    density = model(image.unsqueeze(0))
                return density.sum().item()
            """,
            line=31,
            column=19,
            message="`model` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the "
            "batch's statistics and update their running averages; call `model.eval()` before evaluating (and "
            "`model.train()` to resume training)",
        ),
        # A recurrent layer with dropout between its layers (`dropout=0.2`), in training mode.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.LSTM(8, 16, 3, batch_first=True, dropout=0.2)
                    self.fc = nn.Linear(16, 4)

                def forward(self, x):
                    out, _ = self.rnn(x)
                    return self.fc(out)


            def main(train_loader, valid_loader, crit):
                model = Net()
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(10):
                    for x, y in train_loader:
                        opt.zero_grad()
                        crit(model(x), y).backward()
                        opt.step()
                    with torch.no_grad():
                        for x, y in valid_loader:
                            print(crit(model(x), y).item())
            """,
            line=26,
            column=28,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # The same function handed another module than the one it switches.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Descriptor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv1d(3, 64, 1)
                    self.bn = nn.BatchNorm1d(64)

                def forward(self, x):
                    return self.bn(self.conv(x)).max(dim=2)[0]


            def train(model, train_loader, valid_loader, epochs=30):
                criterion = nn.TripletMarginLoss()
                for epoch in range(epochs):
                    model.train()
                    for anchor, positive, negative in train_loader:
                        optimizer.zero_grad()
                        loss = criterion(model(anchor), model(positive), model(negative))
                        loss.backward()
                        optimizer.step()
                    descriptor.eval()
                    with torch.no_grad():
                        for anchor, positive, negative in valid_loader:
                            loss = criterion(model(anchor), model(positive), model(negative))
                            print(loss.item())


            if __name__ == "__main__":
                descriptor = Descriptor()
                optimizer = torch.optim.Adam(descriptor.parameters(), lr=5e-4)
                other = Descriptor()
                train(other, train_loader, valid_loader)
            """,
            line=27,
            column=34,
            message="`model` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the batch's statistics and update their running averages; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # A batch taken from the test loader with `next(iter(...))`: test data, evaluated in training mode.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import datasets, transforms

            model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 10))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_loader = torch.utils.data.DataLoader(datasets.MNIST(".", train=True, transform=transforms.ToTensor()), batch_size=64)
            testloader = torch.utils.data.DataLoader(datasets.MNIST(".", train=False, transform=transforms.ToTensor()), batch_size=4)
            for x, y in train_loader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()

            with torch.no_grad():
                images, true_labels = next(iter(testloader))
                y_pred = torch.argmax(model(images), 1)
                print(y_pred.tolist())
            """,
            line=17,
            column=27,
            message="`model` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the batch's statistics and update their running averages; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # The same VGG with only its last layer replaced: its dropout is still there.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models

            vgg16 = models.vgg16(pretrained=True)
            vgg16.classifier[6] = nn.Linear(4096, 3)
            optimizer = torch.optim.SGD(vgg16.parameters(), lr=0.01)
            vgg16.train()
            for x, y in trainloader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(vgg16(x), y)
                loss.backward()
                optimizer.step()

            with torch.no_grad():
                for images, labels in testloader:
                    print(vgg16(images).argmax(1))
            """,
            line=17,
            column=15,
            message="`vgg16` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; call `vgg16.eval()` before evaluating (and `vgg16.train()` to resume training)",
        ),
        # A script's two evaluation blocks on a model left in training mode: each block is a site of its own
        # (each notebook cell is run, and fixed, on its own).
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models

            resnet18 = models.resnet18(pretrained=True)
            resnet18.fc = nn.Linear(512, 3)
            optimizer = torch.optim.SGD(resnet18.parameters(), lr=0.01)
            resnet18.train()
            for x, y in trainloader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(resnet18(x), y)
                loss.backward()
                optimizer.step()

            with torch.no_grad():
                for data in validloader:
                    images, labels = data
                    outputs = resnet18(images)
                    print(outputs.argmax(1))

            with torch.no_grad():
                for data in testloader:
                    images, labels = data
                    outputs = resnet18(images)
                    print(outputs.argmax(1))
            """,
            line=18,
            column=19,
            message="`resnet18` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the batch's statistics and update their running averages; call `resnet18.eval()` before evaluating (and `resnet18.train()` to resume training)",
            also=(
                Finding(
                    24,
                    19,
                    "`resnet18` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the batch's statistics and update their running averages; call `resnet18.eval()` before evaluating (and `resnet18.train()` to resume training)",
                ),
            ),
        ),
        # A method of the module class that runs its layers (`model.predict(x)`), on a loaded model
        # never switched to eval mode.
        Invalid(
            """
            import torch
            from torch import nn


            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                    self.dropout = nn.Dropout(0.2)

                def forward(self, x):
                    return self.fc(self.dropout(x))

                def predict(self, x):
                    return self.forward(x).argmax(-1)


            def predict_tags(model, sequence):
                with torch.no_grad():
                    return model.predict(sequence)


            if __name__ == "__main__":
                model = Tagger()
                model.load_state_dict(torch.load("tagger.pth"))
                print(predict_tags(model, torch.zeros(1, 8)))
            """,
            line=20,
            column=16,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # The same helper switching the model back to training mode: from the second batch on it is.
        Invalid(
            """
            import torch
            from torch import nn


            class Trainer:
                def __init__(self):
                    self.model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.2))

                def accuracy(self, preds, tags):
                    self.model.train()
                    return (preds.argmax(dim=1) == tags).float().mean()

                def evaluate(self, iterator):
                    self.model.eval()
                    total = 0.0
                    with torch.no_grad():
                        for batch, tags in iterator:
                            predictions = self.model(batch)
                            total += self.accuracy(predictions, tags).item()
                    return total
            """,
            line=18,
            column=31,
            message="`self.model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; call `self.model.eval()` before evaluating (and `self.model.train()` to resume training)",
        ),
        # `net.train(False)` ran in `train()` on the module trained there; the one evaluated is built afresh after it.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(784, 64), nn.Dropout(0.5), nn.Linear(64, 10))

                def forward(self, x):
                    return self.body(x)


            net = Net()
            optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
            criterion = nn.CrossEntropyLoss()


            def train(epochs):
                for epoch in range(epochs):
                    for phase in ["train", "val"]:
                        if phase == "train":
                            net.train(True)
                        else:
                            net.train(False)
                        for images, labels in loaders[phase]:
                            loss = criterion(net(images), labels)
                            if phase == "train":
                                optimizer.zero_grad()
                                loss.backward()
                                optimizer.step()


            train(10)
            torch.save(net.state_dict(), "net.pth")
            net = Net()
            net.load_state_dict(torch.load("net.pth"))
            with torch.no_grad():
                for images, labels in test_loader:
                    print(net(images).argmax(1))
            """,
            line=40,
            column=15,
            message="`net` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; call `net.eval()` before evaluating (and `net.train()` to resume training)",
        ),
        # A detector keeping part of a torchvision ResNet (its batch norm layers with it), run under
        # `no_grad` without `.eval()`.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models


            class Detector(nn.Module):
                def __init__(self):
                    super().__init__()
                    resnet = models.resnet50(pretrained=True)
                    self.features = nn.Sequential(*list(resnet.children())[:-3])
                    self.head = nn.Conv2d(1024, 10, 1)

                def forward(self, x):
                    return self.head(self.features(x))


            def infer(images):
                model = Detector()
                with torch.no_grad():
                    for image in images:
                        print(model(image).argmax(1))
            """,
            line=21,
            column=19,
            message="`model` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the "
            "batch's statistics and update their running averages; call `model.eval()` before evaluating (and "
            "`model.train()` to resume training)",
        ),
        # The same model running its dropout layer.
        Invalid(
            """
            import torch
            from torch import nn
            from transformers import AutoModel


            class Model(nn.Module):
                def __init__(self, name):
                    super().__init__()
                    self.backbone = AutoModel.from_pretrained(name)
                    self.dropout = nn.Dropout(0.1)
                    self.head = nn.Linear(768, 2)

                def forward(self, ids):
                    out = self.backbone(ids)[0]
                    out = self.dropout(out)
                    return self.head(out)


            def predict(model, loader):
                preds = []
                with torch.no_grad():
                    for ids in loader:
                        preds.append(model(ids).argmax(-1))
                return preds


            model = Model("xlm-roberta-base")
            print(predict(model, test_loader))
            """,
            line=23,
            column=26,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # A model handed back by its training helper (`-> tuple[nn.Module, float]`-style `return model,
        # loss`), then tested: the caller's module, of its class, never switched.
        Invalid(
            """
            import torch
            from torch import nn


            class ConvNetwork(nn.Module):
                def __init__(self, dropout_rate=0.5):
                    super().__init__()
                    self.fc = nn.Linear(784, 10)
                    self.dropout = nn.Dropout(dropout_rate)

                def forward(self, x):
                    return self.fc(self.dropout(x.flatten(1)))


            def train_model(model: nn.Module, loader, optimizer):
                for inputs, labels in loader:
                    optimizer.zero_grad()
                    loss = nn.functional.cross_entropy(model(inputs), labels)
                    loss.backward()
                    optimizer.step()
                return model, loss.item()


            def test_model(model: nn.Module, test_loader) -> float:
                correct = 0
                with torch.no_grad():
                    for inputs, labels in test_loader:
                        correct += (model(inputs).argmax(1) == labels).sum().item()
                return correct


            def sweep(train_loader, test_loader):
                for rate in (0.1, 0.5, 0.9):
                    model = ConvNetwork(dropout_rate=rate)
                    optimizer = torch.optim.Adam(model.parameters())
                    model, _ = train_model(model, train_loader, optimizer)
                    print(rate, test_model(model, test_loader))
            """,
            line=28,
            column=25,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # The same module moved but never switched.
        Invalid(
            """
            import torch
            from torch import nn


            class Classifier:
                def __init__(self, path):
                    self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                    self.model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))
                    self.model.load_state_dict(torch.load(path, map_location=self.device))
                    self.model.to(self.device)

                @torch.no_grad()
                def predict(self, image):
                    return self.model(image.to(self.device)).argmax(1)
            """,
            line=14,
            column=16,
            message="`self.model` is evaluated under `no_grad` in training mode: its batch norm layers normalise "
            "with the batch's statistics and update their running averages; call `self.model.eval()` before "
            "evaluating (and `self.model.train()` to resume training)",
        ),
        # torchvision's `VGG` class built directly, not by `vgg16()`: its classifier's dropout.
        Invalid(
            """
            import torch
            import torchvision

            layers = torchvision.models.vgg.make_layers([64, "M", 128, "M"], batch_norm=False)
            vgg = torchvision.models.VGG(layers, num_classes=10)
            optimizer = torch.optim.SGD(vgg.parameters(), lr=0.01)
            for images, labels in trainloader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(vgg(images), labels).backward()
                optimizer.step()

            correct = 0
            with torch.no_grad():
                for images, labels in testloader:
                    outputs = vgg(images)
                    correct += (outputs.argmax(1) == labels).sum().item()
            """,
            line=15,
            column=19,
            message="`vgg` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `vgg.eval()` before evaluating (and `vgg.train()` to resume training)",
        ),
        # The same trainer without the switch: the helper evaluates a model in training mode.
        Invalid(
            """
            import torch
            from torch import nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.fc(self.drop(x))

            class Trainer:
                def __init__(self):
                    self.model = Net()

                def train(self, train_iter, test_iter):
                    for x, y in train_iter:
                        self.model(x).sum().backward()
                    print(self.evaluate(test_iter, self.model))

                @staticmethod
                def evaluate(data_iter, model):
                    with torch.no_grad():
                        return sum(model(x).argmax(1).eq(y).sum().item() for x, y in data_iter)
            """,
            line=25,
            column=24,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop "
            "activations; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # The seq2seq tutorial's decoder, handed on by `evaluateRandomly` to `evaluate`: the module
        # the script builds (with dropout) is never switched to evaluation mode.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class AttnDecoderRNN(nn.Module):
                def __init__(self, hidden_size, output_size, dropout_p=0.1):
                    super().__init__()
                    self.embedding = nn.Embedding(output_size, hidden_size)
                    self.dropout = nn.Dropout(dropout_p)
                    self.gru = nn.GRU(hidden_size, hidden_size)
                    self.out = nn.Linear(hidden_size, output_size)

                def forward(self, input, hidden):
                    output, hidden = self.gru(self.dropout(self.embedding(input)), hidden)
                    return self.out(output[0]), hidden

            def evaluate(decoder, max_length=10):
                with torch.no_grad():
                    decoder_input = torch.tensor([[0]])
                    decoder_hidden = torch.zeros(1, 1, 256)
                    words = []
                    for di in range(max_length):
                        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
                        topv, topi = decoder_output.topk(1)
                        words.append(topi.item())
                        decoder_input = topi.squeeze().detach()
                    return words

            def evaluateRandomly(decoder, n=10):
                for i in range(n):
                    print(evaluate(decoder))

            attn_decoder1 = AttnDecoderRNN(256, 100, dropout_p=0.1)
            evaluateRandomly(attn_decoder1)
            """,
            line=22,
            column=46,
            message="`decoder` is evaluated under `no_grad` in training mode: its dropout layers still drop "
            "activations; call `decoder.eval()` before evaluating (and `decoder.train()` to resume training)",
        ),
        # The same class, never switched to eval mode in the file.
        Invalid(
            """
            import torch
            from torch import nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))

                def predict(self, x):
                    with torch.no_grad():
                        return torch.argmax(self.forward(x), dim=1)

                def forward(self, x):
                    return self.body(x)


            def classify(path, xs):
                model = Net()
                model.load_state_dict(torch.load(path))
                return [model.predict(x) for x in xs]
            """,
            line=12,
            column=33,
            message="`self` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the "
            "batch's statistics and update their running averages; call `self.eval()` before evaluating (and "
            "`self.train()` to resume training)",
        ),
        # A torchvision model is built in training mode, with batch norm.
        Invalid(
            """
            import torch
            import torchvision

            model = torchvision.models.resnet18(weights="DEFAULT")
            model.fc = torch.nn.Linear(512, 30)


            def evaluate_testset(test_loader):
                correct = 0
                with torch.no_grad():
                    for images, labels in test_loader:
                        correct += (model(images).argmax(1) == labels).sum().item()
                return correct
            """,
            line=12,
            column=25,
            message="`model` is evaluated under `no_grad` in training mode: its batch norm layers normalise with the "
            "batch's statistics and update their running averages; call `model.eval()` before evaluating (and "
            "`model.train()` to resume training)",
        ),
        # The same check on a saved test batch.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Classifier(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 2)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.fc(self.drop(x))


            if __name__ == "__main__":
                model = Classifier()
                test_input = torch.load("test_batch.pt")
                with torch.no_grad():
                    output = model(test_input)
                    print(output.shape)
            """,
            line=19,
            column=18,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # `model.eval()` named in a comment switches nothing.
        Invalid(
            """
            # remember: model.eval() before testing
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))

                def forward(self, x):
                    return self.body(x)


            model = Net()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for x, y in train_loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()

            correct = 0
            with torch.no_grad():
                for x, y in test_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
            """,
            line=25,
            column=21,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations; "
            "call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # Evaluated at the top of a script on tensors named for the test split.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 3))
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(100):
                loss = nn.functional.cross_entropy(model(X_train), y_train)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                y_pred = model(X_test)
                print((y_pred.argmax(1) == y_test).float().mean().item())
            """,
            line=12,
            column=14,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop activations "
            "and its batch norm layers normalise with the batch's statistics and update their running averages; call "
            "`model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        # A helper called only from a function named for evaluation (`run_test`) evaluates too.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.drop(self.fc(x))

            def profile_pred(model, patches):
                out = []
                for patch in patches:
                    with torch.no_grad():
                        out.append(model(patch).numpy())
                return out

            def run_test(path, patches):
                net = Net()
                net.load_state_dict(torch.load(path))
                return profile_pred(net, patches)
            """,
            line=17,
            column=24,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop "
            "activations; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 8)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x):
                    return self.drop(self.fc(x))

            model = Net()
            with torch.no_grad():
                for x, y in test_loader:
                    print(model(x).argmax(1))
            """,
            line=16,
            column=15,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop "
            "activations; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout2d(0.1))

            @torch.no_grad()
            def predict(images):
                return net(images).softmax(1)
            """,
            line=8,
            column=12,
            message="`net` is evaluated under `no_grad` in training mode: its dropout layers still drop activations "
            "and its batch norm layers normalise with the batch's statistics and update their running averages; call "
            "`net.eval()` before evaluating (and `net.train()` to resume training)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            class LSTMNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(4, 8, batch_first=True)
                    self.drop = nn.Dropout(0.2)
                    self.head = nn.Linear(8, 1)

                def forward(self, x):
                    return self.head(self.drop(self.lstm(x)[0][:, -1]))

            class MLPNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1), nn.Linear(8, 1))

                def forward(self, x):
                    return self.body(x[:, -1])

            def predict_sequence(model, window, steps):
                predictions = []
                with torch.no_grad():
                    for _ in range(steps):
                        predictions.append(model(window)[0].cpu().numpy())
                return predictions

            model = None
            if choice == "LSTM":
                model = LSTMNet()
                model.load_state_dict(torch.load("lstm.pth"))
            elif choice == "MLP":
                model = MLPNet()
                model.load_state_dict(torch.load("mlp.pth"))
            if model is not None:
                predictions = predict_sequence(model, window, 24)
            """,
            line=26,
            column=32,
            message="`model` is evaluated under `no_grad` in training mode: its dropout layers still drop "
            "activations; call `model.eval()` before evaluating (and `model.train()` to resume training)",
        ),
    )

    def active_in(self, ctx) -> bool:
        """Only a module with dropout or batch norm can be reported: one of those layers is
        named in the file, the file uses torchvision, or a class of another checked file holds one."""
        text = ctx.source.text
        if "Dropout" in text or "BatchNorm" in text or "torchvision" in text:
            return True  # (torchvision's classification models hold them: `vocab.torchvision_model_layers`)
        if "dropout=" in text and _RECURRENT_RE.search(text) is not None:
            return True  # `nn.LSTM(d, h, n, dropout=0.2)`: dropout between its layers
        project = current_project()  # not the file's model: building it costs more than this answer
        return project is not None and project.constructs_any(TRAIN_MODE_MODULES)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        target = _module_expression(node)
        if target is None:
            return
        qualified = ctx.imports.qualified_name(target)
        if qualified is not None and (qualified.startswith("torch.") or qualified in _BUILTINS):
            return  # a function of torch or a builtin, not a model
        if (
            ctx.grad_state() is GradState.ENABLED
            and not (
                isinstance(ctx.function, (ast.FunctionDef, ast.AsyncFunctionDef))
                and _named_for_evaluation(ctx, ctx.function.name)
            )
            and not _switches_grad_off(ctx)
        ):
            # no grad-disabling region around it (`with torch.set_grad_enabled(False):` is the
            # model's to tell), nor a function named for evaluation
            return
        model = ctx.model
        if not model.grad_mode(node).off:
            return
        value = model.value(target)
        if value.kind is not Kind.MODULE and isinstance(target, ast.Attribute) and target is node.func:
            # `model.predict(x, mask)` of a module class whose `predict` runs its layers
            receiver = model.value(target.value)
            if receiver.kind is Kind.MODULE and not receiver.weak and model.method_runs_module(receiver, target.attr):
                target, value = target.value, receiver
        if value.kind is not Kind.MODULE or not value.has(Role.TRAINING) or value.has(Role.EVALUATING):
            return
        if model.module_has_layers(value, DROPOUT_MODULES | BATCHNORM_MODULES) is not True:
            return
        shown = ctx.text(target)
        dropout = model.module_has_layers(value, DROPOUT_MODULES) is True and not _dropout_head_replaced(
            ctx, shown, value
        )
        if not dropout and model.module_has_layers(value, BATCHNORM_MODULES) is not True:
            return  # `vgg16.classifier = nn.Sequential(nn.Linear(...), nn.Linear(...))`: no dropout left
        scope = ctx.function if ctx.function is not None else ctx.tree
        reported = ctx.state(_Reported)
        # One site per function (one fix); in a script's or notebook's own code, one per top-level
        # statement (each `with torch.no_grad():` block, each cell, is evaluated and fixed on its own).
        site = scope if ctx.function is not None else ctx.top_level_statement(node)
        if (id(site), shown) in reported.seen:
            return
        if _switched_somewhere(ctx, shown, node) or _trained_in_region(ctx, node, shown):
            return
        if (shown == "self" or shown.startswith("self.")) and _instance_switched(ctx):
            # `model.eval()` before `model.predict(x)`, whose `self.forward(x)` (or
            # `self.encoder(x)`: `eval()` switches every submodule) this is
            return
        if not _evaluates(ctx, node, scope):
            return
        if _untrained_smoke_test(ctx, scope, target, node):
            return
        if _handed_to_a_switcher(ctx, scope, shown, node):
            return
        if _global_switched_for_it(ctx, shown):
            return
        reported.seen.add((id(site), shown))
        effects = []
        if dropout:
            effects.append("its dropout layers still drop activations")
        if model.module_has_layers(value, BATCHNORM_MODULES):
            effects.append(
                "its batch norm layers normalise with the batch's statistics and update their running averages"
            )
        what = " and ".join(effects) or "its dropout or batch norm layers behave as in training"
        name = short(shown, 40)
        ctx.report(
            self.code,
            node,
            f"`{name}` is evaluated under `no_grad` in training mode: {what}; call `{name}.eval()` before "
            f"evaluating (and `{name}.train()` to resume training)",
        )


_RECURRENT_RE = re.compile(r"\b(?:LSTM|GRU|RNN)\s*\(")
_GRAD_OFF_SWITCH_RE = re.compile(r"set_grad_enabled\(\s*(?:mode\s*=\s*)?False")


def _switches_grad_off(ctx) -> bool:
    """Whether the file's text writes ``set_grad_enabled(False)`` (kept per file): only then can a
    region the engine does not mark run without grad."""
    found = ctx.cache.get("gg209-grad-off-switch")
    if found is None:
        found = ctx.cache["gg209-grad-off-switch"] = _GRAD_OFF_SWITCH_RE.search(ctx.source.text) is not None
    return found


# torchvision classification models whose dropout sits in `classifier` alone (VGG, AlexNet,
# MobileNet, EfficientNet, SqueezeNet, MNASNet).
_DROPOUT_IN_CLASSIFIER = ("vgg", "alexnet", "mobilenet", "efficientnet", "squeezenet", "mnasnet")


def _dropout_head_replaced(ctx, shown: str, value) -> bool:
    """Whether a torchvision model whose dropout sits in its ``classifier`` has that head replaced
    by the file with one holding no dropout (``vgg16.classifier = nn.Sequential(nn.Linear(...),
    nn.Linear(...))``; not ``vgg16.classifier[6] = nn.Linear(...)``, which keeps the rest)."""
    ref = value.ref or ""
    if not (
        ref.startswith("torchvision.models.") and ref.rpartition(".")[2].lower().startswith(_DROPOUT_IN_CLASSIFIER)
    ):
        return False
    if f"{shown}.classifier" not in ctx.source.text:
        return False
    replaced = [
        node
        for node in walk_in_order(ctx.tree)
        if isinstance(node, ast.Assign)
        and any(
            isinstance(t, ast.Attribute) and t.attr == "classifier" and ctx.text(t.value) == shown for t in node.targets
        )
    ]
    return bool(replaced) and all("Dropout" not in ctx.text(node.value) for node in replaced)


def _module_expression(call: ast.Call) -> Optional[ast.expr]:
    """``model`` in ``model(x)`` and ``model.forward(x)``."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    if isinstance(func, (ast.Name, ast.Attribute)):
        return func
    return None


def _switched_somewhere(ctx, shown: str, call: ast.Call) -> bool:
    """The file switches this receiver's mode explicitly somewhere (``model.eval()``,
    ``model.train(False)``, ``model.train(mode)``): its mode at the call then depends on paths
    the model does not follow (other functions, callers)."""
    text = ctx.source.text
    if not (
        f"{shown}.eval(" in text
        or f"{shown}.train(False" in text
        or f"{shown}.train(mode" in text
        or (".eval(" in text and any(f"{shown}.{move}(" in text for move in ("to", "cuda", "cpu")))
    ):
        return False
    if shown not in _switched_receivers(ctx):  # in code, not in a comment or a string
        return False
    # Every switch in the scope of the call itself is on the flow the model follows: the
    # model's mode there (training on every path) already counts it (`net.train(False)` in the
    # training loop, then `net = Net16()` rebuilt and loaded before the test loop).
    scope = ctx.function if ctx.function is not None else ctx.tree
    others = [switch_scope for switch_scope in _switch_scopes(ctx, shown) if switch_scope is not scope]
    return (
        bool(others)
        and not _rebuilt_after_switchers_ran(ctx, shown, others, call)
        and not _rebuilt_here(ctx, scope, shown, others, call)
    )


def _rebuilt_here(ctx, scope: ast.AST, shown: str, switchers: list, call: ast.Call) -> bool:
    """Whether the function holding the call builds the module it calls afresh before it
    (``self.model = self.init_model()`` in ``test``, then ``self.model.load_state_dict(...)``),
    with no call of a function that switches it in between: another method's ``self.model.eval()``
    switched the module that was there before, not this one."""
    if scope is ctx.tree:
        return False
    rebuilt_at = None
    for node in walk_in_order(scope):
        if (
            isinstance(node, ast.Assign)
            and node.lineno < call.lineno
            and any(ctx.text(target) == shown for target in node.targets)
            and isinstance(node.value.value if isinstance(node.value, ast.Subscript) else node.value, ast.Call)
        ):
            rebuilt_at = node.lineno
    if rebuilt_at is None:
        return False
    names = {getattr(switcher, "name", None) for switcher in switchers}
    return not any(
        isinstance(node, ast.Call)
        and rebuilt_at <= node.lineno <= call.lineno
        and (getattr(node.func, "attr", None) in names or getattr(node.func, "id", None) in names)
        for node in walk_in_order(scope)
    )


def _rebuilt_after_switchers_ran(ctx, shown: str, switchers: list, call: ast.Call) -> bool:
    """Whether module-level code binds the name ``shown`` afresh (``net = Net16()``, a
    statement of the module's own body) after every call of the functions that switch it
    (``def train(): ... net.train(False)``, run by ``train(100)`` above): the module those
    switched is not the one called now."""
    if ctx.function is not None or "." in shown:
        return False
    call_line = call.lineno
    rebound = [
        b.node.lineno
        for b in ctx.model.uses(ctx.tree).bindings_of(shown)
        if b.node.lineno < call_line and any(b.node is stmt for stmt in ctx.tree.body)
    ]
    if not rebound:
        return False
    last = max(rebound)
    for switcher in switchers:
        if not isinstance(switcher, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
            switcher is stmt for stmt in ctx.tree.body
        ):
            return False
        sites = ctx.model.callers(switcher)
        if sites is None or any(site.frame.node is not ctx.tree or site.call.lineno >= last for site in sites):
            return False
    return True


def _switch_scopes(ctx, shown: str) -> list:
    """The scopes (function or module) of the file's `.eval()` / `.train(<not True>)` calls
    on the receiver spelt ``shown``."""
    return [
        next((a for a in ctx.ancestors(node) if isinstance(a, _SCOPES)), ctx.tree)
        for node in _switch_calls(ctx)
        if ctx.text(_unmoved(node.func.value)) == shown or ctx.text(node.func.value) == shown
    ]


def _switch_calls(ctx) -> list:
    """The file's calls that switch a module out of training: ``.eval()``, ``.train(<not True>)``
    (``model.train(False)``, ``model.train(mode)``), in source order (kept per file)."""
    key = ("gg209-switch-calls",)
    found = ctx.cache.get(key)
    if found is None:
        found = ctx.cache[key] = []
        for node in walk_in_order(ctx.tree):
            if type(node) is not ast.Call or type(node.func) is not ast.Attribute:
                continue
            attr = node.func.attr
            flag = node.args[0] if node.args else (node.keywords[0].value if node.keywords else None)
            if attr == "eval" or (
                attr == "train" and flag is not None and not (isinstance(flag, ast.Constant) and flag.value is True)
            ):
                found.append(node)
    return found


def _instance_switched(ctx) -> bool:
    """Whether the file switches to eval mode a value that may be an instance of the class whose
    method is being walked (its class, or a module of no known class): that method's callers
    may run it after `model.eval()`."""
    owner = ctx.method_class
    if owner is None:
        return False
    for receiver in _switched_receiver_nodes(ctx):
        if _own_attribute(ctx, receiver, owner):
            continue  # `self.model.eval()` in a method of the class: a module it holds, not itself
        value = ctx.model.value(receiver)
        if value.kind is Kind.MODULE and (value.ref is None or value.ref == owner.name):
            return True
    return False


def _own_attribute(ctx, receiver: ast.expr, owner: ast.ClassDef) -> bool:
    """Whether ``receiver`` is ``self.<name>`` in a method of ``owner``."""
    if not (
        isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self"
    ):
        return False
    return any(ancestor is owner for ancestor in ctx.ancestors(receiver))


def _switched_receiver_nodes(ctx) -> list:
    """The receivers of the file's `.eval()` calls (kept per file)."""
    key = ("gg209-switched-receiver-nodes",)
    found = ctx.cache.get(key)
    if found is None:
        found = ctx.cache[key] = [node.func.value for node in _switch_calls(ctx) if node.func.attr == "eval"]
    return found


def _switched_receivers(ctx) -> frozenset:
    """The receivers the file's code calls ``.eval()`` or ``.train(<not True>)`` on, as spelt
    (kept per file)."""
    key = ("gg209-switched-receivers",)
    found = ctx.cache.get(key)
    if found is None:
        receivers = set()
        for node in _switch_calls(ctx):
            receivers.add(ctx.text(node.func.value))
            moved = _unmoved(node.func.value)
            if moved is not node.func.value:
                receivers.add(ctx.text(moved))  # `self.model.to(device).eval()` switches `self.model`
        found = ctx.cache[key] = frozenset(receivers)
    return found


def _unmoved(receiver: ast.expr) -> ast.expr:
    """The module a chain of moves hands back (``self.model`` of ``self.model.to(device).cuda()``):
    ``nn.Module.to`` and its kind return the module itself."""
    while (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in MODULE_MOVES
    ):
        receiver = receiver.func.value
    return receiver


def _trained_in_region(ctx, call: ast.Call, shown: str) -> bool:
    """``model.train()`` inside the same grad-disabled region: batch-norm statistics are
    being re-estimated on purpose."""
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, (ast.With, ast.AsyncWith)):
            for sub in walk_in_order(ancestor):
                if (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "train"
                    and ctx.text(sub.func.value) == shown
                ):
                    return True
        if isinstance(ancestor, _SCOPES):
            break
    return False


def _evaluates(ctx, call: ast.Call, scope: ast.AST) -> bool:
    """The call evaluates: in a function named for it or called only from such functions, in a
    loop over evaluation data, or on evaluation data."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
        _named_for_evaluation(ctx, scope.name) or _called_only_to_evaluate(ctx, scope)
    ):
        return True
    model = ctx.model
    if any(model.value(arg).split is Split.EVAL for arg in call.args):
        return True
    if call.args and all(isinstance(arg, ast.Name) for arg in call.args):
        # `model(test_categorical, test_cont)`, `net(X_test)`: inputs named for a test split
        # (weak evidence, asked last), none for another
        splits = {split_of_text(arg.id) for arg in call.args}  # type: ignore[attr-defined]
        if Split.EVAL in splits and Split.TRAIN not in splits and not _made_from_a_shape(ctx, scope, call):
            return True
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, _SCOPES):
            break
        if isinstance(ancestor, _LOOPS) and model.value(ancestor.iter).split is Split.EVAL:
            return True
    return False


def _untrained_smoke_test(ctx, scope: ast.AST, target: ast.expr, call: ast.Call) -> bool:
    """Whether the call runs a module its function builds from a class of the run and neither
    trains nor loads (``def test_encoder(): encoder = WaferEncoder(); with torch.no_grad(): out =
    encoder(torch.randn(4, 1, 128, 128))``, then its shape printed): a check that the code runs;
    an untrained model's batch-norm statistics are nothing to keep. The module's name is
    bound once before the call, handed to no call before it, and the function has no backward
    pass, optimizer step or loading."""
    if not isinstance(target, ast.Name) or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    text = ctx.text(scope)
    if any(word in text for word in ("backward(", ".step(", "load")):
        return False
    name = target.id
    model = ctx.model
    bindings = model.uses(scope).bindings_of(name)
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call) or bindings[0].node.lineno > call.lineno:
        return False
    built = bindings[0].value
    if model.value(built.func).kind is not Kind.CLASS or model.module_loads_weights(model.value(built)):
        return False
    for other in model.uses(scope).calls:
        if other is call or (other.lineno, other.col_offset) >= (call.lineno, call.col_offset):
            continue
        if any(
            isinstance(arg, ast.Name) and arg.id == name for arg in [*other.args, *(k.value for k in other.keywords)]
        ):
            return False  # handed to something that may train it
    return _made_up_inputs(ctx, scope, call, depth=3)


def _made_up_inputs(ctx, scope: ast.AST, call: ast.Call, depth: int) -> bool:
    """Whether every input of the call is a name bound once before it to a tensor a torch
    factory makes from a shape (``x = torch.randn(4, 512)``) or to what another call makes of
    such inputs (``projection = projector(x)``, then ``predictor(projection)``)."""
    if not call.args or depth == 0:
        return False
    uses = ctx.model.uses(scope)
    for arg in call.args:
        if not isinstance(arg, ast.Name):
            return False
        bindings = [b for b in uses.bindings_of(arg.id) if b.node.lineno < call.lineno]
        value = bindings[0].value if len(bindings) == 1 else None  # (one binding before the call)
        if not isinstance(value, ast.Call):
            return False
        qualified = ctx.imports.qualified_name(value.func) or ""
        if qualified.startswith("torch.") and qualified[len("torch.") :] in SHAPE_FACTORIES:
            continue
        if not _made_up_inputs(ctx, scope, value, depth - 1):
            return False
    return True


def _called_only_to_evaluate(ctx, function: ast.AST) -> bool:
    """Every call of the function is in a function named for evaluation (``run_test`` calling
    ``get_profile_pred(netG, X_test, ...)``): a helper of the evaluation."""
    sites = ctx.model.callers(function)
    if not sites:
        return False
    for site in sites:
        caller = next((a for a in ctx.ancestors(site.call) if isinstance(a, _SCOPES)), None)
        if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _named_for_evaluation(
            ctx, caller.name
        ):
            return False
    return True


def _made_from_a_shape(ctx, scope: ast.AST, call: ast.Call) -> bool:
    """Whether every input is bound, once in the scope, to a tensor a torch factory makes from a
    shape alone (`test_input = torch.randn(1, 3, 224, 224)`): a shape check, whatever its name."""
    uses = ctx.model.uses(scope)
    for arg in call.args:
        bindings = uses.bindings_of(arg.id)  # type: ignore[attr-defined]
        if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call):
            return False
        qualified = ctx.imports.qualified_name(bindings[0].value.func) or ""
        if not (qualified.startswith("torch.") and qualified[len("torch.") :] in SHAPE_FACTORIES):
            return False
    return True


def _named_for_evaluation(ctx, name: str) -> bool:
    words = {w.lower() for w in _WORDS_RE.findall(name)}
    if not words & EVALUATION_FUNCTION_WORDS:
        return False
    if name.startswith("test_"):
        path = ctx.filename.replace("\\", "/")
        base = path.rsplit("/", 1)[-1]
        if base.startswith("test_") or base.endswith("_test.py") or "/tests/" in path:
            return False  # a pytest test
    return True


def _handed_to_a_switcher(ctx, scope: ast.AST, shown: str, call: ast.Call) -> bool:
    """Before the call, the receiver is given to a function that may switch its mode: a
    function of the file that calls `.eval()`, or one of another file."""
    model = ctx.model
    for other in model.uses(scope).calls:
        if (other.lineno, other.col_offset) >= (call.lineno, call.col_offset):
            continue
        if not any(ctx.text(arg) == shown for arg in [*other.args, *(k.value for k in other.keywords)]):
            continue
        callee = model.callee(other)
        if callee is not None:
            if model.function_summary(callee).switches_to_eval:
                return True
            continue
        qual = ctx.imports.qualified_name(other.func) or ""
        if qual.startswith("torch.") or (isinstance(other.func, ast.Name) and other.func.id in ("print", "len", "str")):
            continue
        return True
    return False


def _global_switched_for_it(ctx, shown: str) -> bool:
    """Whether ``shown`` is a parameter of the function and every call of the function hands it
    a module-level name the function itself switches to eval mode (``def train(model, ...):``
    calling ``tinypointnet.eval()`` on the global, run only as ``train(tinypointnet, ...)``):
    the module evaluated is the one switched, whatever name the function calls it by."""
    function = ctx.function
    if (
        not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        or ctx.method_class is not None
        or not shown.isidentifier()
    ):
        return False
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    keyword_only = [a.arg for a in function.args.kwonlyargs]
    if shown not in positional and shown not in keyword_only:
        return False
    module_scope = ctx.model.scopes.module
    switched = {
        receiver.id
        for receiver in _switched_receiver_nodes(ctx)
        if isinstance(receiver, ast.Name)
        and receiver.id != shown
        and module_scope.binds(receiver.id)
        and not ctx.model.function_binds(function, receiver.id)
        and any(a is function for a in ctx.ancestors(receiver))
    }
    if not switched:
        return False
    sites = ctx.model.callers(function)
    if not sites:
        return False
    position = positional.index(shown) if shown in positional else None
    for site in sites:
        handed = call_argument(site.call, position, shown)
        if not (isinstance(handed, ast.Name) and handed.id in switched):
            return False
    return True
