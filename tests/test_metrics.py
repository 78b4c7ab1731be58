"""Evidence recall, ranking metrics, index statistics and the diagnosis of every missed span."""

import numpy as np
import pytest
from samples import SPEC_CHUNKERS

from lab import LabConfig, build_corpus, build_index, explain, run_lab, sweep
from lab.index import starts_at_heading
from lab.metrics import aggregate, index_stats

RULES = """\
## 1 Definitions

### 1.1 Dark window

A dark window is night time. It lasts an hour.

### 1.2 Torch

Torches are red. Use them as Section 1.1 says.
"""


def one_question(doc, question, evidence, **extra):
    return build_corpus(
        {"d": doc}, [{"id": "q", "question": question, "evidence": evidence, **extra}]
    )


def explained(corpus, chunker, size, budget, mode="flat", **options):
    index = build_index(corpus, chunker, size, **options)
    return explain(index, corpus.questions[0], mode, budget)


def diagnoses(explanation):
    return [(e.diagnosis, e.rank) for e in explanation.result.evidence]


# --- the diagnosis of a missed span -----------------------------------------------------------

LONG = (
    "The comet filter must stay on the lens whenever the dome is open and the comet filter log is "
    "kept by the warden on duty every single night of the season without fail."
)


def test_span_no_chunk_holds_whole_is_not_intact():
    corpus = one_question("Short intro here.\n\n" + LONG, "comet filter", [LONG])
    x = explained(corpus, "fixed", 100, 100, overlap=0)
    assert diagnoses(x) == [("not intact", None)]
    assert not x.result.partial


def test_span_whose_chunks_never_score_is_not_ranked():
    doc = (
        "### 1.1 Filters\n\nThe lens cap stays on.\n\n### 1.2 Comets\n\nComet talks start at nine."
    )
    x = explained(
        one_question(doc, "comet talks", ["The lens cap stays on."]), "structure", 450, 100
    )
    assert diagnoses(x) == [("not ranked", None)]
    assert x.result.context[0].chunk == "structure-1"


def test_span_in_a_chunk_too_big_for_the_budget_is_over_budget():
    doc = f"### 1.1 Filters\n\n{LONG}\n\n### 1.2 Comets\n\nComet talks start at nine."
    x = explained(one_question(doc, "comet filter", [LONG]), "structure", 450, 20)
    assert diagnoses(x) == [("over budget", 1)]
    assert [p.chunk for p in x.result.context] == ["structure-1"]  # the smaller one got in


def test_span_in_a_chunk_repeating_the_context_is_a_near_duplicate():
    doc = (
        "Comet filter lens dome night rule applies to comet filter lens dome. "
        "Comet filter lens dome night."
    )
    corpus = one_question(
        doc, "comet filter lens dome night rule applies", ["Comet filter lens dome night."]
    )
    x = explained(corpus, "sentence", 70, 100, overlap=0)  # one sentence per chunk
    assert diagnoses(x) == [("near-duplicate", 2)]
    assert x.frame()["decision"].tolist() == ["picked", "near-duplicate"]


def test_span_ranked_after_the_budget_filled_is_below_the_cut():
    doc = "Comet dome comet dome rules. Comet dome lens filter. Comet rules apply tonight."
    corpus = one_question(doc, "comet dome", ["Comet rules apply tonight."])
    x = explained(corpus, "sentence", 28, 9, overlap=0)  # one sentence per chunk
    assert diagnoses(x) == [("below the cut", 3)]
    assert x.context.words == 9 and x.context.cut == 2


def test_every_diagnosis_is_one_of_the_documented_values(handbook):
    result = run_lab(handbook, LabConfig(chunkers=SPEC_CHUNKERS, budget=60, size=600, split="all"))
    seen = {e.diagnosis for r in result.runs for q in r.questions for e in q.evidence}
    # SPEC 6's diagnoses of a missed evidence span
    documented = {"not intact", "not ranked", "over budget", "near-duplicate", "below the cut"}
    assert seen - {None} <= documented
    for r in result.runs:
        for q in r.questions:
            for e in q.evidence:
                assert (e.diagnosis is None) == e.in_context


# --- recall -----------------------------------------------------------------------------------


def test_evidence_counts_as_in_context_through_resolved_reference_text():
    corpus = one_question(
        RULES, "torches red", ["Torches are red.", "A dark window is night time."]
    )
    index = build_index(corpus, "structure", 450)
    x = explain(index, corpus.questions[0], "flat", index.chunks[1].words)
    assert [p.chunk for p in x.result.context] == ["structure-1"]
    assert x.result.complete and x.result.verdict == "complete"

    unresolved = build_index(corpus, "structure", 450, refs="off")
    y = explain(unresolved, corpus.questions[0], "flat", 100)
    assert y.result.partial and not y.result.complete and y.result.verdict == "partial"
    assert diagnoses(y)[1] == ("not ranked", None)


