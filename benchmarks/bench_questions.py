"""Server time of the Questions page while a question is written, through AppTest: the rerun
after each edit (the question typed, a unit clicked as evidence, a second one, the split turned
to train, the text changed), each showing how every chunker does on the question. On a
generated 1 MB corpus (``lab.generate``, 20 questions already written) kept as "your corpus",
and on the bundled TechNova collection (31 questions).

Figures are process CPU seconds of each rerun (the script runs in a thread of this process)
and its wall-clock seconds (which count waiting for a core of a busy machine), median and
fastest over the repeats; each repeat writes a new question in a fresh app, after
one page run that the table's verdicts are computed in (not timed). The first verdict builds
the index of every chunker the table's configuration does not run (once per corpus and
session); the edits after it must stay within the target.

    python benchmarks/bench_questions.py [--repeats N] [--quick]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from common import ROOT, arguments, generated

sys.path.insert(0, str(ROOT / "tests"))

TARGET = 1.0  # seconds of CPU for a rerun after an edit: the page stays responsive
EDITS = ("type the question", "mark a unit", "mark a second unit", "make it train", "retype it")
FIRST = 1  # the first verdict indexes every chunker the table did not run: not judged


def big_corpus_id(chars: int, questions: int) -> str:
    """Keep the generated corpus in a scratch corpus store; its store digest."""
    from ui import store

    text, qe = generated(chars, 1000)
    qe = {"questions": qe["questions"][:questions]}
    import json

    inputs = store.Inputs({"generated.md": text}, json.dumps(qe))
    return store.default_store().put(inputs)


def edit_times(query: dict, search: str) -> list[tuple[float, float]]:
    """CPU and wall-clock seconds of the rerun after each of ``EDITS``, in a fresh app on the
    Questions page."""
    import streamlit as st
    from app_support import open_app

    st.cache_data.clear()  # each repeat is a first visit: nothing it computes is cached yet
    st.cache_resource.clear()
    at = open_app("app_pages/questions.py", **query)
    assert not at.exception, at.exception
    times = []

    def rerun(element) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        element.run()
        times.append((time.process_time() - cpu, time.perf_counter() - wall))
        assert not at.exception, at.exception

    rerun(at.text_input(key="qp_text").input("What must the team do before it closes?"))
    at.text_input(key="qp_query").input(search).run()
    boxes = [c for c in at.checkbox if c.key.startswith("qp_unit_")]
    rerun(boxes[0].check())
    boxes = [c for c in at.checkbox if c.key.startswith("qp_unit_")]
    rerun(boxes[1].check())
    rerun(at.radio(key="qp_split").set_value("train"))
    rerun(at.text_input(key="qp_text").input("What must the team do before the circuit closes?"))
    assert len(at.session_state["qp_evidence"]) == 2
    return times


def report(name: str, runs: list[list[tuple[float, float]]], quick: bool) -> None:
    print(f"{name}: CPU s median / fastest, wall-clock s median, {len(runs)} runs")
    for k, edit in enumerate(EDITS):
        each = [run[k][0] for run in runs]
        wall = statistics.median(run[k][1] for run in runs)
        median = statistics.median(each)
        line = f"  {edit:<20}{median:7.2f} / {min(each):.2f} CPU, {wall:6.2f} wall"
        if k == FIRST:
            line += "; indexes the chunkers the table did not run"
        elif not quick:
            line += f"; target <= {TARGET:g} s: " + ("met" if median <= TARGET else "not met")
        print(line)


def main() -> None:
    args = arguments(__doc__, repeats=3)
    chars = 100_000 if args.quick else 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        os.environ["CHUNKING_LAB_STORE"] = folder
        corpus_id = big_corpus_id(chars, 20)
        mine = {"corpus": "your corpus", "corpus_id": corpus_id}
        runs = [edit_times(mine, "closes") for _ in range(args.repeats)]
        report(f"generated {chars / 1e6:g} MB, 20 questions, as your corpus", runs, args.quick)
    runs = [edit_times({"corpus": "technova"}, "warranty") for _ in range(args.repeats)]
    report("technova (bundled, 31 questions)", runs, args.quick)


if __name__ == "__main__":
    main()
