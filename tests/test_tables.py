"""Tables and HTML: pipe tables as table units, HTML read with BeautifulSoup, and the table-rows
chunker (one chunk per row, each cell after its column name)."""

from hypothesis import assume, given
from hypothesis import strategies as st

from lab import build_corpus, build_index, parse_document, parse_html
from lab.chunkers import CHUNKERS, Params
from lab.text import tokenize

TABLE_DOC = """\
# Line-up

Our headphones, side by side.

## Compare

| Model | Battery | Codecs |
|-------|:-------:|--------|
| WH-500 | 8 h | SBC, AAC |
| WH-1000 | 30 h | SBC, AAC, LDAC |

Prices change often.
"""


def cell_texts(doc, row):
    return [doc.text[a:b] for a, b in row.cells]


def rendered(text, chunker="table-rows", size=450):
    corpus = build_corpus({"d": text}, None)
    return build_index(corpus, chunker, size).chunks


# --- pipe tables -------------------------------------------------------------------------------


def test_pipe_table_has_a_header_rows_and_cell_ranges():
    doc = parse_document(TABLE_DOC)
    (table,) = doc.tables
    assert cell_texts(doc, table.header) == ["Model", "Battery", "Codecs"]
    assert [cell_texts(doc, r) for r in table.rows] == [
        ["WH-500", "8 h", "SBC, AAC"],
        ["WH-1000", "30 h", "SBC, AAC, LDAC"],
    ]
    assert all(doc.units[r.unit].kind == "row" for r in (table.header, *table.rows))
    assert doc.problems == ()


def test_rows_without_a_rule_line_make_a_table_without_header():
    doc = parse_document("| a | b |\n| c | d |\n\n| e | f |\n")
    first, second = doc.tables
    assert first.header is None and [cell_texts(doc, r) for r in first.rows] == [
        ["a", "b"],
        ["c", "d"],
    ]
    assert [cell_texts(doc, r) for r in second.rows] == [["e", "f"]]


def test_escaped_pipe_stays_inside_its_cell_and_empty_cells_count():
    doc = parse_document("| x | y | z |\n|---|---|---|\n| a \\| b |  | c |\n")
    (table,) = doc.tables
    assert cell_texts(doc, table.rows[0]) == ["a \\| b", "", "c"]


def test_ragged_rows_are_kept_and_reported():
    text = (
        "| Model | Battery | Codecs |\n|---|---|---|\n| WH-300 | 20 h |\n| WH-500 | 8 h | SBC |\n"
    )
    doc = parse_document(text)
    (table,) = doc.tables
    assert [len(r.cells) for r in table.rows] == [2, 3]
    (note,) = doc.problems
    assert "1 row(s)" in note and "'WH-300', 2 cells" in note and "3 columns" in note
    chunks = rendered(text)
    assert [c.text for c in chunks] == [
        "Model: WH-300 | Battery: 20 h",
        "Model: WH-500 | Battery: 8 h | Codecs: SBC",
    ]


def test_ragged_table_reaches_the_corpus_as_a_warning_naming_the_document():
    corpus = build_corpus({"specs": "| a | b |\n|---|---|\n| 1 |\n"}, None)
    (warning,) = corpus.errors
    assert warning.severity == "warning" and warning.document == "specs"
    assert warning.message.startswith("specs: the table with columns 'a | b'")


def test_other_chunkers_keep_a_row_as_a_unit():
    doc = parse_document(TABLE_DOC)
    rows = [(doc.units[r.unit].start, doc.units[r.unit].end) for r in doc.tables[0].rows]
    for name in ("sentence", "structure", "recursive"):
        plan = CHUNKERS[name].plan(doc, Params(40))
        for s, e in rows:
            assert any(a <= s and e <= b for a, b in plan.bodies), name
            assert not any(s < a < e or s < b < e for a, b in plan.bodies), name


# --- the table-rows chunker --------------------------------------------------------------------


def test_each_row_is_a_chunk_with_its_column_names_and_heading_path():
    chunks = rendered(TABLE_DOC)
    assert [c.text for c in chunks] == [
        "# Line-up\n\nOur headphones, side by side.",
        "[Compare] Model: WH-500 | Battery: 8 h | Codecs: SBC, AAC",
        "[Compare] Model: WH-1000 | Battery: 30 h | Codecs: SBC, AAC, LDAC",
        "Prices change often.",
    ]
    row = chunks[1]
    header = TABLE_DOC.index("| Model")
    start = TABLE_DOC.index("| WH-500")
    assert row.source == (
        (start, TABLE_DOC.index("\n", start)),
        (header, TABLE_DOC.index("\n", header)),
    )
    assert row.prefix == "[Compare] " and row.words == 11


def test_layout_places_every_cell_and_column_name_in_the_chunk_text():
    for chunk in rendered(TABLE_DOC):
        for a, b, at in chunk.layout or ():
            assert chunk.text[at : at + b - a] == TABLE_DOC[a:b]
    row = rendered(TABLE_DOC)[2]
    assert [TABLE_DOC[a:b] for a, b, _ in row.layout] == [
        "Model",
        "WH-1000",
        "Battery",
        "30 h",
        "Codecs",
        "SBC, AAC, LDAC",
    ]


