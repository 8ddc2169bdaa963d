"""bench micro: single ops under each mode, and x.detach() / x.data timed on their own."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


def test_micro_rows(micro_run):
    doc, _ = micro_run
    rows = doc["results"]
    assert {(r["op"], r["size"]) for r in rows} == {
        (op, n) for op in ("mul", "matmul", "x.detach()", "x.data") for n in (8, 32)
    }
    for r in rows:
        if r["call_only"]:
            assert r["mode"] == "call only" and r["ratio_to_grad"] is None
            assert r["saved_bytes"] == 0 and r["peak_bytes"] == 0  # a header, no data
        else:
            expected = {"grad": 2, "no_grad": 0, "inference_mode": 0, "detach_input": 1, "frozen": 1}[r["mode"]]
            assert r["saved_bytes"] == expected * r["size"] ** 2 * 4
            assert r["peak_bytes"] >= r["size"] ** 2 * 4  # the result
