import torch
from _common import batches, make_model

model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = torch.nn.CrossEntropyLoss()
history = []
for x, y in batches(10):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()
    history.append(loss)  # keeps every step's graph alive
print("done")
