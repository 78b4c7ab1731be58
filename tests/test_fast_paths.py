"""The fast paths of parsing, tokenising and chunking against the plain way of computing the same
thing, on generated markdown (hypothesis) and on real texts where they are installed: sentence
breaks searched once over the whole text, references tried only where one can start, unit tokens
in one pass, touched provisions from a list, recursive separators by bisection, qes-greedy's
windows by bisection."""

import re
from bisect import bisect_left
from dataclasses import astuple
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from line_reader import LineByLine, document_contents
from samples import markdown_documents, real_text

from lab.chunkers import (
    Params,
    Training,
    _cited,
    _touched,
    chunk_document,
    cited_provisions,
    touched_provisions,
    word_counts,
)
from lab.chunkers.qes_greedy import INDEX_BUDGET, Coverage, greedy_lazy, greedy_plain
from lab.chunkers.recursive import split_units
from lab.formats.text import parse_document
from lab.generate import generate_corpus
from lab.parse import (
    _REFERENCE,
    UnitBuilder,
    _lines,
    _lowered,
    _reference_candidates,
    _reference_matches,
)
from lab.sentences import Breaks, _maybe_abbreviations
from lab.sentences import sentence_breaks as _sentence_breaks
from lab.text import STOP_WORDS, stem, tokenize, tokenize_many

# The sentence break as one pattern: punctuation, closing quotes or brackets, then whitespace.
BREAK = re.compile(r"""([.!?]+["'\u201d\u2019)\]]*(?=\s))\s*""")
ABBREVIATION_TAILS = {".g", ".e", "dr", "no", "mr", "rs", "ms", "of", "vs", "cf", "ig", "st"}
ABBREVIATION_TAILS |= {"ox", "cl", "os", "rt", "ra"}

REAL = [
    *sorted(Path("/usr/share/common-licenses").glob("*")),
    *sorted(Path("/usr/share/vim/vim90/doc").glob("*.txt"))[::4],
    *sorted(Path("/usr/share/doc").glob("*/README*"))[:40],
]
REAL = [p for p in REAL if p.is_file() and p.suffix != ".gz"]


def plain_breaks(text: str, start: int, end: int) -> Breaks:
    found = list(BREAK.finditer(text, start, end))
    dots = [m.start() for m in found]
    maybe = [k for k, d in enumerate(dots) if text[d - 2 : d].lower() in ABBREVIATION_TAILS]
    return Breaks(dots, [m.end(1) for m in found], [m.end() for m in found], maybe)


class ParagraphByParagraph(LineByLine):
    """The markdown reader splitting each paragraph into sentences as it reads it (not all
    together at the end), searching each alone for its sentence breaks, and reading every
    special line on its own."""

    add_prose = UnitBuilder.add_prose
    add_heading = UnitBuilder.add_heading

    def sentence_breaks(self, start, end):
        breaks = plain_breaks(self.text, start, end)
        return breaks, 0, len(breaks.dots)


def assert_references_found_as_by_a_full_search(text: str, start: int, end: int) -> None:
    low = text.lower()
    low = low if len(low) == len(text) else None
    found = [m.span() for m in _reference_matches(text, low, start, end)]
    assert found == [m.span() for m in _REFERENCE.finditer(text, start, end)]


def plain_tokenize(text: str) -> list[str]:
    text = re.sub(r"['\u2019\u2018]", "", text.lower())
    text = re.sub(r"(?<!\w)-+|-+(?!\w)", " ", re.sub(r"[^\w\s-]|_", " ", text))
    return [stem(t) for t in text.split() if len(t) > 1 and t not in STOP_WORDS]


def assert_parsed_as_paragraph_by_paragraph(text: str) -> None:
    reader = ParagraphByParagraph(text)
    reader.run()
    doc = parse_document(text)
    assert document_contents(doc) == document_contents(reader.document("document"))
    ends = doc.unit_ends
    assert ends == sorted(ends)  # what touched_provisions and qes-greedy's bisection rely on


# Marks, closers, abbreviations and spaces in every arrangement the patterns care about.
def texts_of(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=40).map("".join)


break_text = texts_of([*"ab.!?\"')] \n\t\u201d", "e.g.", "Dr.", " No."])


