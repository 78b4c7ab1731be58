"""Blank and ``#`` heading lines read a stretch at a time (``LineReader.simple_stretch``) against
the reader that reads every special line on its own (``line_reader.LineByLine``): the same units,
provisions, references, tables and problems, on generated markdown (hypothesis), on texts built
from the lines each rule reads, on edge cases and on real texts where they are installed. And the
heading titles read without the pattern (``_atx``) against the pattern's."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from line_reader import LineByLine, document_contents
from samples import markdown_documents, real_text

from lab.formats.text import _ATX, _atx, parse_document
from lab.generate import generate_corpus

REAL = [
    *sorted(Path("/usr/share/common-licenses").glob("*")),
    *sorted(Path("/usr/share/vim/vim90/doc").glob("*.txt"))[1::4],
    *sorted(Path("/usr/share/doc").glob("*/README*"))[40:80],
]
REAL = [p for p in REAL if p.is_file() and p.suffix != ".gz"]


def assert_read_as_line_by_line(text: str) -> None:
    reader = LineByLine(text)
    reader.run()
    assert document_contents(parse_document(text)) == document_contents(reader.document("document"))


# Lines every rule reads, blank and heading lines of every shape among them, and plain lines.
LINES = [
    "",
    "  ",
    "\t",
    "\u00a0",
    " \u2003 ",
    "# Title",
    "## 1.2 Red zone",
    "### 3 Scope ###",
    "#  Spaced  title  #  ",
    "# Ends in a mark#",
    "# Tab\tend\t",
    "####### Seven marks",
    "#NoBlank",
    "#",
    "# ",
    "###",
    "# #",
    "#\t2.1 Numbered title",
    "   # Indented heading",
    "```",
    "~~~",
    "```python",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "- item one. item two",
    "* e.g. this. That.",
    "1. Scope. This applies.",
    "2. Terms",
    "1.3 Red-light zone",
    "a) lettered",
    "(iv) roman",
    "Title line",
    "=====",
    "-----",
    "***",
    "Plain text. More text, see Section 1.3.",
    "Dr. Who met Mr. Smith. Then left.",
    "continued line without end",
]


@st.composite
def line_texts(draw) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), max_size=30))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\f\n"]))
    return ending.join(lines) + draw(st.sampled_from(["", "\n", ending]))


@given(line_texts())
def test_lines_of_every_rule_are_read_as_line_by_line(text):
    assert_read_as_line_by_line(text)


@given(markdown_documents())
def test_generated_markdown_is_read_as_line_by_line(text):
    assert_read_as_line_by_line(text)


EDGE_TEXTS = [
    "",
    "\n",
    "\n\n\n",
    "# Only a heading",
    "# H\n",
    "Text\n# H\nMore\n\n## 1.2 Sub\nBody.",
    "- item\n\n# H\n\nPara",
    "- item\ncontinued\n# H",
    "1. Scope\n\nBody text.\n\n# H\n\ntext",
    "| a |\n|---|\n\n| b |\n# H\n| c |",
    "```\n# not a heading\n\ncode\n```\n# H\n\nafter",
    "~~~\nnever closed\n\n# H\n",
    "Title\n=====\n\n# H\n\npara\n-----\n",
    "text\n\n\n\n# A\n# B\n\n\n# C\ntext\n",
    "#\n# \n###\n#NoBlank\n####### seven\n",
    "para one\r\n\r\n# H\r\npara two\r\n",
]


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_edge_texts_are_read_as_line_by_line(text):
    assert_read_as_line_by_line(text)


@pytest.mark.parametrize("size", [2_000, 60_000])
def test_generated_corpora_are_read_as_line_by_line(size):
    assert_read_as_line_by_line(generate_corpus(size, 5)[0])


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_texts_are_read_as_line_by_line(path):
    text = real_text(path)
    assert_read_as_line_by_line(text)


def pattern_heading(line):
    m = _ATX.match(line)
    return (len(m.group(1)), m.group(2)) if m else None


heading_lines = st.lists(st.sampled_from([*"# \t#a1.", "##", "\u00a0", "x y"]), max_size=14).map(
    lambda pieces: "#" + "".join(pieces)
)


@given(heading_lines)
def test_heading_lines_read_without_the_pattern_as_with_it(line):
    assert _atx(line) == pattern_heading(line)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# Title", (1, "Title")),
        ("###\t 1.2 Red zone", (3, "1.2 Red zone")),
        ("## Closed ##", (2, "Closed")),
        ("## Closed ##  ", (2, "Closed")),
        ("# C#", (1, "C#")),
        ("# ", (1, "")),
        ("###### Six", (6, "Six")),
        ("####### Seven", None),
        ("#Tight", None),
        ("#", None),
    ],
)
def test_heading_lines_hand_checked(line, expected):
    assert _atx(line) == expected
