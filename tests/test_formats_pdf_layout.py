"""The second PDF extractor (``parser="layout"``, pdfminer.six's layout analysis) and the parser
setting that names one reading per format (``"page,layout"``)."""

import io
import json
import re
from pathlib import Path

import pytest

pypdf = pytest.importorskip("pypdf", reason="PDF needs pypdf (requirements.txt)")
pytest.importorskip("pdfminer", reason="parser=layout needs pdfminer.six (requirements.txt)")

from lab import CorpusError, build_corpus, outline  # noqa: E402
from lab.collection import Source  # noqa: E402
from lab.formats import check_parser, parser_label, reading  # noqa: E402

REAL = Path(__file__).resolve().parent / "data" / "real" / "formats"
PDF = (REAL / "shared-mime-info-spec.pdf").read_bytes()
HTML = (REAL / "shared-mime-info-spec-ch2.html").read_bytes()


def _blank_pdf() -> bytes:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=200, height=200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _encrypted_pdf() -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(PDF))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_the_layout_extractor_reads_headings_from_fonts_and_keeps_pages():
    corpus = build_corpus([Source("spec.pdf", PDF)], None, parser="layout")
    doc = corpus.documents[0]
    assert doc.pages == 17
    heads = outline(doc)
    assert heads[0] == {"level": 1, "title": "Shared MIME-info Database", "start": 0}
    assert [(h["level"], h["title"]) for h in heads[1:3]] == [
        (2, "1 Introduction"),
        (3, "1.1 Version"),
    ]
    assert "Thomas Leonard" not in [h["title"] for h in heads]
    contributors = next(h for h in heads if h["title"] == "3 Contributors")
    assert doc.page_at(contributors["start"]) == 17
    assert "This is version 0.21 of the Shared MIME-info Database specification" in doc.text


def test_the_two_extractors_lay_the_text_out_differently():
    pypdf_doc = build_corpus([Source("spec.pdf", PDF)], None, parser="pypdf").documents[0]
    layout_doc = build_corpus([Source("spec.pdf", PDF)], None, parser="layout").documents[0]
    default = build_corpus([Source("spec.pdf", PDF)], None).documents[0]
    assert default.text == pypdf_doc.text  # pypdf stays the default
    assert layout_doc.text != pypdf_doc.text


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("scan.pdf", _blank_pdf(), "has no text layer: its 1 page hold only images"),
        ("locked.pdf", _encrypted_pdf(), "is encrypted (it needs a password)"),
        ("cut.pdf", PDF[:5000], "is not a readable PDF"),
    ],
    ids=["scan", "encrypted", "truncated"],
)
def test_an_unreadable_pdf_is_named_with_its_reason_by_the_layout_extractor(name, data, reason):
    corpus = build_corpus([Source(name, data), Source("spec.pdf", PDF)], None, parser="layout")
    assert [d.name for d in corpus.documents] == ["spec.pdf"]
    (error,) = [e for e in corpus.errors if e.document == name]
    assert f"Document {name!r} {reason}" in error.message
    with pytest.raises(CorpusError, match=re.escape(reason)):
        build_corpus([Source(name, data)], None, parser="layout")


def test_one_setting_names_a_reading_per_format_and_the_others_read_their_default():
    assert check_parser("page, layout") == "page,layout"
    assert reading("page,layout", "pdf") == "layout" and reading("page,layout", "html") == "page"
    assert reading("layout", "html") is None and reading("layout", "markdown") is None
    assert parser_label("layout", {"html", "pdf", "text"}) == "main,layout"
    assert parser_label(None, {"pdf"}) == "pypdf"
    with pytest.raises(ValueError, match="two html readings: main, page"):
        check_parser("main,page")
    with pytest.raises(ValueError, match="unknown parser 'ocr'"):
        check_parser("ocr")


def test_a_mixed_corpus_reads_each_format_with_its_own_reading():
    sources = [Source("spec.pdf", PDF), Source("ch2.html", HTML)]
    both = build_corpus(sources, None, parser="page,layout").documents
    pdf_only = build_corpus(sources, None, parser="layout").documents
    default = build_corpus(sources, None).documents
    assert both[0].text == pdf_only[0].text != default[0].text  # the PDF read by layout
    assert pdf_only[1].text == default[1].text  # HTML keeps its main content
    assert both[1].text != default[1].text  # ... unless the setting names page
    assert len(both[1].text) > len(default[1].text)


def test_outline_takes_the_pdf_reading_from_the_command_line(capsys):
    from lab.cli import main

    pdf = str(REAL / "shared-mime-info-spec.pdf")
    assert main(["outline", "--format", "json", "--parser", "layout", pdf]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["format"] == "pdf" and len(entry["headings"]) == 25
    assert main(["outline", "--parser", "main,page", pdf]) == 2
    assert "two html readings" in capsys.readouterr().err
