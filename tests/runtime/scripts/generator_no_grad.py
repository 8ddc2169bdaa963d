import torch
from _common import make_model


def features(model, n):
    with torch.no_grad():
        for _ in range(n):
            yield model(torch.randn(4, 8))


model = make_model()
head = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
for f in features(model, 3):
    loss = head(f).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
