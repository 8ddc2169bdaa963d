"""Small models and loops shared by the runtime tests."""

import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        h = nn.functional.adaptive_avg_pool2d(h, 4).flatten(1)
        return self.head(h)


def batches(n, seed=0, batch=8):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        yield torch.randn(batch, 3, 8, 8, generator=g), torch.randint(0, 10, (batch,), generator=g)


def train_steps(model, n=3, seed=0):
    """A normal training loop; returns the float losses."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for x, y in batches(n, seed):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def hooks_registered():
    return torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
