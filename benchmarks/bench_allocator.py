"""Does the order in which modes first run change the figures? The allocator effect, shown.

glibc raises its mmap threshold when a large mmapped block is freed, so the first forwards
of a process decide where later large tensors come from: fresh mmapped pages (a page fault
for every 4 KiB touched, on every call) or reused heap memory.

Part 1 reproduces it the way a naive benchmark meets it: in a fresh process, one mode is
run (and timed) before the other, with glibc's dynamic thresholds and with the thresholds
pinned as ``gradguard bench`` pins them (``mallopt``). Part 2 runs ``gradguard bench model``
itself with both mode orders, with ``--no-pin-malloc`` and without: every mode runs before
any is timed there, and the thresholds are pinned by default.

    python benchmarks/bench_allocator.py [--model cnn] [-- EXTRA BENCH ARGUMENTS]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def child(model_name: str, order: list[str], pinned: bool) -> None:
    """In a fresh process: each mode in turn, 3 calls to settle, then 5 counted calls."""
    import torch

    from gradguard.bench.calls import forward_call
    from gradguard.bench.measure import pin_malloc_thresholds
    from gradguard.bench.models import BUILTIN_MODELS
    from gradguard.bench.modes import Mode

    torch.set_num_threads(1)
    if pinned:
        pin_malloc_thresholds()
    torch.manual_seed(0)
    builtin = BUILTIN_MODELS[model_name]
    model = builtin.build().eval()
    x = torch.randn(builtin.input_shape)
    figures = {}
    for name in order:
        call = forward_call(Mode(name), model, (x,))
        for _ in range(3):
            call()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        for _ in range(5):
            call()
        figures[name] = {
            "seconds": (time.perf_counter() - start) / 5,
            "faults": (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / 5,
        }
    print(json.dumps(figures))


def run_bench(model: str, modes: list[str], pinned: bool, extra: list[str], path: str) -> dict:
    command = [sys.executable, "-m", "gradguard.bench", "model", "--model", model, "--modes", *modes]
    command += ["--format", "json", "-o", path, "--no-progress", *([] if pinned else ["--no-pin-malloc"]), *extra]
    subprocess.run(command, check=True)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="cnn")
    parser.add_argument("--child", nargs=2, metavar=("ORDER", "PINNED"), help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help="arguments passed on to gradguard bench model (after --)")
    args = parser.parse_args()
    if args.child:
        child(args.model, args.child[0].split(","), args.child[1] == "1")
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"\n1. one mode after the other in a fresh process ({args.model}, 1 thread, 5 calls each)")
    print(f"{'malloc':8} {'first':8} {'grad faults/call':>17} {'no_grad faults/call':>20} {'grad':>9} {'no_grad':>9}")
    for pinned in (False, True):
        for order in ("grad,no_grad", "no_grad,grad"):
            out = subprocess.run(
                [sys.executable, __file__, "--model", args.model, "--child", order, "1" if pinned else "0"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            f = json.loads(out.strip().splitlines()[-1])
            print(
                f"{'pinned' if pinned else 'dynamic':8} {order.split(',')[0]:8} {f['grad']['faults']:>17,.0f} "
                f"{f['no_grad']['faults']:>20,.0f} {f['grad']['seconds'] * 1e3:>6.1f} ms {f['no_grad']['seconds'] * 1e3:>6.1f} ms"
            )
    print(f"\n2. gradguard bench model --model {args.model} --modes A B {' '.join(args.extra)}")
    print(f"{'malloc':8} {'first':8} {'grad faults/call':>17} {'no_grad faults/call':>20} {'no_grad/grad':>24}  load")
    with tempfile.TemporaryDirectory() as tmp:
        for pinned in (False, True):
            for modes in (["grad", "no_grad"], ["no_grad", "grad"]):
                doc = run_bench(args.model, modes, pinned, args.extra, os.path.join(tmp, "run.json"))
                rows = {r["mode"]: r for r in doc["results"]}
                env = doc["environment"]
                grad, no_grad = rows["grad"]["time"], rows["no_grad"]["time"]
                low, high = rows["no_grad"]["ratio_range"]
                mark = " !" if no_grad["noisy"] else ""
                print(
                    f"{'pinned' if env['malloc']['pinned'] else 'dynamic':8} {modes[0]:8} "
                    f"{grad['page_faults_per_call']:>17,.0f} {no_grad['page_faults_per_call']:>20,.0f} "
                    f"{rows['no_grad']['ratio_to_grad']:>8.3f}{mark:2} [{low:.2f}-{high:.2f}]  "
                    f"{env['load_average_before'][0]:.2f} -> {env['load_average_after'][0]:.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
