"""Why evidence missed, in numbers a user can check (issue 21): a chunk that did not fit says how
many words were left and how many it has, in every mode, in the engine, its JSON and the
drill-down. On a real document: Zstandard's README (tests/data/real/ORIGINS.md)."""

import re
from pathlib import Path

import pytest

from lab import EXPLAIN, LabConfig, build_corpus, build_index, explain, run_lab

README = Path(__file__).resolve().parent / "data" / "real" / "zstd-README.md"
DICTIONARY = [  # the README's "Dictionary compression How To", step by step
    {
        "id": "z1",
        "question": "How do I compress a file with a dictionary?",
        "evidence": ["`zstd -D dictionaryName FILE`"],
    },
    {
        "id": "z2",
        "question": "How do I create a dictionary for small data?",
        "evidence": ["`zstd --train FullPathToTrainingSet/* -o dictionaryName`"],
    },
    {
        "id": "z3",
        "question": "How do I decompress with a dictionary?",
        "evidence": ["`zstd -D dictionaryName --decompress FILE.zst`"],
    },
]
FIT = re.compile(r"did not fit: (\d+) words left, the chunk has (\d+)")


@pytest.fixture(scope="module")
def zstd():
    corpus = build_corpus({"README.md": README.read_text(encoding="utf-8")}, DICTIONARY)
    assert not corpus.errors
    return corpus


def test_below_the_cut_with_words_left_says_the_chunk_did_not_fit_them(zstd):
    # fixed, 250 characters, budget 60: the best chunk (34 words) is taken; the step's chunk,
    # ranked 2nd, has 32 words, and 60 - 34 = 26 are left. The budget did not fill.
    x = explain(build_index(zstd, "fixed", 250), zstd.questions[0], "flat", 60)
    assert x.context.words == 34
    [ev] = x.result.evidence
    assert (ev.diagnosis, ev.rank) == ("below the cut", 2)
    assert ev.detail == "did not fit: 26 words left, the chunk has 32"
    row = x.frame().iloc[1]
    assert (row["decision"], row["why"]) == ("below the cut", ev.detail)
    assert "budget filled" not in EXPLAIN["below the cut"]


def test_a_chunk_longer_than_the_whole_budget_says_so():
    doc = "Comet filter lens rules apply tonight and every night. Comet talks."
    corpus = build_corpus({"d": doc}, [{"id": "q", "question": "comet filter", "evidence": [doc]}])
    x = explain(build_index(corpus, "fixed", 450), corpus.questions[0], "flat", 5)
    [ev] = x.result.evidence
    assert ev.diagnosis == "over budget"
    assert ev.detail == "did not fit: the chunk has 11 words, more than the whole budget of 5"


def test_every_did_not_fit_counts_the_words_left_the_same_way_in_flat_and_graph(zstd):
    seen = set()
    for budget in (40, 60, 120):
        config = LabConfig(chunkers=("fixed", "sentence", "structure"), size=250, budget=budget)
        for run in run_lab(zstd, config).runs:
            for q in run.questions:
                for ev in q.evidence:
                    if ev.diagnosis not in ("over budget", "below the cut"):
                        continue
                    left, words = map(int, FIT.fullmatch(ev.detail).groups())
                    assert words > left
                    if ev.diagnosis == "below the cut":  # nothing was taken after it
                        assert left == budget - q.words
                    seen.add((run.mode, ev.diagnosis))
    assert seen == {
        (mode, d) for mode in ("flat", "graph") for d in ("over budget", "below the cut")
    }


def test_the_json_carries_the_detail(zstd):
    data = run_lab(zstd, LabConfig(chunkers=("fixed",), modes=("flat",), size=250, budget=60))
    [z1] = [q for q in data.to_dict()["runs"][0]["questions"] if q["id"] == "z1"]
    assert z1["evidence"][0]["detail"] == "did not fit: 26 words left, the chunk has 32"
    assert all(
        e["detail"] is None
        for q in data.to_dict()["runs"][0]["questions"]
        for e in q["evidence"]
        if e["in_context"]
    )


@pytest.mark.app
def test_the_drill_down_says_how_many_words_were_left(zstd):
    from ui import drilldown

    index = build_index(zstd, "fixed", 250)
    view = drilldown._build_view(index, zstd.questions[0], "flat", 60)
    [ev] = view.evidence
    shown = ev.words.replace("\\", "")  # as markdown renders it
    assert "Did not fit: 26 words left, the chunk has 32" in shown
    assert "budget filled" not in shown
    assert view.ranking["decision"].tolist()[1] == (
        "below the cut · did not fit: 26 words left, the chunk has 32"
    )


