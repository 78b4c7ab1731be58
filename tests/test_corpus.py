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
    [
        (b'{"caf\xe9": 1}', "not UTF-8 text (bad byte at position 5)"),
        (b'{"a\x00": 1}', "binary file"),
    ],
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


# --- input as it arrives from other tools -------------------------------------------------------


def test_pinned_evidence_with_a_leading_space_keeps_its_pin():
    # Benchmarks export evidence with the space (or line break) before it, pinned at that space.
    second = DOC.rindex(REPEATED)
    for typed in (" " + REPEATED, "\n" + REPEATED, "  " + REPEATED + " "):
        c = corpus(question(evidence=[{"text": typed, "start": second - 1}]))
        (ev,) = c.questions[0].evidence
        assert (ev.start, ev.end) == (second, second + len(REPEATED)), repr(typed)
        assert c.errors == ()


def test_pinned_start_inside_the_whitespace_before_the_evidence_still_counts():
    doc = "First rule.\n\n\n   Second rule applies here."
    pin = doc.index("\n")  # the first of several whitespace characters before the evidence
    c = corpus(
        question(evidence=[{"text": "\n\n Second rule applies here.", "start": pin}]), doc=doc
    )
    (ev,) = c.questions[0].evidence
    assert doc[ev.start : ev.end] == "Second rule applies here."
    assert c.errors == ()


def test_crlf_document_is_the_same_document_as_its_lf_twin():
    crlf = DOC.replace("\n", "\r\n")
    one, two = corpus(question(), doc=DOC), corpus(question(), doc=crlf)
    assert two.documents[0].text == DOC
    assert one.digest == two.digest
    assert [(u.start, u.end) for u in two.documents[0].units] == [
        (u.start, u.end) for u in one.documents[0].units
    ]


def test_crlf_chunks_like_lf():
    from lab import build_index

    text = "\n\n".join(
        f"## {n} Part\n\nSentence one of part {n} is here.\nSentence two of part {n} follows."
        for n in range(1, 9)
    )
    lf = build_corpus({"d": text}, None)
    crlf = build_corpus({"d": text.replace("\n", "\r\n")}, None)
    for chunker in ("fixed", "sentence", "structure"):
        assert [c.source for c in build_index(crlf, chunker, 120).chunks] == [
            c.source for c in build_index(lf, chunker, 120).chunks
        ], chunker


def test_pinned_start_counted_in_the_crlf_text_still_finds_its_occurrence():
    crlf = DOC.replace("\n", "\r\n")
    pin = crlf.rindex(REPEATED)  # an offset of the file as the user has it
    c = corpus(question(evidence=[{"text": REPEATED, "start": pin}]), doc=crlf)
    (ev,) = c.questions[0].evidence
    assert ev.start == DOC.rindex(REPEATED)
    assert c.errors == ()


def test_lone_carriage_returns_are_line_breaks():
    c = corpus(question(evidence=["Dogs stay outside."]), doc=DOC.replace("\n", "\r"))
    assert c.documents[0].text == DOC
    assert c.errors == ()


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_decoded(codec):
    data = "Caf\u00e9 rules. Dogs stay outside.".encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data
    c = build_corpus({"menu": data}, json.dumps([question()]).encode("utf-16"))
    assert c.documents[0].text == "Caf\u00e9 rules. Dogs stay outside."
    assert [q.id for q in c.questions] == ["q1"] and c.errors == ()


def test_utf16_without_a_byte_order_mark_is_not_called_binary():
    data = "Dogs stay outside.".encode("utf-16-le")
    with pytest.raises(CorpusError) as info:
        build_corpus({"menu": data}, None)
    message = str(info.value)
    assert message.startswith("Document 'menu' is not UTF-8 text")
    assert "UTF-16" in message and "binary" not in message


def test_utf16_file_loads_from_disk(tmp_path):
    path = tmp_path / "rules.md"
    path.write_bytes(DOC.encode("utf-16"))
    assert load_corpus(path).documents[0].text == DOC


