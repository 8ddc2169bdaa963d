"""How long does ``gradguard server`` take to answer an edit with diagnostics?

    python benchmarks/server_latency.py [--file PATH | --lines 1000] [--edits 60] [--warmup 10]
                                        [--debounce-ms N]

The file is ``--file``, or else a synthetic one of about ``--lines`` lines made only of
training and evaluation functions full of findings (the densest code for the checker: every
function asks the semantic model about loaders, grad modes and ``.data``).

A pygls client starts ``gradguard server`` as a subprocess (as an editor does), opens a
Python file, waits for its diagnostics, then makes ``--edits`` edits one after the other:
each changes one digit on a line in the middle of the file (an incremental change, as
editors send them) and the clock
runs from sending ``textDocument/didChange`` until ``textDocument/publishDiagnostics`` for that
document version arrives. The first ``--warmup`` edits are not counted.

For reference, the same text is checked in this process (``run.pipeline.check_buffer``), so
the difference is what the protocol, the debounce and the process boundary add. Rounds of
the two are interleaved. Prints medians, 90th percentiles and maxima in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from gradguard.check.config import resolve
from gradguard.check.rules import all_rules
from gradguard.check.run.pipeline import check_buffer

REPO = Path(__file__).resolve().parent.parent

BLOCK = """

class SmallNet{i}(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 32 * 32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.fc(x.flatten(1))


def train_one_epoch_{i}(model, loader, lr=0.01):
    criterion = nn.CrossEntropyLoss()
    running_loss = 0.0
    for images, labels in loader:
        logits = model(images)
        loss = criterion(logits, labels)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data.add_(-lr * p.grad)
        running_loss += loss
    return running_loss / len(loader)


def evaluate_{i}(model, val_loader, criterion):
    model.eval()
    total, correct = 0.0, 0
    for x, y in val_loader:
        out = model(x)
        total += criterion(out, y).item()
        correct += (out.argmax(1) == y).sum().item()
    return total / len(val_loader), correct


def predict_{i}(model, x):
    with torch.no_grad:
        return model(x)


def embed_{i}(model, x):
    with torch.inference_mode():
        with torch.no_grad():
            return model(x)
"""


def training_file(lines: int) -> str:
    text = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    i = 0
    while text.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return text


def edit_point(text: str) -> tuple[int, int]:
    """(line, column) of a digit in code from the middle of the file on (the edits change it)."""
    rows = text.split("\n")
    for r in range(len(rows) // 2, len(rows)):
        code = rows[r].split("#")[0]
        if '"' in code or "'" in code:
            continue
        for c, char in enumerate(code):
            if char.isdigit() and (c == 0 or not (code[c - 1].isalnum() or code[c - 1] == "_")):
                return r, c
    raise SystemExit("no digit to edit in the second half of the file")


async def measure(args: argparse.Namespace) -> None:
    if args.file:
        path = Path(args.file).resolve()
        text = path.read_text(encoding="utf-8")
    else:
        path = REPO / "benchmarks" / "_server_latency_target.py"  # never written: the buffer only
        text = training_file(args.lines)
    uri = path.as_uri()
    row, column = edit_point(text)

    client = LanguageClient("server-latency", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri and params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    await client.start_io(sys.executable, "-m", "gradguard", "server")
    options = {} if args.debounce_ms is None else {"debounce_ms": args.debounce_ms}
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=REPO.as_uri(), initialization_options=options
        )
    )
    client.initialized(types.InitializedParams())

    async def wait_for(version: int) -> float:
        while version not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 60)
        return published[version]

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await wait_for(1)

    config = resolve(all_rules(), None)
    rules = config.make_rules()
    server_ms: list[float] = []
    in_process_ms: list[float] = []
    current = text
    for n in range(args.warmup + args.edits):
        version = n + 2
        digit = str(version % 9 + 1)
        start = types.Position(line=row, character=column)
        end = types.Position(line=row, character=column + 1)
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=digit)
                ],
            )
        )
        received = await wait_for(version)
        lines = current.split("\n")  # the client's copy of the buffer, edited the same way
        lines[row] = lines[row][:column] + digit + lines[row][column + 1 :]
        current = "\n".join(lines)
        began = time.perf_counter()
        check_buffer(str(path), config, rules, text=current)
        checked = time.perf_counter()
        if n >= args.warmup:
            server_ms.append((received - sent) * 1000)
            in_process_ms.append((checked - began) * 1000)
        await asyncio.sleep(0.05)  # the pause between two keystrokes of a typist, at least

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    def summary(values: list[float]) -> str:
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        return f"median {statistics.median(values):7.1f}   p90 {p90:7.1f}   max {max(values):7.1f}"

    debounce = "default" if args.debounce_ms is None else f"{args.debounce_ms} ms"
    name = args.file or "synthetic training code"
    print(f"file: {name}, {text.count(chr(10))} lines; {args.edits} edits counted after {args.warmup} warm-up edits")
    print(f"debounce: {debounce}")
    print(f"change -> diagnostics, measured by the client (ms): {summary(server_ms)}")
    print(f"the same check in-process, check_buffer (ms):       {summary(in_process_ms)}")
    print(f"ratio of medians: {statistics.median(server_ms) / statistics.median(in_process_ms):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", default=None, help="the Python file to edit (default: synthetic training code)")
    parser.add_argument("--lines", type=int, default=1000, help="length of the synthetic file")
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--debounce-ms", type=float, default=None, help="the server's debounce (default: its own)")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
