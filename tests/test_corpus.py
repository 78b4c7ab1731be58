"""Corpus loading: evidence location, pinned occurrences, and a precise message for bad input."""

import json

import pytest

from lab import CorpusError, build_corpus, load_corpus

DOC = (
    "The gate opens at 17:00 on public nights.\n"
    "Vehicles are not\n   admitted after dark. Dogs stay outside.\n\n"
    "The gate opens at 17:00 on public nights."
)
REPEATED = "The gate opens at 17:00 on public nights."


def question(qid="q1", evidence=("Dogs stay outside.",), **extra):
    return {"id": qid, "question": "What happens at the gate?", "evidence": list(evidence), **extra}


def corpus(*questions, doc=DOC):
    return build_corpus({"handbook": doc}, {"questions": list(questions)})


def only_error(c):
    assert len(c.errors) == 1, c.errors
    return c.errors[0]


# --- locating evidence ------------------------------------------------------------------------


def test_evidence_matches_across_line_breaks_and_indentation():
    c = corpus(question(evidence=["Vehicles are not admitted after dark."]))
    (ev,) = c.questions[0].evidence
    assert DOC[ev.start : ev.end] == "Vehicles are not\n   admitted after dark."
    assert c.errors == ()


def test_evidence_with_its_own_line_breaks_matches_single_spaces():
    c = corpus(question(evidence=["Dogs\n\tstay    outside."]))
    (ev,) = c.questions[0].evidence
    assert DOC[ev.start : ev.end] == "Dogs stay outside."


def test_evidence_is_otherwise_matched_exactly():
    c = corpus(question(evidence=["dogs stay outside."]))
    assert c.questions == ()
    assert "not found" in only_error(c).message


def test_evidence_maps_to_the_units_it_covers():
    c = corpus(question(evidence=["admitted after dark. Dogs stay"]))
    (ev,) = c.questions[0].evidence
    units = c.documents[0].units
    assert (
        DOC[units[ev.first].start : units[ev.first].end]
        == "Vehicles are not\n   admitted after dark."
    )
    assert DOC[units[ev.last].start : units[ev.last].end] == "Dogs stay outside."
    assert ev.last == ev.first + 1


def test_pinned_start_picks_the_named_occurrence():
    second = DOC.rindex(REPEATED)
    c = corpus(question(evidence=[{"text": REPEATED, "start": second}]))
    (ev,) = c.questions[0].evidence
    assert (ev.start, ev.end) == (second, second + len(REPEATED))
    assert c.errors == ()


def test_wrong_pinned_start_warns_and_uses_the_first_occurrence():
    c = corpus(question(evidence=[{"text": REPEATED, "start": 3}]))
    assert c.questions[0].evidence[0].start == 0
    error = only_error(c)
    assert error.severity == "warning" and error.question == "q1"
    assert "not at start 3" in error.message


def test_ambiguous_evidence_warns_and_uses_the_first_occurrence():
    c = corpus(question(evidence=[REPEATED]))
    assert c.questions[0].evidence[0].start == 0
    error = only_error(c)
    assert (error.severity, error.question) == ("warning", "q1")
    assert "occurs more than once" in error.message and '"start"' in error.message


def test_missing_evidence_quotes_the_question_id_and_first_words():
    missing = "Nothing like this sentence appears anywhere in the document at all."
    c = corpus(question("q9", evidence=["Dogs stay outside.", missing]))
    assert c.questions == ()
    error = only_error(c)
    assert (error.severity, error.question) == ("error", "q9")
    assert "Nothing like this sentence appears anywhere" in error.message
    assert "at all" not in error.message  # a preview, not the whole string


# --- bad question files -----------------------------------------------------------------------


def test_invalid_json_is_reported_with_its_position():
    c = build_corpus({"d": DOC}, '{"questions": [ {"id": "q1",, } ]}')
    error = only_error(c)
    assert error.message.startswith("The QE JSON is not valid JSON")
    assert "line 1, column" in error.message
    assert c.documents[0].text == DOC


@pytest.mark.parametrize(
    ("item", "phrase"),
    [
        ({"question": "q?", "evidence": ["Dogs stay outside."]}, 'has no "id"'),
        ({"id": "q2", "evidence": ["Dogs stay outside."]}, 'missing "question"'),
        ({"id": "q2", "question": "q?"}, 'missing "evidence"'),
        ({"id": "q2", "question": "q?", "evidence": []}, 'missing "evidence"'),
        ({"id": "q2", "question": "q?", "evidence": ["   "]}, "empty or not text"),
        (
            {"id": "q2", "question": "q?", "evidence": ["Dogs stay outside."], "split": "dev"},
            "split 'dev'",
        ),
        (
            {"id": "q2", "question": "q?", "evidence": [{"text": "Dogs", "start": -4}]},
            "non-negative",
        ),
        (
            {"id": "q2", "question": "q?", "evidence": ["Dogs stay outside."], "doc": "nope"},
            "unknown doc",
        ),
        ("just a string", "is not an object"),
    ],
)
def test_bad_question_is_reported_and_valid_ones_still_load(item, phrase):
    c = build_corpus({"d": DOC}, {"questions": [item, question("good")]})
    assert [q.id for q in c.questions] == ["good"]
    error = only_error(c)
    assert error.severity == "error"
    assert phrase in error.message


