import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.sigmoid(self.fc1(x))
        h.data.clamp_(0.1, 0.9)
        return self.fc2(h)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    loss.backward()
    opt.step()
print("trained")
