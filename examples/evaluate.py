"""Evaluation helpers: grad left on, misused grad-mode switches."""

import torch


def evaluate(model, val_loader, criterion):
    model.eval()
    total, correct = 0.0, 0
    for x, y in val_loader:
        out = model(x)  # grad enabled: every forward builds a graph
        total += criterion(out, y).item()
        correct += (out.argmax(1) == y).sum().item()
    return total / len(val_loader), correct


def predict(model, x):
    with torch.no_grad:  # TypeError: the class, not an instance
        return model(x)


def embed(model, x):
    with torch.inference_mode():
        with torch.no_grad():  # redundant inside inference_mode
            return model(x)


def setup_inference():
    torch.set_grad_enabled(False)  # stays off for the rest of the thread


def finetune_step(model, x, y, criterion):
    with torch.no_grad():
        loss = criterion(model(x), y)
        loss.backward()  # RuntimeError: loss has no grad_fn
