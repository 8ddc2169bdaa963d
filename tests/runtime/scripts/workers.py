import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.tensor([float(i)]), torch.tensor([float(i * i)])


def main():
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for context in sys.argv[1:] or ["fork"]:
        loader = DataLoader(Squares(), batch_size=4, num_workers=1, multiprocessing_context=context)
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        print(context, "batches ok")


if __name__ == "__main__":
    main()