def test_a_row_chunk_holds_its_header_row_and_its_row_as_evidence():
    qe = [
        {
            "id": "q",
            "question": "Which codecs does the WH-1000 have?",
            "evidence": ["| Model | Battery | Codecs |", "| WH-1000 | 30 h | SBC, AAC, LDAC |"],
        }
    ]
    corpus = build_corpus({"d": TABLE_DOC}, qe)
    rows = build_index(corpus, "table-rows", 450)
    held = [rows.holding(ev).tolist() for ev in corpus.questions[0].evidence]
    assert held == [[1, 2], [2]]
    fixed = build_index(corpus, "fixed", 60)
    assert not set(fixed.holding(corpus.questions[0].evidence[0]).tolist()) & set(
        fixed.holding(corpus.questions[0].evidence[1]).tolist()
    )


def test_retrieval_scores_the_labelled_text():
    index = build_index(build_corpus({"d": TABLE_DOC}, None), "table-rows", 450)
    term = {i: t for t, i in index.bm25.vocab.items()}
    for chunk, ids in zip(index.chunks, index.bm25.token_ids, strict=True):
        assert [term[i] for i in ids] == tokenize(chunk.text)
    assert "codec" in tokenize(index.chunks[1].text)


def test_without_tables_table_rows_cuts_like_recursive():
    text = "# T\n\n## A\n\nOne sentence here. Another one follows it.\n\n## B\n\nMore text."
    doc = parse_document(text)
    for size in (20, 45, 200):
        assert (
            CHUNKERS["table-rows"].plan(doc, Params(size)).bodies
            == CHUNKERS["recursive"].plan(doc, Params(size)).bodies
        )


def test_a_table_without_header_gives_plain_row_chunks():
    chunks = rendered("| a | b |\n| c | d |\n")
    assert [c.text for c in chunks] == ["a | b", "c | d"]
    assert all(len(c.source) == 1 for c in chunks)


@st.composite
def table_documents(draw):
    """Markdown with prose, headings and pipe tables (some with headers, some ragged)."""
    word = st.text("abcdefgh", min_size=1, max_size=7)
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            parts.append("## " + draw(word).capitalize())
        sentences = draw(st.lists(st.lists(word, min_size=1, max_size=8), max_size=3))
        if sentences:
            parts.append(" ".join(" ".join(s).capitalize() + "." for s in sentences))
        if draw(st.booleans()):
            width = draw(st.integers(1, 4))
            rows = draw(
                st.lists(st.lists(word, min_size=1, max_size=width + 1), min_size=1, max_size=5)
            )
            lines = ["| " + " | ".join(r) + " |" for r in rows]
            if draw(st.booleans()):
                lines.insert(1, "|" + "---|" * width)
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


@given(table_documents(), st.sampled_from([20, 60, 200, 450]))
def test_table_rows_contract(text, size):
    assume(text.strip())
    doc = parse_document(text)
    chunks = rendered(text, size=size)
    data_rows = [r for t in doc.tables for r in t.rows]
    for row in data_rows:
        unit = doc.units[row.unit]
        mine = [c for c in chunks if unit.start <= c.start and c.end <= unit.end]
        if unit.end - unit.start <= size:  # a data row is one chunk of its own
            assert [(c.start, c.end) for c in mine] == [(unit.start, unit.end)]
            continue
        # a longer row comes in pieces, cut at cell boundaries or (a long cell) between words,
        # that together deliver every character of every cell (one piece when the cells,
        # without the outer pipes, fit)
        cells = [(a, b) for a, b in row.cells if a < b]
        assert len(mine) > 1 or cells[-1][1] - cells[0][0] <= size
        delivered = {p for c in mine for a, b, _ in c.layout for p in range(a, b)}
        assert all(set(range(a, b)) <= delivered for a, b in row.cells)
    heading_lines = {(u.start, u.end) for u in doc.units if u.kind == "heading"}
    for c in chunks:
        # no chunk body exceeds L (issue 7's rule), table rows included; heading lines stay whole
        assert c.end - c.start <= size or (c.start, c.end) in heading_lines
        assert c.words == len(c.text.split())
        assert all(0 <= a < b <= len(text) for a, b in c.source)
        for a, b, at in c.layout or ():
            assert c.text[at : at + b - a] == text[a:b]
        if c.layout is None:  # text outside tables: recursive's bodies, within L
            assert c.text[len(c.prefix) :] == text[c.start : c.end]
            assert c.end - c.start <= size
    assert build_index(build_corpus({"d": text}, None), "table-rows", size).chunks == tuple(chunks)


# --- HTML --------------------------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html><head><title>Ignored</title><style>p { color: red }</style></head>
<body>
<h1>Specs</h1>
<p>All   models,
   <b>compared</b> &amp; priced.</p>
