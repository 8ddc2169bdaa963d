"""Cost of checking a notebook against checking the same code as one .py file.

Builds a synthetic notebook (code cells with image outputs, the bulk of a real notebook's
bytes), then times, side by side in one run: ``json.loads`` of it, gradguard's position-keeping
load, load + check, and ``check_source`` of the same code as one Python file. Prints medians
and ratios.

    python benchmarks/notebook_speed.py [--cells 200] [--repeat 7]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import time

from gradguard.check.engine.run import check_source
from gradguard.check.rules import all_rules
from gradguard.check.run.notebook import check_notebook, load_notebook
from gradguard.check.source import SourceText


def synthetic_notebook(n_cells: int) -> tuple:
    cells = []
    for i in range(n_cells):
        source = ["import torch\n", f"x{i} = torch.zeros({i})\n"] + [f"y = x{i} * {j}\n" for j in range(20)]
        image = base64.b64encode(os.urandom(30000)).decode()
        outputs = [
            {"output_type": "display_data", "data": {"image/png": image, "text/plain": ["<Figure>"]}, "metadata": {}}
        ]
        cells.append({"cell_type": "code", "execution_count": i, "metadata": {}, "outputs": outputs, "source": source})
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    data = (json.dumps(document, indent=1) + "\n").encode()
    python = "".join("".join(c["source"]) for c in cells)
    return data, python


def median_seconds(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    data, python = synthetic_notebook(args.cells)
    rules = [rule() for rule in all_rules()]
    t_json = median_seconds(lambda: json.loads(data), args.repeat)
    t_load = median_seconds(lambda: load_notebook(data), args.repeat)
    t_check = median_seconds(lambda: check_notebook(load_notebook(data), "n.ipynb", rules), args.repeat)
    t_py = median_seconds(lambda: check_source(SourceText(python), "n.py", rules), args.repeat)
    print(f"notebook: {len(data) / 1e6:.1f} MB, {args.cells} code cells, {python.count(chr(10))} source lines")
    print(f"json.loads            {t_json * 1e3:8.1f} ms (median of {args.repeat})")
    print(f"load_notebook         {t_load * 1e3:8.1f} ms  ratio to json.loads {t_load / t_json:.2f}")
    print(f"load + check          {t_check * 1e3:8.1f} ms")
    print(f"same code as one .py  {t_py * 1e3:8.1f} ms  notebook / .py ratio {t_check / t_py:.2f}")


if __name__ == "__main__":
    main()
