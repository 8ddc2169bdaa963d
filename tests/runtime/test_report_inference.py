import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import gradguard as gg  # noqa: E402


def test_explain_graph_carrying_tensor():
    lin = nn.Linear(256, 128)
    x = torch.randn(64, 256)
    y = lin(x).tanh()
    report = gg.explain(y)
    assert report.grad_fn == "TanhBackward0" and not report.is_leaf and report.requires_grad
    # TanhBackward0, AddmmBackward0, AccumulateGrad (bias), TBackward0, AccumulateGrad (weight)
    assert report.graph_nodes == 5
    # tanh saves its result, addmm saves its input x; 64*128*4 + 64*256*4 bytes
    assert report.saved_tensors == 2
    assert report.saved_bytes == 64 * 128 * 4 + 64 * 256 * 4
    assert gg.graph_stats(y) == gg.GraphStats(5, 2, report.saved_bytes)
    assert "grad_fn=TanhBackward0" in str(report) and "96.0 KiB saved" in str(report)


def test_shared_storage_is_counted_once():
    x = torch.randn(1000, requires_grad=True)
    y = x * x  # saves x twice (self and other)
    stats = gg.graph_stats(y)
    assert stats.saved_tensors == 2 and stats.saved_bytes == 4000


def test_explain_inference_and_leaf():
    with torch.inference_mode():
        t = torch.ones(3)
    report = gg.explain(t)
    assert report.is_inference and report.version is None and report.graph_nodes == 0
    w = nn.Parameter(torch.ones(2))
    assert gg.explain(w).is_leaf and gg.explain(w).grad_fn is None
    with pytest.raises(TypeError):
        gg.explain([1, 2])


class CachingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("cached_scale", torch.ones(4))

    def forward(self, x):
        return self.fc(x) * self.cached_scale


def test_module_caching_inference_tensor_in_buffer_is_found():
    model = CachingModel()
    with torch.inference_mode():
        for _ in range(2):  # a serving loop refreshing its cache
            out = model(torch.randn(2, 4))
            model.cached_scale = out.abs().mean(0)
            model.fc.last = out
    findings = gg.find_inference_tensors(model)
    assert [(f.path, f.kind) for f in findings] == [("cached_scale", "buffer"), ("fc.last", "attribute")]
    assert all(f.code == "GG503" for f in findings)
    assert "test_report_inference.py" in findings[0].module_defined_at
    assert "GG503 buffer cached_scale (4,)" in str(findings[0])
    # the consequence the finding predicts: training with it fails
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        model(torch.randn(2, 4)).sum().backward()


def test_clean_module_has_no_findings():
    assert gg.find_inference_tensors(CachingModel()) == []
    with pytest.raises(TypeError):
        gg.find_inference_tensors(torch.ones(2))


def test_lazy_top_level_names_match_the_runtime_exports():
    """``import gradguard`` lists the runtime names without importing torch: keep both lists equal."""
    import gradguard
    import gradguard.runtime

    assert set(gradguard._RUNTIME_NAMES) == set(gradguard.runtime.__all__)
    for name in gradguard.runtime.__all__:
        assert getattr(gradguard, name) is getattr(gradguard.runtime, name)
