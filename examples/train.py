"""A small image-classification training script with classic gradient-control mistakes."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class SmallNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 32 * 32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.fc(x.flatten(1))


def train_one_epoch(model, loader, lr=0.01):
    criterion = nn.CrossEntropyLoss()
    running_loss = 0.0
    history = []
    for images, labels in loader:
        images = Variable(images)
        logits = model(images)
        loss = criterion(logits, labels)
        model.zero_grad()
        loss.backward()
        # Hand-written SGD step through .data: bypasses autograd's version counter.
        for p in model.parameters():
            p.data.add_(-lr * p.grad)
        running_loss += loss  # keeps every iteration's graph alive
        history.append(logits.numpy())  # RuntimeError: logits requires grad
    return running_loss / len(loader), history


def class_weights(labels):
    freq = torch.bincount(labels).float()
    w = torch.tensor(1.0 / freq)  # copy-constructs from a tensor, with a UserWarning
    w.require_grad = True  # typo: silently ignored
    return w


def snapshot(model):
    return {name: p.data.cpu().clone() for name, p in model.named_parameters()}
