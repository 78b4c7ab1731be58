"""The sweep as tasks: one per chunker and size, each building its index once; serial without a
Dask client, and ``lab`` usable where dask is not installed."""

import subprocess
import sys
from pathlib import Path

import lab.cache
import lab.retrieval
import lab.run
from lab import LabCache, LabConfig, run_lab, sweep, sweep_cell

ROOT = Path(__file__).resolve().parent.parent
CONFIG = LabConfig(chunkers=("sentence", "structure"), split="all")
GRID = {"budgets": (60, 160, 300), "sizes": (250, 450)}


def counting(monkeypatch, module, name: str) -> list:
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_each_task_builds_one_index_and_ranks_once_per_mode(handbook, monkeypatch):
    indexes = counting(monkeypatch, lab.cache, "build_index")
    rankings = counting(monkeypatch, lab.retrieval, "rank_scored")
    rows = sweep(handbook, CONFIG, **GRID).rows
    assert len(rows) == 2 * 2 * 3 * 2  # chunkers x modes x budgets x sizes
    assert [(a[1], a[2]) for a in indexes] == [
        ("sentence", 250),
        ("structure", 250),
        ("sentence", 450),
        ("structure", 450),
    ]
    assert len(rankings) == 4 * 2  # indexes x modes; budgets only re-assemble


def test_a_warm_rerun_only_looks_things_up(handbook, monkeypatch):
    cache = LabCache()
    first = sweep(handbook, CONFIG, **GRID, cache=cache).rows
    result = run_lab(handbook, CONFIG, cache=cache).to_dict()
    names = {
        "build_index": lab.cache,
        "index_stats": lab.cache,
        "rank_scored": lab.retrieval,
        "assemble_questions": lab.retrieval,
        "score_questions": lab.retrieval,
    }
    calls = {name: counting(monkeypatch, module, name) for name, module in names.items()}
    assert sweep(handbook, CONFIG, **GRID, cache=cache).rows == first
    assert run_lab(handbook, CONFIG, cache=cache).to_dict() == result
    assert calls == {name: [] for name in names}


def test_scored_budgets_kept_per_ranking_are_bounded(handbook):
    cache = LabCache()
    index = cache.index(handbook, CONFIG, "structure")
    retrieval = cache.retrieval(index, CONFIG, "flat")
    kept = retrieval.evaluate(40)
    assert retrieval.evaluate(40) is kept  # looked up, not scored again
    for budget in range(41, 41 + 16):  # 16 more budgets: the oldest is dropped
        retrieval.evaluate(budget)
    again = retrieval.evaluate(40)
    assert again is not kept and again == kept


def test_serial_progress_counts_tasks(handbook):
    seen = []
    sweep(handbook, CONFIG, **GRID, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_task_gives_exactly_the_rows_of_its_cell(handbook):
    rows = sweep(handbook, CONFIG, **GRID).rows
    cell = sweep_cell(handbook, CONFIG, "structure", 450, GRID["budgets"])
    assert cell == tuple(r for r in rows if (r["chunker"], r["size"]) == ("structure", 450))
    assert [(r["mode"], r["budget"]) for r in cell] == [
        ("flat", 60),
        ("flat", 160),
        ("flat", 300),
        ("graph", 60),
        ("graph", 160),
        ("graph", 300),
    ]


WITHOUT_DASK = """
import sys
sys.modules["dask"] = None
sys.modules["distributed"] = None
import lab, lab.cli
print(lab.distributed_status()[1])
print(len(lab.sweep(lab.load_corpus("data/handbook.md", "data/handbook_qe.json"),
                    budgets=(120,), sizes=(450,)).rows))
sys.exit(lab.cli.main(["sweep", "--workers", "2"]))
"""


def test_lab_sweeps_serially_where_dask_is_not_installed():
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DASK], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "dask and distributed not installed: `pip install -r requirements-distributed.txt`",
        "10",
    ]
    assert done.stderr == (
        "error: --workers needs dask and distributed: dask and distributed not installed: "
        "`pip install -r requirements-distributed.txt`\n"
    )


def test_importing_lab_does_not_import_dask():
    code = "import sys, lab, lab.cli; print(sorted({'dask', 'distributed'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.stdout == "[]\n", done.stderr
