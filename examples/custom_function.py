"""A custom autograd Function and an inference-time cache."""

import torch


class ScaledExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = torch.exp(x) * scale
        ctx.y = y  # skips save_for_backward's in-place checks
        ctx.save_for_backward(x.detach())  # breaks double backward
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * ctx.y, None


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.cache = None

    @torch.inference_mode()
    def precompute(self, x):
        self.cache = self.proj(x)  # an inference tensor kept for later autograd use
        return self.cache
