"""BM25 against bm25s (numba backend), side by side in one process, on the same tokens: 2,500
chunks of the generated 1 MB corpus (sentence windows of 400 characters) and its 1,000 questions
as queries. Indexing (tokens to weights) and top-10 retrieval for all queries are timed apart;
the top-10 lists are compared too: as sets, and by the scores they hold (bm25s's "lucene" BM25
is ours without the constant factor ``k1 + 1``, in float32; where several chunks tie at the
tenth score, it may take others of them than ours, which takes them in chunk order). bm25s's
numba functions are compiled before timing.

    python benchmarks/bench_bm25.py [--repeats N] [--quick]
"""

import numpy as np
from common import arguments, figure, generated, missing, ratio_line, side_by_side

from lab import build_corpus, build_index
from lab.bm25 import BM25, K1, B
from lab.index import chunk_tokens
from lab.retrieve import query_tokens

CHUNKS, QUERIES, K = 2500, 1000, 10


def ours_top(bm25: BM25, queries: list[list[str]]) -> list[np.ndarray]:
    return bm25.top(queries, K)


def main() -> None:
    args = arguments(__doc__, repeats=15)
    why = missing("bm25s") or missing("numba")
    if why:
        print(f"BM25 vs bm25s: not measured: {why}")
        return
    import bm25s

    n_chunks, n_queries = (250, 100) if args.quick else (CHUNKS, QUERIES)
    text, qe = generated(100_000 if args.quick else 1_000_000, n_queries)
    corpus = build_corpus({"generated": text}, qe)
    index = build_index(corpus, "sentence", 400)
    docs = [chunk_tokens(corpus.documents[0], c) for c in index.chunks[:n_chunks]]
    queries = [list(query_tokens(q.question)) for q in corpus.questions[:n_queries]]

    def theirs_index():
        model = bm25s.BM25(k1=K1, b=B, method="lucene", backend="numba")
        model.index(docs, show_progress=False)
        return model

    model = theirs_index()
    theirs = lambda: model.retrieve(  # noqa: E731
        queries, k=K, show_progress=False, backend_selection="numba", n_threads=1
    )
    theirs()  # compile
    ours_bm25 = BM25(docs)
    ours_top(ours_bm25, queries)
    label = f"{len(docs)} chunks"
    a, b, r = side_by_side(lambda: BM25(docs), theirs_index, args.repeats, cold=False)
    print(figure(f"BM25 index, {label}, ours", a))
    print(figure(f"BM25 index, {label}, bm25s", b))
    print(ratio_line("BM25 index vs bm25s", r))
    a, b, r = side_by_side(lambda: ours_top(ours_bm25, queries), theirs, args.repeats, cold=False)
    print(figure(f"top-{K} for {len(queries)} queries over {label}, ours", a))
    print(figure(f"top-{K} for {len(queries)} queries over {label}, bm25s numba", b))
    print(ratio_line(f"top-{K} vs bm25s (numba)", r, None if args.quick else 1.0))
    ids, _ = theirs()
    ours, scores = ours_top(ours_bm25, queries), ours_bm25.scores(queries)
    pairs = [(o, t[: len(o)]) for o, t in zip(ours, ids.astype(np.int64), strict=True)]
    same = sum(set(o.tolist()) == set(t.tolist()) for o, t in pairs)
    same_scores = sum(
        np.array_equal(s[o], np.sort(s[t])[::-1]) for s, (o, t) in zip(scores, pairs, strict=True)
    )
    print(f"same top-{K} set as bm25s: {same} of {len(queries)} queries")
    print(f"same top-{K} scores as bm25s (tied chunks aside): {same_scores} of {len(queries)}")


if __name__ == "__main__":
    main()
