"""The failure classes the analysis core fixes, each with a case that must be flagged and a
twin that must not: the checker decides what a value is from how it is made and used, at each
point, in module-level code as in functions, across functions (across files: test_project.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tests.check.helpers import findings


def codes(code: str) -> list:
    return sorted({d.code for d in findings(textwrap.dedent(code))})


def twin(code: str, template: str, flagged: str, quiet: str, id: str):
    """A must-flag case and its must-not-flag twin that differ in one place: ``template`` holds
    ``@@`` where ``flagged`` and ``quiet`` go."""
    return pytest.param(code, template.replace("@@", flagged), template.replace("@@", quiet), id=id)


CASES = [
    # -- names do not decide: how a value is made does ------------------------------------
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class CNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)

        recognizer = CNN()
        recognizer.eval()
        @@
        """,
        "for x, y in loader_of_batches:\n            out = recognizer(x)",
        "with torch.no_grad():\n            for x, y in loader_of_batches:\n                out = recognizer(x)",
        id="own-module-class-whatever-its-name",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)

            def forward(self, x):
                return self.fc(x)

        def main(image):
            encoder = Encoder().eval()
            @@
            print(feature.argmax())
        """,
        "feature = encoder(image)",
        "with torch.no_grad():\n                feature = encoder(image)",
        id="eval-chained-on-the-constructor",
    ),
    pytest.param(
        "GG302",
        """
        import torch.nn as nn

        class Net(nn.Module):
            pass

        thing = Net()
        scores = thing(batch)
        arr = scores.numpy()
        """,
        """
        class Net:
            pass

        import torch
        thing = Net()
        scores = thing(batch)
        arr = scores.numpy()
        """,
        id="output-of-own-module",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torchvision

        test_data = torchvision.datasets.MNIST("data", train=False)
        loader = torch.utils.data.DataLoader(test_data, batch_size=64)
        for x, y in loader:
            pred = net(x)
        """,
        """
        import torch
        import torchvision

        train_data = torchvision.datasets.MNIST("data", train=True)
        loader = torch.utils.data.DataLoader(train_data, batch_size=64)
        for x, y in loader:
            pred = net(x)
        """,
        id="loader-built-from-the-test-split",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def run(model, dataloader):
            for x, y in dataloader["val"]:
                pred = model(x)
        """,
        """
        import torch

        def run(model, dataloader, opt):
            for x, y in dataloader["train"]:
                model(x).sum().backward()
                opt.step()
        """,
        id="loader-dict-entry-for-validation",
    ),
    twin(
        "GG201",
        """
        import torch

        @@
            net.eval()
            for im, label in valid_data:
                out = net(im)
        """,
        "def check(net, valid_data):",
        "@torch.no_grad()\n        def check(net, valid_data):",
        id="validation-data-named-valid-data",
    ),
    # -- module-level code is analysed like a function body -------------------------------
    twin(
        "GG301",
        """
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        criterion = nn.MSELoss()
        total = 0
        for x, y in pairs:
            loss = criterion(model(x), y)
            @@
        print(total)
        """,
        "total += loss",
        "total += loss.item()",
        id="module-level-accumulation",
    ),
    twin(
        "GG302",
        """
        import torch
        import torch.nn as nn

        net = nn.Linear(2, 2)
        @@
        print(y.numpy())
        """,
        "y = net(torch.ones(2))",
        "with torch.no_grad():\n            y = net(torch.ones(2))",
        id="module-level-numpy",
    ),
    # -- tuple results and containers -----------------------------------------------------
    twin(
        "GG101",
        """
        import torch
        import torch.nn as nn

        rnn = nn.GRU(8, 8)
        out, h = rnn(x, h0)
        @@
        """,
        "h = h.data",
        "h = h.detach()",
        id="tuple-result-of-a-model",
    ),
    pytest.param(
        "GG102",
        """
        import torch

        for p in params:
            p.data -= lr * p.grad
        """,
        """
        import torch

        for record in records:
            record.data -= 1
        """,
        id="loop-variable-used-with-tensor-only-attribute",
    ),
    # -- order, and annotations -----------------------------------------------------------
    twin(
        "GG103",
        """
        import torch

        def f(t):
            @@
            return torch.tensor(t)
        """,
        "t = torch.ones(2)",
        "t = [1.0, 2.0]",
        id="reassigned-parameter",
    ),
    twin(
        "GG103",
        """
        import torch

        @@
            return torch.tensor(t)
        """,
        "def f(t: torch.Tensor):",
        "def f(t: list):",
        id="annotated-parameter",
    ),
    twin(
        "GG302",
        """
        import torch
        from torch import nn

        def predict(model: nn.Module, x):
            @@
        """,
        "return model(x).numpy()",
        "return model(x).detach().numpy()",
        id="annotated-module",
    ),
    # -- functions are not islands --------------------------------------------------------
    twin(
        "GG201",
        """
        import torch

        def evaluate(model, data):
            for x, y in data:
                out = model(x)

        test_set = torch.utils.data.TensorDataset(xs, ys)
        @@
        """,
        "evaluate(net, torch.utils.data.DataLoader(test_set))",
        "with torch.no_grad():\n            evaluate(net, torch.utils.data.DataLoader(test_set))",
        id="evaluation-function-judged-with-its-callers",
    ),
    twin(
        "GG301",
        """
        import torch

        def compute_loss(out, y):
            @@

        def train(model, loader):
            running_loss = 0
            for x, y in loader:
                loss = compute_loss(model(x), y)
                running_loss += loss
            print(running_loss)
        """,
        "return torch.nn.functional.cross_entropy(out, y)",
        "return torch.nn.functional.cross_entropy(out, y).item()",
        id="helper-named-loss-returning-item",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
        tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")

        def classify(model, tokenizer, texts):
            model.eval()
            return [model(**tokenizer(t, return_tensors="pt")).logits for t in texts]

        classify(model, tokenizer, ["a"])
        """,
        """
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
        tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")

        def encode(model, tokenizer, texts):
            model.eval()
            return [tokenizer(t, return_tensors="pt") for t in texts]

        encode(model, tokenizer, ["a"])
        """,
        id="tokenizer-from-pretrained-is-no-model",
    ),
    twin(
        "GG201",
        """
        import torch
        from torch import nn

        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.mean = nn.Linear(4, 2)

            def forward(self, state):
                return self.mean(state)

            def evaluate(self, state):
                mean = self.forward(state)
                @@
        """,
        "return mean.argmax(-1).tolist(), mean.max().item()",
        "return torch.tanh(mean), mean.max().item()",
        id="function-named-evaluate-returning-a-graph-in-a-tuple",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        from torch import nn

        def generate(decoder, prime="A", length=20):
            text = prime
            inp = torch.tensor([ord(prime)])
            for _ in range(length):
                out = decoder(inp)
                top = out.data.argmax().item()
                text += chr(top)
                inp = torch.tensor([top])
            return text

        decoder = nn.Linear(1, 128)
        print(generate(decoder, "Wh"))
        """,
        """
        import torch
        from torch import nn

        def generate(decoder, prime="A", length=20):
            outs = []
            inp = torch.tensor([ord(prime)])
            for _ in range(length):
                out = decoder(inp)
                outs.append(out)
                inp = torch.tensor([out.data.argmax().item()])
            return outs

        decoder = nn.Linear(1, 128)
        torch.stack(generate(decoder, "Wh")).sum().backward()
        """,
        id="generate-returning-text-its-callers-start",
    ),
    # -- outputs only read --------------------------------------------------------------
    twin(
        "GG201",
        """
        import torch
        from torch import nn

        classifier = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
        opt = torch.optim.Adam(classifier.parameters())
        for epoch in range(20):
            for xb, yb in batches:
                opt.zero_grad()
                @@
        """,
        "nn.functional.cross_entropy(classifier(xb), yb).backward()\n                opt.step()\n\n        y_hat = classifier(x_test)\n        print((y_hat.argmax(1) == y_test).float().mean())",
        "y_hat = classifier(xb)\n                print((y_hat.argmax(1) == yb).float().mean())\n                nn.functional.cross_entropy(y_hat, yb).backward()\n                opt.step()",
        id="prediction-after-training-only-read",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def generate(decoder, hidden, steps):
            letters = []
            inp = torch.zeros(1, dtype=torch.long)
            for _ in range(steps):
                output, hidden = decoder(inp, hidden)
                top = output.data.argmax().item()
                letters.append(top)
                inp = torch.tensor([top])
            return letters

        decoder = torch.load("decoder.pt")
        print(generate(decoder, None, 20))
        """,
        """
        import torch

        def generate(decoder, hidden, steps):
            letters = []
            inp = torch.zeros(1, dtype=torch.long)
            for _ in range(steps):
                output, hidden = decoder(inp, hidden)
                print(output.shape)
                letters.append(output)
            return letters

        decoder = torch.load("decoder.pt")
        torch.stack(generate(decoder, None, 20)).sum().backward()
        """,
        id="generation-loop-feeding-hidden-back",
    ),
    twin(
        "GG201",
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)

        @@
        """,
        'net = Net()\n        net.load_state_dict(torch.load("net.pt"))\n        prediction = net(torch.randn(1, 4))\n        print(prediction)',
        "def test():\n            net = Net()\n            prediction = net(torch.randn(1, 4))\n            print(prediction)",
        id="loaded-model-printed-vs-smoke-test",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        from torch import nn

        model = nn.Linear(4, 2)
        optimizer = torch.optim.Adam(model.parameters())
        codes = []
        for x in test_loader:
            optimizer.zero_grad()
            encoded = model(x)
            codes.append(encoded.view(-1).cpu().data.numpy())
        """,
        """
        import torch
        from torch import nn

        model = nn.Linear(4, 2)
        optimizer = torch.optim.Adam(model.parameters())
        for x in test_loader:
            optimizer.zero_grad()
            encoded = model(x)
            encoded.pow(2).mean().backward()
            optimizer.step()
        """,
        id="evaluation-loop-that-calls-zero-grad-reads-outputs-only",
    ),
    twin(
        "GG201",
        """
        import torch
        from torch import nn

        rnn = nn.RNN(57, 128)
        rnn.load_state_dict(torch.load("rnn.pt"))

        def evaluate(line):
            hidden = None
            for letter in line:
                output, hidden = rnn(letter, hidden)
            return output

        output = evaluate(torch.randn(5, 1, 57))
        @@
        """,
        "top_value, top_index = output.data.topk(3)\n        print(top_index)",
        "loss = output.sum()\n        loss.backward()",
        id="evaluation-function-whose-callers-only-read-its-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        from torch import nn

        model = nn.Linear(4, 2)
        optimizer = torch.optim.Adam(model.parameters())

        def train(x, y, x_val, y_val):
            model.train()
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
            model.eval()
            @@
            loss_val = (output - y_val).pow(2).mean()
            print(loss.item(), loss_val.item())
        """,
        "output = model(x_val)",
        "with torch.no_grad():\n                output = model(x_val)",
        id="script-model-switched-to-eval-inside-a-training-function",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def predict(net, batch):
            scores = net(batch)
            return scores.argmax(1).tolist()
        """,
        """
        import torch

        def test_network(Network, batch):
            net = Network(4, 2)
            scores = net(batch)
            assert scores.shape == (batch.shape[0], 2)
        """,
        id="evaluation-function-vs-test-of-a-fresh-model",
    ),
    # -- what a switch to eval mode reaches, what loading a model looks like ----------------
    twin(
        "GG201",
        """
        import torch

        model = VAE()
        optimizer = torch.optim.Adam(model.parameters())
        for x in train_loader:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        @@
        show_images(sample)
        """,
        "sample = model.decoder(torch.randn(16, 20))",
        "with torch.no_grad():\n            sample = model.decoder(torch.randn(16, 20))",
        id="submodule-of-a-model-in-eval-mode",
    ),
    twin(
        "GG201",
        """
        import torch

        model = VAE()
        optimizer = torch.optim.Adam(model.parameters())
        for epoch in range(10):
            for x in train_loader:
                loss = model(x).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            with torch.no_grad():
                model.eval()
                for x in test_loader:
                    x_hat = model(x)
        sample = model.decoder(torch.randn(2, 20))
        @@
        """,
        "print(sample.data[0], sample.data[1])",
        "sample.sum().backward()",
        id="output-only-read-after-an-eval-switch-the-flow-cannot-place",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def display_images(in_, out, n=1):
            out_pic = out.data.cpu().view(-1, 28, 28)
            plot(out_pic[:n])

        model = VAE()
        optimizer = torch.optim.Adam(model.parameters())
        for x in train_loader:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        sample = model.decoder(torch.randn(16, 20))
        display_images(None, sample, 4)
        """,
        """
        import torch

        def display_images(in_, out, n=1):
            out_pic = out.cpu().view(-1, 28, 28)
            return out_pic[:n]

        model = VAE()
        optimizer = torch.optim.Adam(model.parameters())
        for x in train_loader:
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        sample = model.decoder(torch.randn(16, 20))
        pics = display_images(None, sample, 4)
        """,
        id="output-handed-to-a-function-of-the-file-that-only-reads-it",
    ),
    twin(
        "GG201",
        """
        import models
        from torch.utils.data import DataLoader

        def test(opt):
            model = getattr(models, opt.model)().eval()
            @@
            for data, path in DataLoader(opt.data, batch_size=8):
                score = model(data)
                results += score.softmax(1)[:, 0].tolist()
            return results
        """,
        "model.load(opt.load_model_path)\n            results = []",
        "results = []",
        id="model-given-weights-by-its-own-load-method-is-not-a-fresh-model",
    ),
    twin(
        "GG201",
        """
        import torch as t
        from torch.utils.data import DataLoader, Dataset

        class DogCat(Dataset):
            def __init__(self, root, train=True, test=False):
                self.test = test

        def test(**kwargs):
            model = getattr(models, opt.model)().eval()
            model.load(opt.load_model_path)
            train_data = DogCat(opt.test_data_root, test=True)
            test_dataloader = DataLoader(train_data, batch_size=8)
            results = []
            @@
            return results
        """,
        "for ii, (data, path) in enumerate(test_dataloader):\n                score = model(data)\n                probability = t.nn.functional.softmax(score)[:, 0].tolist()\n                batch_results = [(path_, p) for path_, p in zip(path, probability)]\n                results += batch_results",
        "with t.no_grad():\n                for ii, (data, path) in enumerate(test_dataloader):\n                    score = model(data)\n                    probability = t.nn.functional.softmax(score)[:, 0].tolist()\n                    batch_results = [(path_, p) for path_, p in zip(path, probability)]\n                    results += batch_results",
        id="loader-of-a-data-set-built-with-test-true-whatever-its-name",
    ),
    pytest.param(
        "GG101",
        """
        import torch
        from torch.autograd import Variable

        def repackage(states):
            return [Variable(state.data) for state in states]
        """,
        """
        import torch
        from torch.autograd import Variable

        def to_variables(dataset):
            return Variable(dataset.data)
        """,
        id="what-variable-wraps-is-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch

        loss = torch.nn.MSELoss(reduction="sum")
        for epoch in range(num_epochs):
            for X, y in data_iter:
                l = loss(net(X), y)
                trainer.zero_grad()
                l.backward()
                trainer.step()
            l_epoch = loss(net(features), labels)
            @@
        """,
        'print("epoch {}, loss {}".format(epoch + 1, l_epoch.mean().item()))',
        "l_epoch.backward()",
        id="output-fed-into-a-loss-that-is-only-read",
    ),
    pytest.param(
        "GG201",
        """
        import numpy as np
        import torch.nn as nn
        from d2l.train import train_ch3

        net = nn.Sequential(nn.Linear(784, 10))
        train_ch3(net, train_iter, test_iter, criterion, num_epochs, batch_size, lr)
        for X, y in test_iter:
            break
        pred_labels = np.argmax(net(X).data.numpy(), axis=1)
        """,
        """
        import numpy as np
        import torch.nn as nn

        net = nn.Sequential(nn.Linear(784, 10))
        for X, y in test_iter:
            break
        pred_labels = np.argmax(net(X).data.numpy(), axis=1)
        """,
        id="model-trained-by-a-helper-is-not-a-fresh-model",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn.functional as F

        class ConvNet(torch.nn.Module):
            def forward(self, x):
                return self.linear_1(x)

        model = ConvNet()

        def compute_accuracy(model, data_loader):
            correct_pred = 0
            for features, targets in data_loader:
                probas = model(features)
                correct_pred += (torch.max(probas, 1)[1] == targets).sum()
            return correct_pred.float()

        for epoch in range(num_epochs):
            for features, targets in train_loader:
                cost = F.cross_entropy(model(features), targets)
                optimizer.zero_grad()
                cost.backward()
                optimizer.step()
            model = model.eval()
            @@
        with torch.set_grad_enabled(False):
            print("Test accuracy: %.2f%%" % compute_accuracy(model, test_loader))
        """,
        'print("Train accuracy: %.2f%%" % compute_accuracy(model, train_loader))',
        'with torch.no_grad():\n                print("Train accuracy: %.2f%%" % compute_accuracy(model, train_loader))',
        id="accuracy-helper-called-with-grad-on-by-one-caller-of-two",
    ),
    twin(
        "GG201",
        """
        import torch

        class AE(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 2)
                self.optimizer = torch.optim.Adam(self.parameters(), lr=0.1)

            def encoder(self, x):
                return self.fc(x)

            def train_model(self, x):
                self.optimizer.zero_grad()
                cost = self.encoder(x).pow(2).sum()
                cost.backward()
                self.optimizer.step()
                return cost

        model = AE()
        for x in loader:
            cost = model.train_model(x)
        @@
        """,
        "codes = model.encoder(x_test)\n        print(codes.data.numpy())",
        "    print(cost.data)",
        id="a-method-that-trains-is-not-a-forward-pass-a-method-that-computes-is",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class LR(nn.Module):
            def __init__(self, dim):
                super().__init__()
                @@
                self.b = torch.scalar_tensor(0)

            def forward(self, x):
                return torch.sigmoid(torch.mm(self.w.T, x) + self.b)

        def predict(yhat):
            return (yhat > 0.5).float().mean()

        lrmodel = LR(dim)
        for i in range(num_iterations):
            yhat = lrmodel.forward(x)
            lrmodel.w = lrmodel.w - lr * grad_w(x, yhat, y)
            yhat_test = lrmodel.forward(test_x)
            print(predict(yhat_test))
        """,
        "self.w = nn.Parameter(torch.zeros(dim, 1))",
        "self.w = torch.zeros(dim, 1)",
        id="a-module-over-plain-tensors-updated-by-hand-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch

        def compute_accuracy(model, data_loader):
            correct = 0
            for features, targets in data_loader:
                correct += (model(features).argmax(1) == targets).sum()
            return correct.float()

        with torch.set_grad_enabled(False):
            print("Test accuracy: %.2f%%" % compute_accuracy(model, test_loader))

        def compute_accuracy(model, data_loader):
            correct = 0
            for features, targets in data_loader:
                correct += (model(features).argmax(1) == targets).sum()
            return correct.float()

        @@
        """,
        'print("Test accuracy: %.2f%%" % compute_accuracy(model, test_loader))',
        'with torch.set_grad_enabled(False):\n            print("Test accuracy: %.2f%%" % compute_accuracy(model, test_loader))',
        id="a-function-defined-again-in-a-later-cell-has-the-callers-below-it",
    ),
    twin(
        "GG105",
        """
        import torch

        model = torch.nn.Linear(784, 10)
        criterion = torch.nn.CrossEntropyLoss()
        optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
        for epoch in range(15):
            avg_cost = 0
            for X, Y in data_loader:
                optimizer.zero_grad()
                cost = criterion(model(X), Y)
                cost.backward()
                optimizer.step()
                avg_cost += cost.data / total_batch
            @@
        """,
        'print("cost =", avg_cost[0])',
        'print("cost =", avg_cost.item())',
        id="a-running-total-of-0-dim-losses-is-0-dim",
    ),
    pytest.param(
        "GG301",
        """
        import torch
        from layers.modules import MultiBoxLoss

        criterion = MultiBoxLoss(21, 0.5)
        loc_loss = 0
        for images, targets in loader:
            optimizer.zero_grad()
            loss_l, loss_c = criterion(net(images), targets)
            loss = loss_l + loss_c
            loss.backward()
            optimizer.step()
            loc_loss += loss_l
        """,
        """
        import torch
        from layers.modules import MultiBoxLoss

        criterion = MultiBoxLoss(21, 0.5)
        correct = 0
        for images, targets in loader:
            optimizer.zero_grad()
            loss, hits = criterion(net(images), targets)
            loss.backward()
            optimizer.step()
            correct += hits
        """,
        id="the-parts-of-a-criterion-s-tuple-are-losses",
    ),
    twin(
        "GG101",
        """
        import torch

        def train(net, data, opt, criterion):
            h = net.init_hidden(10)
            for x, y in data:
                h = tuple([each.data for each in h])
                net.zero_grad()
                @@
                criterion(output, y).backward()
                opt.step()
        """,
        "output, h = net(x, h)",
        "output, state = net(x, h)",
        id="a-hidden-state-that-is-a-model-s-output-on-later-steps",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torch.nn as nn

        net = nn.Sequential(nn.Dropout(0.5), nn.Linear(100, 1))
        net.train()
        optimizer = make_optimizer()  # no `net.parameters()` in sight: the loop shows the training
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            optimizer.step()
        y = net(torch.ones(100))
        print("output", y)
        """,
        """
        import torch
        import torch.nn as nn

        net = nn.Sequential(nn.Dropout(0.5), nn.Linear(100, 1))
        net.train()
        y = net(torch.ones(100))
        print("output in training mode", y)
        """,
        id="train-sets-a-mode-and-trains-nothing",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import unittest
        from models import VQVAE

        class Samples:
            def setUp(self):
                self.model = VQVAE(3, 64, 512)

            def show(self):
                result = self.model(torch.randn(16, 3, 64, 64))
                print(result[0])
        """,
        """
        import torch
        import unittest
        from models import VQVAE

        class TestVQVAE(unittest.TestCase):
            def setUp(self):
                self.model = VQVAE(3, 64, 512)

            def test_forward(self):
                result = self.model(torch.randn(16, 3, 64, 64))
                print(result[0])
        """,
        id="a-unit-test-runs-the-model-it-tests",
    ),
    twin(
        "GG201",
        """
        import torch
        from models import *

        G_AB = Generator()
        optimizer_G = torch.optim.Adam(G_AB.parameters())

        @@
            real_A = next(iter(val_dataloader))["A"]
            fake_B = G_AB(real_A)
            save_image(torch.cat((real_A, fake_B.data), -2), "%s.png" % batches_done)
        """,
        "def sample_images(batches_done):",
        "def sample_images(batches_done, G_AB=lookup):",
        id="a-global-is-what-the-module-s-code-shows",
    ),
    twin(
        "GG201",
        """
        import torch
        import matplotlib.pyplot as plt

        model = Attention()
        optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
        for epoch in range(2000):
            optimizer.zero_grad()
            output, _ = model(input_batch, hidden, output_batch)
            criterion(output, target_batch).backward()
            optimizer.step()

        predict, trained_attn = model(input_batch, hidden, test_batch)
        print(" ".join(number_dict[n] for n in predict.argmax(1).tolist()))
        @@
        """,
        'ax = plt.figure().add_subplot(1, 1, 1)\n        ax.matshow(trained_attn, cmap="viridis")',
        "attentions.append(trained_attn)",
        id="an-output-drawn-is-read",
    ),
    twin(
        "GG301",
        """
        import torch

        class CNN(torch.nn.Module):
            def train_model(self, x, y):
                self.optimizer.zero_grad()
                self.cost = self.criterion(self.forward(x), y)
                self.cost.backward()
                self.optimizer.step()
                @@

        model = CNN()
        for epoch in range(15):
            avg_cost = 0
            for X, Y in data_loader:
                cost = model.train_model(X, Y)
                avg_cost += cost / total_batch
            print(epoch, avg_cost)
        """,
        "return self.cost",
        "return self.cost.item()",
        id="a-loss-a-method-backpropagates-and-returns",
    ),
    twin(
        "GG105",
        """
        import torch

        d_loss_real = torch.mean(torch.abs(d_real - imgs))
        @@
        M = (d_loss_real + torch.abs(diff)).data[0]
        """,
        "diff = torch.mean(gamma * d_loss_real - d_loss_fake)",
        "diff = gamma * d_real - d_loss_fake",
        id="an-element-wise-function-keeps-a-0-dim-shape",
    ),
    twin(
        "GG301",
        """
        import torch

        def train(inp, target):
            decoder.zero_grad()
            loss = criterion(decoder(inp), target)
            loss.backward()
            decoder_optimizer.step()
            @@

        loss_avg = 0
        for epoch in range(1, n_epochs + 1):
            loss = train(*random_training_set(chunk_len))
            loss_avg += loss
        """,
        "return loss",
        "return loss.data[0] / args.chunk_len",
        id="a-function-that-backpropagates-and-returns-the-loss-s-values",
    ),
    twin(
        "GG101",
        """
        import torch
        from torch.nn.utils.rnn import pack_sequence

        packed = pack_sequence([eye[X[idx]] for idx in sorted_idx])
        rnn = torch.nn.RNN(input_size=4, hidden_size=30, batch_first=True)
        rnn_output, hidden = rnn(packed)
        @@
        """,
        "print(hidden.data.shape)",
        "print(rnn_output.data.shape)",
        id="an-rnn-fed-a-packed-sequence-returns-a-tensor-hidden-state",
    ),
    twin(
        "GG102",
        """
        import torch

        def load_data(v, data):
            @@
        """,
        "v.data.resize_(data.size()).copy_(data)",
        "buffer = v.data.resize_(data.size())",
        id="a-value-write-after-a-resize-through-data",
    ),
    twin(
        "GG101",
        """
        import torch
        from torch.autograd import Variable

        class averager(object):
            def add(self, v):
                @@
                    count = v.data.numel()
                    v = v.data.sum()
                self.n_count += count
        """,
        "if isinstance(v, Variable):",
        "if isinstance(v, dict):",
        id="isinstance-narrows-a-name-to-a-tensor",
    ),
    pytest.param(
        "GG302",
        """
        import torch
        import torch.nn as nn

        input_t = torch.arange(-3, 3.1, 0.1, requires_grad=True)
        activation_list = [nn.Tanh(), nn.Hardtanh(), nn.Sigmoid(), nn.ReLU()]
        for i, activation_func in enumerate(activation_list):
            output_t = activation_func(input_t)
            plt.plot(input_t.detach().numpy(), output_t.numpy())
        """,
        """
        import torch
        import torch.nn as nn

        input_t = torch.arange(-3, 3.1, 0.1)
        activation_list = [nn.Tanh(), nn.Hardtanh(), nn.Sigmoid(), nn.ReLU()]
        for i, activation_func in enumerate(activation_list):
            output_t = activation_func(input_t)
            plt.plot(input_t.numpy(), output_t.numpy())
        """,
        id="a-list-of-layers-without-parameters",
    ),
    twin(
        "GG201",
        """
        import torch
        import models_mod

        def init_models(path, name):
            model_cls = getattr(models_mod, name)
            cls_model = model_cls()
            cls_model.load_state_dict(torch.load(path))
            cls_model.eval()
            @@
        """,
        "print(cls_model(batch).argmax(1))",
        "return cls_model",
        id="a-call-whose-result-is-used-as-a-module-makes-one",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        seq_model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
        optimizer = torch.optim.SGD(seq_model.parameters(), lr=1e-3)
        training_loop(5000, optimizer, seq_model, nn.MSELoss(), t_un_train, t_c_train)
        @@
        """,
        'print("output", seq_model(t_un_val))',
        'print("output", len(seq_model(t_un_val)))',
        id="an-output-printed-at-once",
    ),
    pytest.param(
        "GG101",
        """
        import torch.nn as nn

        def init(m):
            fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(m.weight.data)
        """,
        """
        import torch.nn as nn

        def init(m):
            fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(m.weight)
        """,
        id="a-tensor-given-to-an-init-function-that-reads-it",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(3072, 512), nn.Tanh(), nn.Linear(512, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
        @@
        out = model(img.view(-1).unsqueeze(0))
        print(out)
        for img, label in cifar2:
            loss = loss_fn(model(img.view(-1).unsqueeze(0)), label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """,
        "for img, label in cifar2:\n"
        "            loss = loss_fn(model(img.view(-1).unsqueeze(0)), label)\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()",
        "img, label = cifar2[0]",
        # A script runs in order: the model is run once before its training starts (a demo of
        # the untrained model); after a training loop, the same call evaluates it.
        id="a-model-run-before-its-training-in-a-script-is-a-demo",
    ),
    pytest.param(
        "GG102",
        """
        import torch.nn as nn
        from torch.nn.utils.rnn import pack_padded_sequence

        def init_lstm_wt(lstm):
            for names in lstm._all_weights:
                for name in names:
                    if name.startswith("bias_"):
                        bias = getattr(lstm, name)
                        bias.data.fill_(0.0)
                        bias.data[n // 4 : n // 2].fill_(1.0)
        """,
        """
        import torch.nn as nn
        from torch.nn.utils.rnn import pack_padded_sequence

        def mask(x, lengths):
            packed = pack_padded_sequence(x, lengths)
            packed.data.fill_(0.0)
            return packed
        """,
        id="a-value-write-through-data-in-a-file-that-packs-sequences",
    ),
    twin(
        "GG105",
        """
        import torch.nn.functional as F

        def reconstruction_loss(x, x_recon, distribution):
            if distribution == "bernoulli":
                @@
            else:
                recon_loss = None
            return recon_loss

        def train(net, loader):
            for x in loader:
                recon_loss = reconstruction_loss(x, net(x), "bernoulli")
                print("{:.3f}".format(recon_loss.data[0]))
        """,
        'recon_loss = F.binary_cross_entropy_with_logits(x_recon, x, reduction="sum").div(x.size(0))',
        'recon_loss = F.binary_cross_entropy_with_logits(x_recon, x, reduction="none").sum(1)',
        id="a-loss-or-none-is-the-loss",
    ),
    pytest.param(
        "GG101",
        """
        import torch
        from torch.autograd import Variable

        class Solver(object):
            def __init__(self, c_max):
                self.C_max = c_max

            def train(self, net, loader, step):
                self.C_max = Variable(torch.FloatTensor([self.C_max]))
                for x in loader:
                    C = torch.clamp(self.C_max / 10 * step, 0, self.C_max.data[0])
        """,
        """
        import torch
        from torch.autograd import Variable

        class Solver(object):
            def __init__(self, c_max):
                self.C_max = c_max

            def train(self, net, loader, step):
                self.C_max = {"data": [self.C_max]}
                for x in loader:
                    C = torch.clamp(x / 10 * step, 0, self.C_max.data[0])
        """,
        id="an-attribute-a-method-sets-to-a-tensor",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torchvision.utils as vutils

        def train(netG, netD, dataloader, criterion, optimizerG, fixed_noise):
            for i, data in enumerate(dataloader):
                fake = netG(torch.randn(64, 100, 1, 1))
                netG.zero_grad()
                errG = criterion(netD(fake), torch.ones(64))
                errG.backward()
                optimizerG.step()
                if i % 100 == 0:
                    fake = netG(fixed_noise)
                    vutils.save_image(fake.detach(), "fake.png", normalize=True)
        """,
        """
        import torch
        import torchvision.utils as vutils

        def train(netG, netD, dataloader, criterion, optimizerG, fixed_noise):
            fake = netG(fixed_noise)
            for i, data in enumerate(dataloader):
                netG.zero_grad()
                errG = criterion(netD(fake), torch.ones(64))
                errG.backward()
                optimizerG.step()
                fake = netG(fixed_noise)
                vutils.save_image(fake.detach(), "fake.png", normalize=True)
        """,
        id="a-sample-saved-at-the-loop-s-end-and-rebound-at-its-top",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def training_loop(n_epochs, optimizer, model, loss_fn, t_u_train, t_u_val, t_c_train, t_c_val):
            for epoch in range(1, n_epochs + 1):
                t_p_train = model(t_u_train)
                loss_train = loss_fn(t_p_train, t_c_train)
                t_p_val = model(t_u_val)
                loss_val = loss_fn(t_p_val, t_c_val)
                optimizer.zero_grad()
                loss_train.backward()
                optimizer.step()
                print(f"Training loss {loss_train.item():.4f}, Validation loss {loss_val.item():.4f}")
        """,
        """
        import torch

        def training_loop(n_epochs, optimizer, model, loss_fn, t_u_train, features):
            for epoch in range(1, n_epochs + 1):
                t_p_train = model(t_u_train)
                print(f"Prediction {t_p_train.mean().item():.4f}")
                loss_train = loss_fn(features["conv"])
                optimizer.zero_grad()
                loss_train.backward()
                optimizer.step()
        """,
        id="a-validation-forward-beside-the-training-forward-before-backward",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(10, 2))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        criterion = nn.CrossEntropyLoss()
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                if i % 100 == 0:
                    val_loss = criterion(model(val_x), val_y)
                    print(f"val loss {val_loss.item():.3f}")
                loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        """
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(10, 2))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        activations = {}
        model[0].register_forward_hook(lambda m, i, o: activations.update(out=o))
        for epoch in range(2):
            for i, (x, y) in enumerate(train_loader):
                scores = model(x)
                print(f"top class {scores.argmax().item()}")
                loss = activations["out"].pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        id="a-validation-forward-before-the-training-forward-in-the-loop",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def evaluate(model, loss_fn, val_loader):
            def perform_val_step_fn(x, y):
                model.eval()
                yhat = model(x)
                return loss_fn(yhat, y).item()
            losses = [perform_val_step_fn(x, y) for x, y in val_loader]
            return sum(losses) / len(losses)
        """,
        """
        import torch

        def make_val_step_fn(model, loss_fn):
            def perform_val_step_fn(x, y):
                model.eval()
                yhat = model(x)
                return loss_fn(yhat, y).item()
            return perform_val_step_fn

        val_step_fn = make_val_step_fn(model, loss_fn)
        with torch.no_grad():
            val_losses = [val_step_fn(x, y) for x, y in val_loader]
        """,
        id="a-closure-its-factory-returns-runs-where-it-is-called",
    ),
    pytest.param(
        "GG102",
        """
        import torch

        class MLP:
            def __init__(self, layers):
                self.layers = layers

            def parameters(self):
                return [p for layer in self.layers for p in layer.parameters()]

        n = MLP([torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)])
        for k in range(20):
            loss = sum((n(x) - y) ** 2 for x, y in zip(xs, ys))
            loss.backward()
            for p in n.parameters():
                p.data += -0.1 * p.grad
        """,
        """
        import torch

        class Value:
            def __init__(self, data, _children=()):
                self.data = data
                self.grad = 0.0
                self._prev = set(_children)

            def __add__(self, other):
                other = other if isinstance(other, Value) else Value(other)
                return Value(self.data + other.data, (self, other))

            def backward(self):
                self.grad = 1.0

        class MLP:
            def __init__(self, layers):
                self.layers = layers

            def parameters(self):
                return [p for layer in self.layers for p in layer.parameters()]

        n = MLP([])
        for k in range(20):
            loss = sum((n(x) - y) ** 2 for x, y in zip(xs, ys))
            loss.backward()
            for p in n.parameters():
                p.data += -0.1 * p.grad
        """,
        id="a-file-s-own-autograd-values-are-not-tensors",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        @@
        import matplotlib.pyplot as plt

        def visualize_classification(model, points):
            model.eval()
            logits = model(points)
            plt.imshow(logits.argmax(-1).numpy())
        """,
        "import torch.utils.data as data",
        "import jax.numpy as jnp\n        from flax import linen as nn\n        import torch.utils.data as data",
        id="a-model-known-by-its-name-in-a-flax-file-is-not-torch-s",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torch.nn as nn

        dropping_model = nn.Sequential(nn.Linear(11, 11), nn.Dropout(p=0.5))
        spaced_points = torch.linspace(.1, 1.1, 11)
        dropping_model.eval()
        output_eval = dropping_model(spaced_points)
        print(output_eval.tolist())

        model = nn.Linear(2, 1)
        model(torch.randn(4, 2)).sum().backward()
        """,
        """
        import torch
        import torch.nn as nn

        dropping_model = nn.Sequential(nn.Dropout(p=0.5))
        normalizer = nn.BatchNorm1d(num_features=11, affine=False)
        spaced_points = torch.linspace(.1, 1.1, 11)
        dropping_model.eval()
        normalizer.eval()
        output_eval = dropping_model(spaced_points)
        print(output_eval.tolist(), normalizer(spaced_points[None]).tolist())

        model = nn.Linear(2, 1)
        model(torch.randn(4, 2)).sum().backward()
        """,
        id="a-module-built-without-parameters-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        from torch import nn, optim

        class Meta(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(4, 2)
                self.meta_optim = optim.Adam(self.net.parameters())

            def forward(self, x_qry, y_qry):
                loss_q = nn.functional.cross_entropy(self.net(x_qry), y_qry)
                self.meta_optim.zero_grad()
                @@
                return loss_q.item()

        maml = Meta()
        maml.load_state_dict(torch.load("maml.pt"))
        tmp = filter(lambda x: x.requires_grad, maml.parameters())
        for step, (x_qry, y_qry) in enumerate(db):
            accs = maml(x_qry, y_qry)
            print("step:", step, "training acc:", accs)
        """,
        "pass",
        "loss_q.backward()",
        id="a-model-whose-forward-trains-is-not-evaluated",
    ),
    pytest.param(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 1)

            def forward(self, x):
                return self.fc(x)

        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        out = net.forward(x_test)
        print(out.tolist())
        """,
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 1)

            def forward(self, x):
                return self.fc(x)

        net = Net()
        print(sum(p.numel() for p in net.parameters()))
        out = net.forward(torch.randn(1, 4))
        print(out.tolist())
        """,
        id="a-smoke-test-through-forward-that-counts-parameters",
    ),
    twin(
        "GG101",
        """
        import torch

        class Averager(object):
            def add(self, v):
                @@
                self.n_count += count
        """,
        "count = v.data.numel()",
        "count = v.data.size",
        id="numel-after-data-is-a-tensor-s",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch

        def sequence_pred(sbs_obj, X, axs):
            for e, ax in enumerate(axs):
                sbs_obj.model.eval()
                @@
                ax.scatter(*next_corners.T)
        """,
        "next_corners = sbs_obj.model(X[e:e+1, :2]).squeeze().detach().cpu().numpy()",
        "with torch.no_grad():\n                    next_corners = sbs_obj.model(X[e:e+1, :2]).squeeze().detach().cpu().numpy()",
        id="a-trainer-s-model-attribute-switched-to-eval-is-a-model",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch
        import torch.nn as nn

        class DQN(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)

            def qvals(self, x):
                @@

        def calc_values_of_states(states, net):
            mean_vals = []
            for batch in np.array_split(states, 64):
                action_values_v = net.qvals(torch.tensor(batch))
                mean_vals.append(action_values_v.max(1)[0].mean().item())
            return np.mean(mean_vals)

        net = DQN()
        optimizer = torch.optim.Adam(net.parameters())
        print(calc_values_of_states(eval_states, net))
        """,
        "return self(x)",
        "with torch.no_grad():\n                    return self(x)",
        id="a-model-s-method-that-runs-it",
    ),
    twin(
        "GG201",
        """
        import torch
        @@
            def __init__(self, model):
                super().__init__()
                self.model = model

            def on_validation_end(self):
                self.sample_images()

            def sample_images(self):
                recons = self.model.reconstruct(test_input)
                vutils.save_image(recons.data, "recons.png")
        """,
        "import torch.nn as nn\n        import torchvision.utils as vutils\n\n        class VAEXperiment(nn.Module):",
        "import pytorch_lightning as pl\n        import torchvision.utils as vutils\n\n        class VAEXperiment(pl.LightningModule):",
        id="lightning-runs-its-evaluation-hooks-without-grad",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        from torch import optim

        def generator_train_step(fake_data):
            g_optimizer.zero_grad()
            prediction = discriminator(fake_data)
            error = loss(prediction, torch.ones(len(fake_data), 1))
            @@
            g_optimizer.step()
            return error

        discriminator = Discriminator()
        generator = Generator()
        generator.load_state_dict(torch.load("generator.pt"))
        g_optimizer = optim.Adam(generator.parameters(), lr=0.0002)
        loss = nn.BCELoss()
        for epoch in range(num_epochs):
            for i, (images, _) in enumerate(data_loader):
                fake_data = generator(noise(len(images)))
                g_loss = generator_train_step(fake_data)
                print(epoch, g_loss.item())
        """,
        "pass",
        "error.backward()",
        id="an-output-handed-to-a-function-that-backpropagates-it-is-not-only-read",
    ),
    twin(
        "GG102",
        """
        from torch_snippets import *

        def weights_init(m):
            if m.__class__.__name__.find("Conv") != -1:
                @@
        """,
        "nn.init.normal_(m.weight.data, 0.0, 0.02)",
        "nn.init.normal_(m.weight, 0.0, 0.02)",
        id="torch-s-usual-names-from-a-star-import",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class GramMatrix(nn.Module):
            @@
                return feat @ feat.transpose(1, 2)

        net = torch.nn.Linear(4, 4)
        torch.optim.SGD(net.parameters(), lr=0.1)
        net(x).sum().backward()
        style_targets = [GramMatrix()(A).detach() for A in vgg(style_image)]
        print(style_targets)
        """,
        "def __init__(self):\n                super().__init__()\n                self.proj = nn.Linear(4, 4)\n\n            def forward(self, input):\n                feat = self.proj(input.flatten(2))",
        "def forward(self, input):\n                feat = input.flatten(2)",
        id="a-module-class-with-no-init-holds-no-parameters",
    ),
    twin(
        "GG201",
        """
        import torch
        import torchvision.utils as vutils

        G = DCGAN_G()
        D = DCGAN_D()
        optimizerG = torch.optim.Adam(G.parameters())
        for i in range(n_iter):
            if i % print_every == 0:
                fake_test = G(z_test)
                vutils.save_image(fake_test.data, "fake_samples.png", normalize=True)
            @@
            errG.backward()
            optimizerG.step()
        """,
        "    del fake_test\n            errD_real = criterion(D(x), y)\n            errD_real.backward()\n            G.zero_grad()\n            errG = criterion(D(G(z)), y)",
        "errD_real = criterion(D(x), y)\n            errD_real.backward()\n            G.zero_grad()\n            errG = criterion(D(fake_test), y)",
        id="a-sample-in-a-gan-loop-that-calls-the-generator-again",
    ),
    twin(
        "GG101",
        """
        import torch
        import torch.nn as nn

        class Tacotron(nn.Module):
            def __init__(self):
                super().__init__()
                @@

            def get_step(self):
                return self.step.data.item()
        """,
        'self.register_buffer("step", torch.zeros(1, dtype=torch.long))',
        'self.register_buffer("steps", torch.zeros(1, dtype=torch.long))',
        id="a-registered-buffer-is-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch
        import matplotlib.pyplot as plt
        from main import build_model

        model, _, _ = build_model(args)
        model.load_state_dict(torch.load("outputs/checkpoint.pth")["model"])

        @@
            img = transform(im).unsqueeze(0)
            outputs = model(img)
            probas = outputs["pred_logits"].softmax(-1)[0, :, :-1]
            keep = probas.max(-1).values > 0.7
            return probas[keep], outputs["pred_boxes"][0, keep]

        def plot_results(pil_img, prob, boxes):
            plt.imshow(pil_img)
            for p, (xmin, ymin, xmax, ymax) in zip(prob, boxes.tolist()):
                plt.text(xmin, ymin, f"{CLASSES[p.argmax()]}: {p[p.argmax()]:0.2f}")

        for _ in range(2):
            scores, boxes = detect(image, model, transform)
            plot_results(image, scores, boxes)
        """,
        "def detect(im, model, transform):",
        "@torch.no_grad()\n        def detect(im, model, transform):",
        id="a-function-named-detect-evaluates",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, shape):
                super().__init__()
                self.conv_val = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU())

            @@
                return int(np.prod(o.size()))
        """,
        "def _get_conv_val_size(self, x):\n                o = self.conv_val(x.float())",
        "def _get_conv_val_size(self, shape):\n                o = self.conv_val(torch.zeros(1, *shape))",
        id="a-shape-probe-on-a-dummy-input-is-no-evaluation",
    ),
    twin(
        "GG201",
        """
        import torch

        def caption(model, tokenizer, images):
            model.eval()
            @@
            return tokenizer.batch_decode(out.tolist())
        """,
        "out = model.predict(images)",
        "out = model.generate(images)",
        id="a-name-only-model-s-generate-may-be-hugging-face-s",
    ),
    twin(
        "GG101",
        """
        import torch
        import torch.nn as nn
        import torch.nn.utils.rnn as rnn_utils

        class ModelMultimodal(nn.Module):
            def __init__(self, voc_size):
                super().__init__()
                self.emb = nn.Embedding(voc_size, 16)

            def forward(self, x):
                x_img, x_text = x
                @@
                return self.emb(x_text.data)
        """,
        "assert isinstance(x_text, torch.Tensor)",
        "assert isinstance(x_text, rnn_utils.PackedSequence)",
        id="assert-isinstance-narrows-as-if-does",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class DecoderRNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(256, 512, 1, batch_first=True)

            def predict(self, features, states=None):
                hiddens, states = self.lstm(features.unsqueeze(1), states)
                return hiddens.max(-1)[1].cpu().numpy().tolist()

        decoder = DecoderRNN()

        @@
            decoder.eval()
            return decoder.predict(encoder(image))[0]
        """,
        "def load_image_and_predict(image):",
        "@torch.no_grad()\n        def load_image_and_predict(image):",
        id="a-method-called-on-a-global-instance-from-a-no-grad-function",
    ),
    twin(
        "GG201",
        """
        import torch
        from encoder.model import SpeakerEncoder

        _model = None

        def load_model(weights_fpath, device=None):
            @@
            _model = SpeakerEncoder(device, torch.device("cpu"))
            _model.load_state_dict(torch.load(weights_fpath, device)["model_state"])
            _model.eval()

        def embed_frames_batch(frames_batch):
            frames = torch.from_numpy(frames_batch)
            return _model.forward(frames).detach().cpu().numpy()
        """,
        "global _model",
        "pass",
        id="a-global-a-function-rebinds-through-global",
    ),
    # -- batch 11 of unseen user code --------------------------------------------------
    pytest.param(
        "GG201",
        """
        import torch

        model = torch.load("srgan.pth.tar", map_location="cpu")["generator"].to(device)
        sr = model(im[None])[0]
        print(sr.argmax())
        """,
        """
        import torch

        model = Generator().to(device)
        sr = model(im[None])[0]
        print(sr.argmax())
        """,
        id="a-model-loaded-inside-a-chain-of-calls-is-not-fresh",
    ),
    pytest.param(
        "GG101",
        """
        import torch

        class SimpleLossCompute:
            def __init__(self, generator, criterion):
                self.generator = generator
                self.criterion = criterion

            def __call__(self, x, y, norm):
                x = self.generator(x)
                sloss = self.criterion(x.view(-1, x.size(-1)), y.view(-1)) / norm
                return sloss.data * norm, sloss
        """,
        """
        import torch

        class SimpleLossCompute:
            def __init__(self, generator, history):
                self.generator = generator
                self.history = history

            def __call__(self, x, y, norm):
                x = self.generator(x)
                record = self.history(x, y)
                return record.data, x
        """,
        id="an-attribute-named-for-a-criterion-computes-a-loss",
    ),
    twin(
        "GG101",
        """
        import torch

        def greedy_decode(model, src, src_mask, max_len, start_symbol):
            @@
            return ys
        """,
        "ys = torch.zeros(1, 1).fill_(start_symbol).type_as(src.data)",
        "ys = torch.zeros(1, 1).fill_(start_symbol)\n            print(src.data)",
        id="the-argument-of-type-as-is-a-tensor",
    ),
    pytest.param(
        "GG101",
        """
        import torch

        def compute_rank(activation, grad):
            taylor = activation * grad
            return taylor.mean(dim=(0, 2, 3)).data
        """,
        """
        import torch

        def climatology(ds, grad):
            return ds.mean(dim="time").data
        """,
        id="a-reduction-over-numbered-dimensions-is-a-tensor",
    ),
    pytest.param(
        "GG103",
        """
        import torch
        import torchvision

        dataset = torchvision.datasets.MNIST(root="data", train=False, download=True)
        y = torch.tensor(dataset.targets)
        """,
        """
        import torch
        import torchvision

        dataset = torchvision.datasets.CIFAR10(root="data", train=False, download=True)
        y = torch.tensor(dataset.targets)
        """,
        id="cifar-targets-are-a-list",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class GAN(object):
            def __init__(self):
                self.G = nn.Linear(8, 8)

            def train(self):
                for epoch in range(3):
                    with torch.no_grad():
                        self.visualize_results(epoch + 1)

            def visualize_results(self, epoch):
                self.G.eval()
                samples = self.G(torch.rand(4, 8))
                print(samples.detach().numpy())

        def main():
            gan = GAN()
            gan.train()
            @@
        """,
        "gan.visualize_results(3)",
        "with torch.no_grad():\n                gan.visualize_results(3)",
        id="a-method-called-on-an-instance-a-function-makes",
    ),
    pytest.param(
        "GG201",
        """
        import torch

        def adv_coverage(model, loader, alpha, measure_model):
            model.eval()
            correct = 0
            for images, label in loader:
                out_clean = model(images)
                _, pred_clean = out_clean.max(dim=1)
                adv = images.clone().detach().requires_grad_(True)
                loss = measure_model(adv).mean()
                grad = torch.autograd.grad(loss, adv)[0]
                correct += int(pred_clean.eq(label).sum().item())
            return correct

        if __name__ == "__main__":
            acc = adv_coverage(pretrained_model, test_loader, 0.1, measure_model)
        """,
        """
        import torch
        import torch.nn.functional as F

        def adv_coverage(model, loader, alpha, measure_model):
            model.eval()
            correct = 0
            for images, label in loader:
                adv = images.clone().detach().requires_grad_(True)
                out_adv = model(adv)
                loss = F.cross_entropy(out_adv, label)
                loss.backward()
                correct += int(out_adv.argmax(1).eq(label).sum().item())
            return correct

        if __name__ == "__main__":
            acc = adv_coverage(pretrained_model, test_loader, 0.1, measure_model)
        """,
        id="an-evaluation-loop-that-uses-gradients-checks-each-call",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn.functional as F

        @@
            begin_seq_index = torch.tensor([vectorizer.begin_seq_index] * num_samples).unsqueeze(dim=1)
            indices = [begin_seq_index]
            h_t = None
            for time_step in range(sample_size):
                x_emb_t = model.char_emb(indices[time_step])
                rnn_out_t, h_t = model.rnn(x_emb_t, h_t)
                prediction_vector = model.fc(rnn_out_t.squeeze(dim=1))
                probability_vector = F.softmax(prediction_vector / temperature, dim=1)
                indices.append(torch.multinomial(probability_vector, num_samples=1))
            return torch.stack(indices).squeeze().permute(1, 0)

        model.load_state_dict(torch.load("model.pth"))
        model.eval()
        print(decode_samples(sample_from_model(model, vectorizer, num_samples=10), vectorizer))
        """,
        "def sample_from_model(model, vectorizer, num_samples=1, sample_size=20, temperature=1.0):",
        "@torch.no_grad()\n        def sample_from_model(model, vectorizer, num_samples=1, sample_size=20, temperature=1.0):",
        id="a-function-named-for-sampling-evaluates",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 4)
                self.out = nn.Linear(4, 10)

            def decode_chain_sampling(self, begin_emb, seq_len):
                res_logits = []
                cur_emb = begin_emb
                for _ in range(seq_len):
                    out_logits = self.out(cur_emb)
                    out_probs = F.softmax(out_logits, dim=1).detach().cpu().numpy()[0]
                    action = int(np.random.choice(out_probs.shape[0], p=out_probs))
                    action_v = torch.LongTensor([action]).to(begin_emb.device)
                    cur_emb = self.emb(action_v)
                    res_logits.append(out_logits)
                @@
        """,
        "return torch.cat(res_logits).argmax(dim=1)",
        "return torch.cat(res_logits)",
        id="a-list-appended-to-may-hold-a-graph",
    ),
    twin(
        "GG101",
        """
        import torch

        @@
                inputs, labels = inputs.to(DEVICE), labels.to(DEVICE)
                preds = torch.max(model(inputs), 1)[1]
                correct += torch.sum(preds == labels.data)
            return correct
        """,
        "def finetune(model, dataloaders, phase):\n            correct = 0\n            for inputs, labels in dataloaders[phase]:",
        "def finetune(model, records, phase):\n            correct = 0\n            for inputs, labels in records[phase]:",
        id="a-dict-named-for-loaders-holds-loaders",
    ),
    twin(
        "GG101",
        """
        import torch
        import torch.nn.functional as F

        def test(model, dataloader):
            for data, target in dataloader:
                pred = model.predict(data)
                @@
                pred = pred.data.max(1)[1]
        """,
        "loss = F.nll_loss(F.log_softmax(pred, dim=1), target).item()",
        "loss = F.nll_loss(torch.from_numpy(pred), target).item()",
        id="a-name-given-to-a-torch-function-is-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class GPT(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(4, 4)

            @@
                for _ in range(max_new_tokens):
                    idx = torch.cat((idx, self(idx).argmax(-1)[:, -1:]), dim=1)
                return idx

        model = GPT.from_pretrained("gpt2-xl")
        model.eval()
        y = model.generate(x, max_new_tokens=20)
        print(y[0].cpu().squeeze())
        """,
        "def generate(self, idx, max_new_tokens):",
        "@torch.no_grad()\n            def generate(self, idx, max_new_tokens):",
        id="an-alternate-constructor-makes-an-instance-of-the-class",
    ),
    twin(
        "GG201",
        """
        import torch
        from transformers import GPT2LMHeadModel

        model = GPT2LMHeadModel.from_pretrained("gpt2")
        model.eval()
        @@
        """,
        "y = model.decode_step(x)\n        print(y.argmax())",
        "y = model.generate(x, max_new_tokens=20)\n        print(y[0])",
        id="generate-of-a-class-not-shown-runs-without-grad",
    ),
    twin(
        "GG201",
        """
        import torch

        def evaluate(model_path: str, make_env, eval_episodes: int, Model: torch.nn.Module, device="cpu"):
            envs = make_env()
            model = Model(envs).to(device)
            model.load_state_dict(torch.load(model_path, map_location=device))
            model.eval()
            obs, _ = envs.reset()
            for _ in range(eval_episodes):
                @@
                actions = torch.argmax(q_values, dim=1).cpu().numpy()
                obs, _, _, _, _ = envs.step(actions)
        """,
        "q_values = model(torch.Tensor(obs).to(device))",
        "with torch.no_grad():\n                    q_values = model(torch.Tensor(obs).to(device))",
        id="a-capitalised-parameter-annotated-as-a-module-is-its-class",
    ),
    twin(
        "GG103",
        """
        import torch
        import torch.nn as nn

        class GenericNetwork(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(8, 2)

            def forward(self, observation):
                @@
        """,
        "hidden = self.fc1(observation)\n                return torch.tensor(hidden)",
        "state = torch.tensor(observation, dtype=torch.float)\n                return self.fc1(state)",
        id="an-argument-of-forward-converted-by-torch-tensor-is-an-array",
    ),
    twin(
        "GG105",
        """
        import torch
        crit = torch.nn.CrossEntropyLoss(size_average=False)

        def get_performance(crit, pred, gold):
            loss = crit(pred, gold.view(-1))
            n_correct = pred.max(1)[1].eq(gold).sum()
            return loss, n_correct

        def train(model, optimizer, training_data):
            total_loss = 0
            for src, gold in training_data:
                optimizer.zero_grad()
                loss, _ = get_performance(crit, model(src), gold)
                loss.backward()
                optimizer.step()
                @@
            return total_loss[0]
        """,
        "total_loss += loss.data",
        "total_loss = get_performance(crit, model(src), gold)",
        id="a-sum-of-losses-is-0-dim",
    ),
    twin(
        "GG105",
        """
        import torch
        from model import Capsule

        capsule = Capsule()

        def evaluate():
            capsule.eval()
            eval_loss = 0
            for data, label in validation_data:
                props, lstm_feats = capsule(data)
                @@
            return eval_loss
        """,
        "loss = capsule.loss(props, label, lstm_feats)\n                eval_loss += loss.data[0]",
        "scores = capsule.scores(props, label, lstm_feats)\n                eval_loss += scores.data[0]",
        id="a-models-method-named-for-a-loss-computes-one",
    ),
    pytest.param(
        "GG101",
        """
        import torch
        import torch.nn as nn

        class YoloLayer(nn.Module):
            def predict_transform(self, inp, anchor_w):
                prediction = inp.view(2, 3, 5, 5, 85).permute(0, 1, 3, 4, 2).contiguous()
                w = prediction[..., 2]
                return torch.exp(w.data) * anchor_w
        """,
        """
        import torch

        def choose_template(kernel, node, anchor_w):
            prediction = kernel.permute(node, [0, 2, 1, 3])
            w = prediction[..., 2]
            return w.data.layout.size
        """,
        id="a-permute-by-numbered-dimensions-makes-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(4, 8)
                self.fc = nn.Linear(8, 2)

            def get_scores(self, x):
                return self.fc(self.rnn(x)[0])

            def init_hidden(self, batch_size):
                weight = next(self.parameters()).data
                return weight.new(1, batch_size, 8).zero_()

        net = Net()
        net.load_state_dict(torch.load("net.pt"))
        net.eval()
        @@
        print(out.argmax())
        """,
        "out = net.get_scores(x)",
        "out = net.init_hidden(4)",
        id="a-method-that-runs-a-layer-runs-the-model-whatever-its-name",
    ),
    twin(
        "GG201",
        """
        import torchvision
        from torch import nn
        from torch.utils.data import DataLoader

        dataset = torchvision.datasets.CIFAR10("../data", train=False, transform=torchvision.transforms.ToTensor())
        dataloader = DataLoader(dataset, batch_size=64)

        class Tudui(nn.Module):
            def __init__(self):
                super(Tudui, self).__init__()
                @@

            def forward(self, input):
                return self.layer1(input)

        tudui = Tudui()
        for step, data in enumerate(dataloader):
            imgs, targets = data
            output = tudui(imgs)
            writer.add_images("output", output, step)
        """,
        "self.layer1 = nn.Conv2d(3, 6, 3)",
        "self.layer1 = nn.MaxPool2d(kernel_size=3, ceil_mode=False)",
        id="a-module-class-holding-only-parameterless-layers-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class FinetunedLLM(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.fc1 = nn.Linear(n, 2)

            def forward(self, batch):
                return self.fc1(batch)

            @@
            def predict_proba(self, batch):
                self.eval()
                z = self(batch)
                return F.softmax(z, dim=1).cpu().numpy()

        class TorchPredictor:
            def __init__(self, preprocessor, model):
                self.model = model
                self.model.eval()

            def predict_proba(self, batch):
                results = self.model.predict_proba(batch)
                return {"output": results}
        """,
        "# runs with the caller's grad mode",
        "@torch.inference_mode()",
        id="a-method-every-class-runs-without-grad-runs-without-grad",
    ),
    twin(
        "GG101",
        """
        import torch

        @torch.no_grad()
        def knn_classifier(test_labels, predictions, idx):
            targets = test_labels[idx : idx + 100]
            @@
        """,
        "return predictions.eq(targets.data.view(-1, 1))",
        'return predictions.eq(targets.data.cast("B"))',
        id="view-after-data-is-a-tensors",
    ),
    twin(
        "GG101",
        """
        import torch
        import torch.nn as nn

        class Solver(object):
            def __init__(self):
                self.D = nn.Linear(4, 1)
                self.lstm = nn.LSTM(4, 4)

            def train(self, data_iter):
                x_real, label_org = next(data_iter)
                x_real = x_real.to(self.device)
                @@
                alpha = torch.rand(self.batch_size, 1)
                return alpha * x_real.data
        """,
        "out_src = self.D(x_real)",
        "out_src = self.lstm(x_real)",
        id="a-models-input-is-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch

        def create_samples(g_model, input_z):
            g_output = g_model(input_z)
            images = torch.reshape(g_output, (64, 28, 28))
            return (images + 1) / 2.0

        epoch_samples = []
        for epoch in range(1, 101):
            for x, _ in mnist_dl:
                g_train(x)
            @@
        """,
        "epoch_samples.append(create_samples(gen_model, fixed_z).detach().cpu().numpy())",
        "loss_fn(create_samples(gen_model, fixed_z), target).backward()",
        id="a-sampling-function-whose-callers-read-its-result-at-once",
    ),
    twin(
        "GG201",
        """
        import unittest
        import torch
        from torch import nn
        from hubconf import detr_resnet50

        class Tester(unittest.TestCase):
            def test_model_script_detection(self):
                model = detr_resnet50(pretrained=False)
                @@
                scripted_model = torch.jit.script(model)
                x = [torch.rand(3, 200, 200)]
                out = model(x)
                out_script = scripted_model(x)
                self.assertTrue(out["pred_logits"].equal(out_script["pred_logits"]))
        """,
        'model.load_state_dict(torch.load("detr.pth"))\n                model.eval()',
        "model.eval()",
        id="a-unit-test-of-a-model-it-builds-in-eval-mode",
    ),
    twin(
        "GG101",
        """
        import torch.nn as nn

        def convert_weights(l):
            for attr in ["in_proj_weight", "bias_k"]:
                tensor = getattr(l, attr)
                if tensor is not None:
                    @@
        """,
        "halves.append(tensor.data.half())",
        "halves.append(tensor.data.tolist())",
        id="half-after-data-is-a-tensors",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        from torch.autograd import Variable

        class LabelSmoothing(nn.Module):
            def __init__(self, size):
                super(LabelSmoothing, self).__init__()
                @@
                self.size = size

            def forward(self, x, target):
                true_dist = x.data.clone()
                return self.criterion(x, Variable(true_dist, requires_grad=False))

        crit = LabelSmoothing(5)

        def loss(x):
            predict = torch.FloatTensor([[0, x, 1, 1, 1]])
            print(crit(predict.log(), torch.LongTensor([1])).item())
        """,
        "self.criterion = nn.Linear(5, 5)",
        "self.criterion = nn.KLDivLoss(size_average=False)",
        id="a-loss-module-class-has-no-parameters",
    ),
    twin(
        "GG302",
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class FasterRCNNTrainer(nn.Module):
            def __init__(self, model_train):
                super(FasterRCNNTrainer, self).__init__()
                self.model_train = model_train

            def forward(self, imgs, labels):
                @@
                creator_input = anchor[0].cpu().numpy()
                return F.cross_entropy(rpn_scores[0], labels)
        """,
        'rpn_scores, anchor = self.model_train(imgs, mode="rpn")',
        'rpn_locs, rpn_scores, rois, roi_indices, anchor = self.model_train(imgs, mode="rpn")',
        id="three-or-more-results-of-a-model-not-shown-may-carry-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class ConvNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(784, 10)

            def forward(self, x):
                return self.fc1(x)

        model = ConvNet()
        model.load_state_dict(torch.load("./convnet.pth", map_location="cpu"))
        model.eval()
        for p in model.parameters():
            p.requires_grad_(False)
        @@
        out = model(torch.rand(1, 784))
        print(out.argmax())
        """,
        "model.fc1 = nn.Linear(784, 10)",
        "x = 1",
        id="a-model-whose-parameters-are-all-frozen-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        from torchviz import make_dot

        class RandWireNNModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 10)

            def forward(self, x):
                return self.fc(x)

        model = RandWireNNModel()
        model.load_state_dict(torch.load("ckpt.t7"))
        model.eval()
        y = model(torch.randn(2, 8))
        @@
        """,
        "print(y.mean())",
        "make_dot(y.mean(), params=dict(model.named_parameters())).render(view=False)",
        id="a-graph-drawn-by-torchviz-is-used",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        embedding_layer = nn.Embedding(num_embeddings=10, embedding_dim=4)
        optimizer = torch.optim.Adam(embedding_layer.parameters(), lr=0.001)
        @@
        pred = embedding_layer(torch.tensor([[0, 1]], dtype=torch.long))
        print(pred)
        """,
        "embedding_layer(torch.tensor([[0]])).sum().backward()\n        optimizer.step()",
        "embedding_layer = nn.Embedding(num_embeddings=3, embedding_dim=3)",
        id="a-module-built-again-is-a-new-one",
    ),
    twin(
        "GG102",
        """
        import torch.nn as nn

        for layer_id in range(len(old_modules)):
            if isinstance(old_modules[layer_id], nn.BatchNorm2d):
                m2 = new_modules[layer_id + 1]
                print(m2.indexes.data.cpu())
                @@.data[keep.tolist()] = 1.0
        """,
        "m2.indexes",
        "m2.other",
        id="an-attribute-written-through-data-with-a-tensor-method-elsewhere-is-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        nets = [nn.Linear(1, 1), nn.Linear(1, 1)]
        opts = [torch.optim.Adam(net.parameters(), lr=0.1) for net in nets]
        for epoch in range(3):
            for net, opt in zip(nets, opts):
                loss = net(x).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        @@
        preds = [net(test_x) for net in nets]
        print(preds[0].data.numpy())
        """,
        "[net.eval() for net in nets]",
        "[net.train() for net in nets]",
        id="modules-of-a-list-switched-to-eval-by-a-comprehension",
    ),
    twin(
        "GG207",
        """
        import torch.nn.functional as F

        def requires_grad(model, flag=True):
            for p in model.parameters():
                p.requires_grad = flag

        def train(loader, encoder, generator, discriminator, e_optim, d_optim):
            requires_grad(generator, False)
            for real_img in loader:
                @@
                requires_grad(discriminator, True)
                latents = encoder(real_img)
                recon_img, _ = generator([latents], input_is_latent=True)
                d_loss = F.softplus(discriminator(recon_img)).mean() + F.softplus(-discriminator(real_img)).mean()
                d_optim.zero_grad()
                d_loss.backward()
                d_optim.step()
                requires_grad(encoder, True)
                requires_grad(discriminator, False)
                recon_img, _ = generator([encoder(real_img)], input_is_latent=True)
                e_loss = F.mse_loss(recon_img, real_img) + F.softplus(-discriminator(recon_img)).mean()
                e_optim.zero_grad()
                e_loss.backward()
                e_optim.step()
        """,
        "requires_grad(encoder, True)",
        "requires_grad(encoder, False)",
        id="models-frozen-by-a-helper-before-the-discriminator-step-record-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Detector(nn.Module):
            def __init__(self, path):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)
                @@

            def forward(self, x):
                return self.conv(x)

        detector = Detector("landmarks.pth")
        for image in images:
            print(detector(image.unsqueeze(0)).detach().numpy().argmax())
        """,
        "self.load_state_dict(torch.load(path))",
        "self.path = path",
        id="a-model-whose-class-loads-its-weights-in-init-is-trained",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        from torchvision import models

        class FeatureNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.feature = nn.Sequential(*list(models.vgg19(@@).children())[:-1])

            def forward(self, x):
                return self.feature(x).flatten(1)

        def create_features(loader):
            featurenet = FeatureNet()
            features = torch.FloatTensor()
            for img, label in loader:
                features = torch.cat((features, featurenet(img).cpu().data), 0)
            return features.numpy()
        """,
        "pretrained=True",
        "pretrained=False",
        id="a-model-whose-class-builds-a-pretrained-backbone-is-trained",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        from torch.distributions import Categorical

        class Agent:
            def __init__(self, network):
                self.network = network
                self.optimizer = torch.optim.SGD(self.network.parameters(), lr=0.001)

            def learn(self, log_probs, rewards):
                loss = (-log_probs * rewards).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

            def sample(self, state):
                dist = Categorical(logits=self.network(torch.FloatTensor(state)))
                action = dist.sample()
                return @@
        """,
        "action.item()",
        "action.item(), dist.log_prob(action)",
        id="a-distributions-log-prob-carries-the-models-graph",
    ),
    twin(
        "GG201",
        """
        import torch

        activations = None

        def hook(module, inputs, output):
            global activations
            activations = output

        def visualize(x, model, k):
            model.eval()
            @@
            x.requires_grad_()
            optimizer = torch.optim.Adam([x], lr=0.1)
            for it in range(100):
                optimizer.zero_grad()
                model(x)
                objective = -activations[:, k].sum()
                objective.backward()
                optimizer.step()
            return x.detach()
        """,
        "handle = None",
        "handle = model.cnn[0].register_forward_hook(hook)",
        id="a-dropped-model-output-a-forward-hook-feeds-to-a-loss",
    ),
    twin(
        "GG201",
        """
        import torch

        class LossCompute:
            def __init__(self, criterion, opt):
                self.criterion, self.opt = criterion, opt

            def __call__(self, x, y):
                loss = self.criterion(x, y)
                @@
                return loss.item() * torch.ones(())

        def run_epoch(data_iter, model, loss_compute):
            total = 0
            for src, tgt in data_iter:
                out = model(src)
                loss = loss_compute(out, tgt)
                total += loss.detach().numpy()
            return total
        """,
        "pass",
        "loss.backward()",
        id="an-output-handed-to-a-callable-whose-class-backpropagates-in-call",
    ),
    twin(
        "GG201",
        """
        import torch

        lin = torch.nn.Linear(3, 2)
        x = torch.rand(1, 3)
        @@
        y = lin(x)
        print(y)
        """,
        "optimizer = torch.optim.SGD(lin.parameters(), lr=0.1)\n        lin(x).sum().backward()\n        optimizer.step()",
        "# an optimizer would take lin.parameters() and train it\n        for param in lin.parameters():\n            print(param)",
        id="parameters-printed-or-named-in-a-comment-are-no-training",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import matplotlib.pyplot as plt

        def show_prob(p):
            @@
            plt.barh(range(len(p)), p)

        net = nn.Linear(784, 10)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(net(x), y).backward()
            optimizer.step()
        scores = net(image.view(1, 784))
        show_prob(F.softmax(scores, dim=1))
        """,
        "p = p.data.squeeze().numpy()",
        "p = p.squeeze()",
        id="a-helper-that-first-copies-its-parameter-without-graph-only-reads-it",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn.functional as F
        from torch import nn, optim

        report = @@
        model = nn.Linear(784, 10)
        opt = optim.SGD(model.parameters(), lr=0.5)
        for xb, yb in train_dl:
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        print(report(model(xb), yb))
        """,
        "F.cross_entropy",
        "make_report",
        id="a-printed-loss-through-an-alias-of-a-torch-function-only-reads-the-output",
    ),
    twin(
        "GG102",
        """
        import torch

        class Meter:
            data = 0.0

        def importance(model, loader):
            precision = {}
            for n, p in model.named_parameters():
                precision[n] = @@
            for x, y in loader:
                for n, p in model.named_parameters():
                    precision[n].data += 0.5
            return precision
        """,
        "p.clone().detach().fill_(0)",
        "Meter()",
        id="items-of-a-dict-assigned-tensors-are-tensors",
    ),
    twin(
        "GG101",
        """
        import numpy as np
        import scipy.sparse
        import torch

        def to_torch_sparse(L, indices):
            L = scipy.sparse.csr_matrix(L).tocoo()
            values = L.data.@@
            L = torch.sparse_coo_tensor(indices, torch.from_numpy(values), torch.Size(L.shape))
            return L
        """,
        "cpu().numpy()",
        "astype(np.float32)",
        id="a-values-array-converted-with-astype-is-not-a-tensor",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Detector(nn.Module):
            def __init__(self, channels, checkpoint_name=None):
                super().__init__()
                self.conv = nn.Conv2d(3, channels, 3)

            def forward(self, x):
                return self.conv(x)

        detector = Detector(@@)
        for image in images:
            print(detector(image.unsqueeze(0)).detach().numpy().argmax())
        """,
        'channels=8, checkpoint_name="landmarks.pth"',
        "channels=8, checkpoint_name=None",
        id="a-model-built-with-a-checkpoint-keyword-is-loaded",
    ),
    twin(
        "GG207",
        """
        import torch
        import torch.nn.functional as F

        class Trainer:
            def set_requires_grad(self, nets, requires_grad=False):
                for net in nets:
                    for param in net.parameters():
                        param.requires_grad = requires_grad

            def step(self, real, z):
                @@
                fake = self.netG(z)
                loss_d = F.softplus(self.netD(fake)).mean() + F.softplus(-self.netD(real)).mean()
                self.opt_d.zero_grad()
                loss_d.backward()
                self.opt_d.step()
                self.set_requires_grad([self.netG], True)
                loss_g = F.softplus(-self.netD(self.netG(z))).mean()
                self.opt_g.zero_grad()
                loss_g.backward()
                self.opt_g.step()
        """,
        "self.set_requires_grad([self.netD], True)",
        "self.set_requires_grad([self.netG])",
        id="a-generator-frozen-by-a-method-over-a-list-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class Searcher(nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = nn.Linear(4, 4)

            def forward(self, x):
                return self.linear(x).argmax(1)

        def evaluate(searcher, sentence):
            tokens = searcher(sentence)
            return [token.item() for token in tokens]

        def evaluate_input(searcher, lines):
            for line in lines:
                print(evaluate(searcher, encode(line)))

        searcher = Searcher()
        searcher.load_state_dict(torch.load("searcher.pt"))
        @@
        """,
        "evaluate_input(searcher, open('questions.txt'))",
        "with torch.no_grad(): evaluate_input(searcher, open('questions.txt'))",
        id="a-model-handed-on-through-a-wrapper-is-known-in-the-evaluation",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn.functional as F

        weights = torch.randn(784, 10, requires_grad=True)
        bias = torch.zeros(10, requires_grad=True)

        def log_softmax(x):
            return x - x.exp().sum(-1).log().unsqueeze(-1)

        def model(xb):
            return log_softmax(xb @ weights + bias)

        for xb, yb in zip(x_batches, y_batches):
            loss = F.nll_loss(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * 0.5
                bias -= bias.grad * 0.5
                weights.grad.zero_()
                bias.grad.zero_()

        @@
        """,
        "print(F.nll_loss(model(xb), yb))",
        "with torch.no_grad(): print(F.nll_loss(model(xb), yb))",
        id="a-hand-written-model-through-a-helper-is-a-model",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn.functional as F

        weights = torch.randn(784, 10, requires_grad=True)
        bias = torch.zeros(10, requires_grad=True)

        def log_softmax(x):
            return x - x.exp().sum(-1).log().unsqueeze(-1)

        def model(xb):
            return log_softmax(xb @ weights + bias)

        def model(xb):
            return xb @ weights + bias

        for xb, yb in zip(x_batches, y_batches):
            loss = F.nll_loss(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * 0.5
                bias -= bias.grad * 0.5
                weights.grad.zero_()
                bias.grad.zero_()

        @@
        """,
        "print(F.cross_entropy(model(xb), yb))",
        "with torch.no_grad(): print(F.cross_entropy(model(xb), yb))",
        id="a-hand-written-model-defined-twice-is-the-one-bound-there",
    ),
    twin(
        "GG301",
        """
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 2)
        criterion = nn.CrossEntropyLoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        running_loss = 0
        for i, (x, y) in enumerate(train_loader):
            @@
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running_loss += loss
            print(running_loss)
        """,
        "if i % 100 == 0: running_loss = 0",
        "running_loss = 0",
        id="an-accumulator-reset-every-hundred-steps-keeps-their-graphs",
    ),
    twin(
        "GG301",
        """
        import torch

        def train(model, loader, opt):
            train_loss = 0
            for batch in loader:
                output = model(**batch)
                output.loss.backward()
                opt.step()
                @@
            return train_loss / len(loader)
        """,
        "train_loss += output.loss",
        "train_loss += output.loss.item()",
        id="a-model-outputs-loss-is-a-loss",
    ),
    twin(
        "GG101",
        """
        import torch
        import torchvision

        features = []

        def keep(module, inputs, output):
            features.append(output.data)

        model = torchvision.models.resnet18(weights="DEFAULT")
        @@
        """,
        "model.layer4.register_forward_hook(keep)",
        "model.layer4.register_buffer('keep', keep)",
        id="a-hook-is-handed-the-modules-output-tensor",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch
        import torch.nn as nn

        model = nn.Sequential(nn.Linear(40, 100), nn.ReLU(), nn.Linear(100, 10))
        loss_function = nn.CrossEntropyLoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        losses_val = np.zeros(10)
        for epoch in range(10):
            for x_batch, y_batch in data_loader:
                optimizer.zero_grad()
                loss_function(model(x_batch), y_batch).backward()
                optimizer.step()
            pred_val = model(x_val)
            @@
        """,
        "losses_val[epoch] = loss_function(pred_val, y_val).item()",
        "losses_val[epoch] = loss_function(pred_val, y_val)",
        id="an-output-read-on-the-way-into-a-slot-is-only-read",
    ),
    twin(
        "GG302",
        """
        import torch
        import torch.nn as nn

        net = nn.Linear(4, 3)
        img = (net(torch.randn(2, 4)) * 127.5 + 128).clamp(0, 255)@@
        arr = img[0].cpu().numpy()
        """,
        ".to(torch.float16)",
        ".to(torch.uint8)",
        id="an-integer-cast-carries-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torchvision

        model = torchvision.models.squeezenet1_1(pretrained=True)
        @@

        def make_fooling_image(x, target, model):
            x = x.detach().requires_grad_()
            for _ in range(100):
                scores = model(x)
                scores[0, target].backward()
                with torch.no_grad():
                    x += x.grad / x.grad.norm()
                    x.grad.zero_()
            return x.detach()

        fooling = make_fooling_image(torch.randn(1, 3, 224, 224), 6, model)
        print(model(fooling).argmax(1)[0].item())
        """,
        "model.eval()",
        "model.eval()\n        for param in model.parameters():\n            param.requires_grad = False",
        id="a-frozen-model-stays-frozen-when-an-input-requires-grad",
    ),
    twin(
        "GG201",
        """
        import torch

        with open("ffhq.pkl", "rb") as fp:
            G = load_network_pkl(fp)["G_ema"]@@
        z = torch.randn(1, 512)
        print(G(z, None).clamp(0, 1).mean().item())
        """,
        ".to(device)",
        ".requires_grad_(False).to(device)",
        id="a-model-bound-frozen-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        mlp_layer = nn.Sequential(nn.Linear(5, 2), nn.BatchNorm1d(2), nn.ReLU())
        @@
        print(mlp_layer(test_example))

        adam_opt = torch.optim.Adam(mlp_layer.parameters(), lr=0.1)
        adam_opt.zero_grad()
        cur_loss = torch.abs(1 - mlp_layer(train_example)).mean()
        cur_loss.backward()
        adam_opt.step()
        """,
        "test_example = test_images[:5]",
        "test_example = torch.randn(5, 5) + 1",
        id="a-made-up-input-named-for-testing-is-no-test-data",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        class MicroGen(nn.Module):
            def __init__(self, z_dim):
                super().__init__()
                self.map = nn.Linear(z_dim, 48)

            def forward(self, noise):
                return self.map(noise).view(len(noise), 3, 4, 4)

        gen = MicroGen(8)
        @@
        gen.eval()
        images = [gen(torch.randn(4, 8)) for _ in range(5)]
        show(torch.cat(images).detach())
        """,
        "gen.load_state_dict(torch.load('gen.pt'))",
        "",
        id="a-demo-of-an-untrained-class-of-the-file-is-no-evaluation",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        gen = nn.Sequential(nn.Linear(64, 784))
        gen.load_state_dict(torch.load("gen.pth"))
        gen.eval()
        noise = torch.randn(8, 64).requires_grad_()
        reference = gen(noise)@@
        for i in range(10):
            score = (gen(noise) - reference).norm()
            score.backward()
        """,
        ".detach()",
        "",
        id="an-output-detached-at-once-reaches-no-backward",
    ),
    twin(
        "GG201",
        """
        import torch
        import torch.nn as nn

        def show_tensor_images(image_tensor):
            plt.imshow(image_tensor.detach().cpu().view(-1, 28).numpy())

        gen = nn.Sequential(nn.Linear(74, 784), nn.Tanh())
        gen.load_state_dict(torch.load("gen.pt"))
        gen = gen.eval()

        @@
        def interpolate_class(first_label, second_label, n=9):
            p = torch.linspace(0, 1, n)[:, None]
            labels = first_label * (1 - p) + second_label * p
            fake = gen(torch.cat([torch.randn(n, 64), labels], 1))
            show_tensor_images(fake)
        """,
        "",
        "@torch.no_grad()",
        id="a-helper-named-for-nothing-that-shows-a-models-output",
    ),
    twin(
        "GG201",
        """
        import torch

        yolo_model = torch.hub.load("ultralytics/yolov5", "yolov5s"@@)
        yolo_model.eval()
        results = yolo_model(img)
        print(results)
        """,
        ", autoshape=False",
        "",
        id="a-yolov5-hub-model-runs-without-grad-itself",
    ),
    twin(
        "GG302",
        """
        import torch
        import torchvision

        model = torchvision.models.densenet121(weights="DEFAULT")
        outputs = model(images)
        @@
        print(predictions.numpy())
        """,
        "predictions, _ = outputs.topk(5, dim=1)",
        "_, predictions = outputs.topk(5, dim=1)",
        id="the-indices-of-topk-carry-no-graph",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch

        def generate_image(G, z):
            img = G(torch.from_numpy(z), None)
            img = (img.permute(0, 2, 3, 1) * 127.5 + 128).clamp(0, 255)
            return img[0].detach().cpu().numpy()

        with open("ffhq.pkl", "rb") as fp:
            G = load_network_pkl(fp)["G_ema"]@@
        for seed in range(3):
            print(generate_image(G, np.random.RandomState(seed).randn(1, 512)).mean())
        """,
        ".to(device)",
        ".requires_grad_(False).to(device)",
        id="a-model-every-caller-hands-frozen-records-no-graph",
    ),
    twin(
        "GG201",
        """
        import numpy as np
        import torch
        import torch.nn as nn
        from scipy.stats import truncnorm

        class MicroGen(nn.Module):
            def __init__(self, z_dim):
                super().__init__()
                self.map = nn.Linear(z_dim, 48)

            def forward(self, noise):
                return self.map(noise).view(len(noise), 3, 4, 4)

        def get_truncated_noise(n, z_dim, truncation):
            noise = @@
            return torch.Tensor(noise)

        gen = MicroGen(8)
        viz_noise = get_truncated_noise(10, 8, 0.7) * 10
        gen.eval()
        images = gen(viz_noise)
        show(images.detach())
        """,
        "np.load('faces.npy')[:n]",
        "truncnorm.rvs(-truncation, truncation, size=(n, z_dim))",
        id="noise-from-a-function-of-the-file-is-made-up",
    ),
    twin(
        "GG207",
        """
        import torch

        def train(g_model, d_model, loader, g_optimizer, d_optimizer, criterion):
            for gt, lr in loader:
                for p in d_model.parameters():
                    p.requires_grad = @@
                g_model.zero_grad()
                sr = g_model(lr)
                gt_output = d_model(gt.detach())
                sr_output = d_model(sr)
                g_loss = criterion(gt_output - sr_output.mean(), 0) + criterion(sr_output - gt_output.mean(), 1)
                g_loss.backward()
                g_optimizer.step()
                for p in d_model.parameters():
                    p.requires_grad = True
                d_model.zero_grad()
                d_loss = criterion(d_model(gt), 1) + criterion(d_model(sr.detach()), 0)
                d_loss.backward()
                d_optimizer.step()
        """,
        "True",
        "False",
        id="a-relativistic-generator-step-with-the-discriminator-frozen",
    ),
    # -- one vocabulary -------------------------------------------------------------------
    twin(
        "GG202",
        """
        import torch

        def f(w):
            @@
            y = (w * 2).sum()
            y.backward()
        """,
        "torch.set_grad_enabled(mode=False)",
        "torch.set_grad_enabled(mode=True)",
        id="set-grad-enabled-by-keyword",
    ),
]


@pytest.mark.parametrize("code,flagged,quiet", CASES)
def test_failure_class(code, flagged, quiet):
    ast.parse(textwrap.dedent(flagged))  # a twin that does not parse would pass for nothing
    ast.parse(textwrap.dedent(quiet))
    assert code in codes(flagged), f"{code} must flag:\n{textwrap.dedent(flagged)}"
    assert code not in codes(quiet), f"{code} must stay quiet on:\n{textwrap.dedent(quiet)}"


def test_each_evaluation_of_a_script_is_a_site_and_a_function_is_one():
    script = """
        import torch
        from transformers import BertModel, AutoModelForSequenceClassification

        bert_model = BertModel.from_pretrained("bert-base-uncased")
        bert_model.eval()
        out = bert_model(input_ids=tokens)
        print(out.keys())

        loaded_model = AutoModelForSequenceClassification.from_pretrained("bert_alice_vs_wizard")
        loaded_model.eval()
        logits = loaded_model(input_ids=tokens)
        print(logits)
    """
    lines = [d.start.row for d in findings(textwrap.dedent(script)) if d.code == "GG201"]
    assert lines == [7, 12]
    function = "def show(tokens):" + textwrap.indent(textwrap.dedent(script).split("\n", 3)[3], "    ")
    header = "import torch\nfrom transformers import BertModel, AutoModelForSequenceClassification\n"
    assert len([d for d in findings(header + function) if d.code == "GG201"]) == 1


def test_each_read_only_evaluation_of_a_script_is_a_site():
    """Three cells predicting with a pretrained model, outputs only read: three sites."""
    script = """
        import torchvision

        model = torchvision.models.resnet18(weights="DEFAULT")
        logit = model(load("dog1.png"))[0]
        print(logit.argmax(-1).item())

        logit = model(load("dog2.png"))[0]
        print(logit.argmax(-1).item(), logit.softmax(-1).max().item())

        print(model(load("dog3.png")).argmax(-1).item())
    """
    lines = [d.start.row for d in findings(textwrap.dedent(script)) if d.code == "GG201"]
    assert lines == [5, 8, 11]
    # after a switch to eval mode, too
    switched = textwrap.dedent(script).replace("model = ", "model.eval()\nmodel = ", 1)
    switched = switched.replace('weights="DEFAULT")', 'weights="DEFAULT")\nmodel.eval()', 1)
    switched = switched.replace("model.eval()\nmodel = ", "model = ", 1)
    assert [d.start.row for d in findings(switched) if d.code == "GG201"] == [6, 9, 12]


def test_a_message_cites_only_a_switch_to_eval_of_the_model_it_runs():
    script = """
        import torch
        import torchvision

        model = torchvision.models.resnet18(weights="DEFAULT")
        ensemble_model = Ensemble(["a", "b"])
        ensemble_model.eval()
        logit = model(x)[0]
        print(logit.argmax(-1).item())
        @@
    """
    other = [d.message for d in findings(textwrap.dedent(script.replace("@@", ""))) if d.code == "GG201"]
    assert len(other) == 1 and "ensemble_model.eval()" not in other[0] and "only read" in other[0]
    own = textwrap.dedent(script.replace("@@", "")).replace("ensemble_model.eval()", "model.eval()")
    assert [d.message for d in findings(own) if d.code == "GG201" and "after `model.eval()`" in d.message]


@pytest.mark.parametrize("filename,flagged", [("ch04/tests.py", False), ("ch04/test.py", True), ("ch04/demo.py", True)])
def test_a_module_of_tests_is_a_test_file_an_evaluation_script_is_not(filename, flagged):
    """`tests.py` holds unit tests of the code (an untrained model compared with a copy);
    `test.py` is most often the script that evaluates a trained model."""
    code = textwrap.dedent(
        """
        import copy
        import torch

        def test_attention_matches_reference():
            ref_att = MultiHeadAttention(8, 2)
            ref_att.eval()
            swa_att = copy.deepcopy(ref_att)
            x = torch.randn(1, 4, 8)
            print(ref_att(x).sum().item(), swa_att(x).sum().item())
        """
    )
    assert any(d.code == "GG201" for d in findings(code, filename=filename)) is flagged


@pytest.mark.parametrize(
    "given,flagged",
    [("base.state_dict()", False), ("torch.load('swa.pth')", True)],
)
def test_a_unit_test_copying_weights_between_its_own_models_runs_untrained_models(given, flagged):
    code = textwrap.dedent(
        f"""
        import torch

        def test_swa_matches_base():
            base = GPTModel(cfg)
            swa = GPTModelSWA(cfg)
            swa.load_state_dict({given})
            base.eval()
            swa.eval()
            x = torch.randint(0, 50, (1, 8))
            torch.testing.assert_close(swa(x).sum().item(), base(x).sum().item())
        """
    )
    assert any(d.code == "GG201" for d in findings(code, filename="tests/test_swa.py")) is flagged


def test_a_loop_that_attacks_its_input_gets_the_advice_for_each_call():
    """`adversary.perturb(x, y)` backpropagates to its input: wrapping the whole function in
    `no_grad` would break it, so each model call is reported with the advice to wrap it."""
    attacked = textwrap.dedent(
        """
        import torch

        def advtest(model, loader, adversary):
            model.eval()
            clean, adv = 0, 0
            for batch, label in loader:
                out_clean = model(batch)
                advbatch = adversary.perturb(batch, label)
                out_adv = model(advbatch)
                clean += int(out_clean.argmax(1).eq(label).sum().item())
                adv += int(out_adv.argmax(1).eq(label).sum().item())
            return clean, adv
        """
    )
    messages = [d.message for d in findings(attacked) if d.code == "GG201"]
    assert len(messages) == 2
    assert all("never backpropagated" in m and "nothing in this function" not in m for m in messages)
    plain = attacked.replace("advbatch = adversary.perturb(batch, label)", "advbatch = batch + 0.1")
    messages = [d.message for d in findings(plain) if d.code == "GG201"]
    assert messages and all("nothing in this function uses gradients" in m for m in messages)


@pytest.mark.parametrize(
    "filename,flagged",
    [("tests/modeling_tiny_test.py", False), ("modeling_tiny_test.py", False), ("modeling_tiny.py", True)],
)
def test_a_helper_of_a_test_file_checks_a_model_it_builds(filename, flagged):
    """A model tester's `create_and_check_*` helper, called by `test_*` methods, builds the model
    and checks the shapes of its outputs: a test of the model's code, in a file of tests."""
    code = textwrap.dedent(
        """
        import unittest

        import torch
        import torch.nn as nn


        class TinyModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
                self.drop = nn.Dropout(0.1)

            def forward(self, x):
                return self.drop(self.fc(x))


        class TinyModelTest(unittest.TestCase):
            class TinyModelTester:
                def __init__(self, parent):
                    self.parent = parent

                def create_and_check_tiny_model(self, inputs):
                    model = TinyModel()
                    model.eval()
                    outputs = model(inputs)
                    self.parent.assertEqual(list(outputs.size()), [3, 2])

            def test_tiny_model(self):
                self.TinyModelTester(self).create_and_check_tiny_model(torch.randn(3, 4))
        """
    )
    assert any(d.code == "GG201" for d in findings(code, filename=filename)) is flagged
