"""PDF and DOCX documents (``lab.formats.pdf``, ``lab.formats.docx``): headings from fonts and
styles, pages kept, tables as rows, and a file that cannot be read named with the reason while
the others still load."""

import io
import json
import re
from pathlib import Path

import pytest

pypdf = pytest.importorskip("pypdf", reason="PDF needs pypdf (requirements.txt)")
docx = pytest.importorskip("docx", reason="DOCX needs python-docx (requirements.txt)")

from lab import CorpusError, build_corpus, load_corpus, outline  # noqa: E402
from lab.collection import Source  # noqa: E402

REAL = Path(__file__).resolve().parent / "data" / "real" / "formats"
PDF = (REAL / "shared-mime-info-spec.pdf").read_bytes()
DOCX = (REAL / "zstd-README.docx").read_bytes()


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


def test_a_pdfs_headings_come_from_its_fonts_and_its_pages_are_kept():
    corpus = build_corpus([Source("spec.pdf", PDF)], None)
    doc = corpus.documents[0]
    assert corpus.info[0].format == "pdf" and doc.pages == 17
    heads = outline(doc)
    assert heads[0] == {"level": 1, "title": "Shared MIME-info Database", "start": 0}
    assert [h["title"] for h in heads[1:3]] == ["1 Introduction", "1.1 Version"]
    assert "Thomas Leonard" not in [h["title"] for h in heads]  # the title page's author line
    contributors = next(h for h in heads if h["title"] == "3 Contributors")
    assert doc.page_at(contributors["start"]) == 17
    assert doc.page_at(0) == 1
    assert "This is version 0.21 of the Shared MIME-info Database specification" in doc.text


def test_a_docx_reads_heading_styles_and_tables_as_rows():
    corpus = build_corpus([Source("zstd.docx", DOCX)], None)
    doc = corpus.documents[0]
    assert [h["title"] for h in outline(doc)][:3] == [
        "Benchmarks",
        "The case for Small Data compression",
        "Dictionary compression How To:",
    ]
    (table, *_) = doc.tables
    assert [doc.text[a:b] for a, b in table.header.cells] == [
        "Compressor name",
        "Ratio",
        "Compression",
        "Decompress.",
    ]


def test_a_docx_paragraph_set_all_in_bold_is_a_heading_below_the_styled_one():
    import docx

    document = docx.Document()
    document.add_heading("Create an Account", level=1)
    document.add_paragraph().add_run("DESCRIPTION").bold = True
    document.add_paragraph("A user should be able to create an account.")
    mixed = document.add_paragraph()
    mixed.add_run("Note: ").bold = True
    mixed.add_run("not all bold")
    document.add_paragraph().add_run("A bold sentence, not a label.").bold = True
    out = io.BytesIO()
    document.save(out)
    doc = build_corpus([Source("case.docx", out.getvalue())], None).documents[0]
    assert [(h["level"], h["title"]) for h in outline(doc)] == [
        (1, "Create an Account"),
        (2, "DESCRIPTION"),
    ]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("scan.pdf", _blank_pdf(), "has no text layer: its 1 page hold only images"),
        ("locked.pdf", _encrypted_pdf(), "is encrypted (it needs a password)"),
        ("cut.pdf", PDF[:5000], "is not a readable PDF"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "is not a readable DOCX file"),
    ],
    ids=["scan", "encrypted", "truncated", "corrupt-docx"],
)
def test_an_unreadable_file_is_named_with_its_reason_and_the_others_load(name, data, reason):
    corpus = build_corpus([Source(name, data), Source("zstd.docx", DOCX)], None)
    assert [d.name for d in corpus.documents] == ["zstd.docx"]
    (error,) = [e for e in corpus.errors if e.document == name]
    assert f"Document {name!r} {reason}" in error.message and "It was left out." in error.message
    with pytest.raises(CorpusError, match=re.escape(reason)):
        build_corpus([Source(name, data)], None)


def test_pdf_and_docx_load_from_doc_paths_and_a_manifest(tmp_path):
    (tmp_path / "spec.pdf").write_bytes(PDF)
    (tmp_path / "zstd.docx").write_bytes(DOCX)
    corpus = load_corpus([tmp_path / "spec.pdf", tmp_path / "zstd.docx"])
    assert [i.format for i in corpus.info] == ["pdf", "docx"]
    manifest = tmp_path / "collection.json"
    manifest.write_text(json.dumps({"documents": ["spec.pdf", "zstd.docx"]}), encoding="utf-8")
    from lab import load_collection

    collection = load_collection(manifest)
    assert [i.format for i in collection.info] == ["pdf", "docx"]


def test_outline_reads_pdf_and_docx_from_the_command_line(capsys):
    from lab.cli import main

    assert main(["outline", "--format", "json", str(REAL / "zstd-README.docx")]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["format"] == "docx" and len(entry["headings"]) == 14


def test_the_drill_down_names_the_page_a_pdfs_evidence_is_on():
    from ui.context import where

    corpus = build_corpus([Source("spec.pdf", PDF)], None)
    doc = corpus.documents[0]
    at = doc.text.index("The MIME database is NOT intended to store user preferences")
    assert where(corpus, 0, at) == "2.17 User modification (page 17)"
