"""The bundled TechNova support collection: its shape, and each mechanism it was written to show,
tested by name. BM25-only tests always run; the dense ones need requirements-dense.txt."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lab import (
    LabConfig,
    build_index,
    compare,
    configure,
    explain,
    infer_type,
    load_collection,
    load_corpus,
    run_lab,
)
from lab.chunkers import CHUNKERS, Params
from lab.compare import shown
from lab.embed import dense_status
from lab.text import tokenize

ROOT = Path(__file__).resolve().parent.parent / "data" / "technova"
MANIFEST = ROOT / "collection.json"
LEXICAL = [n for n, spec in CHUNKERS.items() if not spec.dense and spec.kind == "lab"]
FLATTENED = ("fixed", "sentence")
SPEC_QUESTIONS = ("t11", "t12", "t13", "t15", "t16")  # spec-table questions without a filter
needs_model = pytest.mark.skipif(not dense_status()[0], reason=dense_status()[1])


@pytest.fixture(scope="module")
def technova():
    return load_collection(MANIFEST)


@pytest.fixture(scope="module")
def lexical_results(technova):
    config = LabConfig(chunkers=LEXICAL, modes=("flat",), split="all")
    frame = run_lab(technova, config).questions_frame()
    return {(r.question, r.chunker): r for r in frame.itertuples()}


def doc_index(corpus, name):
    return [d.name for d in corpus.documents].index(name)


def span(corpus, name, text):
    """``[start, end)`` of ``text`` (its first occurrence) in document ``name``."""
    doc = corpus.documents[doc_index(corpus, name)].text
    start = doc.index(text)
    return start, start + len(text)


def question(corpus, qid):
    return next(q for q in corpus.questions if q.id == qid)


def holding(index, d, start, end):
    """Chunks of document ``d`` one of whose source ranges contains ``[start, end)``."""
    return [
        k
        for k, c in enumerate(index.chunks)
        if c.doc == d and any(s <= start and end <= e for s, e in c.source)
    ]


# --- the collection ----------------------------------------------------------------------------


def test_the_collection_has_a_document_of_every_kind_and_about_30_questions(technova):
    assert technova.errors == ()
    assert 6 <= len(technova.documents) <= 8
    assert {"changelog", "procedure", "spec-table", "faq", "policy", "transcript"} <= set(
        technova.types
    )
    assert [i.format for i in technova.info].count("html") == 1
    questions = technova.questions
    assert 28 <= len(questions) <= 32
    assert sum(len(q.evidence) >= 2 for q in questions) >= 12
    assert sum(q.multi_doc for q in questions) >= 3
    assert sum(bool(q.filter) for q in questions) >= 2
    assert {q.split for q in questions} == {"train", "test"}


def test_inferred_types_agree_with_the_manifest(technova):
    for doc, info in zip(technova.documents, technova.info, strict=True):
        assert infer_type(doc)[0] == info.type, doc.name


def test_it_loads_from_repeated_documents_with_no_question_dropped(technova):
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    paths = [ROOT / d["path"] for d in manifest["documents"]]
    corpus = load_corpus(paths, ROOT / "questions.json", {"support-call.txt": "transcript"})
    assert [q.id for q in corpus.questions] == [q.id for q in technova.questions]
    for mine, theirs in zip(corpus.questions, technova.questions, strict=True):
        assert [(e.doc, e.start, e.end) for e in mine.evidence] == [
            (e.doc, e.start, e.end) for e in theirs.evidence
        ]
    assert corpus.types == technova.types
    (warning,) = corpus.errors  # no metadata without the manifest: the filters are ignored
    assert "4 question(s) carry a metadata filter" in warning.message


# --- mechanisms --------------------------------------------------------------------------------

STEPS = (
    "1. Charge the headphones",
    "2. With the headphones off",
    "3. Open Bluetooth settings",
    "4. Not listed?",
    "5. When you hear",
)


def test_fixed_cuts_the_pairing_procedure_between_steps_3_and_4(technova):
    name = "troubleshooting-guide.md"
    d = doc_index(technova, name)
    text = technova.documents[d].text
    starts = [text.index(step) for step in STEPS]
    end = text.index("the light turns solid blue.") + len("the light turns solid blue.")
    fixed = build_index(technova, "fixed", 450)
    assert holding(fixed, d, starts[0], end) == []  # no window holds the whole procedure
    step_3_end = starts[3] - 1  # the newline before step 4
    assert [
        (c.start, c.end) for c in fixed.chunks if c.doc == d and c.start <= starts[0] < c.end
    ] == [(800, starts[3])]
    assert text[800:step_3_end].endswith("select WH-1000.")
    step_2 = span(technova, name, "With the headphones off, hold the power button for 5 seconds")
    step_4 = (starts[3], text.index("repeat step 2.") + len("repeat step 2."))
    assert not set(holding(fixed, d, *step_2)) & set(holding(fixed, d, *step_4))


@pytest.mark.parametrize("chunker", ["structure", "recursive"])
def test_structure_and_recursive_keep_the_pairing_procedure_whole(technova, chunker):
    name = "troubleshooting-guide.md"
    d = doc_index(technova, name)
    text = technova.documents[d].text
    start = text.index(STEPS[0])
    end = text.index("the light turns solid blue.") + len("the light turns solid blue.")
    assert len(holding(build_index(technova, chunker, 450), d, start, end)) == 1


def test_fixed_mixes_two_firmware_versions_in_one_chunk_and_structure_does_not(technova):
    d = doc_index(technova, "firmware-changelog.md")
    versions = {p.index for p in technova.documents[d].provisions if p.title.startswith("Version")}
    assert len(versions) == 6

    def mixed(chunker):
        index = build_index(technova, chunker, 450)
        return [c for c in index.chunks if c.doc == d and len(versions & set(c.provisions)) > 1]

    assert len(mixed("fixed")) >= 3
    assert mixed("structure") == []
    multipoint = question(technova, "t06")  # both spans are in the version 3.0 entry
    fixed = build_index(technova, "fixed", 450)
    structure = build_index(technova, "structure", 450)
    assert not set.intersection(*(set(fixed.holding(e).tolist()) for e in multipoint.evidence))
    assert set.intersection(*(set(structure.holding(e).tolist()) for e in multipoint.evidence))


def test_table_rows_make_the_spec_questions_complete_where_flattened_chunking_does_not(
    technova, lexical_results
):
    rows = build_index(technova, "table-rows", 450)
    for qid in SPEC_QUESTIONS:
        header, *data = question(technova, qid).evidence
        for row in data:  # the chunk holding the row holds its header row too
            assert set(rows.holding(row).tolist()) <= set(rows.holding(header).tolist())
    complete = {
        chunker: {qid for qid in SPEC_QUESTIONS if lexical_results[qid, chunker].complete}
        for chunker in ("table-rows", *FLATTENED, "structure")
    }
    assert complete["table-rows"] == set(SPEC_QUESTIONS)
    assert complete["fixed"] == complete["sentence"] == set()
    assert complete["structure"] == {"t15"}  # the KH-100 row still fits with the header
    for chunker in FLATTENED:  # the far rows never share a chunk with the header row
        index = build_index(technova, chunker, 450)
        header, row = question(technova, "t11").evidence
        assert not set(index.holding(header).tolist()) & set(index.holding(row).tolist())


def test_bm25_misses_the_returns_paraphrase(technova, lexical_results):
    q = question(technova, "t22")
    window = q.evidence[0]
    assert technova.documents[window.doc].name == "returns-policy.md"
    provision_text = "New products can be returned within 15 days of delivery. The window starts"
    assert not set(tokenize(q.question)) & set(tokenize(provision_text + " Return window"))
    for chunker in LEXICAL:
        result = explain(build_index(technova, chunker, 450), q, "flat", 120).result
        assert result.evidence[0].diagnosis == "not ranked", chunker
        assert lexical_results["t22", chunker].verdict == "miss"


def test_a_product_filter_that_removes_the_comparison_table_is_diagnosed_filtered_out(
    technova, lexical_results
):
    q = question(technova, "t14")
    specs = doc_index(technova, "product-specs.html")
    assert dict(q.filter) == {"product": ("WH-1000",)}
    assert specs not in technova.allowed(q)
    for chunker in LEXICAL:
        row = lexical_results["t14", chunker]
        assert (row.verdict, row.diagnosis) == ("miss", "filtered out"), chunker
    assert lexical_results["t14", "table-rows"].verdict_without_filter == "complete"
    assert lexical_results["t14", "by-type"].verdict_without_filter == "complete"


def test_a_product_filter_picks_the_right_manual(technova, lexical_results):
    """The same reset question with a WH-500 and a WH-1000 filter finds each product's reset."""
    for qid, name in (("t29", "wh-500-quick-start.md"), ("t30", "troubleshooting-guide.md")):
        (ev,) = question(technova, qid).evidence
        assert technova.documents[ev.doc].name == name
        assert lexical_results[qid, "by-type"].verdict == "complete"


