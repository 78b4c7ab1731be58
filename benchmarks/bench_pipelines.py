"""An adapter's cost over calling its library alone, on a 1 MB document (characters; no
tokenizer): the library's call, then the adapter's plan (the same call plus finding each chunk's
source range), in process CPU seconds, fastest of five. Target: under 10% overhead.

    python benchmarks/bench_pipelines.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab import parse_document  # noqa: E402
from lab.chunkers import CHUNKERS, Params, chunker_status  # noqa: E402
from lab.generate import generate_corpus  # noqa: E402

SIZE, OVERLAP, REPEATS = 512, 64, 5


def library_alone(name: str, text: str, p: Params):
    from lab.chunkers.adapters import chonkie, langchain, llamaindex, semchunk

    calls = {
        "langchain-recursive": lambda: langchain.recursive_splitter(p).split_text(text),
        "langchain-markdown": lambda: langchain.markdown_pieces(text, p),
        "llamaindex-sentence": lambda: llamaindex.sentence_splitter(p).split_text(text),
        "llamaindex-markdown": lambda: llamaindex.markdown_pieces(text),
        "chonkie-recursive": lambda: chonkie.recursive_chunker(p)(text),
        "chonkie-token": lambda: chonkie.token_chunker(p)(text),
        "semchunk": lambda: semchunk.chunks_of(text, p),
    }
    return calls[name]()


def best(fn) -> tuple[float, float]:
    """The fastest and the median of ``REPEATS`` runs, in process CPU seconds."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times), statistics.median(times)


def main() -> None:
    text, _ = generate_corpus(1_000_000, 10)
    doc = parse_document(text)
    p = Params(SIZE, OVERLAP)
    print(f"{len(text):,} characters, L = {SIZE}, overlap = {OVERLAP}; best of {REPEATS}")
    print(f"{'adapter':22} {'library s':>10} {'adapter s':>10} {'overhead':>9}")
    for name, spec in CHUNKERS.items():
        if spec.kind != "adapter" or spec.dense or not chunker_status(name)[0]:
            continue
        library_alone(name, text[:20_000], p)  # imports and warm-up
        lib, _ = best(lambda n=name: library_alone(n, text, p))
        ada, _ = best(lambda s=spec: s.plan(doc, p))
        print(f"{name:22} {lib:10.3f} {ada:10.3f} {100 * (ada - lib) / lib:8.1f}%")


if __name__ == "__main__":
    main()
