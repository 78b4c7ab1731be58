"""Pinned evidence starts in files with CRLF line endings (real documents, converted to CRLF):
a start counts in the file as given for text formats, in the extracted text for HTML, and a pin
the evidence is not at says where it does occur."""

from dataclasses import replace
from pathlib import Path

import pytest

from lab import build_corpus
from lab.marking import qe_text, question_items

REAL = Path(__file__).resolve().parent / "data" / "real"
# A DocBook HTML chapter whose two attribute tables open with the same header row.
SPEC = REAL / "formats" / "shared-mime-info-spec-ch2.html"
ROW = "Attribute | Required? | Value"


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _pinned(name: str, data: str, text: str, start: int):
    qe = {"questions": [{"id": "q", "question": "?", "evidence": [{"text": text, "start": start}]}]}
    corpus = build_corpus({name: data}, qe)
    return corpus, corpus.questions[0].evidence[0]


def test_a_pinned_table_row_in_a_crlf_html_file_is_the_second_table_not_the_first():
    raw = SPEC.read_text(encoding="utf-8")
    read = build_corpus({"spec.html": raw}, None).documents[0].text
    first = read.index(ROW)
    second = read.index(ROW, first + 1)
    for data in (raw, _crlf(raw)):
        corpus, ev = _pinned("spec.html", data, ROW, second)
        assert corpus.documents[0].text == read  # CRLF or LF, the same extracted text
        assert (ev.start, ev.end) == (second, second + len(ROW))
        assert not corpus.errors
        # the treemagic table (its first row names a path), not the magic one
        assert read[ev.end :].split("\n")[1].startswith("path | Yes | A path")


@pytest.mark.parametrize(
    "path, text",
    [
        (REAL / "xz-NEWS", "* Build systems:"),
        (REAL / "formats" / "zstd-CONTRIBUTING.md", "git push origin <branch-name>"),
        (REAL / "formats" / "awscli-s3-config.rst", "-----------------------"),
    ],
)
def test_a_pinned_start_counted_in_a_crlf_text_file_lands_on_its_occurrence(path, text):
    data = _crlf(path.read_text(encoding="utf-8"))
    second = data.index(text, data.index(text) + 1)
    corpus, ev = _pinned(path.name, data, text, second)
    normalised = data.replace("\r\n", "\n")
    assert ev.start == normalised.index(text, normalised.index(text) + 1)
    assert second - ev.start == data.count("\r", 0, second) > 0
    assert not corpus.errors


def test_a_pin_the_evidence_is_not_at_says_so_and_where_it_occurs():
    data = _crlf(SPEC.read_text(encoding="utf-8"))
    read = build_corpus({"spec.html": data}, None).documents[0].text
    first = read.index(ROW)
    second = read.index(ROW, first + 1)
    # The pin a file-offset count would give: shifted by the raw file's carriage returns.
    corpus, ev = _pinned("spec.html", data, ROW, second + 40)
    assert ev.start == first
    (warning,) = corpus.errors
    assert warning.severity == "warning"
    assert f"not at start {second + 40}; it occurs at {first}, {second};" in warning.message
    assert "using the first occurrence" in warning.message


@pytest.mark.parametrize(
    "path, text",
    [
        (REAL / "formats" / "zstd-CONTRIBUTING.md", "git push origin <branch-name>"),
        (SPEC, ROW),
    ],
)
def test_questions_written_from_a_crlf_corpus_reload_at_the_same_occurrence(path, text):
    data = _crlf(path.read_text(encoding="utf-8"))
    corpus = build_corpus({path.name: data}, None)
    read = corpus.documents[0].text
    second = read.index(text, read.index(text) + 1)
    qe = {"questions": [{"id": "q", "question": "?", "evidence": [{"text": text}]}]}
    located = build_corpus({path.name: data}, qe)
    assert located.questions[0].evidence[0].start < second  # unpinned: the first
    # Pin the second as the app's marking does, write the QE out and load it again.
    pinned = build_corpus(
        {path.name: data},
        {"questions": [{"id": "q", "question": "?", "evidence": [{"text": text, "start": 0}]}]},
    )
    moved = pinned.questions[0].evidence[0]
    q = replace(
        pinned.questions[0], evidence=(replace(moved, start=second, end=second + len(text)),)
    )
    written = qe_text(question_items(replace(pinned, questions=(q,))))
    reloaded = build_corpus({path.name: data}, written)
    assert reloaded.questions[0].evidence[0].start == second
    assert not [e for e in reloaded.errors if e.severity == "warning"]
