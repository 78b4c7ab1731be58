"""Collections: manifests, document types (given and inferred), evidence across documents, the
policy per type (the by-type chunker), and metadata filters with their diagnosis."""

import json

import numpy as np
import pytest

from lab import (
    CorpusError,
    LabConfig,
    Policy,
    PolicyEntry,
    Source,
    build_corpus,
    build_index,
    explain,
    infer_type,
    load_collection,
    load_corpus,
    parse_document,
    run_lab,
)
from lab.chunkers import CHUNKERS, Params
from lab.collection import parse_policy

GUIDE = """\
# Guide

## Pairing

1. Charge the headset.
2. Hold the power button.
3. Select it in the list.

## Cleaning

Wipe the cushions with a damp cloth.
"""
CHANGELOG = """\
# Changes

## Version 2.1 (3 May)

- Fixes pairing after sleep.

## Version 2.0 (1 April)

- Adds multipoint pairing.
"""
FAQ = """\
# FAQ

## How long does the battery last?

About 30 hours.

## Can I wash the cushions?

No, wipe them.
"""
POLICY = """\
# Returns

## 1 Return window

Items can be returned within 15 days.

## 2 Condition

Items must be unused.

## 3 Refunds

Refunds take ten days.
"""
TRANSCRIPT = """\
Agent: Hello, how can I help?
Customer: My headset will not pair.
Agent: Hold the power button for ten seconds.
Customer: That worked, thanks.
"""
SPECS = """\
| Model | Battery |
|---|---|
| A-1 | 10 h |
| B-2 | 20 h |
| C-3 | 30 h |
"""


def write_collection(tmp_path, manifest, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / "collection.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def q(qid, evidence, **extra):
    return {"id": qid, "question": "What about the headset?", "evidence": evidence, **extra}


# --- types -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "because"),
    [
        (GUIDE, "procedure", "3 numbered steps under 2 headings"),
        (CHANGELOG, "changelog", "2 of 2 headings name a version"),
        (FAQ, "faq", "2 of 2 headings are questions"),
        (POLICY, "policy", "3 of 3 headings are numbered provisions"),
        (TRANSCRIPT, "transcript", "4 of 4 lines open with a speaker's name"),
        (SPECS, "spec-table", "table rows hold 100% of its text"),
        ("Just a paragraph of prose.", "other", "no structure of a known type"),
    ],
)
def test_type_is_inferred_from_structure_with_the_reason(text, expected, because):
    assert infer_type(parse_document(text, "doc")) == (expected, because)


def test_a_name_hints_the_type_when_the_structure_says_nothing():
    assert infer_type(parse_document("Plain words.", "release-notes.md")) == (
        "changelog",
        "its name 'release-notes.md' suggests it",
    )


def test_numbered_provisions_are_not_versions():
    text = "# H\n\n## 1.1 Scope\n\nText.\n\n## 1.2 Terms\n\nText.\n\n## 1.3 Fees\n\nText."
    assert infer_type(parse_document(text))[0] == "policy"


def test_corpus_says_which_types_were_given_and_which_inferred():
    corpus = build_corpus(
        [Source("guide.md", GUIDE, "procedure"), Source("notes.md", CHANGELOG)], None
    )
    assert [(i.type, i.type_source) for i in corpus.info] == [
        ("procedure", "given"),
        ("changelog", "inferred: 2 of 2 headings name a version"),
    ]


def test_unknown_type_warns_and_the_type_is_inferred():
    corpus = build_corpus([Source("guide.md", GUIDE, "manual")], None)
    (warning,) = corpus.errors
    assert warning.severity == "warning" and warning.document == "guide.md"
    assert "unknown type 'manual' for guide.md" in warning.message
    assert corpus.info[0].type == "procedure"


def test_a_type_named_in_the_policy_is_known():
    corpus = build_corpus([Source("g.md", GUIDE, "manual")], None, {"manual": "sentence"})
    assert corpus.errors == () and corpus.types == ("manual",)


