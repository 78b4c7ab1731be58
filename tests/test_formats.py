"""The format readers (``lab.formats``): each reads its format's structure with exact offsets."""

from pathlib import Path

import pytest

from lab import document_format, outline, parse_document, read_document

DATA = Path(__file__).resolve().parent.parent / "data"


def _outline(doc):
    return [
        (u.kind, doc.text[u.start : u.end])
        for u in doc.units
        if u.kind in ("heading", "code", "row")
    ]


def _contents(doc):
    provisions = [(p.id, p.title, p.path, p.heading, p.first, p.stop) for p in doc.provisions]
    return doc.text, doc.title, doc.units, provisions, doc.references, doc.tables


@pytest.mark.parametrize(
    "path",
    ["handbook.md", *(f"technova/{p.name}" for p in sorted((DATA / "technova").glob("*.md")))],
)
def test_markdown_reader_reads_the_handbook_and_technova_as_the_line_reader_did(path):
    text = (DATA / path).read_text(encoding="utf-8")
    assert _contents(read_document(text, path, "markdown")) == _contents(parse_document(text, path))


def test_numbered_list_items_are_list_items_not_headings():
    text = "# Guide\n\n## Setup\n\n1. Install it.\n2. Run it.\n\n### Benchmarks\n\nFast.\n"
    doc = read_document(text, "r.md", "markdown")
    headings = [doc.text[u.start : u.end] for u in doc.units if u.kind == "heading"]
    assert headings == ["# Guide", "## Setup", "### Benchmarks"]
    assert [p.path for p in doc.provisions if p.title == "Benchmarks"] == [
        "Setup \u203a Benchmarks"
    ]
    items = [doc.text[u.start : u.end] for u in doc.units if u.kind == "sentence"]
    assert items[:2] == ["1. Install it.", "2. Run it."]


def test_setext_code_quotes_and_tables_read_as_commonmark_says():
    text = (
        "Title\n=====\n\nIntro line\nstill intro.\n\nPart\n----\n\n"
        "    # not a heading\n    code\n\n```\n# nor this\n```\n\n"
        "> Quoted. Two sentences.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    doc = read_document(text, "r.md", "markdown")
    assert _outline(doc) == [
        ("heading", "Title"),
        ("heading", "Part"),
        ("code", "# not a heading\n    code"),
        ("code", "```\n# nor this\n```"),
        ("row", "| a | b |"),
        ("row", "| 1 | 2 |"),
    ]
    assert [(h.level, h.title) for h in doc.headings] == [(1, "Title"), (2, "Part")]
    sentences = [doc.text[u.start : u.end] for u in doc.units if u.kind == "sentence"]
    assert "Quoted." in sentences and "Two sentences." in sentences
    (table,) = doc.tables
    assert [doc.text[a:b] for a, b in table.header.cells] == ["a", "b"]


def test_heading_titles_lose_their_inline_markup_and_offsets_stay_exact():
    text = "Intro.\r\n\r\n## The `run` *command* [docs](x)\r\n\r\n- item one\r\n  wraps.\r\n"
    doc = read_document(text, "r.md", "markdown")
    (heading,) = doc.headings
    assert heading.title == "The run command docs"
    assert text[heading.start : heading.end] == "## The `run` *command* [docs](x)"
    assert [text[u.start : u.end] for u in doc.units if u.kind == "sentence"] == [
        "Intro.",
        "- item one\r\n  wraps.",
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("notes.md", "plain", "markdown"),
        ("page.HTM", "plain", "html"),
        ("NEWS", "Version 1", "text"),
        ("x", "<!doctype html><p>x", "html"),
        ("notes.txt", "# Heading", "text"),
    ],
)
def test_a_documents_format_comes_from_its_name_then_its_opening(name, text, expected):
    assert document_format(name, text) == expected


def test_an_unknown_format_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="markdown, html, rst, pdf, docx, text"):
        read_document("x", "x", "docx-ish")


