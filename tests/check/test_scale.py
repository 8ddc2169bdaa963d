"""Parallel runs, the result cache and internal errors: the machinery for big trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gradguard.check.run.executor as parallel
import gradguard.check.run.python as python_adapter
from gradguard.check.engine.run import check_source
from gradguard.check.rules import all_rules
from gradguard.check.rules.base import Rule
from gradguard.check.run.cache import CACHEDIR_TAG, ResultCache
from gradguard.check.source import SourceText
from gradguard.cli import main

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
GOOD = "import torch\n\nwith torch.no_grad():\n    y = 1\n"
BROKEN_SYNTAX = "import torch\nwith torch.no_grad(:\n"


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


class ExplodingRule(Rule):
    """A rule with a bug: raises on every call to ``explode``."""

    code = "GG998"
    name = "exploding"
    summary = "test rule that raises"

    def visit_Call(self, node, ctx):
        if getattr(node.func, "id", None) == "explode":
            raise ZeroDivisionError("rule bug")


@pytest.fixture
def exploding(monkeypatch):
    import gradguard.check.rules as catalogue

    monkeypatch.setattr(catalogue, "all_rules", lambda: all_rules() + (ExplodingRule,))
    return ExplodingRule


def make_tree(root: Path, n: int) -> list:
    """n files: findings in every third, a syntax error in every tenth."""
    names = []
    for i in range(n):
        sub = root / f"pkg{i % 4}"
        sub.mkdir(exist_ok=True)
        path = sub / f"mod{i:03d}.py"
        text = BROKEN_SYNTAX if i % 10 == 9 else (BAD * (1 + i % 2) if i % 3 == 0 else GOOD)
        path.write_text(text)
        names.append(path)
    return names


# -- internal errors ----------------------------------------------------------------------


def test_rule_bug_is_internal_error_and_other_rules_still_report(exploding):
    text = "import torch\nexplode()\nwith torch.no_grad:\n    pass\n"
    rules = [exploding()] + [r() for r in all_rules()]
    result = check_source(SourceText(text), "f.py", rules, require_torch_import=False)
    assert [d.code for d in result.diagnostics] == ["GG204"]
    (failure,) = result.internal_errors
    assert (failure.where, failure.row, failure.column) == ("GG998", 2, 1)
    assert str(failure) == "internal error in GG998 on f.py:2:1: ZeroDivisionError: rule bug"


def test_internal_error_cli_line_and_exit_2(tmp_path, monkeypatch, capsys, exploding):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text("import torch\nexplode()\nwith torch.no_grad:\n    pass\n")
    Path("b.py").write_text(BAD)
    code, out, err = run_cli(capsys, "check", "--extend-select", "GG998", "--no-cache")
    assert code == 2
    assert err.splitlines() == ["gradguard: internal error in GG998 on a.py:2:1: ZeroDivisionError: rule bug"]
    assert [line.split(":")[0] for line in out.splitlines()[:2]] == ["a.py", "b.py"]


def test_internal_errors_are_not_cached(tmp_path, monkeypatch, capsys, exploding):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text("import torch\nexplode()\n")
    for _ in range(2):
        code, _, err = run_cli(capsys, "check", "--extend-select", "GG998")
        assert code == 2 and "internal error in GG998" in err


# -- parallel -----------------------------------------------------------------------------


def test_chunks_cover_tasks_in_order():
    tasks = list(range(1000))
    chunks = parallel.chunks_for(tasks, 2)
    assert [t for c in chunks for t in c] == tasks
    assert max(len(c) for c in chunks) <= parallel.MAX_CHUNK


def _pool_counter(monkeypatch) -> list:
    import concurrent.futures

    starts = []
    original = concurrent.futures.ProcessPoolExecutor

    class Counting(original):
        def __init__(self, *args, **kwargs):
            starts.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)
    return starts


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_parallel_output_equals_serial(tmp_path, monkeypatch, capsys, fmt):
    monkeypatch.chdir(tmp_path)
    make_tree(tmp_path, parallel.MIN_ITEMS_FOR_POOL + 20)
    starts = _pool_counter(monkeypatch)
    serial = run_cli(capsys, "check", "--no-cache", "--jobs", "1", "--format", fmt)
    assert starts == []
    par = run_cli(capsys, "check", "--no-cache", "--jobs", "2", "--format", fmt)
    assert starts == [2]
    assert par == serial
    assert serial[0] == 1 and "GG001" in serial[1] and "GG204" in serial[1]


def test_parallel_fix_equals_serial(tmp_path, monkeypatch, capsys):
    trees = []
    for name, jobs in (("serial", "1"), ("parallel", "2")):
        root = tmp_path / name
        root.mkdir()
        make_tree(root, parallel.MIN_ITEMS_FOR_POOL + 5)
        monkeypatch.chdir(root)
        code, out, _ = run_cli(capsys, "check", "--no-cache", "--fix", "--jobs", jobs)
        trees.append((out, {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*.py"))}))
    assert trees[0] == trees[1]
    assert all(b"no_grad:" not in data for data in trees[1][1].values() if data.startswith(b"import torch\n\nwith"))


def test_small_runs_do_not_start_workers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    make_tree(tmp_path, 5)
    starts = _pool_counter(monkeypatch)
    assert run_cli(capsys, "check", "--jobs", "8")[0] == 1
    assert starts == []


def test_jobs_must_be_positive(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--jobs", "0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == "gradguard check: error: argument -j/--jobs: must be a positive integer, got '0'"


def test_workers_report_internal_errors(tmp_path, monkeypatch, capsys, exploding):
    monkeypatch.chdir(tmp_path)
    for i in range(parallel.MIN_ITEMS_FOR_POOL + 2):
        Path(f"m{i:03d}.py").write_text("import torch\nexplode()\n" if i == 7 else GOOD)
    code, _, err = run_cli(capsys, "check", "--extend-select", "GG998", "--no-cache", "--jobs", "2")
    assert code == 2
    assert err.splitlines() == ["gradguard: internal error in GG998 on m007.py:2:1: ZeroDivisionError: rule bug"]


# -- cache --------------------------------------------------------------------------------


@pytest.fixture
def checked_files(monkeypatch) -> list:
    """Paths given to the engine (cache misses), in call order."""
    calls = []
    original = python_adapter.check_bytes

    def counting(data, path, *args, **kwargs):
        calls.append(path)
        return original(data, path, *args, **kwargs)

    monkeypatch.setattr(python_adapter, "check_bytes", counting)
    return calls


def test_second_run_is_served_from_cache(tmp_path, monkeypatch, capsys, checked_files):
    monkeypatch.chdir(tmp_path)
    make_tree(tmp_path, 12)
    first = run_cli(capsys, "check", "--jobs", "1", "--format", "json")
    assert len(checked_files) == 12
    second = run_cli(capsys, "check", "--jobs", "1", "--format", "json")
    assert len(checked_files) == 12  # nothing checked again
    assert second == first
    assert any(item["fix"] for item in json.loads(first[1]))  # fixes survive the round trip
    cache = tmp_path / ".gradguard_cache"
    assert (cache / ".gitignore").read_text() == "*\n"
    assert (cache / "CACHEDIR.TAG").read_text() == CACHEDIR_TAG


def test_changed_file_and_changed_config_miss(tmp_path, monkeypatch, capsys, checked_files):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(GOOD)
    Path("b.py").write_text(BAD)
    assert run_cli(capsys, "check")[0] == 1
    Path("b.py").write_text(GOOD)
    checked_files.clear()
    assert run_cli(capsys, "check")[0] == 0
    assert checked_files == ["b.py"]
    checked_files.clear()
    run_cli(capsys, "check", "--select", "GG001")  # another rule set
    assert sorted(checked_files) == ["a.py", "b.py"]
    # per-file-ignores are part of the key
    Path("b.py").write_text(BAD)
    run_cli(capsys, "check")
    Path("pyproject.toml").write_text('[tool.gradguard.per-file-ignores]\n"b.py" = ["GG204"]\n')
    checked_files.clear()
    assert run_cli(capsys, "check")[0] == 0
    assert checked_files == ["b.py"]


def test_checker_change_invalidates_and_prunes(tmp_path, monkeypatch, capsys, checked_files):
    import gradguard.check.run.cache as cache_module

    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    run_cli(capsys, "check")
    old = [p.name for p in (tmp_path / ".gradguard_cache").iterdir() if p.is_dir()]
    monkeypatch.setattr(cache_module, "checker_fingerprint", lambda: "0" * 24)
    checked_files.clear()
    assert run_cli(capsys, "check")[0] == 1
    assert checked_files == ["a.py"]
    now = [p.name for p in (tmp_path / ".gradguard_cache").iterdir() if p.is_dir()]
    assert now == ["0" * 24] and old != now


def test_fingerprint_covers_rule_sources():
    from gradguard.check.run.cache import checker_fingerprint

    # The fingerprint hashes files, so it is stable within a process and hex.
    assert checker_fingerprint() == checker_fingerprint()
    assert len(checker_fingerprint()) == 24 and int(checker_fingerprint(), 16) >= 0


@pytest.mark.parametrize(
    "garbage", [b"", b"{not json", b'{"v": 1}', b'{"v":1,"checked":true,"d":[{"c":1}]}', b"\xff\xfe"]
)
def test_corrupt_entries_are_misses(tmp_path, monkeypatch, capsys, checked_files, garbage):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    first = run_cli(capsys, "check")
    entries = list((tmp_path / ".gradguard_cache").glob("*/*.json"))
    assert len(entries) == 1
    entries[0].write_bytes(garbage)
    checked_files.clear()
    assert run_cli(capsys, "check") == first
    assert checked_files == ["a.py"]
    assert json.loads(entries[0].read_bytes())["v"] == 1  # rewritten


def test_cache_beside_config_and_no_cache(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.gradguard]\n")
    sub = tmp_path / "src"
    sub.mkdir()
    (sub / "a.py").write_text(BAD)
    monkeypatch.chdir(sub)
    run_cli(capsys, "check", "--no-cache")
    assert not (tmp_path / ".gradguard_cache").exists() and not (sub / ".gradguard_cache").exists()
    run_cli(capsys, "check")
    assert (tmp_path / ".gradguard_cache" / "CACHEDIR.TAG").is_file()
    assert not (sub / ".gradguard_cache").exists()
    run_cli(capsys, "check", "--cache-dir", str(tmp_path / "elsewhere"))
    assert list((tmp_path / "elsewhere").glob("*/*.json"))


def test_cache_dir_that_is_not_a_cache_is_left_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    code, out, err = run_cli(capsys, "check", "--cache-dir", ".")
    assert code == 1 and "GG204" in out
    assert err.startswith("gradguard: warning: ") and "not a gradguard cache" in err
    assert not Path(".gitignore").exists() and not Path("CACHEDIR.TAG").exists()


def test_fix_is_not_served_from_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    Path("b.py").write_text(GOOD)
    run_cli(capsys, "check")
    code, out, _ = run_cli(capsys, "check", "--fix")
    assert Path("a.py").read_text() == GOOD
    assert out.strip() == "Found 1 error (1 fixed, 0 remaining)."
    assert run_cli(capsys, "check")[0] == 0


def test_unwritable_cache_folder_does_not_stop_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    Path("blocker").write_text("a file where the cache folder should be")
    code, out, err = run_cli(capsys, "check", "--cache-dir", "blocker/cache")
    assert code == 1 and "GG204" in out
    assert err.startswith("gradguard: warning: cannot create cache folder blocker/cache")
    Path("a.py").write_text(GOOD)  # a clean tree stays clean: no cache is not an error
    assert run_cli(capsys, "check", "--cache-dir", "blocker/cache")[0] == 0


def test_cache_round_trip_keeps_every_field(tmp_path):
    text = BAD + "with torch.inference_mode:\n    pass\n"
    rules = [r() for r in all_rules()]
    diags = check_source(SourceText(text), "f.py", rules).diagnostics
    assert len(diags) == 2
    cache = ResultCache.open(tmp_path / "c", ["GG204"], True)
    key = cache.key("f.py", text.encode(), [])
    assert cache.store(key, "f.py", True, diags)
    checked, loaded = cache.load(key, "f.py")
    assert checked and loaded == diags


def test_engine_bug_during_fix_is_internal_error_and_file_untouched(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(BAD)
    Path("b.py").write_text(BAD)

    def broken(text, check, unsafe, parses=None):
        raise KeyError("fix bug")

    monkeypatch.setattr(python_adapter, "fix_until_stable", broken)
    code, out, err = run_cli(capsys, "check", "--fix", "--no-cache", "--jobs", "1")
    assert code == 2
    assert err.splitlines() == [
        "gradguard: internal error in engine on a.py:1:1: KeyError: 'fix bug'",
        "gradguard: internal error in engine on b.py:1:1: KeyError: 'fix bug'",
    ]
    assert Path("a.py").read_text() == BAD and Path("b.py").read_text() == BAD


def test_cache_fingerprint_covers_the_rules_engine_and_common_helpers():
    """Editing a rule (or the engine, or a shared helper) must invalidate every entry."""
    import gradguard.check.engine.run as engine
    import gradguard.check.rules.gg204_grad_mode_without_call as gg204
    import gradguard.common.text as text
    from gradguard.check.run.cache import checker_sources

    sources = checker_sources()
    for module in (gg204, engine, text):
        assert Path(module.__file__).resolve() in sources
    package = Path(engine.__file__).resolve().parents[2]  # src/gradguard, wherever the checkout is
    assert not any({"runtime", "bench"} & set(p.relative_to(package).parts) for p in sources)