@pytest.mark.parametrize("chunker", ["structure", "recursive"])
def test_the_faq_battery_paragraph_is_cut_off_from_the_product_it_describes(technova, chunker):
    index = build_index(technova, chunker, 450)
    name, pronoun = question(technova, "t18").evidence
    (holder,) = index.holding(pronoun).tolist()
    text = index.chunks[holder].text
    assert "Its battery lasts 8 hours" in text and "WH-500" not in text
    assert holder not in index.holding(name).tolist()


def test_the_support_call_has_no_headings_and_turns_from_troubleshooting_to_returns(technova):
    doc = technova.documents[doc_index(technova, "support-call.txt")]
    assert doc.heading_count == 0
    fix = doc.text.index("Hold the power and noise-cancellation buttons for 10 seconds.")
    returns = doc.text.index("can I still return them?")
    assert fix < returns


def test_by_type_cuts_each_document_as_the_policy_says(technova):
    index = build_index(technova, "by-type", 450)
    expected = {
        "changelog": "structure",
        "procedure": "structure",
        "spec-table": "table-rows",
        "faq": "structure",
        "policy": "structure",
        "transcript": "sentence",
    }
    for d, (doc, doc_type) in enumerate(zip(technova.documents, technova.types, strict=True)):
        plan = CHUNKERS[expected[doc_type]].plan(doc, Params(450))
        assert (
            tuple(
                c.source[0][:2] if c.layout is None else c.source[0]
                for c in index.chunks
                if c.doc == d
            )
            == plan.bodies
        ), doc.name


