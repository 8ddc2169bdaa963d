"""Memory kept alive by ``total += loss`` (GG301): bytes of the tensors saved for backward
that stay reachable from the running total, against ``total += loss.item()``, in a loop that
never backpropagates (an evaluation) and in one that calls ``loss.backward()`` at each step
(a training loop: backward frees what the graph saved, the graph's nodes stay reachable).

Run: ``python benchmarks/accumulated_graph_memory.py [iterations]``
"""

from __future__ import annotations

import sys

import torch
import torch.nn as nn


def saved_bytes(tensor) -> int:
    """Storage bytes of the distinct tensors saved by the graph behind ``tensor``."""
    seen, storages, total, stack = set(), set(), 0, [getattr(tensor, "grad_fn", None)]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for attr in dir(node):
            if attr.startswith("_saved_"):
                try:
                    value = getattr(node, attr)
                except RuntimeError:
                    continue  # freed by the backward pass that ran through this node
                if isinstance(value, torch.Tensor) and value.data_ptr() not in storages:
                    storages.add(value.data_ptr())
                    total += value.untyped_storage().nbytes()
        stack.extend(next_node for next_node, _ in node.next_functions)
    return total


def graph_nodes(tensor) -> int:
    """How many autograd nodes the graph behind ``tensor`` holds."""
    seen, stack = set(), [getattr(tensor, "grad_fn", None)]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def main(iterations: int = 50) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, 10),
    )
    criterion = nn.CrossEntropyLoss()
    x, y = torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))
    for backward in (False, True):
        for mode in ("loss", "loss.item()"):
            total = 0.0
            nodes = 0
            for _ in range(iterations):
                loss = criterion(model(x), y)
                if backward:
                    model.zero_grad()
                    loss.backward()
                total += loss if mode == "loss" else loss.item()
            if isinstance(total, torch.Tensor):
                nodes = graph_nodes(total)
            loop = "backward each step" if backward else "no backward"
            print(
                f"{loop:<18} total += {mode:<12} after {iterations} iterations: "
                f"{saved_bytes(total) / 2**20:8.1f} MiB saved for backward still reachable, {nodes} graph nodes"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
