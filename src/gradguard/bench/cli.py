"""``gradguard bench model|micro|report``: arguments, progress bar, output files.

Same conventions as the top-level command: a usage error or bad input is one line
``gradguard bench: error: ...`` on stderr and exit code 2; Ctrl-C prints
``gradguard: interrupted`` and exits 130. Parsing, checking the arguments and ``report``
need no torch; torch is imported (quietly) only when something is to be measured.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gradguard.bench.errors import BenchInputError
from gradguard.bench.modes import ALL_MODES, UnknownModeError, parse_modes
from gradguard.bench.spec import (
    BUILTIN_MODEL_NAMES,
    DEFAULT_HOOK_BATCH,
    DEFAULT_MIN_RUN_TIME,
    DEFAULT_ROUNDS,
    DEFAULT_THREADS,
    DEVICES,
    DTYPES,
    INPUT_DTYPES,
    INTEGER_INPUT_DTYPES,
    MICRO_OPS,
    QUICK_MIN_RUN_TIME,
    QUICK_ROUNDS,
    InputSpec,
    MicroBench,
    ModelBench,
    ModelSpec,
    TimingSpec,
)
from gradguard.common.text import first_line

PROG = "gradguard bench"
EXIT_OK, EXIT_OVER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


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
    if not value > 0:
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


def parse_range(text: str, integer: bool) -> tuple[float, float]:
    """``"0,30522"`` to (low, high); integers for an integer input dtype; low below high."""
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        low, high = (int(p) for p in parts) if integer else (float(p) for p in parts)
    except ValueError:
        kind = "integers" if integer else "numbers"
        raise BenchInputError(f"--input-range {text!r}: expected two {kind} LOW,HIGH such as 0,1000") from None
    if not low < high:
        raise BenchInputError(f"--input-range {text!r}: LOW must be below HIGH")
    return low, high


def parse_model_arg(text: str) -> tuple[str, Any]:
    """``key=value``: the value as a Python literal (``3``, ``0.1``, ``(2, 2)``, ``'x'``, ``True``),
    or the text itself when it is not one (``name=bert`` gives the string ``'bert'``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise BenchInputError(f"--model-arg {text!r}: expected key=value with a Python name as key")
    try:
        parsed = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        parsed = value
    return key, parsed


def _add_output(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--format", default="table", choices=("table", "json", "csv"))
    sub.add_argument("--output", "-o", metavar="FILE", help="write the report here, not stdout")
    sub.add_argument("--plot", metavar="FILE.png", help="also write a PNG plot")
    sub.add_argument(
        "--compare", metavar="OLD.json", help="show the change against an earlier run saved with --format json"
    )
    sub.add_argument(
        "--fail-over",
        type=_positive_float,
        metavar="PERCENT",
        help="with --compare: exit 1 when a row's saved or peak bytes, or its time (rows not flagged "
        "noisy in either run), grew by more than PERCENT",
    )


def _add_measuring(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--device", default="cpu", choices=DEVICES)
    sub.add_argument("--dtype", default="float32", choices=DTYPES)
    sub.add_argument(
        "--quick",
        action="store_true",
        help=f"short timing: {QUICK_MIN_RUN_TIME} s per mode in {QUICK_ROUNDS} rounds instead of "
        f"{DEFAULT_MIN_RUN_TIME} s in {DEFAULT_ROUNDS}",
    )
    sub.add_argument("--min-run-time", type=_positive_float, metavar="SECONDS", help="timing per mode, all rounds")
    sub.add_argument("--rounds", type=_positive_int, metavar="N", help="rotating rounds (each times every mode once)")
    sub.add_argument(
        "--threads",
        type=_positive_int,
        default=DEFAULT_THREADS,
        help=f"torch threads (default {DEFAULT_THREADS}; a warning when more than the idle cores)",
    )
    sub.add_argument(
        "--no-pin-malloc",
        dest="pin_malloc",
        action="store_false",
        help="leave glibc's malloc thresholds dynamic (then the order modes first run in changes page faults)",
    )
    sub.add_argument(
        "--modes",
        nargs="+",
        metavar="MODE",
        default=[m.value for m in ALL_MODES],
        help=f"any of {', '.join(m.value for m in ALL_MODES)} (space or comma separated)",
    )
    _add_output(sub)
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
        "(grad, no_grad, inference_mode, detach, frozen parameters) costs in time and memory.",
    )
    subs = parser.add_subparsers(dest="command", required=True, metavar="{model,micro,report}", parser_class=_Parser)
    model = subs.add_parser("model", help="one forward of a model under each mode")
    model.add_argument(
        "--model",
        default="all",
        help=f"{', '.join(BUILTIN_MODEL_NAMES)}, a comma list of them, all (default), or an importable "
        "pkg.module:factory returning an nn.Module (the current folder is importable)",
    )
    model.add_argument(
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for the factory, repeatable; VALUE is read as a Python literal",
    )
    model.add_argument("--input-shape", metavar="64,3,32,32", help="input shape including batch")
    model.add_argument(
        "--input-dtype", choices=INPUT_DTYPES, help="dtype of the random input (default: --dtype; int64 for token ids)"
    )
    model.add_argument(
        "--input-range",
        metavar="LOW,HIGH",
        help="integer inputs: values in [LOW, HIGH) (needed for int64/int32); float inputs: uniform in it",
    )
    model.add_argument(
        "--inputs",
        metavar="pkg.module:make_inputs",
        help="a function called with the batch size that returns (args tuple, kwargs dict) for the forward",
    )
    model.add_argument(
        "--batch",
        type=_positive_int,
        help=f"replace the batch dimension; for --inputs, the batch size it is called with (default {DEFAULT_HOOK_BATCH})",
    )
    model.add_argument(
        "--train", action="store_true", help="run the models in train() (dropout, batch statistics); default eval()"
    )
    model.add_argument(
        "--autocast", action="store_true", help="keep float32 weights and run under torch.autocast(--dtype)"
    )
    _add_measuring(model)
    micro = subs.add_parser("micro", help="single ops under each mode, and the article's x.detach() / no_grad cases")
    micro.add_argument(
        "--sizes",
        nargs="+",
        metavar="N",
        help="square operand sizes n (n x n) for mul and matmul, space or comma separated "
        "(default: 64 256 1024; with --quick: 64 256); the article's cases are 1000x1000",
    )
    micro.add_argument("--ops", nargs="+", default=list(MICRO_OPS), metavar="OP", help=f"any of {', '.join(MICRO_OPS)}")
    _add_measuring(micro)
    report = subs.add_parser("report", help="render a run saved with --format json again (no torch needed)")
    report.add_argument("file", metavar="FILE.json")
    _add_output(report)
    return parser


def _split_choices(values: Sequence[str], choices: Sequence[str], option: str) -> tuple[str, ...]:
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    for item in items:
        if item not in choices:
            raise BenchInputError(f"{option}: unknown {item!r}, choose from {', '.join(choices)}")
    return tuple(dict.fromkeys(items))


def _timing(args: argparse.Namespace) -> TimingSpec:
    return TimingSpec(
        min_run_time=args.min_run_time or (QUICK_MIN_RUN_TIME if args.quick else DEFAULT_MIN_RUN_TIME),
        rounds=args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS),
        threads=args.threads,
        pin_malloc=args.pin_malloc,
    )


def _modes(args: argparse.Namespace) -> tuple:
    try:
        return parse_modes(args.modes)
    except UnknownModeError as exc:
        raise BenchInputError(f"--modes: {exc}") from None


def model_bench(args: argparse.Namespace) -> ModelBench:
    """The spec of a ``bench model`` run, checked without torch."""
    names = (
        list(BUILTIN_MODEL_NAMES) if args.model == "all" else [n.strip() for n in args.model.split(",") if n.strip()]
    )
    if not names:
        raise BenchInputError("--model: no model named")
    for name in names:
        if name not in BUILTIN_MODEL_NAMES and ":" not in name:
            raise BenchInputError(
                f"unknown model {name!r}: use one of {', '.join(BUILTIN_MODEL_NAMES)} or an importable "
                "'pkg.module:factory'"
            )
    single = {
        "--input-shape": args.input_shape,
        "--inputs": args.inputs,
        "--model-arg": args.model_arg,
        "--input-dtype": args.input_dtype,
        "--input-range": args.input_range,
    }
    given = [option for option, value in single.items() if value]
    if given and len(names) > 1:
        raise BenchInputError(f"{given[0]} applies to one model; name a single --model")
    if args.inputs:
        clash = [o for o in ("--input-shape", "--input-dtype", "--input-range") if single[o]]
        if clash:
            raise BenchInputError(f"{clash[0]} and --inputs: the hook makes the inputs, give one or the other")
    integer = args.input_dtype in INTEGER_INPUT_DTYPES
    low = high = None
    if args.input_range:
        if args.input_dtype == "bool":
            raise BenchInputError("--input-range does not apply to --input-dtype bool")
        low, high = parse_range(args.input_range, integer)
    elif integer:
        raise BenchInputError(f"--input-dtype {args.input_dtype} needs --input-range LOW,HIGH (e.g. 0,30522)")
    model_args = tuple(parse_model_arg(text) for text in args.model_arg)
    shape = parse_shape(args.input_shape) if args.input_shape else None
    specs = []
    for name in names:
        if name not in BUILTIN_MODEL_NAMES and shape is None and not args.inputs:
            raise BenchInputError(
                f"model {name!r} needs --input-shape (e.g. 8,3,224,224) or --inputs pkg.module:make_inputs"
            )
        if name in BUILTIN_MODEL_NAMES and model_args:
            raise BenchInputError(f"--model-arg applies to a user factory; {name!r} takes no arguments")
        inputs = InputSpec(shape, args.input_dtype, low, high, args.inputs, args.batch)
        specs.append(ModelSpec(name, inputs, model_args))
    if args.autocast and args.dtype == "float32":
        raise BenchInputError("--autocast needs --dtype bfloat16 or float16")
    return ModelBench(
        models=tuple(specs),
        modes=_modes(args),
        device=args.device,
        dtype=args.dtype,
        autocast=args.autocast,
        train=args.train,
        timing=_timing(args),
        quick=args.quick,
    )


def micro_bench(args: argparse.Namespace) -> MicroBench:
    given = args.sizes or (["64", "256"] if args.quick else ["64", "256", "1024"])
    try:
        sizes = tuple(int(s) for v in given for s in v.split(",") if s.strip())
    except ValueError:
        raise BenchInputError(f"--sizes: expected integers, got {' '.join(given)!r}") from None
    if not sizes or any(n < 1 for n in sizes):
        raise BenchInputError("--sizes must be positive integers")
    return MicroBench(
        sizes=sizes,
        ops=_split_choices(args.ops, MICRO_OPS, "--ops"),
        modes=_modes(args),
        device=args.device,
        dtype=args.dtype,
        timing=_timing(args),
        quick=args.quick,
    )


def _import_dependencies(need_plot: bool, measuring: bool) -> None:
    """tqdm and matplotlib when needed, then torch with its import-time chatter held back."""
    missing = []
    for name in (*(["tqdm"] if measuring else []), *(["matplotlib"] if need_plot else [])):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if measuring:
        from gradguard.bench.quiet import import_torch

        try:
            import_torch()
        except ImportError:
            missing.insert(0, "torch")
        except Exception as exc:  # a broken install: say what torch raised, in one line
            raise BenchInputError(f"cannot import torch: {first_line(exc)}") from None
    if missing:
        raise BenchInputError(f"needs {', '.join(missing)}: install with pip install 'gradguard[bench]'")


def _progress_bar(total: int, enabled: bool | None) -> tuple[Callable[[str], None], Any]:
    from tqdm import tqdm

    disable = not (sys.stderr.isatty() if enabled is None else enabled)
    # Steps are coarse (a mode's memory, a round of timing): show every one, including the last.
    bar = tqdm(
        total=total,
        file=sys.stderr,
        disable=disable,
        desc=PROG,
        unit="step",
        leave=False,
        dynamic_ncols=True,
        mininterval=0,
    )
    started = [False]

    def step(label: str) -> None:
        if started[0]:
            bar.update(1)
        started[0] = True
        bar.set_postfix_str(label)

    return step, bar


def load_result(path: str, option: str) -> Any:
    """A saved JSON run, or a one-line error saying why it cannot be read."""
    from gradguard.bench.results import ResultFormatError, from_dict

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as exc:
        raise BenchInputError(f"{option} {path!r}: cannot read: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BenchInputError(f"{option} {path!r}: not JSON: {exc}") from None
    try:
        return from_dict(doc)
    except ResultFormatError as exc:
        raise BenchInputError(f"{option} {path!r}: {exc}") from None


def _measure(args: argparse.Namespace, step: Callable[[str], None]) -> Any:
    from gradguard.bench import run

    if args.command == "model":
        return run.run_model_bench(args.spec, progress=step)
    return run.run_micro_bench(args.spec, progress=step)


def _total_steps(args: argparse.Namespace) -> int:
    spec = args.spec
    if args.command == "model":
        return len(spec.models) * (len(spec.modes) + spec.timing.rounds)
    from gradguard.bench.run import micro_steps

    return micro_steps(spec)


def _run(args: argparse.Namespace) -> int:
    if args.plot and not args.plot.lower().endswith(".png"):
        raise BenchInputError(f"--plot {args.plot!r}: the plot is a PNG, name it *.png")
    if args.fail_over is not None and not args.compare:
        raise BenchInputError("--fail-over needs --compare OLD.json")
    measuring = args.command in ("model", "micro")
    if measuring:
        args.spec = model_bench(args) if args.command == "model" else micro_bench(args)
    old = load_result(args.compare, "--compare") if args.compare else None
    _import_dependencies(bool(args.plot), measuring)
    from gradguard.bench import report
    from gradguard.bench.results import ResultFormatError, compare

    if measuring:
        step, bar = _progress_bar(_total_steps(args), args.progress)
        try:
            result = _measure(args, step)
        finally:
            bar.update(bar.total - bar.n)
            bar.close()
        for warning in result.warnings:
            print(f"{PROG}: warning: {warning}", file=sys.stderr)
    else:
        result = load_result(args.file, "report")
    comparison = None
    if old is not None:
        try:
            comparison = compare(result, old, args.compare)
        except ResultFormatError as exc:
            raise BenchInputError(f"--compare {args.compare!r}: {exc}") from None
    text = report.RENDERERS[args.format](result, comparison)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
        if args.plot:
            report.write_plot(result, args.plot)
    except OSError as exc:
        raise BenchInputError(f"cannot write {exc.filename or ''}: {exc.strerror or exc}") from None
    if comparison is not None and args.fail_over is not None:
        over = comparison.over(args.fail_over / 100)
        if over:
            shown = "; ".join(over[:5]) + (f"; and {len(over) - 5} more" if len(over) > 5 else "")
            print(f"{PROG}: {len(over)} over --fail-over {args.fail_over:g}%: {shown}", file=sys.stderr)
            return EXIT_OVER
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: ``argv`` are the arguments after ``bench``; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        return _run(args)
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except BenchInputError as exc:
        message = " ".join(str(exc).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("gradguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_USAGE
