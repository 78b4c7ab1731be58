"""The chunk graph's build: on the handbook (5 default chunkers), how it grows on the generated
corpus from 100 KB to 1 MB (10x the text, at most about 10x the time), and on a repetitive text
(one three-sentence paragraph repeated) at L = 100, where every chunk has thousands of lexical
neighbours at the threshold: the build's CPU time per size and the peak memory of the whole
``python -m lab run --size 100 --mode graph`` on it (target: 400 KB within 500 MB).

    python benchmarks/bench_graph.py [--repeats N] [--quick]
"""

import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, arguments, cpu_seconds, generated, handbook_texts, seconds

from lab import LabCache, LabConfig, build_corpus
from lab.graph import build_graph

FULL = LabConfig(split="all")
TARGET_GROWTH = 10.0
TARGET_PEAK_MB = 500
PARAGRAPH = (
    "A dark window is at least 90 minutes of full darkness before moonrise. "
    "A visitor is anyone on site who is neither staff nor a registered researcher. "
    "Only dim red light is permitted there, so that eyes stay adapted to the dark.\n\n"
)
REPETITIVE_QE = {
    "questions": [
        {
            "id": "r1",
            "question": "How long is a dark window before moonrise?",
            "evidence": [PARAGRAPH.split(". ")[0] + "."],
            "split": "test",
        }
    ]
}


def repetitive(chars: int) -> str:
    return "# Notes\n\n" + PARAGRAPH * (chars // len(PARAGRAPH) + 1)


def graph_build(text: str, qe, repeats: int, size: int = 450) -> float:
    """CPU seconds (the sum of the medians) of building each default chunker's chunk graph."""
    corpus, total = build_corpus({"text": text}, qe), 0.0
    for chunker in FULL.chunkers:
        index = LabCache().index(corpus, LabConfig(size=size), chunker)
        args = (index.chunks, corpus.documents, index.bm25.matrix, True)
        total += statistics.median(cpu_seconds(lambda a=args: build_graph(*a), repeats))
    return total


def peak_megabytes(text: str) -> float:
    """Peak resident memory of ``python -m lab run --size 100 --mode graph`` on ``text``: the
    largest child's so far (call with growing texts)."""
    with tempfile.TemporaryDirectory() as tmp:
        doc, qe = Path(tmp) / "repetitive.md", Path(tmp) / "qe.json"
        doc.write_text(text, encoding="utf-8")
        qe.write_text(json.dumps(REPETITIVE_QE), encoding="utf-8")
        command = [sys.executable, "-m", "lab", "run", "--doc", str(doc), "--qe", str(qe)]
        command += ["--size", "100", "--mode", "graph", "--format", "json"]
        subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    args = arguments(__doc__, repeats=5)
    text, qe = handbook_texts()
    print(f"handbook graph build, 5 chunkers: {seconds(graph_build(text, qe, args.repeats))}")
    small, large = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
    times = {chars: graph_build(*generated(chars, 100), max(1, args.repeats // 2)) for chars in
             (small, large)}  # fmt: skip
    growth = times[large] / times[small]
    print(
        f"generated graph build, 5 chunkers: {seconds(times[small])} at {small // 1000} KB, "
        f"{seconds(times[large])} at {large // 1000} KB: {growth:.1f}x for 10x the text "
        f"(target <= {TARGET_GROWTH:g}x)"
    )
    for chars in (25_000, 50_000, 100_000) if args.quick else (100_000, 200_000, 400_000):
        text = repetitive(chars)
        build = graph_build(text, REPETITIVE_QE, 1, size=100)
        peak = peak_megabytes(text)
        target = f" (target <= {TARGET_PEAK_MB} MB)" if chars == 400_000 else ""
        print(
            f"repetitive {chars // 1000} KB at L = 100: graph build {seconds(build)}, "
            f"the run's peak memory {peak:.0f} MB{target}"
        )


if __name__ == "__main__":
    main()