@given(break_text, st.data())
def test_breaks_found_per_first_mark_are_those_one_pattern_finds(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _sentence_breaks(text, start, end) == plain_breaks(text, start, end)


def test_breaks_of_a_mixed_run_start_at_its_first_mark():
    # "?!." is found from each of its three marks; the break starts at the "?" (index 2).
    breaks = _sentence_breaks("Hi?!. Yes", 0, 9)
    assert breaks == Breaks([2], [5], [6], [])


@given(markdown_documents())
def test_whole_text_breaks_parse_generated_markdown_as_each_paragraph_alone(text):
    assert_parsed_as_paragraph_by_paragraph(text)


def plain_lines(text: str) -> tuple[list[str], list[int]]:
    raw = text.splitlines(keepends=True)
    starts = [0]
    for line in raw:
        starts.append(starts[-1] + len(line))
    return [line.rstrip("\r\n") for line in raw], starts


@given(texts_of([*"a \n\r\t\f\v\x1c\x85\u2028", "\r\n", "\n\n", "\u00e9"]))
def test_lines_are_those_splitlines_gives(text):
    assert _lines(text) == plain_lines(text)


@pytest.mark.parametrize("text", ["", "\n", "a", "a\n", "a\n\n", "\na", "a\r\nb", "a\fb\n"])
def test_lines_of_short_texts_are_those_splitlines_gives(text):
    assert _lines(text) == plain_lines(text)


def test_lines_end_where_the_text_does():
    assert _lines("ab\ncd") == (["ab", "cd"], [0, 3, 5])
    assert _lines("ab\ncd\n") == (["ab", "cd"], [0, 3, 6])


# Paragraphs split all together at the end land among headings, rows and code blocks as if each
# had been split when read: these put every kind of unit between, before and after prose.
EDGE_TEXTS = [
    "",
    "   ",
    "# Only a heading",
    "No break at all",
    "Ends with a break.\n",
    "One. Two.  ",
    "One. Two.\t\n",
    "   Indented para. Next one.\n\n- item one. item two\n- e.g. this. That.\n",
    "Dr. Who met e.g. Mr. Smith. Then left.\n\n# H\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "Text e.g. here. More.",
    "1. Scope. This applies.\n\n2. Terms\n\n### 2.1 Red zone\n\nSee Section 1. Done.",
    "Title\n=====\n\nPara. Two.\n\n```\ncode. x\n```\nafter fence. x\n\n## B\nlast. ",
    "| x |\ntext. more\n| y |\n\n```\nnever closed. a\n\nb.",
    # The word before a period is read back to where the sentence began when no space or line
    # break comes between: after a tab, that depends on whether the break before ended one.
    "One.\tNo. 5 is here. x",
    "Dr.\tNo. 5 is here. Dr.\tDr. x\n\n- e.g.\tSt. y. z",
    "  Mr. Smith.\u00a0Prof. X. e.g.\u00a0no. End.\n",
]

# Prose made of the pieces the sentence and abbreviation rules look at, in lines, list items
# and paragraphs.
prose_text = texts_of(
    [
        *"ab.!?\"')] \n\t\u201d\u00a0",
        "e.g.",
        "Dr.",
        " No.",
        "\tno.",
        "St.",
        "\n\n",
        "\n- ",
        "\n# H\n",
    ]
)


@given(prose_text)
def test_prose_split_at_the_end_reads_abbreviations_as_paragraph_by_paragraph(text):
    assert_parsed_as_paragraph_by_paragraph(text)


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_prose_split_at_the_end_lands_where_it_was_read(text):
    assert_parsed_as_paragraph_by_paragraph(text)


def test_a_paragraph_ending_in_spaces_at_the_end_of_the_text_has_no_empty_rest():
    text = "One. Two.  "
    assert [text[u.start : u.end] for u in parse_document(text).units] == ["One.", "Two."]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_whole_text_breaks_parse_real_texts_as_each_paragraph_alone(path):
    assert_parsed_as_paragraph_by_paragraph(real_text(path))


reference_text = texts_of(
    ["Section", "section", "SECTIONS", "\u017fection", "sect\u0131on", "\u0130", "\u00a7"]
    + [" 1.2", " 3", " and", " or", ", 4", "(a)", "x", "ection", " ", "\n"]
)


@given(reference_text, st.data())
def test_references_tried_at_their_starts_are_those_a_full_search_finds(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert_references_found_as_by_a_full_search(text, start, end)


latin_reference_text = texts_of(
    ["Section", "SECTION", "S\u00c9CTION", "s\u00e9ction", "\u00a7", "\u00a7\u00a7", " 1.2", " 3"]
    + [" and", ", 4", "ection", "ECTION", "\u00c9", "\u00df", "\u00ff", "\u00b5", "\u0131", "\n"]
)


@given(latin_reference_text)
def test_reference_candidates_from_lowered_bytes_are_those_of_the_lowercased_text(text):
    # A Latin-1 text is searched in its bytes with the ASCII letters lowered; any other text
    # (here one with a dotless ı) in its lowercase.
    assert _reference_candidates(_lowered(text)) == _reference_candidates(text.lower())


def test_reference_candidates_hand_checked():
    text = "\u00e9 SECTION 2, \u00a7 3 and s\u00c9ction 4"
    assert isinstance(_lowered(text), bytes)
    assert _reference_candidates(_lowered(text)) == ([2, 13], [9, 14])  # not s\u00c9ction
    assert _lowered("\u0130 Section 1") is None  # İ lowers to two characters


def plain_references(doc):
    """Every match of the pattern in each provision's body, searched in full."""
    by_id = {}
    for p in doc.provisions:
        if p.id is not None:
            by_id.setdefault(p.id, p.index)
    found = []
    for p in doc.provisions:
        if p.first < p.stop:
            start, end = doc.units[p.first].start, doc.units[p.stop - 1].end
            for m in _REFERENCE.finditer(doc.text, start, end):
                for number in [m.group(1), *re.findall(r"\d+(?:\.\d+)*", m.group(2) or "")]:
                    target = by_id.get(number)
                    if target is not None and target != p.index:
                        found.append((m.start(), m.end(), p.index, target))
    return sorted(found, key=lambda r: r[0])


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_resolved_references_of_real_texts_are_those_of_a_full_search(path):
    doc = parse_document(real_text(path))
    assert [astuple(r) for r in doc.references] == plain_references(doc)


@pytest.mark.parametrize(
    "text",
    [
        "### 1.1 A\n\nSee Section 1.2 and \u00a7 1.1.\n\n### 1.2 B\n\nPer S\u00c9CTION 1.1, "
        "section 1.1 \u00e9.",
        "### 1.1 A\n\nSee SECTION 1.2 (\u0131).\n\n### 1.2 B\n\nPer sect\u0131on 1.1.",
        "### 1.1 A\n\nSee Section 1.2 (\u0130).\n\n### 1.2 B\n\nPer section 1.1.",
    ],
)
def test_resolved_references_of_latin_and_other_texts_are_those_of_a_full_search(text):
    doc = parse_document(text)
    assert doc.references
    assert [astuple(r) for r in doc.references] == plain_references(doc)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_references_of_real_texts_are_those_a_full_search_finds(path):
    doc = parse_document(real_text(path))
    for p in doc.provisions:
        if p.first < p.stop:
            start, end = doc.units[p.first].start, doc.units[p.stop - 1].end
            assert_references_found_as_by_a_full_search(doc.text, start, end)


token_text = texts_of(
    [*"aAbS\u03a3\u03c3\u0130\u0131'\u2019\u2018-_\u2014 .,!?\n\t\u00a0\x1c0\u4e00\u00e9\u00b2"]
    + ["zqx0", "zq'x0", "don't", "well-known", "--", "ing"]
)


@given(st.lists(token_text, max_size=6))
def test_tokens_of_many_texts_at_once_are_each_texts_tokens(texts):
    assert [tokenize(t) for t in texts] == [plain_tokenize(t) for t in texts]
    assert tokenize_many(texts) == [plain_tokenize(t) for t in texts]


def test_tokens_hand_checked():
    # Apostrophes dropped ("dont" is then a stop word), a hyphen inside a word kept, loose and
    # doubled hyphens split ("a", "b": one letter), a final sigma lowercased as at the end of a
    # text, "zq'x0" one word like the separator the texts are joined by.
    texts = ["Don't re-use -it", "a--b \u039f\u0394\u039f\u03a3", "zq'x0 testing"]
    assert tokenize_many(texts) == [
        ["re-use"],
        ["\u03bf\u03b4\u03bf\u03c2"],
        ["zqx0", "test"],
    ]


@pytest.mark.parametrize("path", REAL[::3], ids=lambda p: p.name)
def test_unit_tokens_of_real_texts_are_each_units_tokens(path):
    doc = parse_document(real_text(path))
    assert doc.unit_tokens == [plain_tokenize(doc.text[u.start : u.end]) for u in doc.units]


def plain_touched(doc, start, end):
    first = max(bisect_left([u.start for u in doc.units], start + 1) - 1, 0)
    units = [u for u in doc.units[first:] if u.start < end]
    return tuple(dict.fromkeys(u.provision for u in units if u.end > start and u.provision >= 0))


@given(markdown_documents(), st.data())
def test_touched_provisions_are_those_of_the_units_overlapping_the_range(text, data):
    doc = parse_document(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert touched_provisions(doc, start, end) == plain_touched(doc, start, end)


def plain_split(doc, first, stop, size, level=0):
    """Recursive splitting with each level's separators found by a scan of the range."""
    units = doc.units
    start, end = units[first].start, units[stop - 1].end
    if end - start <= size:
        return [(start, end)]
    if level == 3:
        words = [m.span() for m in re.finditer(r"\S+", doc.text[start:end])]
        spans = []
        for a, b in ((start + a, start + b) for a, b in words):
            if spans and b - spans[-1][0] <= size:
                spans[-1] = (spans[-1][0], b)
                continue
            while b - a > size:
                spans.append((a, a + size))
                a += size
            spans.append((a, b))
        return spans
    starts_piece = [
        lambda i: units[i].kind == "heading",
        lambda i: units[i].block != units[i - 1].block,
        lambda i: True,
    ][level]
    cuts = [first, *(i for i in range(first + 1, stop) if starts_piece(i))]
    merged = []
    for a, b in zip(cuts, [*cuts[1:], stop], strict=True):
        if merged and units[b - 1].end - units[merged[-1][0]].start <= size:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return [body for a, b in merged for body in plain_split(doc, a, b, size, level + 1)]


@given(markdown_documents(), st.sampled_from([20, 45, 80, 160, 450]), st.data())
def test_recursive_split_matches_a_scan_of_each_range(text, size, data):
    doc = parse_document(text)
    first = data.draw(st.integers(0, len(doc.units) - 1))
    stop = data.draw(st.integers(first + 1, len(doc.units)))
    assert split_units(doc, first, stop, size) == plain_split(doc, first, stop, size)


@given(markdown_documents(), st.sampled_from([20, 45, 80, 160, 450]), st.data())
def test_qes_greedy_candidates_and_evidence_inside_them_match_a_scan(text, size, data):
    doc = parse_document(text)
    n = len(doc.units)
    spans = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).map(sorted).map(tuple)
    questions = data.draw(st.lists(st.lists(spans, min_size=1, max_size=3).map(tuple), max_size=5))
    training = Training(tuple(questions))
    cov = Coverage(doc, size, training)
    units = doc.units
    candidates = [
        (j, i, units[i - 1].end - units[j].start)
        for j in range(n)
        for i in range(j + 1, n + 1)
        if 0.5 * size <= units[i - 1].end - units[j].start <= size
    ]
    assert cov.candidates == candidates
    for ranges, inside in (
        (training.spans, cov.inside_spans),
        (training.groups, cov.inside_groups),
    ):
        assert inside == [
            tuple(k for f in range(j, i) for k, r in enumerate(ranges) if r[0] == f and r[1] < i)
            for j, i, _ in candidates
        ]


def test_chunking_a_real_text_keeps_every_chunk_on_its_source():
    path = Path("/usr/share/common-licenses/GPL-3")
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine")
    doc = parse_document(path.read_text(encoding="utf-8"))
    chunks, _ = chunk_document(doc, 0, "recursive", Params(450, 0))
    assert all(c.text == doc.text[c.start : c.end] for c in chunks if not c.cites)
    assert all(c.words == len(c.text.split()) for c in chunks)


@settings(max_examples=60)
@given(markdown_documents(), st.sampled_from([20, 45, 80, 160]), st.data())
def test_qes_greedy_lazy_choice_is_the_plain_greedys(text, size, data):
    doc = parse_document(text)
    n = len(doc.units)
    spans = st.tuples(st.integers(0, n - 1), st.integers(0, 3)).map(
        lambda s: (s[0], min(s[0] + s[1], n - 1))
    )
    questions = data.draw(st.lists(st.lists(spans, min_size=1, max_size=3).map(tuple), max_size=6))
    training = Training(tuple(questions))
    budget = data.draw(st.sampled_from([0.3, 0.8, INDEX_BUDGET])) * len(text)
    expected = greedy_plain(Coverage(doc, size, training), budget)
    cov = Coverage(doc, size, training)
    assert greedy_lazy(cov, budget) == expected
    uncovered = [cov.unit_covered, cov.span_covered, cov.group_covered]
    assert cov.left == sum(covered.count(0) for covered in uncovered)


@given(markdown_documents(), st.data())
def test_tokens_of_whole_units_are_the_units_tokens_in_turn(text, data):
    doc = parse_document(text)
    first = data.draw(st.integers(0, len(doc.units) - 1))
    last = data.draw(st.integers(first, len(doc.units) - 1))
    tokens = doc.tokens(doc.units[first].start, doc.units[last].end)
    assert tokens == [t for u in range(first, last + 1) for t in doc.unit_tokens[u]]
    tokens.append("x")  # a list of its own
    assert doc.tokens(doc.units[first].start, doc.units[last].end) == tokens[:-1]


# Every Latin-1 character str.split splits at, others beside them, and one beyond Latin-1.
word_text = texts_of([*"ab \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\xe9\xff", "word", "\u2003"])


@given(word_text, st.data())
def test_word_counts_of_many_spans_are_each_spans_split(text, data):
    # At least 64 spans covering at least half the text take the one-pass count (unless the
    # text is not Latin-1, as with an em space).
    spans = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(text)), st.integers(0, len(text))).map(sorted),
            min_size=64,
            max_size=80,
        )
    )
    spans += [(0, len(text))] * 64
    assert word_counts(text, spans) == [len(text[a:b].split()) for a, b in spans]


