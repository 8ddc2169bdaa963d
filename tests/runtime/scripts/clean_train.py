import sys

import torch
from _common import batches, make_model


def main():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = torch.nn.CrossEntropyLoss()
    total = 0.0
    for x, y in batches(6):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        correct = sum((model(x).argmax(1) == y).sum().item() for x, y in batches(3, seed=1))
    print(f"argv={sys.argv[1:]} name={__name__} loss={total:.4f} correct={correct}")
    return 3 if "--exit3" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
