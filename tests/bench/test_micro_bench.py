"""bench micro: single ops under each mode, and the seed article's cases."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

ARTICLE = {
    ("x * 2", "grad"),
    ("x.detach()", "grad"),
    ("with torch.no_grad(): x * 2", "no_grad"),
    ("x.detach() * 2", "grad"),
    ("x.data * 2", "grad"),
}
BYTES = 1000 * 1000 * 4  # the article's x, float32


def _article(doc):
    return {r["statement"]: r for r in doc["results"] if r["op"] == "article"}


def test_op_rows_known_answers(micro_run):
    doc, _ = micro_run
    rows = [r for r in doc["results"] if r["op"] != "article"]
    assert {(r["op"], r["size"]) for r in rows} == {(op, n) for op in ("mul", "matmul") for n in (8, 32)}
    # mul and matmul save the other operand for each operand that needs a gradient:
    # grad saves x (for w) and w (for x); detach_input only x; frozen only w.
    expected = {"grad": (1, 1), "no_grad": (0, 0), "inference_mode": (0, 0), "detach_input": (0, 1), "frozen": (1, 0)}
    for r in rows:
        w_count, x_count = expected[r["mode"]]
        full = r["size"] ** 2 * 4
        assert (r["saved_param_bytes"], r["saved_input_bytes"]) == (w_count * full, x_count * full), r
        assert r["saved_activation_bytes"] == 0
        assert r["peak_bytes"] >= full  # the result
        assert r["error"] is None


def test_statements_are_written_out(micro_run):
    statements = {(r["op"], r["mode"]): r["statement"] for r in micro_run[0]["results"] if r["size"] == 8}
    assert statements[("mul", "grad")] == "x * w"
    assert statements[("mul", "no_grad")] == "x * w  (in torch.no_grad())"
    assert statements[("matmul", "detach_input")] == "x.detach() @ w"
    assert statements[("mul", "frozen")] == "x * w  (w.requires_grad=False)"


def test_the_article_cases_are_all_there(micro_run):
    rows = _article(micro_run[0])
    assert {(r["statement"], r["mode"]) for r in rows.values()} == ARTICLE
    assert all(r["size"] == 1000 and r["note"] for r in rows.values())
    assert rows["x * 2"]["baseline"] is True and rows["x * 2"]["ratio_to_grad"] == pytest.approx(1.0)


def test_no_article_case_saves_anything(micro_run):
    # x * 2 saves nothing even with grad: the gradient of a product with a number is that number.
    for r in _article(micro_run[0]).values():
        assert r["saved_bytes"] == 0 and r["saved_storages"] == 0, r["statement"]


def test_only_x_times_2_with_grad_records_a_graph(micro_run):
    rows = _article(micro_run[0])
    assert rows["x * 2"]["output_requires_grad"] is True
    assert [s for s, r in rows.items() if r["output_requires_grad"]] == ["x * 2"]


def test_detach_alone_allocates_nothing_and_the_products_allocate_the_result(micro_run):
    rows = _article(micro_run[0])
    assert rows["x.detach()"]["peak_bytes"] == 0
    for statement in ("x * 2", "with torch.no_grad(): x * 2", "x.detach() * 2", "x.data * 2"):
        assert BYTES <= rows[statement]["peak_bytes"] < BYTES + 1024, statement
