"""An adapter's cost over calling its library alone, on a 1 MB document: the library's call
(what a user of the library runs: ``split_text``, or the chunker called on the text), the
adapter's own work on what the library returned (finding each chunk's exact source range), and
the adapter's whole plan (the library's call plus that work), in process CPU seconds, fastest of
``--repeats``. The library is given the very length function and parameters the adapter gives
it. Target: the adapter's own work under 10% of the library's call.

The overhead is the adapter's own work timed by itself, over the library's call: on a shared
machine the difference of two whole runs (``plan - library``, also shown) swings by more than the
few milliseconds being measured.

    python benchmarks/bench_pipelines.py                       # sizes in characters
    python benchmarks/bench_pipelines.py --tokenizer all-MiniLM-L6-v2 --repeats 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab import parse_document  # noqa: E402
from lab.chunkers import CHUNKERS, Params, chunker_status  # noqa: E402
from lab.chunkers.adapters.locate import locate, offsets_plan  # noqa: E402
from lab.generate import generate_corpus  # noqa: E402

SIZE, OVERLAP = 512, 64


def library_alone(name: str, text: str, p: Params):
    """The library's own call, as the adapter makes it."""
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


def adapter_work(name: str, text: str, made):
    """What the adapter does with the library's output ``made``: its source ranges."""
    if name.startswith("chonkie"):
        return offsets_plan(text, ((c.text, c.start_index, c.end_index) for c in made))
    if name == "semchunk":
        chunks, offsets = made
        return offsets_plan(text, ((c, s, e) for c, (s, e) in zip(chunks, offsets, strict=True)))
    return locate(text, made)


def fastest(fn, repeats: int) -> float:
    """The fastest of ``repeats`` runs of ``fn``, in process CPU seconds."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", help="sizes in tokens of this tokenizer (lab.tokens)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    tokenizer = None
    if args.tokenizer:
        from lab.tokens import get_tokenizer

        tokenizer = get_tokenizer(args.tokenizer)
    text, _ = generate_corpus(1_000_000, 10)
    doc = parse_document(text)
    p = Params(SIZE, OVERLAP, tokenizer=tokenizer)
    unit = f"{args.tokenizer} tokens" if tokenizer else "characters"
    print(
        f"{len(text):,} characters, L = {SIZE} {unit}, overlap = {OVERLAP}; "
        f"fastest of {args.repeats}, process CPU seconds"
    )
    print(
        f"{'adapter':20} {'chunks':>6} {'library':>9} {'own work':>9} {'overhead':>9} "
        f"{'per chunk':>9} {'plan':>9} {'plan-lib':>9}"
    )
    for name, spec in CHUNKERS.items():
        if spec.kind != "adapter" or spec.dense or not chunker_status(name)[0]:
            continue
        library_alone(name, text[:20_000], p)  # imports and warm-up
        made = library_alone(name, text, p)
        chunks = len(adapter_work(name, text, made).bodies)
        lib = fastest(lambda n=name: library_alone(n, text, p), args.repeats)
        own = fastest(lambda n=name, m=made: adapter_work(n, text, m), args.repeats)
        whole = fastest(lambda s=spec: s.plan(doc, p), args.repeats)
        print(
            f"{name:20} {chunks:6} {lib:9.4f} {own:9.4f} {100 * own / lib:8.1f}% "
            f"{1e6 * own / chunks:7.2f}us {whole:9.4f} {100 * (whole - lib) / lib:8.1f}%"
        )


if __name__ == "__main__":
    main()
