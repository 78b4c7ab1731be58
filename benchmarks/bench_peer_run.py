"""One chunker, 100 KB, 1,000 questions: the lab's whole run against the same job done with
peers' parts, side by side in one process (issue 23's fourth target, <= 1.0x).

Ours: ``run_lab`` with the ``recursive`` chunker at L = 450 characters, flat BM25 retrieval and
a 120-word budget on the generated corpus, cold (the lab's caches emptied first), which also
diagnoses every question and reports partial recall. The peers' job: chonkie's
``RecursiveChunker`` at 450 characters, bm25s (numba backend) indexing its chunks and retrieving
the top 10 for every question, a greedy fill of the same budget (chunks in rank order, one that
would overflow skipped) and a span check (a question is complete when each of its evidence
sentences lies inside one of the chunks taken). Both tokenize alike (lowercased ``\\w+``).
bm25s's numba functions are compiled before timing.

    python benchmarks/bench_peer_run.py [--repeats N] [--quick]
"""

import re

from common import arguments, figure, generated, missing, ratio_line, side_by_side

from lab import LabCache, LabConfig, build_corpus, run_lab

SIZE, BUDGET, K = 450, 120, 10
WORD = re.compile(r"\w+")


def peers_job(text: str, questions: list[dict]) -> float:
    """Complete-evidence recall of chonkie recursive + bm25s + greedy fill + span check."""
    import bm25s
    from chonkie import RecursiveChunker

    chunks = RecursiveChunker(chunk_size=SIZE)(text)
    model = bm25s.BM25(method="lucene", backend="numba")
    model.index([WORD.findall(c.text.lower()) for c in chunks], show_progress=False)
    queries = [WORD.findall(q["question"].lower()) for q in questions]
    ranked, _ = model.retrieve(
        queries, k=K, show_progress=False, backend_selection="numba", n_threads=1
    )
    words = [len(c.text.split()) for c in chunks]
    complete = 0
    for q, row in zip(questions, ranked, strict=True):
        taken, left = [], BUDGET
        for i in row:
            if words[i] <= left:
                taken.append(chunks[i])
                left -= words[i]
        spans = [(s, s + len(e)) for e in q["evidence"] if (s := text.find(e)) != -1]
        complete += all(
            any(c.start_index <= s and e <= c.end_index for c in taken) for s, e in spans
        )
    return complete / len(questions)


def main() -> None:
    args = arguments(__doc__, repeats=7)
    why = missing("bm25s") or missing("numba") or missing("chonkie")
    if why:
        print(f"one chunker vs peers: not measured: {why}")
        return
    chars, n = (20_000, 100) if args.quick else (100_000, 1000)
    text, qe = generated(chars, n)
    config = LabConfig(
        chunkers=("recursive",), modes=("flat",), size=SIZE, budget=BUDGET, split="all"
    )
    ours = lambda: run_lab(build_corpus({"generated": text}, qe), config, cache=LabCache())  # noqa: E731
    theirs = lambda: peers_job(text, qe["questions"])  # noqa: E731
    recall = theirs()  # compiles bm25s's numba functions
    lab_recall = ours().run("recursive", "flat").metrics.complete
    print(f"{chars:,} characters, {n:,} questions, L = {SIZE}, budget {BUDGET} words")
    print(f"complete-evidence recall: lab recursive {lab_recall:.3f}, peers {recall:.3f}")
    a, b, r = side_by_side(ours, theirs, args.repeats)
    print(figure("the lab's run, one chunker, flat", a))
    print(figure("chonkie recursive + bm25s + greedy fill + span check", b))
    print(ratio_line("one chunker vs peers", r, target=1.0))


if __name__ == "__main__":
    main()
