"""Dense retrieval on the bundled handbook: model load, embedding throughput on the CPU, the full
run with dense retrieval (cold and warm), and recall of BM25 vs dense vs hybrid (vs hybrid +
rerank when a cross-encoder can be had): ``python benchmarks/bench_dense.py [RERANKER]``.
Needs ``pip install -r requirements-dense.txt``."""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lab.embed  # noqa: E402
from lab import (  # noqa: E402
    DEFAULT_CHUNKERS,
    MODES,
    LabCache,
    LabConfig,
    build_corpus,
    build_index,
    load_corpus,
    run_lab,
)
from lab.embed import DEFAULT_MODEL, Embedder, dense_status  # noqa: E402
from lab.generate import generate_corpus  # noqa: E402
from lab.rerank import DEFAULT_RERANKER, reranker_status  # noqa: E402


def throughput(texts: list[str]) -> float:
    """Chunks per second for a fresh embedder (its cache empty), after one warm-up batch."""
    embedder = Embedder(DEFAULT_MODEL)
    embedder.encode(["warm-up"])
    start = time.perf_counter()
    embedder.encode(texts)
    return len(texts) / (time.perf_counter() - start)


def main() -> None:
    ok, message = dense_status()
    if not ok:
        sys.exit(f"error: {message}")
    corpus = load_corpus(ROOT / "data/handbook.md", ROOT / "data/handbook_qe.json")

    start = time.perf_counter()
    Embedder(DEFAULT_MODEL).load()
    print(f"model: {message}; first load {time.perf_counter() - start:.1f} s")

    handbook_chunks = [
        c.text for name in DEFAULT_CHUNKERS for c in build_index(corpus, name, 450).chunks
    ]
    text, qe = generate_corpus(100_000, 50)
    generated = build_index(build_corpus({"gen": text}, qe), "sentence", 450).chunks
    print(
        f"throughput, handbook chunks ({len(handbook_chunks)}): "
        f"{throughput(handbook_chunks):.0f} chunks/s"
    )
    print(
        f"throughput, 450-char chunks of a 100 KB document ({len(generated)}): "
        f"{throughput([c.text for c in generated]):.0f} chunks/s"
    )

    config = LabConfig(modes=MODES, dense=DEFAULT_MODEL)
    cold = []
    for _ in range(3):
        lab.embed._EMBEDDERS.clear()  # a fresh embedder: every chunk and question encoded again
        start = time.perf_counter()
        run_lab(corpus, config, cache=LabCache())
        cold.append(time.perf_counter() - start)
    warm = []
    for _ in range(5):
        start = time.perf_counter()
        run_lab(corpus, config, cache=LabCache())  # embeddings cached, indexes built again
        warm.append(time.perf_counter() - start)
    print(
        f"full run, 5 chunkers x 4 modes: cold {statistics.median(cold):.2f} s, "
        f"warm (embeddings cached) {statistics.median(warm):.3f} s"
    )

    reranker = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_RERANKER
    can_rerank, why = reranker_status(reranker)
    result = run_lab(corpus, config)
    rows = [("bm25", "flat"), ("dense", "dense"), ("hybrid", "hybrid")]
    if can_rerank:
        reranked = run_lab(
            corpus, LabConfig(modes=("hybrid",), dense=DEFAULT_MODEL, rerank=reranker)
        )
    else:
        print(f"hybrid + rerank: not measured ({why})")
    print("\nrecall on the handbook's test questions (L = 450, budget = 120): complete / partial")
    print(
        "chunker      "
        + "".join(f"{label:>16}" for label, _ in rows)
        + ("  hybrid+rerank" if can_rerank else "")
    )
    for chunker in DEFAULT_CHUNKERS:
        cells = []
        for _, mode in rows:
            m = result.run(chunker, mode).metrics
            cells.append(f"{m.complete:>8.0%} / {m.partial:<5.0%}")
        if can_rerank:
            m = reranked.run(chunker, "hybrid").metrics
            cells.append(f"{m.complete:>8.0%} / {m.partial:<5.0%}")
        print(f"{chunker:<12} " + "".join(f"{c:>16}" for c in cells))
    print("\nvocabulary-gap question (q08): complete where")
    for run in result.runs:
        q = next((x for x in run.questions if x.id == "q08"), None)
        if q is not None and q.complete:
            print(f"  {run.chunker} / {run.mode}")


if __name__ == "__main__":
    main()
