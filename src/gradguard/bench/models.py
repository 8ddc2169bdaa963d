"""Models to measure and their inputs.

Three built-in models are made from ``torch.nn`` alone (random weights, nothing is
downloaded). A user model comes from an importable ``pkg.module:factory`` (the current
folder is importable), called with ``--model-arg`` keyword arguments; its inputs are a
random tensor (``--input-shape``, ``--input-dtype``, ``--input-range``) or come from an
``--inputs pkg.module:make_inputs`` hook called with the batch size. Anything that goes
wrong while resolving a model or its inputs is a ``BenchInputError``: one line, exit 2.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gradguard.bench.calls import map_tensors
from gradguard.bench.errors import BenchInputError
from gradguard.bench.results import InputInfo
from gradguard.bench.spec import DEFAULT_HOOK_BATCH, INTEGER_INPUT_DTYPES, InputSpec, ModelSpec
from gradguard.common.text import first_line


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


def import_object(reference: str, what: str) -> Any:
    """``pkg.module:attr.sub`` to the object, the current folder importable.

    Any exception while importing user code (``ImportError``, a ``SystemExit`` from a
    script's top level, anything) is bad input.
    """
    module_name, _, attr = reference.partition(":")
    if not module_name or not attr:
        raise BenchInputError(f"{what} {reference!r} must look like 'pkg.module:name'")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure of user code is bad input
        raise BenchInputError(f"cannot import {module_name!r} for {what} {reference!r}: {first_line(exc)}") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise BenchInputError(f"module {module_name!r} has no attribute {attr!r}") from None
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a module __getattr__ may raise anything
            raise BenchInputError(f"cannot read {attr!r} from {module_name!r}: {first_line(exc)}") from None
    if not callable(obj):
        raise BenchInputError(f"{what} {reference!r} is not callable")
    return obj


@dataclass
class LoadedModel:
    module: nn.Module
    description: str
    default_shape: tuple[int, ...] | None


def load_model(spec: ModelSpec) -> LoadedModel:
    """The model a spec names, built on the CPU in float32."""
    if spec.name in BUILTIN_MODELS:
        if spec.model_args:
            raise BenchInputError(f"--model-arg applies to a user factory; {spec.name!r} takes no arguments")
        builtin = BUILTIN_MODELS[spec.name]
        return LoadedModel(builtin.build(), builtin.description, builtin.input_shape)
    if ":" not in spec.name:
        known = ", ".join(BUILTIN_MODELS)
        raise BenchInputError(f"unknown model {spec.name!r}: use one of {known} or an importable 'pkg.module:factory'")
    factory = import_object(spec.name, "model factory")
    try:
        model = factory(**dict(spec.model_args))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
        raise BenchInputError(f"model factory {spec.name!r} failed: {first_line(exc)}") from None
    if not isinstance(model, nn.Module):
        raise BenchInputError(f"model factory {spec.name!r} returned {type(model).__name__}, not a torch.nn.Module")
    args = ", ".join(f"{k}={v!r}" for k, v in spec.model_args)
    return LoadedModel(model, f"user model {spec.name}({args})", None)


def count_parameters(model: nn.Module) -> tuple[int, int]:
    """Number of parameter elements and their bytes."""
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() * p.element_size() for p in params)


@dataclass
class Inputs:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    batch: int | None

    def tensors(self) -> list[torch.Tensor]:
        found: list[torch.Tensor] = []
        map_tensors((self.args, self.kwargs), found.append)
        return found

    def describe(self) -> tuple[InputInfo, ...]:
        infos: list[InputInfo] = []

        def walk(value: Any, name: str) -> None:
            if isinstance(value, torch.Tensor):
                infos.append(InputInfo(name, tuple(value.shape), str(value.dtype).removeprefix("torch.")))
            elif isinstance(value, (tuple, list)):
                for i, v in enumerate(value):
                    walk(v, f"{name}[{i}]")
            elif isinstance(value, Mapping):
                for k, v in value.items():
                    walk(v, f"{name}[{k!r}]")

        walk(self.args, "args")
        walk(self.kwargs, "kwargs")
        return tuple(infos)


def random_input(
    shape: tuple[int, ...], dtype: torch.dtype, low: float | None, high: float | None, device: torch.device
) -> torch.Tensor:
    """Token-like integers in [low, high), uniform floats in [low, high), or standard normal."""
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device=device).bool()
    if not dtype.is_floating_point:
        assert low is not None and high is not None
        return torch.randint(int(low), int(high), shape, dtype=dtype, device=device)
    if low is not None and high is not None:
        return torch.empty(shape, dtype=dtype, device=device).uniform_(low, high)
    return torch.randn(shape, dtype=dtype, device=device)


def make_inputs(
    spec: InputSpec,
    loaded: LoadedModel,
    name: str,
    device: torch.device,
    float_dtype: torch.dtype,
    torch_dtypes: Mapping[str, torch.dtype],
) -> Inputs:
    """The inputs of one model: from the hook, else one random tensor.

    Floating-point tensors are cast to ``float_dtype`` (the run's ``--dtype``, or float32
    under autocast); integer and bool tensors keep their dtype. All go to ``device``.
    """

    def place(t: torch.Tensor) -> torch.Tensor:
        return t.to(device=device, dtype=float_dtype) if t.is_floating_point() else t.to(device=device)

    if spec.hook:
        hook = import_object(spec.hook, "--inputs hook")
        batch = spec.batch or DEFAULT_HOOK_BATCH
        try:
            produced = hook(batch)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
            raise BenchInputError(f"--inputs {spec.hook!r} failed: {first_line(exc)}") from None
        if not (
            isinstance(produced, (tuple, list))
            and len(produced) == 2
            and isinstance(produced[0], (tuple, list))
            and isinstance(produced[1], Mapping)
        ):
            raise BenchInputError(
                f"--inputs {spec.hook!r} must return (args tuple, kwargs dict), got {type(produced).__name__}"
            )
        try:
            args = map_tensors(tuple(produced[0]), place)
            kwargs = map_tensors(dict(produced[1]), place)
        except Exception as exc:  # noqa: BLE001 - tensors of any kind, from user code
            raise BenchInputError(f"--inputs {spec.hook!r}: cannot move its tensors: {first_line(exc)}") from None
        inputs = Inputs(args, kwargs, batch)
        if not inputs.tensors():
            raise BenchInputError(f"--inputs {spec.hook!r} returned no tensor")
        return inputs
    shape = spec.shape or loaded.default_shape
    if shape is None:
        raise BenchInputError(
            f"model {name!r} needs --input-shape (e.g. 8,3,224,224) or --inputs pkg.module:make_inputs"
        )
    if spec.batch:
        shape = (spec.batch, *shape[1:])
    dtype = torch_dtypes[spec.dtype] if spec.dtype else float_dtype
    if dtype.is_floating_point and spec.dtype is None:
        dtype = float_dtype
    if not dtype.is_floating_point and dtype != torch.bool and (spec.low is None or spec.high is None):
        raise BenchInputError(f"--input-dtype {spec.dtype} needs --input-range LOW,HIGH (e.g. 0,30522 for token ids)")
    if spec.dtype in INTEGER_INPUT_DTYPES and spec.low is not None and spec.high is not None and spec.low >= spec.high:
        raise BenchInputError(f"--input-range {spec.low:g},{spec.high:g}: LOW must be below HIGH")
    try:
        x = random_input(shape, dtype, spec.low, spec.high, device)
    except Exception as exc:  # noqa: BLE001 - torch's errors for a shape or range it refuses
        raise BenchInputError(f"cannot make an input of shape {','.join(map(str, shape))}: {first_line(exc)}") from None
    return Inputs((x,), {}, shape[0])