def test_word_counts_hand_checked():
    text = "One two\xa0three\x1cfour  \xe9five" + " x" * 40
    spans = [(0, 3), (1, 5), (3, 4), (4, 4), (5, 25), (24, 25), (0, len(text))] * 10
    # "One", "ne t", " ", "", "wo\xa0three\x1cfour  \xe9five", "e", the whole text
    expected = [1, 2, 0, 0, 4, 1, 45] * 10
    assert word_counts(text, spans) == expected


@settings(max_examples=60)
@given(
    markdown_documents(),
    st.sampled_from(["fixed", "sentence", "recursive", "structure", "qes-dp"]),
    st.sampled_from([45, 160, 450]),
    st.sampled_from(["delivered", "off"]),
    st.integers(0, 3),
)
def test_chunks_built_column_by_column_are_those_built_one_by_one(text, chunker, size, refs, first):
    # Without a heading path or delivered reference text, a chunk is its body verbatim; with
    # them (structure), each is built one by one: both as the single-span helpers give them.
    doc = parse_document(text)
    chunks, plan = chunk_document(doc, 2, chunker, Params(size, 0, refs=refs), first_id=first)
    assert [c.source[0] for c in chunks] == list(plan.bodies)
    for k, c in enumerate(chunks):
        start, end = c.source[0]
        assert c.id == f"{chunker}-{first + k}"
        assert c.doc == 2
        assert c.provisions == touched_provisions(doc, start, end)
        assert c.cites == cited_provisions(doc, start, end)
        assert c.words == len(c.text.split())
        assert (c.search, c.search_source, c.layout) == (None, None, None)
        if not c.prefix and len(c.source) == 1:
            assert c.text == doc.text[start:end]
            assert c.prefix_provisions == ()