def test_outline_prints_each_documents_headings_as_json(capsys, tmp_path):
    import json

    from lab.cli import main

    notes = tmp_path / "notes.md"
    notes.write_text(
        "# Notes\r\n\r\n1. a step\r\n\r\n## Use *it*\r\n\r\nText.\r\n", encoding="utf-8"
    )
    assert main(["outline", "--format", "json", str(notes), str(DATA / "handbook.md")]) == 0
    first, handbook = json.loads(capsys.readouterr().out)
    # Offsets count in the text the lab reads, its line endings normalised to "\n".
    assert first == {
        "name": "notes.md",
        "format": "markdown",
        "headings": [
            {"level": 1, "title": "Notes", "start": 0},
            {"level": 2, "title": "Use it", "start": 20},
        ],
    }
    assert handbook["headings"][2] == {"level": 3, "title": "1.1 Dark window", "start": 486}


def test_outline_names_a_document_it_cannot_read_and_prints_the_others(capsys, tmp_path):
    from lab.cli import main

    assert main(["outline", str(tmp_path / "missing.md"), str(DATA / "handbook.md")]) == 2
    out, err = capsys.readouterr()
    assert "missing.md: No such file or directory; it was left out" in err
    assert "handbook.md (markdown, 31 headings)" in out
    assert "    ### 1.1 Dark window" in out


def _inferred(name, text):
    from lab import build_corpus
    from lab.collection import Source

    info = build_corpus([Source(name, text)], None).info[0]
    return info.type, info.type_source


def test_a_man_page_and_an_api_reference_are_references():
    man = (DATA.parent / "tests/data/real/formats/ls.1.txt").read_text(encoding="utf-8")
    assert _inferred("ls.1.txt", man) == (
        "reference",
        "inferred: 7 of 7 headings are a man page's sections",
    )
    api = (
        "# API\n\n## open_file\n\nOpens.\n\n## close_file\n\nCloses.\n\n## Path.read()\n\nReads.\n"
    )
    assert _inferred("api.md", api)[0] == "reference"


def test_a_navigation_list_of_bare_links_is_no_procedure():
    page = (
        "<html><body><h1>API</h1><p>Other versions:</p><ol><li>v1</li><li>v2</li><li>v3</li>"
        "<li>v4</li></ol><h2>zlib.compress</h2><p>Compresses data.</p></body></html>"
    )
    assert _inferred("api.html", page)[0] != "procedure"


def test_manifest_heading_patterns_make_headings_per_document_and_per_type(tmp_path):
    import json

    from lab import load_collection

    notes = "Release notes\n\n=> Build 17\nFixed the frobnicator.\n\n=> Build 16\nFirst one.\n"
    (tmp_path / "a.txt").write_text(notes, encoding="utf-8")
    (tmp_path / "b.md").write_text(notes, encoding="utf-8")
    manifest = {
        "documents": [
            {"path": "a.txt", "headings": ["^=> Build \\d+$"]},
            {"path": "b.md", "type": "changelog"},
            {"path": "c.txt", "headings": "not a list"},
        ],
        "policy": {"changelog": {"chunker": "structure", "headings": ["^=> Build"]}},
    }
    (tmp_path / "c.txt").write_text(notes, encoding="utf-8")
    (tmp_path / "collection.json").write_text(json.dumps(manifest), encoding="utf-8")
    corpus = load_collection(tmp_path / "collection.json")
    titles = [[h["title"] for h in outline(d)] for d in corpus.documents]
    assert titles == [["=> Build 17", "=> Build 16"], ["=> Build 17", "=> Build 16"], []]
    (problem,) = [e.message for e in corpus.errors]
    assert '"headings" must be a list of regular expressions' in problem


def test_a_markdown_headings_title_drops_its_markup_and_resolves_reference_links():
    text = "# [Foo][f] and *bar*\n\ntext\n\n## `code` [x](http://y)\n\n[f]: http://x\n"
    doc = read_document(text, "x.md", "markdown")
    assert [(h["level"], h["title"], h["start"]) for h in outline(doc)] == [
        (1, "Foo and bar", 0),
        (2, "code x", 28),
    ]
