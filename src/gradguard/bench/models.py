"""Models to measure: three built from ``torch.nn`` alone (random weights, nothing is
downloaded) and user models from an importable ``pkg.module:factory``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from gradguard.bench.errors import BenchInputError


class _BasicBlock(nn.Module):
    """ResNet basic block: two 3x3 convs with batch norm and an identity/projection skip."""

    def __init__(self, in_ch: int, out_ch: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU()
        self.skip: nn.Module = nn.Identity()
        if stride != 1 or in_ch != out_ch:
            self.skip = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False), nn.BatchNorm2d(out_ch))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.skip(x))


def build_mlp() -> nn.Module:
    """Three linear layers with ReLU: 512 -> 1024 -> 1024 -> 10."""
    return nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def build_cnn() -> nn.Module:
    """Small ResNet-style net for 3x32x32 images: stem, three basic blocks, pooled head."""
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1, bias=False),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        _BasicBlock(32, 32),
        _BasicBlock(32, 64, stride=2),
        _BasicBlock(64, 128, stride=2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(128, 10),
    )


def build_transformer() -> nn.Module:
    """Two ``nn.TransformerEncoderLayer`` (d_model 256, 4 heads, batch first) on embeddings."""
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512, dropout=0.1, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


@dataclass(frozen=True)
class BuiltinModel:
    build: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    description: str


BUILTIN_MODELS: dict[str, BuiltinModel] = {
    "mlp": BuiltinModel(build_mlp, (64, 512), "MLP 512-1024-1024-10, ReLU"),
    "cnn": BuiltinModel(build_cnn, (32, 3, 32, 32), "ResNet-style CNN, 3 basic blocks"),
    "transformer": BuiltinModel(build_transformer, (16, 64, 256), "nn.TransformerEncoder, 2 layers, d_model 256"),
}


def load_model(name: str) -> tuple[nn.Module, tuple[int, ...] | None]:
    """Return the model named ``name`` and its default input shape (None for user models)."""
    if name in BUILTIN_MODELS:
        builtin = BUILTIN_MODELS[name]
        return builtin.build(), builtin.input_shape
    if ":" not in name:
        known = ", ".join(BUILTIN_MODELS)
        raise BenchInputError(f"unknown model {name!r}: use one of {known} or an importable 'pkg.module:factory'")
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        raise BenchInputError(f"model factory {name!r} must look like 'pkg.module:factory'")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any failure while importing user code is bad input
        raise BenchInputError(f"cannot import {module_name!r} for model {name!r}: {_one_line(exc)}") from exc
    factory = module
    for part in attr.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError as exc:
            raise BenchInputError(f"module {module_name!r} has no attribute {attr!r}") from exc
    if not callable(factory):
        raise BenchInputError(f"model factory {name!r} is not callable")
    try:
        model = factory()
    except Exception as exc:
        raise BenchInputError(f"model factory {name!r} failed: {_one_line(exc)}") from exc
    if not isinstance(model, nn.Module):
        raise BenchInputError(f"model factory {name!r} returned {type(model).__name__}, not a torch.nn.Module")
    return model, None


def count_parameters(model: nn.Module) -> tuple[int, int]:
    """Number of parameter elements and their bytes."""
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() * p.element_size() for p in params)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
