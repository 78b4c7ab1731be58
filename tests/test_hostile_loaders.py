"""Issue 22, item 7: the loaders' messages. An ``.html`` file is HTML by its suffix; a folder, a
pipe or a device is named as such; a filter holding a list reads as a sentence; evidence in
another Unicode normal form than its document is found; a manifest decodes like a document."""

from __future__ import annotations

import codecs
import json
import os
import unicodedata

import pytest

from lab import build_collection, build_corpus, load_collection, load_corpus
from lab.cli import main
from lab.problems import CorpusError

SPECS = (
    "<h1>Specs</h1><table><tr><th>Model</th><th>Battery</th></tr>"
    "<tr><td>A-1</td><td>10 h</td></tr></table>"
)
QE = [{"id": "s1", "question": "How long does A-1 last?", "evidence": ["10 h"]}]


def test_an_html_file_without_an_html_tag_is_read_as_html_by_its_suffix(tmp_path):
    doc, qe = tmp_path / "specs.html", tmp_path / "qe.json"
    doc.write_text(SPECS, encoding="utf-8")
    qe.write_text(json.dumps(QE), encoding="utf-8")
    corpus = load_corpus(doc, qe)
    assert corpus.info[0].format == "html"
    assert corpus.documents[0].name == "specs"
    assert "<td>" not in corpus.documents[0].text  # markup removed, not read as markdown


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_folder_pipe_or_device_is_named_as_such(capsys, tmp_path, kind):
    if kind == "folder":
        target = tmp_path / "docs"
        target.mkdir()
        said = "is a folder, not a file"
    elif kind == "fifo":
        target = tmp_path / "pipe.md"
        os.mkfifo(target)  # never opened: reading a pipe with no writer would block
        said = "is not a regular file but a pipe, socket or device"
    else:
        target = "/dev/zero"  # never read: it has no end
        said = "is not a regular file but a pipe, socket or device"
    qe = tmp_path / "qe.json"
    qe.write_text(json.dumps(QE), encoding="utf-8")
    code = main(["run", "--doc", str(target), "--qe", str(qe)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"error: The document file {target} cannot be used: it {said}")
    assert "No such document file" not in err


def test_a_missing_file_is_still_no_such_file(capsys, tmp_path):
    with pytest.raises(CorpusError, match="No such document file"):
        load_corpus(tmp_path / "gone.md")


DOCS = {
    "a.md": "# A\n\n## One\n\nThe alpha widget charges in two hours.\n",
    "b.md": "# B\n\n## Two\n\nThe beta widget charges in five hours.\n",
}
MANIFEST = {"documents": [{"path": "a.md", "meta": {"product": "A"}}, "b.md"]}


@pytest.mark.parametrize(
    ("filter", "message"),
    [
        (
            ["product", "A"],
            "the filter is not an object of key: value pairs; the question is left out",
        ),
        ({"product": []}, "the filter 'product' is an empty list; the question is left out"),
        (
            {"product": [["A"]]},
            "the filter 'product' is not a string, number or list of them; the question is "
            "left out",
        ),
    ],
)
def test_a_filter_that_cannot_be_used_is_one_plain_sentence(filter, message):
    qe = [{"id": "q1", "question": "How long?", "evidence": ["two hours"], "filter": filter}]
    corpus = build_collection(json.dumps(MANIFEST), DOCS.get, json.dumps(qe))
    assert [e.message for e in corpus.errors] == [message]


def test_a_list_valued_filter_is_taken():
    qe = [
        {"id": "q1", "question": "?", "evidence": ["two hours"], "filter": {"product": ["A", "B"]}}
    ]
    corpus = build_collection(json.dumps(MANIFEST), DOCS.get, json.dumps(qe))
    assert corpus.questions[0].filter == (("product", ("A", "B")),) and not corpus.errors


CAFE = "# Café\n\n## Menu\n\nThe crème brûlée is served after eight.\n"


@pytest.mark.parametrize(("doc_form", "evidence_form"), [("NFC", "NFD"), ("NFD", "NFC")])
def test_evidence_in_another_normal_form_than_its_document_is_found(doc_form, evidence_form):
    document = unicodedata.normalize(doc_form, CAFE)
    evidence = unicodedata.normalize(evidence_form, "The crème brûlée is served")
    assert evidence not in document
    qe = [{"id": "c1", "question": "When?", "evidence": [evidence]}]
    corpus = build_corpus({"cafe": document}, json.dumps(qe))
    (question,) = corpus.questions
    span = question.evidence[0]
    assert document[span.start : span.end] == unicodedata.normalize(doc_form, evidence)
    (warning,) = corpus.errors
    assert warning.severity == "warning" and "another Unicode form" in warning.message
    two = build_corpus({"cafe": document, "other": "# O\n\n## P\n\nPlain.\n"}, json.dumps(qe))
    assert [q.id for q in two.questions] == ["c1"]  # found among several documents too


def _manifest_files(tmp_path, data: bytes):
    (tmp_path / "a.md").write_text(DOCS["a.md"], encoding="utf-8")
    (tmp_path / "b.md").write_text(DOCS["b.md"], encoding="utf-8")
    path = tmp_path / "collection.json"
    path.write_bytes(data)
    return path


def test_a_utf16_manifest_with_a_byte_order_mark_reads_like_a_document(tmp_path):
    text = json.dumps({**MANIFEST, "name": "Widgets ü"}, ensure_ascii=False)
    path = _manifest_files(tmp_path, codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    corpus = load_collection(path)
    assert [d.name for d in corpus.documents] == ["a.md", "b.md"]
    assert corpus.name == "Widgets ü"


def test_a_latin1_manifest_is_refused_like_a_document_not_garbled(tmp_path):
    text = json.dumps({**MANIFEST, "name": "Widgets ü"}, ensure_ascii=False)
    path = _manifest_files(tmp_path, text.encode("latin-1"))
    with pytest.raises(CorpusError, match=r"collection.json is not UTF-8 text \(bad byte at"):
        load_collection(path)
