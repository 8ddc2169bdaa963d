import torch
from _common import batches, make_model


def evaluate(model):
    correct = 0
    for x, y in batches(5, seed=2):
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches(4):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
print("correct", evaluate(model))