def test_deeply_nested_qe_is_one_message_and_the_valid_questions_still_load():
    deep = "[" * 100_000 + "]" * 100_000
    qe = (
        '{"questions": ['
        + json.dumps(question("q1"))
        + ', {"id": "q2", "question": "Deep?", "evidence": '
        + deep
        + "}, "
        + json.dumps(question("q3"))
        + "]}"
    )
    c = build_corpus({"d": DOC}, qe)
    assert [q.id for q in c.questions] == ["q1", "q3"]
    (nesting,) = [e for e in c.errors if e.question is None]
    assert nesting.message.startswith("The QE JSON nests deeper than 32 levels at line 1, column")
    assert [e.question for e in c.errors if e.question] == ["q2"]


def test_unclosed_deep_nesting_is_reported_not_raised():
    c = build_corpus({"d": DOC}, "[" * 50_000)
    assert c.questions == ()
    messages = [e.message for e in c.errors]
    assert "nests deeper than 32 levels" in messages[0]
    assert messages[1].startswith("The QE JSON is not valid JSON")


def test_nesting_at_the_limit_is_kept():
    meta = {"a": {"b": {"c": {"d": [[[["deep but fine"]]]]}}}}
    c = build_corpus({"d": DOC}, [question(meta=meta)])
    assert [q.id for q in c.questions] == ["q1"] and c.errors == ()
    text = json.dumps({"questions": [question(meta=meta)]})
    assert build_corpus({"d": DOC}, text).errors == ()


LOOKALIKE_DOC = (
    "Visitors can\u2019t bring dogs \u2014 not even small ones.\n\n"
    "The \ufb01rst \ufb02oor is closed for main\u00adtenance\u2026 until May.\n\n"
    'Staff say "no flash" at the door.'
)


def test_straight_quotes_and_hyphens_match_curly_ones_with_a_warning():
    c = corpus(
        question(evidence=["Visitors can't bring dogs - not even small ones."]),
        doc=LOOKALIKE_DOC,
    )
    (ev,) = c.questions[0].evidence
    assert LOOKALIKE_DOC[ev.start : ev.end] == (
        "Visitors can\u2019t bring dogs \u2014 not even small ones."
    )
    error = only_error(c)
    assert (error.severity, error.question) == ("warning", "q1")
    assert "not in the document as typed" in error.message
    assert "quotes (\u2019 in the document, ' typed)" in error.message
    assert "dashes (\u2014 in the document, - typed)" in error.message


def test_ligatures_soft_hyphens_and_ellipses_are_named():
    c = corpus(
        question(evidence=["The first floor is closed for maintenance... until May."]),
        doc=LOOKALIKE_DOC,
    )
    (ev,) = c.questions[0].evidence
    assert LOOKALIKE_DOC[ev.start : ev.end].startswith("The \ufb01rst")
    assert LOOKALIKE_DOC[ev.start : ev.end].endswith("until May.")
    message = only_error(c).message
    assert "ligatures (\ufb01 \ufb02 in the document, none typed)" in message
    assert "soft hyphens (U+00AD in the document, none typed)" in message
    assert "ellipses (\u2026 in the document, none typed)" in message


def test_curly_quotes_typed_against_straight_ones_match_too():
    c = corpus(
        question(evidence=["Staff say \u201cno flash\u201d at the door."]), doc=LOOKALIKE_DOC
    )
    (ev,) = c.questions[0].evidence
    assert LOOKALIKE_DOC[ev.start : ev.end] == 'Staff say "no flash" at the door.'
    assert 'quotes (" in the document, \u201c \u201d typed)' in only_error(c).message


def test_lookalike_evidence_keeps_its_pin():
    doc = "It\u2019s dark. Rule one.\n\nIt\u2019s dark. Rule two."
    pin = doc.rindex("It\u2019s")
    c = corpus(question(evidence=[{"text": "It's dark.", "start": pin}]), doc=doc)
    assert c.questions[0].evidence[0].start == pin
    assert "not at start" not in only_error(c).message


def test_evidence_that_differs_in_more_than_lookalikes_is_still_not_found():
    c = corpus(
        question(evidence=["Visitors can't bring cats - not even small ones."]), doc=LOOKALIKE_DOC
    )
    assert c.questions == ()
    assert "evidence not found" in only_error(c).message