<script>var hidden = "never shown";</script>
<h2>Table</h2>
<table>
 <thead><tr><th>Model</th><th>Battery</th></tr></thead>
 <tbody><tr><td>WH-500</td><td>8 h</td></tr><tr><td>WH-700</td><td>35 h</td></tr></tbody>
</table>
<h2>Steps</h2>
<ol><li>Charge it.</li><li>Hold the button. Wait.</li></ol>
<ul><li>Kept dry.</li></ul>
</body></html>
"""


def test_html_text_is_what_a_reader_sees_without_scripts_or_styles():
    doc = parse_html(PAGE, "page.html")
    assert doc.text == (
        "Specs\n\nAll models, compared & priced.\n\nTable\n\n"
        "Model | Battery\nWH-500 | 8 h\nWH-700 | 35 h\n\nSteps\n\n"
        "1. Charge it.\n2. Hold the button. Wait.\n\n- Kept dry."
    )
    assert doc.format == "html" and doc.problems == ()


def test_html_headings_lists_and_tables_become_units():
    doc = parse_html(PAGE, "page.html")
    kinds = [(u.kind, doc.text[u.start : u.end]) for u in doc.units]
    assert kinds == [
        ("heading", "Specs"),
        ("sentence", "All models, compared & priced."),
        ("heading", "Table"),
        ("row", "Model | Battery"),
        ("row", "WH-500 | 8 h"),
        ("row", "WH-700 | 35 h"),
        ("heading", "Steps"),
        ("sentence", "1. Charge it."),
        ("sentence", "2. Hold the button."),
        ("sentence", "Wait."),
        ("sentence", "- Kept dry."),
    ]
    assert doc.title == "Specs"
    assert [p.path for p in doc.provisions] == ["", "Table", "Steps"]  # "" is the preamble
    (table,) = doc.tables
    assert cell_texts(doc, table.header) == ["Model", "Battery"]
    assert [cell_texts(doc, r) for r in table.rows] == [["WH-500", "8 h"], ["WH-700", "35 h"]]


def test_a_first_row_of_th_cells_is_the_header_without_thead():
    doc = parse_html("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>")
    (table,) = doc.tables
    assert cell_texts(doc, table.header) == ["A", "B"]


def test_html_table_rows_chunk_with_their_column_names():
    corpus = build_corpus({"page.html": PAGE}, None)
    rows = [c.text for c in build_index(corpus, "table-rows", 450).chunks if c.layout]
    assert rows == ["[Table] Model: WH-500 | Battery: 8 h", "[Table] Model: WH-700 | Battery: 35 h"]


def test_html_that_is_not_well_formed_is_read_and_reported():
    source = "<div>\n<p>First <b>bold</p>\n</span>\n<table><tr><td>x</td></tr>\n"
    doc = parse_html(source, "bad.html")
    assert "First bold" in doc.text and "x" in doc.text
    (note,) = doc.problems
    assert note.startswith("the HTML is not well formed (")
    assert "<b> opened on line 2 is not closed before </p> on line 2" in note
    assert "</span> on line 3 closes no open <span>" in note
    assert "read leniently" in note


def test_an_html_document_is_recognised_by_its_name_or_its_opening():
    corpus = build_corpus({"a.html": "<p>One.</p>", "b": "<!doctype html><p>Two.</p>"}, None)
    assert [d.text for d in corpus.documents] == ["One.", "Two."]
    assert [i.format for i in corpus.info] == ["html", "html"]
    plain = build_corpus({"c.md": "<p> in a markdown file is text"}, None)
    assert plain.documents[0].text == "<p> in a markdown file is text"


def test_evidence_is_located_in_the_extracted_text():
    qe = [{"id": "q", "question": "Battery?", "evidence": ["WH-700 | 35 h", "compared & priced."]}]
    corpus = build_corpus({"page.html": PAGE}, qe)
    assert corpus.errors == ()
    text = corpus.documents[0].text
    assert [text[e.start : e.end] for e in corpus.questions[0].evidence] == [
        "WH-700 | 35 h",
        "compared & priced.",
    ]


def test_a_table_that_lays_out_the_page_is_read_as_blocks():
    page = (
        "<table><tr><td><h1>Manual</h1><p>First paragraph.</p></td>"
        "<td><ul><li>Home</li><li>Index</li></ul>"
        "<table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "</td></tr></table>"
    )
    doc = parse_html(page)
    assert doc.text == "Manual\n\nFirst paragraph.\n\n- Home\n- Index\n\nKey | Value\na | 1"
    (table,) = doc.tables  # only the inner table holds data
    assert cell_texts(doc, table.header) == ["Key", "Value"]


def test_cells_wrapped_in_paragraphs_still_make_a_data_table():
    doc = parse_html("<table><tr><th><p>A</p></th></tr><tr><td><p>1</p></td></tr></table>")
    (table,) = doc.tables
    assert cell_texts(doc, table.header) == ["A"] and cell_texts(doc, table.rows[0]) == ["1"]