def test_load_corpus_takes_types_by_file_name_or_stem(tmp_path):
    for name, text in (("guide.md", GUIDE), ("call.txt", TRANSCRIPT)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    corpus = load_corpus([tmp_path / "guide.md", tmp_path / "call.txt"], types={"guide.md": "faq"})
    assert [d.name for d in corpus.documents] == ["guide", "call"]
    assert corpus.types == ("faq", "transcript")
    with pytest.raises(CorpusError, match="a type is given for 'nope'"):
        load_corpus([tmp_path / "guide.md"], types={"nope": "faq"})


# --- manifests ---------------------------------------------------------------------------------


def test_manifest_loads_documents_types_meta_questions_and_policy(tmp_path):
    manifest = {
        "name": "Support",
        "documents": [
            {"path": "guide.md", "type": "procedure", "meta": {"product": "X1"}},
            {"path": "specs.md", "meta": {"product": ["X1", "X2"], "year": 2025}},
        ],
        "questions": "qe.json",
        "policy": {"procedure": {"chunker": "sentence", "size": 200}},
    }
    qe = {"questions": [q("a", ["Hold the power button."])]}
    path = write_collection(
        tmp_path, manifest, {"guide.md": GUIDE, "specs.md": SPECS, "qe.json": json.dumps(qe)}
    )
    corpus = load_collection(path)
    assert corpus.name == "Support" and corpus.errors == ()
    assert [d.name for d in corpus.documents] == ["guide.md", "specs.md"]
    assert corpus.types == ("procedure", "spec-table")
    assert [i.meta_dict for i in corpus.info] == [
        {"product": "X1"},
        {"product": ["X1", "X2"], "year": "2025"},
    ]
    assert corpus.policy.entry("procedure") == PolicyEntry("sentence", 200)
    assert corpus.policy.entry("spec-table") == PolicyEntry("table-rows")
    assert [x.id for x in corpus.questions] == ["a"]


def test_manifest_naming_a_missing_file_reports_it_and_loads_the_rest(tmp_path):
    manifest = {"documents": ["guide.md", {"path": "gone.md", "type": "faq"}]}
    corpus = load_collection(write_collection(tmp_path, manifest, {"guide.md": GUIDE}))
    assert [d.name for d in corpus.documents] == ["guide.md"]
    (error,) = corpus.errors
    assert error.message == "collection.json names 'gone.md', which does not exist; it was left out"


def test_manifest_with_no_readable_document_is_refused(tmp_path):
    with pytest.raises(CorpusError, match="lists no document that could be read"):
        load_collection(write_collection(tmp_path, {"documents": ["gone.md"]}, {}))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "collection.json is not valid JSON: Expecting property name"),
        ('{"documents": []}', 'must be an object with a "documents" list'),
        ("[1, 2]", 'must be an object with a "documents" list'),
    ],
)
def test_manifest_that_is_not_one_is_refused_with_a_reason(tmp_path, content, message):
    path = tmp_path / "collection.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        load_collection(path)


def test_manifest_questions_file_that_does_not_exist_is_reported(tmp_path):
    manifest = {"documents": ["guide.md"], "questions": "qe.json"}
    corpus = load_collection(write_collection(tmp_path, manifest, {"guide.md": GUIDE}))
    assert corpus.questions == ()
    assert "names the questions file 'qe.json', which does not exist" in corpus.errors[0].message


def test_policy_naming_an_unknown_chunker_keeps_the_default():
    policy, errors = parse_policy({"faq": {"chunker": "rows"}, "changelog": "fixed"})
    assert policy.entry("faq") == PolicyEntry("structure")
    assert policy.entry("changelog") == PolicyEntry("fixed")
    (error,) = errors
    assert error.message.startswith("the policy for 'faq' names unknown chunker 'rows'")
    assert error.message.endswith("; structure is used")


def test_policy_cannot_name_itself_or_bad_sizes():
    policy, errors = parse_policy({"faq": "by-type", "policy": {"chunker": "fixed", "size": 5}})
    assert policy.entry("faq") == PolicyEntry("structure")
    assert policy.entry("policy") == PolicyEntry("fixed")
    assert [e.severity for e in errors] == ["error", "warning"]
    assert "names the policy itself 'by-type'" in errors[0].message
    assert "size 5 is not a whole number >= 20" in errors[1].message


def test_an_empty_document_among_several_is_left_out_and_reported():
    corpus = build_corpus({"guide.md": GUIDE, "empty.html": "<script>x()</script>"}, None)
    assert [d.name for d in corpus.documents] == ["guide.md"]
    assert corpus.errors[0].message == (
        "Document 'empty.html' has no text once its markup is removed. It was left out."
    )
    with pytest.raises(CorpusError, match="no text once its markup is removed"):
        build_corpus({"empty.html": "<script>x()</script>"}, None)


# --- evidence across documents -----------------------------------------------------------------

TWO = {"guide.md": GUIDE, "faq.md": FAQ}


