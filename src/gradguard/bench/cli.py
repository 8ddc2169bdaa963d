"""``gradguard bench model|micro``: argument parsing, progress bar and output files.

Bad input ends with one line ``gradguard bench: error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gradguard.bench.errors import BenchInputError
from gradguard.bench.spec import (
    DEFAULT_MIN_RUN_TIME,
    DEVICES,
    DTYPES,
    MICRO_OPS,
    MODEL_MODES,
    QUICK_MIN_RUN_TIME,
)

PROG = "gradguard bench"
BUILTIN_NAMES = ("mlp", "cnn", "transformer")


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors become BenchInputError (one line, exit 2, no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise BenchInputError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def parse_shape(text: str) -> tuple[int, ...]:
    """``"64,3,32,32"`` (or ``64x3x32x32``) to a tuple of positive ints."""
    parts = [p.strip() for p in text.replace("x", ",").split(",")]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise BenchInputError(f"--input-shape {text!r}: expected comma-separated integers such as 64,3,32,32") from None
    if not shape or any(n < 1 for n in shape):
        raise BenchInputError(f"--input-shape {text!r}: every dimension must be at least 1")
    return shape


def _split_choices(values: Sequence[str], choices: Sequence[str], option: str) -> tuple[str, ...]:
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    for item in items:
        if item not in choices:
            raise BenchInputError(f"{option}: unknown {item!r}, choose from {', '.join(choices)}")
    return tuple(dict.fromkeys(items))


def _common(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--device", default="cpu", choices=DEVICES)
    sub.add_argument("--dtype", default="float32", choices=DTYPES)
    sub.add_argument(
        "--quick",
        action="store_true",
        help=f"short timing ({QUICK_MIN_RUN_TIME} s per measurement instead of "
        f"{DEFAULT_MIN_RUN_TIME} s); what tests use",
    )
    sub.add_argument(
        "--min-run-time",
        type=_positive_float,
        metavar="SECONDS",
        help="timing per measurement, passed to blocked_autorange",
    )
    sub.add_argument("--threads", type=_positive_int, help="torch threads (default: torch's)")
    sub.add_argument(
        "--modes",
        nargs="+",
        metavar="MODE",
        default=list(MODEL_MODES),
        help=f"any of {', '.join(MODEL_MODES)} (space or comma separated)",
    )
    sub.add_argument("--format", default="table", choices=("table", "json", "csv"))
    sub.add_argument("--output", "-o", metavar="FILE", help="write the report here, not stdout")
    sub.add_argument("--plot", metavar="FILE.png", help="also write a PNG plot")
    sub.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Measure what each gradient-control choice "
        "(grad, no_grad, inference_mode, detach, frozen parameters) costs in "
        "time and memory.",
    )
    subs = parser.add_subparsers(dest="command", required=True, metavar="{model,micro}")
    model = subs.add_parser("model", help="one forward of a model under each mode")
    model.add_argument(
        "--model",
        default="all",
        help="mlp, cnn, transformer, a comma list of them, all (default), or "
        "an importable pkg.module:factory returning an nn.Module",
    )
    model.add_argument(
        "--input-shape", metavar="64,3,32,32", help="input shape including batch (needed for a user model)"
    )
    model.add_argument("--batch", type=_positive_int, help="replace the batch dimension")
    model.add_argument(
        "--autocast", action="store_true", help="keep float32 weights and run under torch.autocast(--dtype)"
    )
    _common(model)
    micro = subs.add_parser("micro", help="single ops (mul, matmul) and x.detach()/x.data")
    micro.add_argument(
        "--sizes",
        nargs="+",
        metavar="N",
        help="square operand sizes n (n x n), space or comma separated (default: 64 256 1024; with --quick: 64 256)",
    )
    micro.add_argument("--ops", nargs="+", default=list(MICRO_OPS), metavar="OP", help=f"any of {', '.join(MICRO_OPS)}")
    _common(micro)
    return parser


def _import_dependencies(need_plot: bool) -> None:
    missing = []
    for name in ("torch", "tqdm", *(["matplotlib"] if need_plot else [])):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise BenchInputError(f"needs {', '.join(missing)}: install with pip install 'gradguard[bench]'")


def _model_specs(args: argparse.Namespace, min_run_time: float) -> list[Any]:
    from gradguard.bench.models import BUILTIN_MODELS
    from gradguard.bench.spec import BenchSpec

    names = list(BUILTIN_NAMES) if args.model == "all" else [n.strip() for n in args.model.split(",") if n.strip()]
    if not names:
        raise BenchInputError("--model: no model named")
    if args.input_shape and len(names) > 1:
        raise BenchInputError("--input-shape applies to one model; name a single --model")
    modes = _split_choices(args.modes, MODEL_MODES, "--modes")
    specs = []
    for name in names:
        if args.input_shape:
            shape = parse_shape(args.input_shape)
        elif name in BUILTIN_MODELS:
            shape = BUILTIN_MODELS[name].input_shape
        elif ":" in name:
            raise BenchInputError(f"model {name!r} needs --input-shape (e.g. 8,3,224,224)")
        else:
            shape = ()  # unknown name: load_model reports it
        if args.batch and shape:
            shape = (args.batch, *shape[1:])
        specs.append(
            BenchSpec(
                model=name,
                input_shape=shape,
                device=args.device,
                dtype=args.dtype,
                autocast=args.autocast,
                modes=modes,
                min_run_time=min_run_time,
                threads=args.threads,
            )
        )
    from gradguard.bench.models import load_model

    for spec in specs:  # fail on a bad name or factory before any measuring starts
        if spec.model not in BUILTIN_MODELS:
            load_model(spec.model)
    return specs


def _progress_bar(total: int, enabled: bool | None) -> tuple[Callable[[str], None], Any]:
    from tqdm import tqdm

    disable = not (sys.stderr.isatty() if enabled is None else enabled)
    bar = tqdm(total=total, file=sys.stderr, disable=disable, desc=PROG, unit="step", leave=False, dynamic_ncols=True)
    started = [False]

    def step(label: str) -> None:
        if started[0]:
            bar.update(1)
        started[0] = True
        bar.set_postfix_str(label)

    return step, bar


def _run(args: argparse.Namespace) -> int:
    _import_dependencies(bool(args.plot))
    from gradguard.bench import measure, report

    min_run_time = args.min_run_time or (QUICK_MIN_RUN_TIME if args.quick else DEFAULT_MIN_RUN_TIME)
    if args.plot and not args.plot.lower().endswith(".png"):
        raise BenchInputError(f"--plot {args.plot!r}: the plot is a PNG, name it *.png")
    if args.command == "model":
        specs = _model_specs(args, min_run_time)
        step, bar = _progress_bar(len(specs) * len(specs[0].modes), args.progress)
        try:
            result = measure.run_model_bench(specs, quick=args.quick, progress=step)
        finally:
            bar.update(bar.total - bar.n)
            bar.close()
    else:
        from gradguard.bench.spec import MicroSpec

        given = args.sizes or (["64", "256"] if args.quick else ["64", "256", "1024"])
        try:
            sizes = tuple(int(s) for v in given for s in v.split(",") if s.strip())
        except ValueError:
            raise BenchInputError(f"--sizes: expected integers, got {' '.join(given)!r}") from None
        spec = MicroSpec(
            sizes=sizes,
            ops=_split_choices(args.ops, MICRO_OPS, "--ops"),
            modes=_split_choices(args.modes, MODEL_MODES, "--modes"),
            device=args.device,
            dtype=args.dtype,
            min_run_time=min_run_time,
            threads=args.threads,
        )
        step, bar = _progress_bar(measure.micro_steps(spec), args.progress)
        try:
            result = measure.run_micro_bench(spec, quick=args.quick, progress=step)
        finally:
            bar.update(bar.total - bar.n)
            bar.close()
    text = report.RENDERERS[args.format](result)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        if args.plot:
            report.write_plot(result, args.plot)
    except OSError as exc:
        raise BenchInputError(f"cannot write {exc.filename or ''}: {exc.strerror or exc}") from None
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: ``argv`` are the arguments after ``bench``; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        return _run(args)
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except BenchInputError as exc:
        message = " ".join(str(exc).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
