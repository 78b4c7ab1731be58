"""Evidence that accepts any occurrence (issue 21): ``"occurrence": "any"`` in QE JSON. A context
holding any copy holds it; pinned (``start``) and unique evidence keep the one-place rule. On a
real changelog: XZ Utils' NEWS, whose 5.4.0 summary repeats items of the 5.3.x development
releases (tests/data/real/ORIGINS.md)."""

import json
from pathlib import Path

import pytest

from lab import LabCache, LabConfig, build_corpus, build_index, explain, question_items, run_lab
from lab.metrics import aggregate
from lab.retrieval import Retrieval

NEWS = Path(__file__).resolve().parent / "data" / "real" / "xz-NEWS"
LZIP = (
    "Added decompression support for the .lz (lzip) file format version 0 and the original "
    "unextended version 1."
)
REPEATED = [  # (question, an item the NEWS states more than once)
    ("Can xz decompress lzip .lz files?", LZIP),
    (
        "Does -T0 use the multi-threaded encoder on a single-core system?",
        "Using -T0 (--threads=0) will now use multi-threaded encoder even on a single-core system.",
    ),
    (
        "How does --memlimit-mt-decompress relate to --memlimit-decompress?",
        "The new option works together with the existing option --memlimit-decompress=LIMIT.",
    ),
    (
        "Does --keep accept symlinks and hardlinks?",
        "The --keep option now accepts symlinks, hardlinks, and setuid, setgid, and sticky files.",
    ),
    (
        "Was a signal handling race condition fixed?",
        "Fixed a race condition in the signal handling.",
    ),
]


def news(occurrence=None, items=REPEATED, **extra):
    entry = {} if occurrence is None else {"occurrence": occurrence}
    return build_corpus(
        {"NEWS": NEWS.read_text(encoding="utf-8")},
        [
            {"id": f"n{i}", "question": q, "evidence": [{"text": e, **entry, **extra}]}
            for i, (q, e) in enumerate(items)
        ],
    )


@pytest.fixture(scope="module")
def anywhere():
    return news("any")


def test_any_occurrence_locates_every_copy_without_a_warning(anywhere):
    assert anywhere.errors == ()
    lz = anywhere.questions[0].evidence[0]
    # the 5.4.0 summary and the 5.3.2alpha and 5.3.1alpha entries (found by hand: grep -n)
    assert lz.occurrences == ((0, 11686, 11803), (0, 15236, 15353), (0, 16461, 16578))
    assert (lz.start, lz.end) == (11686, 11803)
    text = NEWS.read_text(encoding="utf-8")
    assert all(" ".join(text[s:e].split()) == LZIP for _, s, e in lz.occurrences)
    assert [len(q.evidence[0].occurrences) for q in anywhere.questions] == [3, 2, 2, 2, 2]


def test_without_it_a_repeated_item_is_the_first_occurrence_with_a_warning():
    first = news()
    assert [q.evidence[0].occurrences for q in first.questions] == [None] * 5
    assert all("occurs more than once" in e.message for e in first.errors)
    assert first.questions[0].evidence[0].start == 11686
    assert news("first").questions[0].evidence[0] == first.questions[0].evidence[0]


def test_a_context_holding_another_copy_scores_a_miss_for_pinned_evidence_and_a_hit_for_any():
    # structure at 450 characters, budget 120: the context (structure-17, structure-41, 109
    # words) holds the lzip item's 5.3.4alpha copy; the 5.4.0 summary line is in structure-31.
    # (The text reader reads the NEWS file's release lines as headings: one provision more.)
    first, anyw = news("first", REPEATED[:1]), news("any", REPEATED[:1])
    xs = [
        explain(build_index(c, "structure", 450), c.questions[0], "flat", 120)
        for c in (first, anyw)
    ]
    for x in xs:
        assert [p.chunk for p in x.result.context] == ["structure-17", "structure-41"]
    x, y = xs
    assert set(x.frame().query("evidence")["chunk"]) == {"structure-31"}
    assert (x.result.verdict, x.result.evidence[0].diagnosis) == ("miss", "below the cut")
    assert set(y.frame().query("evidence")["chunk"]) == {
        "structure-31",
        "structure-41",
        "structure-44",
    }
    assert (y.result.verdict, y.result.evidence[0].rank) == ("complete", 2)