def test_an_evidence_item_names_its_document():
    corpus = build_corpus(
        TWO, [q("a", [{"doc": "faq.md", "text": "About 30 hours."}, "Hold the power button."])]
    )
    assert corpus.errors == ()
    (question,) = corpus.questions
    assert [e.doc for e in question.evidence] == [1, 0]
    assert question.docs == (1, 0) and question.multi_doc


def test_a_document_is_found_by_its_stem_and_its_file_name():
    corpus = build_corpus(TWO, [q("a", [{"doc": "faq", "text": "About 30 hours."}])])
    assert corpus.questions[0].evidence[0].doc == 1


def test_evidence_naming_an_unknown_document_is_rejected_with_the_names():
    corpus = build_corpus(
        TWO,
        [q("a", [{"doc": "manual.md", "text": "About 30 hours."}]), q("b", ["About 30 hours."])],
    )
    (error,) = corpus.errors
    assert error.question == "a"
    assert error.message == "unknown doc 'manual.md'; the corpus has ['faq.md', 'guide.md']."
    assert [x.id for x in corpus.questions] == ["b"]


def test_pinned_start_picks_the_document_and_occurrence():
    docs = {"a.md": "Same words. Other.", "b.md": "Lead. Same words."}
    corpus = build_corpus(docs, [q("x", [{"text": "Same words.", "start": 6}])])
    assert corpus.errors == ()
    ev = corpus.questions[0].evidence[0]
    assert (ev.doc, ev.start) == (1, 6)


def test_question_across_two_documents_is_complete_only_with_both_in_context():
    corpus = build_corpus(
        TWO,
        [
            {
                "id": "x",
                "question": "How long does the battery last and how do I hold the power button?",
                "evidence": ["About 30 hours.", "Hold the power button."],
            }
        ],
    )
    big = run_lab(corpus, LabConfig(chunkers=("structure",), modes=("flat",), budget=200))
    small = run_lab(corpus, LabConfig(chunkers=("structure",), modes=("flat",), budget=12))
    assert big.runs[0].questions[0].complete
    result = small.runs[0].questions[0]
    assert result.partial and not result.complete
    assert {e.doc for e in result.evidence} == {"guide.md", "faq.md"}
    frame = small.questions_frame()
    assert frame["multi_doc"].tolist() == [True]
    assert frame["documents"].tolist() == ["faq.md, guide.md"]


# --- policy: the by-type chunker ---------------------------------------------------------------


def test_by_type_cuts_each_document_with_the_chunker_its_type_maps_to():
    corpus = build_corpus(
        [Source("guide.md", GUIDE, "procedure"), Source("call.txt", TRANSCRIPT)],
        None,
        {"procedure": "fixed", "transcript": "sentence"},
    )
    index = build_index(corpus, "by-type", 60, overlap=10)
    for d, chunker in ((0, "fixed"), (1, "sentence")):
        doc = corpus.documents[d]
        expected = CHUNKERS[chunker].plan(doc, Params(60, 10)).bodies
        assert tuple(c.source[0] for c in index.chunks if c.doc == d) == expected
    assert all(c.id.startswith("by-type-") for c in index.chunks)


def test_a_policy_size_fixes_L_for_its_type_only():
    corpus = build_corpus(
        [Source("guide.md", GUIDE, "procedure"), Source("faq.md", FAQ, "faq")],
        None,
        {"procedure": {"chunker": "recursive", "size": 40}},
    )
    index = build_index(corpus, "by-type", 450)
    assert index.doc_sizes == (40, 450)
    assert max(c.body_chars for c in index.chunks if c.doc == 0) <= 40
    assert len([c for c in index.chunks if c.doc == 1]) == 2  # structure: one per provision


def test_a_dense_chunker_in_the_policy_falls_back_to_recursive_without_embeddings():
    policy = Policy((("faq", PolicyEntry("semantic")),))
    corpus = build_corpus([Source("faq.md", FAQ, "faq")], None, policy)
    choice = corpus.policy.resolve("faq", 450, 50, dense=False)
    assert choice.chunker == "recursive" and "semantic needs dense embeddings" in choice.note
    bodies = [c.source[0] for c in build_index(corpus, "by-type", 450).chunks]
    assert tuple(bodies) == CHUNKERS["recursive"].plan(corpus.documents[0], Params(450)).bodies


