"""Weight initialisation written the pre-1.0 way."""

import torch.nn as nn


def init_weights(module):
    if isinstance(module, nn.Linear):
        module.weight.normal_(0, 0.02)  # RuntimeError: in-place on a leaf that requires grad
        module.bias.zero_()
    elif isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight.data)


def shrink(model, factor):
    for p in model.parameters():
        p.data.mul_(factor)