def test_pinned_evidence_keeps_its_one_place_even_when_asked_for_any():
    # pinned at the 5.3.2alpha copy: "start" wins, with a warning saying so
    corpus = news("any", REPEATED[:1], start=15236)
    [ev] = corpus.questions[0].evidence
    assert (ev.start, ev.occurrences) == (15236, None)
    assert [e.severity for e in corpus.errors] == ["warning"]
    assert "using the pinned one" in corpus.errors[0].message


def test_an_unknown_occurrence_value_names_the_allowed_ones():
    corpus = news("every", REPEATED[:1])
    assert corpus.questions == ()
    assert corpus.errors[0].message == (
        'evidence occurrence \'every\' is not one of "first" or "any".'
    )


def test_any_occurrence_across_documents_counts_each_document_s_copies():
    corpus = build_corpus(
        {
            "NEWS": "Fixed the sky lens. Comet talks moved.",
            "FAQ": "Q. Lens?\n\nFixed the sky lens.",
        },
        [
            {
                "id": "q",
                "question": "lens",
                "evidence": [{"text": "Fixed the sky lens.", "occurrence": "any"}],
            }
        ],
    )
    assert corpus.errors == ()  # no "occurs in several documents" warning
    assert corpus.questions[0].evidence[0].occurrences == ((0, 0, 19), (1, 10, 29))


def test_the_array_path_and_each_question_alone_agree_on_any_occurrence(anywhere):
    config = LabConfig(split="all", size=250)
    for chunker in ("fixed", "sentence", "structure"):
        index = LabCache().index(anywhere, config, chunker)
        for mode in ("flat", "graph"):
            retrieval = Retrieval.of(index, anywhere.questions, mode)
            for budget in (40, 120, 400):
                together = retrieval.evaluate(budget)
                for q, got in zip(anywhere.questions, together, strict=True):
                    assert got == explain(index, q, mode, budget).result
                assert retrieval.metrics(budget) == aggregate(together)


def test_any_occurrence_raises_recall_on_the_changelog(anywhere):
    config = LabConfig(chunkers=("fixed", "sentence", "structure"), split="all")
    first = run_lab(news(), config)
    anyw = run_lab(anywhere, config)
    for a, b in zip(first.runs, anyw.runs, strict=True):
        assert b.metrics.complete >= a.metrics.complete
    assert sum(r.metrics.complete for r in anyw.runs) > sum(r.metrics.complete for r in first.runs)


def test_the_json_reports_any_occurrence_and_which_copy_the_context_holds():
    corpus = news("any", REPEATED[:1])
    config = LabConfig(chunkers=("structure",), modes=("flat",), split="all")
    [q] = run_lab(corpus, config).to_dict()["runs"][0]["questions"]
    [ev] = q["evidence"]
    assert ev["occurrence"] == "any" and ev["in_context"]
    assert [(o["span"], o["in_context"]) for o in ev["occurrences"]] == [
        ([11686, 11803], False),
        ([15236, 15353], True),
        ([16461, 16578], False),
    ]
    plain = run_lab(news(None, REPEATED[:1]), config).to_dict()["runs"][0]["questions"][0]
    assert "occurrence" not in plain["evidence"][0]  # pinned and unique evidence: as before


def test_an_exported_question_set_keeps_any_occurrence(anywhere):
    items = question_items(anywhere)
    [entry] = items[0]["evidence"]
    assert (entry["doc"], " ".join(entry["text"].split()), entry["occurrence"]) == (
        "NEWS",
        LZIP,
        "any",
    )
    assert "start" not in entry
    again = build_corpus({"NEWS": NEWS.read_text(encoding="utf-8")}, json.loads(json.dumps(items)))
    [ev], [before] = again.questions[0].evidence, anywhere.questions[0].evidence
    assert (ev.start, ev.end, ev.occurrences) == (before.start, before.end, before.occurrences)


@pytest.mark.app
def test_the_drill_down_says_any_occurrence_counts_and_which_one_it_holds():
    from ui import drilldown

    corpus = news("any", REPEATED[:1])
    view = drilldown._build_view(
        build_index(corpus, "structure", 450), corpus.questions[0], "flat", 120
    )
    [ev] = view.evidence
    assert ev.in_context and ev.holder == "structure-41"
    assert "any of its 3 occurrences counts: it holds occurrence 2, in" in ev.words