def test_types_meta_and_policy_are_part_of_the_digest():
    base = build_corpus([Source("g.md", GUIDE, "procedure")], None)
    assert base.digest == build_corpus([Source("g.md", GUIDE, "procedure")], None).digest
    others = [
        build_corpus([Source("g.md", GUIDE, "faq")], None),
        build_corpus([Source("g.md", GUIDE, "procedure", (("p", ("x",)),))], None),
        build_corpus([Source("g.md", GUIDE, "procedure")], None, {"procedure": "fixed"}),
    ]
    assert len({base.digest, *(c.digest for c in others)}) == 4


# --- metadata filters --------------------------------------------------------------------------

FILTERED = [
    Source("guide.md", GUIDE, meta=(("product", ("X1",)),)),
    Source("faq.md", FAQ, meta=(("product", ("X1", "X2")),)),
    Source("specs.md", SPECS),
]


def filtered_corpus(filter):
    question = {
        "id": "f",
        "question": "battery of the B-2 headset and the power button",
        "evidence": ["| B-2 | 20 h |", "Hold the power button."],
        "filter": filter,
    }
    return build_corpus(FILTERED, [question])


def test_a_filter_keeps_retrieval_to_documents_whose_metadata_match():
    corpus = filtered_corpus({"product": "X2"})
    assert corpus.allowed(corpus.questions[0]) == (1,)
    index = build_index(corpus, "structure", 450)
    for mode in ("flat", "graph"):
        ranking = explain(index, corpus.questions[0], mode, 120).ranking
        offered = {index.chunks[k].doc for k in ranking.order}
        assert offered <= {1}
        assert ranking.allowed == (1,)
        assert (ranking.score[index.doc_of != 1] == 0).all()


def test_a_document_without_the_filtered_key_is_filtered_out_and_so_diagnosed():
    corpus = filtered_corpus({"product": ["X1", "X9"]})
    assert corpus.allowed(corpus.questions[0]) == (0, 1)
    index = build_index(corpus, "table-rows", 450)
    result = explain(index, corpus.questions[0], "flat", 120).result
    assert [(e.doc, e.diagnosis) for e in result.evidence] == [
        ("specs.md", "filtered out"),
        ("guide.md", None),
    ]
    unfiltered = explain(index, corpus.questions[0], "flat", 120, filters=False).result
    assert unfiltered.complete


def test_recall_is_reported_with_and_without_filters():
    corpus = filtered_corpus({"product": "X1"})
    result = run_lab(corpus, LabConfig(chunkers=("table-rows",), modes=("flat", "graph")))
    for run in result.runs:
        assert (run.metrics.partial, run.metrics.complete) == (1.0, 0.0)
        assert (run.unfiltered_metrics.partial, run.unfiltered_metrics.complete) == (1.0, 1.0)
        assert [r.verdict for r in run.unfiltered] == ["complete"]
    frame = result.metrics_frame()
    assert frame["complete_without_filters"].tolist() == [1.0, 1.0]
    data = result.to_dict()["runs"][0]
    assert data["metrics_without_filters"]["complete"] == 1.0
    assert result.questions_frame()["verdict_without_filter"].tolist() == ["complete"] * 2


def test_without_filters_no_unfiltered_recall_is_reported():
    corpus = build_corpus(TWO, [q("a", ["About 30 hours."])])
    (run,) = run_lab(corpus, LabConfig(chunkers=("structure",), modes=("flat",))).runs
    assert run.unfiltered == () and run.unfiltered_metrics is None


def test_filters_when_no_document_has_metadata_are_ignored_with_a_warning():
    corpus = build_corpus(TWO, [q("a", ["About 30 hours."], filter={"product": "X1"})])
    assert corpus.questions[0].filter == ()
    (warning,) = corpus.errors
    assert warning.severity == "warning"
    assert "1 question(s) carry a metadata filter (a), but no document has metadata" in (
        warning.message
    )


def test_a_filter_that_is_not_an_object_of_values_leaves_the_question_out():
    corpus = build_corpus(FILTERED, [q("a", ["About 30 hours."], filter={"product": {"x": 1}})])
    assert corpus.questions == ()
    assert "the filter 'product' is not a string, number or list" in corpus.errors[0].message


def test_filter_masks_agree_with_a_naive_loop():
    corpus = filtered_corpus({"product": "X1"})
    index = build_index(corpus, "sentence", 60, overlap=10)
    from lab.retrieve import filter_masks

    mask, allowed = filter_masks(index, corpus.questions)
    expected = [[c.doc in (0, 1) for c in index.chunks]]
    assert mask.tolist() == expected and allowed == [(0, 1)]
    assert np.array_equal(index.doc_of, [c.doc for c in index.chunks])
