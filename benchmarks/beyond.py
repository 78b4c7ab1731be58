"""Issue 27's measurements: do the heading guard and the retriever term rescue QES-DP on
held-out questions, and does the adaptive budget beat the fixed budgets at the same mean cost?

    python benchmarks/beyond.py            # the handbook, TechNova and the licence collection

Prints, per corpus, complete recall on the test split (L = 450, B = 120) for every keyword
chunker with and without the guard, the comparisons of qes-dp against its variants (fixed,
broken, exact McNemar p), and per chunker the fixed-budget curve (recall against words sent)
beside the adaptive budget's point. The numbers in docs/beyond.md come from this script.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import (  # noqa: E402
    DEFAULT_BUDGETS,
    LabCache,
    LabConfig,
    compare,
    load_collection,
    load_corpus,
    run_lab,
)

CHUNKERS = ("fixed", "sentence", "structure", "qes-dp", "qes-greedy", "qes-retrieval")
CORPORA = {
    "handbook": lambda: load_corpus([ROOT / "data/handbook.md"], ROOT / "data/handbook_qe.json"),
    "technova": lambda: load_collection(ROOT / "data/technova/collection.json"),
    "licences": lambda: load_collection(ROOT / "tests/data/real/licences/collection.json"),
}


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def rescue(name, corpus, cache) -> None:
    print(f"\n## {name}: held-out (test) complete recall, L = 450, B = 120\n")
    print("| chunker | flat | graph | flat, guard | graph, guard |")
    print("|---|---|---|---|---|")
    plain = run_lab(corpus, LabConfig(chunkers=CHUNKERS), cache=cache)
    guard = run_lab(corpus, LabConfig(chunkers=CHUNKERS, heading_guard=True), cache=cache)
    for c in CHUNKERS:
        cells = [
            pct(r.run(c, m).metrics.complete) for r in (plain, guard) for m in ("flat", "graph")
        ]
        print(f"| {c} | " + " | ".join(cells) + " |")
    print("\n| A → B (flat) | A | B | fixed | broken | p |")
    print("|---|---|---|---|---|---|")
    base = LabConfig(chunkers=("qes-dp",), modes=("flat",))
    for label, b in (
        ("qes-dp → qes-dp + guard", replace(base, heading_guard=True)),
        ("qes-dp → qes-retrieval", replace(base, chunkers=("qes-retrieval",))),
        (
            "qes-dp → qes-retrieval + guard",
            replace(base, chunkers=("qes-retrieval",), heading_guard=True),
        ),
        ("qes-dp → structure", replace(base, chunkers=("structure",))),
    ):
        t = compare(corpus, base, b, cache=cache).complete
        print(
            f"| {label} | {pct(t.a.value)} | {pct(t.b.value)} | {t.fixed} | {t.broken} | "
            f"{t.p_value:.2f} |"
        )


def adaptive(name, corpus, cache) -> None:
    print(f"\n## {name}: recall against words sent (test split, flat, L = 450)\n")
    print("| chunker | " + " | ".join(f"B={b}" for b in DEFAULT_BUDGETS) + " | adaptive |")
    print("|---|" + "---|" * (len(DEFAULT_BUDGETS) + 1))
    for c in ("structure", "qes-dp", "qes-retrieval", "sentence"):
        config = LabConfig(chunkers=(c,), modes=("flat",))
        cells = []
        for b in DEFAULT_BUDGETS:
            m = run_lab(corpus, replace(config, budget=b), cache=cache).runs[0].metrics
            cells.append(f"{pct(m.complete)} @ {m.mean_context_words:.0f}")
        run = run_lab(corpus, replace(config, budget="adaptive"), cache=cache).runs[0]
        mean_budget = sum(run.budgets) / len(run.budgets)
        cells.append(
            f"**{pct(run.metrics.complete)} @ {run.metrics.mean_context_words:.0f}** "
            f"(mean budget {mean_budget:.0f})"
        )
        print(f"| {c} | " + " | ".join(cells) + " |")


def versus_fixed(name, corpus, cache) -> None:
    """The adaptive budget against the fixed budget nearest its mean words sent."""
    print(f"\n## {name}: adaptive against the fixed budget of nearest mean cost (flat)\n")
    print("| chunker | fixed B | fixed | adaptive | fixed→adaptive: fixed | broken | p |")
    print("|---|---|---|---|---|---|---|")
    for c in ("structure", "qes-dp", "qes-retrieval", "sentence"):
        config = LabConfig(chunkers=(c,), modes=("flat",))
        run = run_lab(corpus, replace(config, budget="adaptive"), cache=cache).runs[0]
        words = run.metrics.mean_context_words
        costs = {
            b: run_lab(corpus, replace(config, budget=b), cache=cache).runs[0].metrics
            for b in DEFAULT_BUDGETS
        }
        b = min(costs, key=lambda k: abs(costs[k].mean_context_words - words))
        t = compare(
            corpus, replace(config, budget=b), replace(config, budget="adaptive"), cache=cache
        )
        t = t.complete
        print(
            f"| {c} | {b} ({costs[b].mean_context_words:.0f} words) | {pct(t.a.value)} | "
            f"{pct(t.b.value)} ({words:.0f} words) | {t.fixed} | {t.broken} | {t.p_value:.2f} |"
        )


def main() -> None:
    for name, load in CORPORA.items():
        corpus = load()
        cache = LabCache()
        rescue(name, corpus, cache)
        adaptive(name, corpus, cache)
        versus_fixed(name, corpus, cache)


if __name__ == "__main__":
    main()