@pytest.mark.app
def test_the_chunk_graph_names_each_chunk_as_the_drill_down_does(handbook):
    from ui import graph

    config = LabConfig(chunkers=("structure",), size=450, budget=40)
    view = graph.graph_view(handbook, config, "structure", "q07")
    q = next(q for q in handbook.questions if q.id == "q07")
    x = explain(build_index(handbook, "structure", 450), q, "graph", 40)
    frame = x.frame().set_index("chunk")
    nodes = view.nodes.set_index("chunk").loc[frame.index]
    assert nodes["status"].tolist() == frame["decision"].tolist()
    assert nodes["why"].tolist() == frame["why"].fillna("").tolist()
    # past the cut, longer than the budget: over budget on both pages, not "below the cut"
    assert "over budget" in nodes["status"].tolist()


# --- near-duplicates name the chunk they resembled ---------------------------------------------


def as_plain_text():
    """The README read as plain text: the line reader takes its numbered steps ("2. Compress
    with dictionary") for numbered headings, so each step is a provision of its own (read as
    markdown, by CommonMark, they are list items of one section)."""
    from lab.collection import Source

    return Source("README.md", README.read_bytes(), format="text")


STEPS = {  # the README's dictionary How To as a whole: create, compress, decompress
    "id": "steps",
    "question": "How to use dictionary compression: create, compress, decompress?",
    "evidence": ["`zstd -D dictionaryName FILE`"],
}


def test_resembled_is_the_picked_chunk_sharing_most_terms():
    from lab.diagnosis import resembled

    # chunk 2 shares one term with chunk 0 and two with chunk 1; all three are old news
    assert resembled(2, [0, 1], [[0, 1, 2], [3, 4, 5], [3, 4, 0]]) == (1, 0.0)
    # one term each (0 with chunk 0, 2 with chunk 1): the better ranked; terms 9 and 8 are new
    assert resembled(2, [1, 0], [[0, 1], [2, 3], [0, 2, 9, 8]]) == (1, 0.5)


def test_a_procedure_step_skipped_as_a_near_duplicate_names_the_step_it_resembled():
    # Issue 21: structure at 450 characters, budget 120: step "2 Compress with dictionary"
    # (structure-18), ranked 3rd, is skipped for step "3 Decompress with dictionary"
    # (structure-19, ranked 2nd): the same words but "decompress" and ".zst".
    corpus = build_corpus([as_plain_text()], [STEPS])
    index = build_index(corpus, "structure", 450)
    x = explain(index, corpus.questions[0], "flat", 120)
    [ev] = x.result.evidence
    assert (ev.diagnosis, ev.rank) == ("near-duplicate", 3)
    assert ev.detail == (
        "skipped as a near-duplicate of structure-19: 0% of its terms are new, under 30%"
    )
    assert index.chunks[18].text.startswith("[2 Compress with dictionary]")
    assert index.chunks[19].text.startswith("[3 Decompress with dictionary]")
    frame = x.frame().set_index("chunk")
    assert frame.loc["structure-18", "why"] == ev.detail
    assert frame.loc["structure-19", "decision"] == "picked"


def test_the_command_line_json_names_the_chunk_a_near_duplicate_resembled(tmp_path):
    import json
    import subprocess
    import sys

    qe = tmp_path / "qe.json"
    qe.write_text(json.dumps([STEPS]), encoding="utf-8")
    plain = tmp_path / "README"  # no extension: read as plain text (see as_plain_text)
    plain.write_bytes(README.read_bytes())
    args = ["run", "--doc", str(plain), "--qe", str(qe), "--chunker", "structure"]
    out = subprocess.run(
        [sys.executable, "-m", "lab", *args, "--mode", "flat", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    [run] = json.loads(out.stdout)["runs"]
    [ev] = run["questions"][0]["evidence"]
    assert ev["diagnosis"] == "near-duplicate"
    assert ev["detail"].startswith("skipped as a near-duplicate of structure-19: ")


@pytest.mark.app
def test_the_drill_down_names_the_chunk_a_near_duplicate_resembled():
    from ui import drilldown

    corpus = build_corpus([as_plain_text()], [STEPS])
    view = drilldown._build_view(
        build_index(corpus, "structure", 450), corpus.questions[0], "flat", 120
    )
    [ev] = view.evidence
    assert "Skipped as a near-duplicate of structure-19" in ev.words.replace("\\", "")
    rows = view.ranking.set_index("chunk")
    assert rows.loc["structure-18", "decision"] == (
        "skipped as a near-duplicate of structure-19: 0% of its terms are new, under 30%"
    )
    assert rows.loc["structure-19", "decision"] == "picked"
