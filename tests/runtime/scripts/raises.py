import torch


def inner():
    raise ValueError("bad value from the script")


torch.ones(1)
print("before")
inner()
