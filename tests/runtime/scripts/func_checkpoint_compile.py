import sys

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
x = torch.randn(5)
print("func grad", torch.func.grad(lambda v: v.sin().sum())(x).sum().item())
print("hessian", torch.func.hessian(lambda v: v.pow(3).sum())(x).trace().item())

block = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(block.parameters(), lr=0.1)
for _ in range(4):
    inp = torch.randn(4, 8, requires_grad=True)
    opt.zero_grad()
    checkpoint(block, inp, use_reentrant=False).sum().backward()
    opt.step()

if "--compile" in sys.argv:
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    compiled = torch.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        compiled(torch.randn(4, 8)).pow(2).mean().backward()
        opt.step()
print("ok")