def test_ranking_metrics_hand_checked():
    doc = "Comet rules apply. Dome rules apply. Comet rules apply to visiting groups tonight."
    corpus = one_question(doc, "rules", ["Dome rules apply."])
    x = explained(corpus, "structure", 20, 100, overlap=0)
    r = x.result
    assert x.ranking.order.tolist() == [0, 1, 2]
    assert r.reciprocal_rank == 0.5
    assert r.recall_at == {1: 0.0, 3: 1.0, 5: 1.0, 10: 1.0}  # the evidence chunk ranks second
    assert r.precision_at == pytest.approx({1: 0.0, 3: 1 / 3, 5: 1 / 5, 10: 1 / 10})


def test_aggregate_means_and_gap():
    doc = "Comet rules apply. Dome rules apply. Zebra crossing."
    qe = [
        {
            "id": "both",
            "question": "rules",
            "evidence": ["Comet rules apply.", "Dome rules apply."],
        },
        {"id": "half", "question": "rules", "evidence": ["Comet rules apply.", "Zebra crossing."]},
    ]
    corpus = build_corpus({"d": doc}, qe)
    run = run_lab(
        corpus, LabConfig(chunkers=("structure",), modes=("flat",), size=20, overlap=0)
    ).runs[0]
    assert [(q.id, q.verdict) for q in run.questions] == [("both", "complete"), ("half", "partial")]
    m = run.metrics
    assert (m.questions, m.partial, m.complete, m.gap) == (2, 1.0, 0.5, 0.5)
    assert m.mean_chunks == 2.0 and m.mean_context_words == 6.0


def test_aggregate_of_no_questions_is_all_zeros():
    m = aggregate([])
    assert (m.questions, m.partial, m.complete, m.gap, m.mrr) == (0, 0.0, 0.0, 0.0, 0.0)
    assert m.recall_at == {1: 0.0, 3: 0.0, 5: 0.0, 10: 0.0}


# --- index statistics -------------------------------------------------------------------------


def test_index_statistics_hand_checked():
    corpus = one_question(RULES, "torches", ["Torches are red.", "It lasts an hour."])
    index = build_index(corpus, "sentence", 30, overlap=0)  # every unit is a chunk here
    stats = index_stats(index, budget=5)
    assert stats.chunks == 7 and stats.max_chars == 29 and stats.over_size == 0
    assert stats.over_budget == 2  # the two six-word sentences
    assert stats.evidence_intact == 1.0
    assert stats.heading_starts == pytest.approx(3 / 7)  # the three heading lines
    assert stats.index_ratio == pytest.approx(sum(len(c.text) for c in index.chunks) / len(RULES))


def test_chunk_right_after_a_heading_it_carries_starts_at_that_heading():
    corpus = one_question(RULES, "torches", ["Torches are red."])
    headed = build_index(corpus, "sentence", 30, overlap=0, headers=True)
    assert index_stats(headed, budget=50).heading_starts == pytest.approx(5 / 7)
    structure = build_index(corpus, "structure", 450)
    assert all(starts_at_heading(structure, c) for c in structure.chunks)


def test_handbook_statistics_are_sane(handbook):
    for chunker in SPEC_CHUNKERS:
        stats = index_stats(build_index(handbook, chunker, 450), budget=120)
        assert (
            stats.chunks > 0 and 0 <= stats.evidence_intact <= 1 and 0 <= stats.heading_starts <= 1
        )
        assert stats.index_ratio >= 0.9
    # Structure chunks start at their heading, except the preamble and a long provision's tail.
    structure = build_index(handbook, "structure", 450)
    provisions = handbook.documents[0].provisions
    firsts = {}
    for k, c in enumerate(structure.chunks):
        firsts.setdefault(c.provisions[0], k)
    for k, c in enumerate(structure.chunks):
        expected = firsts[c.provisions[0]] == k and provisions[c.provisions[0]].heading is not None
        assert starts_at_heading(structure, c) == expected
    assert index_stats(structure, 120).heading_starts < 1.0  # the handbook's long provision
    assert index_stats(build_index(handbook, "qes-dp", 450), 120).objective > 0


# --- edge cases -------------------------------------------------------------------------------


def test_corpus_without_questions_runs_every_configuration():
    corpus = build_corpus({"d": RULES}, None)
    with np.errstate(all="raise"):
        result = run_lab(corpus, LabConfig(chunkers=SPEC_CHUNKERS, split="all"))
    assert len(result.runs) == 2 * len(SPEC_CHUNKERS)
    assert all(r.metrics.questions == 0 and r.questions == () for r in result.runs)


def test_one_chunk_document_runs_in_both_modes():
    corpus = one_question("Comets are bright.", "comets", ["Comets are bright."], split="test")
    with np.errstate(all="raise"):
        result = run_lab(corpus, LabConfig(chunkers=SPEC_CHUNKERS))
    assert all(r.metrics.complete == 1.0 for r in result.runs)