def test_duplicate_id_keeps_the_first_question():
    first = question("q1", evidence=["Dogs stay outside."])
    second = question("q1", evidence=["Vehicles are not admitted after dark."])
    c = corpus(first, second)
    assert [q.evidence[0].text for q in c.questions] == ["Dogs stay outside."]
    assert "duplicate id 'q1'" in only_error(c).message


def test_bare_list_of_questions_is_accepted_and_split_defaults_to_test():
    c = build_corpus({"d": DOC}, json.dumps([question("a"), question("b", split="train")]))
    assert [(q.id, q.split) for q in c.questions] == [("a", "test"), ("b", "train")]
    assert c.errors == ()


def test_questions_field_that_is_not_a_list_is_reported():
    c = build_corpus({"d": DOC}, {"questions": {"id": "q1"}})
    assert 'a "questions" list' in only_error(c).message


def test_empty_qe_text_is_reported_not_raised():
    c = build_corpus({"d": DOC}, "  \n")
    assert only_error(c).message == "The QE JSON is empty."


@pytest.mark.parametrize(
    ("qe", "phrase"),
    [(b"\xff\xfe{}", "not UTF-8 text (bad byte at position 0)"), (b'{"a\x00": 1}', "binary file")],
)
def test_undecodable_qe_is_reported_and_the_document_still_loads(qe, phrase):
    c = build_corpus({"d": DOC}, qe)
    assert c.documents[0].text == DOC
    assert phrase in only_error(c).message


def test_utf8_bom_is_accepted():
    c = build_corpus(
        {"d": "\ufeffDogs stay outside.".encode()}, json.dumps([question()]).encode("utf-8-sig")
    )
    assert c.documents[0].text == "Dogs stay outside."
    assert [q.id for q in c.questions] == ["q1"]


# --- bad documents ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n\t\n"])
def test_empty_document_is_a_corpus_error(text):
    with pytest.raises(CorpusError, match="Document 'notes' is empty"):
        build_corpus({"notes": text}, None)


def test_no_document_is_a_corpus_error():
    with pytest.raises(CorpusError, match="No document"):
        build_corpus({}, None)


def test_non_utf8_document_names_the_bad_byte():
    data = "Caf\u00e9 rules.".encode("latin-1")
    with pytest.raises(CorpusError) as info:
        build_corpus({"menu": data}, None)
    assert (
        str(info.value)
        == "Document 'menu' is not UTF-8 text (bad byte at position 3); save it as UTF-8."
    )


def test_binary_document_is_a_corpus_error():
    with pytest.raises(CorpusError, match="Document 'logo' looks like a binary file"):
        build_corpus({"logo": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}, None)


def test_load_corpus_reads_files_and_names_documents_by_stem(tmp_path):
    doc = tmp_path / "rules.md"
    doc.write_text(DOC, encoding="utf-8")
    qe = tmp_path / "rules_qe.json"
    qe.write_text(json.dumps({"questions": [question()]}), encoding="utf-8")
    c = load_corpus(doc, qe)
    assert c.name == "rules"
    assert [q.id for q in c.questions] == ["q1"]


def test_load_corpus_reports_missing_files(tmp_path):
    with pytest.raises(CorpusError, match="No such document file"):
        load_corpus(tmp_path / "missing.md")
    doc = tmp_path / "rules.md"
    doc.write_text(DOC, encoding="utf-8")
    with pytest.raises(CorpusError, match="No such QE file"):
        load_corpus(doc, tmp_path / "missing.json")


def test_load_corpus_rejects_a_binary_document_file(tmp_path):
    path = tmp_path / "scan.md"
    path.write_bytes(b"%PDF-1.7\n\x00\x01\x02")
    with pytest.raises(CorpusError, match="'scan' looks like a binary file"):
        load_corpus(path)


# --- several documents ------------------------------------------------------------------------


def test_multi_document_corpus_routes_questions_by_doc():
    docs = {
        "alpha": "Alpha rules apply here. Shared words.",
        "beta": "Beta rules apply. Shared words.",
    }
    qe = [
        question("a", evidence=["Alpha rules apply here."], doc="alpha"),
        question("b", evidence=["Shared words."], doc="beta"),
    ]
    c = build_corpus(docs, qe)
    assert [(q.id, q.doc) for q in c.questions] == [("a", 0), ("b", 1)]
    ev = c.questions[1].evidence[0]
    assert ev.doc == 1 and docs["beta"][ev.start : ev.end] == "Shared words."
    assert c.name == "alpha, beta"


def test_multi_document_question_without_doc_is_an_error():
    c = build_corpus({"alpha": "Alpha.", "beta": "Beta."}, [question("x", evidence=["Alpha."])])
    assert c.questions == ()
    assert 'no "doc"' in only_error(c).message


def test_digest_changes_with_the_text_and_not_with_reloading():
    one = corpus(question())
    assert one.digest == corpus(question()).digest
    assert one.digest != corpus(question(), doc=DOC + " More.").digest


def test_handbook_loads_cleanly(handbook):
    assert handbook.errors == ()
    assert len(handbook.split("train")) == 12 and len(handbook.split("test")) == 13
    assert sum(len(q.evidence) >= 2 for q in handbook.questions) >= 18
    text = handbook.documents[0].text
    for q in handbook.questions:
        for ev in q.evidence:
            assert " ".join(text[ev.start : ev.end].split()) == " ".join(ev.text.split())