def test_the_policy_is_measured_beside_every_single_chunker(technova):
    result = run_lab(technova, LabConfig(chunkers=LEXICAL, modes=("flat",)))
    complete = {r.chunker: r.metrics.complete for r in result.runs}
    assert set(complete) == set(LEXICAL) and "by-type" in complete
    assert complete["by-type"] == 0.6  # 12 of the 20 test questions, at L = 450, budget 120
    assert max(v for k, v in complete.items() if k != "by-type") == 0.5


# --- comparisons of the collection's own dimensions ---------------------------------------------

BY_TYPE_FLAT = LabConfig(chunkers=("by-type",), modes=("flat",))


def test_comparing_filters_on_and_off_names_the_question_each_way_helps(technova):
    c = compare(technova, BY_TYPE_FLAT, configure(BY_TYPE_FLAT, "filters=off"))
    assert [(d.setting, shown(d.a), shown(d.b)) for d in c.differences] == [
        ("filters", "on", "off")
    ]
    changed = {q.id: q.transition for q in c.questions if q.transition != "same"}
    # off, the WH-1000 LDAC question reaches the comparison table its filter removed (t14);
    # the WH-500 reset question loses its manual to the WH-1000 guide (t29)
    assert changed == {"t14": "fixed", "t29": "broken"}
    assert (c.complete.fixed, c.complete.broken, c.complete.p_value) == (1, 1, 1.0)
    assert (c.complete.a.hits, c.complete.b.hits, c.complete.a.n) == (12, 12, 20)


def test_comparing_structure_with_the_policy_names_the_spec_questions_it_fixes(technova):
    a = replace(BY_TYPE_FLAT, chunkers=("structure",))
    c = compare(technova, a, configure(a, "chunker=by-type"))
    changed = {q.id: q.transition for q in c.questions if q.transition != "same"}
    assert changed == {"t11": "fixed", "t13": "fixed", "t16": "fixed"}  # the spec-table rows
    # three changes, all one way: exact McNemar two-sided p = 2 x (1/2)^3 = 0.25
    assert (c.complete.fixed, c.complete.broken, c.complete.p_value) == (3, 0, 0.25)
    assert (c.complete.a.hits, c.complete.b.hits) == (9, 12)


# --- dense: what embeddings and late chunking do on the FAQ and returns cases -------------------


@needs_model
def test_late_chunking_brings_the_product_into_the_faq_paragraphs_vector(technova):
    from lab.embed import get_embedder

    embedder = get_embedder()
    q = question(technova, "t17")
    query = embedder.encode([q.question])[0]
    similarity = {}
    for late in (False, True):
        index = build_index(technova, "structure", 450, embedder=embedder, late=late)
        (holder,) = index.holding(q.evidence[0]).tolist()
        similarity[late] = float(index.vectors[holder] @ query)
    assert similarity[True] > similarity[False] + 0.05


@needs_model
def test_dense_scores_the_returns_paraphrase_bm25_never_scores(technova):
    from lab.embed import get_embedder

    index = build_index(technova, "by-type", 450, embedder=get_embedder())
    q = question(technova, "t22")
    holders = index.holding(q.evidence[0]).tolist()  # its provision, and one citing it
    assert len(holders) == 2
    flat = explain(index, q, "flat", 120).ranking
    dense = explain(index, q, "dense", 120).ranking
    for holder in holders:
        assert flat.rank_by("bm25", holder) is None
        assert dense.rank_by("dense", holder) is not None
        assert np.isfinite(dense.dense[holder]) and dense.dense[holder] > 0