def test_question_with_all_zero_scores_is_a_clean_miss():
    corpus = one_question(RULES, "zebra crossing", ["Torches are red."])
    with np.errstate(all="raise"):
        result = run_lab(corpus, LabConfig(chunkers=SPEC_CHUNKERS))
    for r in result.runs:
        (q,) = r.questions
        assert (q.partial, q.complete, q.context, q.reciprocal_rank) == (False, False, (), 0.0)
        assert q.evidence[0].diagnosis == "not ranked"


def test_run_lab_rejects_bad_configs_with_the_allowed_values():
    with pytest.raises(ValueError, match="split must be one of test, train, all"):
        LabConfig(split="dev")
    with pytest.raises(ValueError, match="budget"):
        LabConfig(budget=0)
    with pytest.raises(ValueError, match="modes must be some of flat, graph, dense, hybrid"):
        LabConfig(modes=("sparse",))
    with pytest.raises(ValueError, match="dense need.* dense embeddings"):
        LabConfig(modes=("dense",))


def test_json_form_carries_questions_evidence_and_picks(handbook):
    data = run_lab(handbook, LabConfig(chunkers=("structure",), modes=("graph",))).to_dict()
    (run,) = data["runs"]
    assert run["chunker"] == "structure" and run["mode"] == "graph"
    assert {"partial", "complete", "gap", "recall@3", "mrr"} <= set(run["metrics"])
    q = run["questions"][0]
    assert set(q) == {"id", "split", "partial", "complete", "context", "evidence"}
    assert set(q["evidence"][0]) == {"doc", "span", "in_context", "diagnosis", "detail", "rank"}
    assert q["evidence"][0]["doc"] == "handbook"
    item = {"chunk", "doc", "rank", "words", "tokens", "source"}  # tokens: null without a tokenizer
    assert all(set(p) == item for p in q["context"])
    assert {p["doc"] for p in q["context"]} == {"handbook"}


def test_evidence_of_another_document_is_never_held_by_this_one():
    docs = {
        "alpha": "Comet rules apply. Dome rules apply.",
        "beta": "Comet rules apply. Lens rules.",
    }
    qe = [{"id": "b", "question": "comet rules", "evidence": ["Comet rules apply."], "doc": "beta"}]
    corpus = build_corpus(docs, qe)
    index = build_index(corpus, "sentence", 20, overlap=0)
    (ev,) = corpus.questions[0].evidence
    assert [index.chunks[k].doc for k in index.holding(ev)] == [1]
    x = explain(index, corpus.questions[0], "flat", 3)  # room for one three-word chunk
    assert [p.chunk for p in x.result.context] == ["sentence-0"]  # alpha's copy ranks first
    assert diagnoses(x) == [("below the cut", 2)]


def test_sweep_agrees_with_single_runs(handbook):
    config = LabConfig(chunkers=("sentence", "structure"), split="test")
    rows = sweep(handbook, config, budgets=(60, 160), sizes=(250, 450)).rows
    assert len(rows) == 2 * 2 * 2 * 2
    for row in rows:
        single = LabConfig(
            chunkers=(row["chunker"],), modes=(row["mode"],), size=row["size"], budget=row["budget"]
        )
        metrics = run_lab(handbook, single).runs[0].metrics
        assert (row["partial"], row["complete"]) == (metrics.partial, metrics.complete)


def test_document_of_headings_only_runs_and_structure_finds_nothing_to_hold():
    corpus = one_question("# Title\n\n## A\n\n## B\n", "title", ["Title"], split="test")
    with np.errstate(all="raise"):
        result = run_lab(corpus, LabConfig(chunkers=SPEC_CHUNKERS))
    assert result.run("structure", "flat").index.chunks == 0
    for mode in ("flat", "graph"):
        (q,) = result.run("structure", mode).questions
        assert q.evidence[0].diagnosis == "not intact"
        assert result.run("sentence", mode).questions[0].complete


def test_supervised_chunkers_without_train_questions_are_reported_untrained(handbook):
    from lab import untrained_chunkers

    assert untrained_chunkers(handbook, ("fixed", "qes-dp", "qes-greedy")) == ()
    tested = build_corpus(
        {"d": RULES},
        [{"id": "q", "question": "torches?", "evidence": ["Torches are red."], "split": "test"}],
    )
    assert untrained_chunkers(tested, ("fixed", "qes-dp", "structure", "qes-greedy")) == (
        "qes-dp",
        "qes-greedy",
    )
    result = run_lab(tested, LabConfig(chunkers=("fixed", "qes-dp"), modes=("flat",)))
    assert [r.index.train_questions for r in result.runs] == [None, 0]
    trained = run_lab(handbook, LabConfig(chunkers=("qes-greedy",), modes=("flat",)))
    assert trained.runs[0].index.train_questions == 12