abbreviation_text = texts_of(
    ["e.g.", "E.G.", "Dr.", "DR!", "no?", "No.", "\u00c9.", "\u00e9g.", "St.", "ST.", "x.", "."]
    + ["ra.", "RA?", "\u0131g.", " ", "\n", "a", "\u00ff", "\u00d7"]
)


@given(abbreviation_text, st.data())
def test_abbreviation_tails_of_many_breaks_are_those_of_the_lowercased_pairs(text, data):
    # Many breaks (256 or more) in a Latin-1 text are looked up in its bytes all at once.
    marks = [k for k, c in enumerate(text) if c in ".!?"] + [0, 1][: len(text)]
    assume(marks)
    dots = data.draw(st.lists(st.sampled_from(marks), min_size=256, max_size=300))
    expected = [k for k, d in enumerate(dots) if text[d - 2 : d].lower() in ABBREVIATION_TAILS]
    assert _maybe_abbreviations(text, dots) == expected


def test_abbreviation_tails_hand_checked():
    text = "E.G. Dr! \u00c9g. ok."
    dots = [3, 7, 12, 16, 0, 1] * 50
    assert _maybe_abbreviations(text, dots) == [k for k in range(300) if k % 6 in (0, 1)]


# Generated corpora cite their sections ("see Section 1.5"); hypothesis' documents seldom do.
CITING = [generate_corpus(size, 3)[0] for size in (2_000, 6_000)]


@given(st.one_of(markdown_documents(), st.sampled_from(CITING)), st.data())
def test_touched_and_cited_of_many_spans_are_each_spans(text, data):
    # 64 spans or more are bisected all at once; their ends fall anywhere, and on the edges
    # of units and references.
    doc = parse_document(text)
    edges = [0, len(text), *doc.unit_starts, *doc.unit_ends, *doc.reference_starts]
    bound = st.one_of(st.integers(0, len(text)), st.sampled_from(edges))
    spans = data.draw(st.lists(st.tuples(bound, bound).map(sorted).map(tuple), min_size=64))
    assert _touched(doc, spans) == [plain_touched(doc, a, b) for a, b in spans]
    assert _cited(doc, spans) == [
        tuple(dict.fromkeys(r.target for r in doc.references if a <= r.start < b)) for a, b in spans
    ]
