"""Hand-checked cases for the tokenizer and the parser: units, headings, provisions, references."""

import re

import pytest
from samples import APACHE_LIKE, GPL_LIKE, NO_HEADINGS, README, REAL_DOCUMENTS

from lab import parse_document
from lab.text import STOP_WORDS, stem, tokenize


def unit_texts(text: str) -> list[str]:
    return [text[u.start : u.end] for u in parse_document(text).units]


def headings(text: str) -> list[str]:
    return [text[u.start : u.end] for u in parse_document(text).units if u.kind == "heading"]


def provision(doc, pid):
    return next(p for p in doc.provisions if p.id == pid)


def body_texts(doc, p) -> list[str]:
    return [doc.text[u.start : u.end] for u in doc.units[p.first : p.stop]]


# --- tokenizer --------------------------------------------------------------------------------


def test_tokenize_matches_the_spec_example():
    text = "My 8-year-old is coming. What rule applies on the terrace?"
    assert tokenize(text) == ["8-year-old", "com", "rule", "appli", "terrace"]


def test_hyphen_inside_a_word_is_kept_and_loose_hyphens_are_dropped():
    assert tokenize("well-known -dash- x - y") == ["well-known", "dash"]


def test_double_hyphen_is_a_dash_between_words():
    assert tokenize("first--last") == ["first", "last"]


def test_apostrophes_are_dropped_not_split_on():
    assert tokenize("The visitor's torch isn't lit") == ["visitor", "torch", "lit"]
    assert tokenize("children\u2019s dome") == ["children", "dome"]


def test_stop_words_and_one_character_tokens_are_removed():
    assert tokenize("What is on the a I x of my dome") == ["dome"]
    assert {"the", "is", "my", "what", "on", "a"} <= STOP_WORDS
    assert 150 <= len(STOP_WORDS) <= 200


def test_punctuation_separates_tokens_and_underscores_too():
    assert tokenize("(torch), e-mail; snake_case! 12 comets.") == [
        "torch",
        "e-mail",
        "snake",
        "case",
        "12",
        "comet",
    ]


@pytest.mark.parametrize(
    ("token", "stemmed"),
    [
        ("sing", "sing"),  # four characters: never stemmed
        ("uses", "uses"),
        ("goes", "goes"),
        ("rings", "ring"),
        ("going", "go"),
        ("boxes", "box"),
        ("parked", "park"),
        ("classes", "class"),  # "es" comes before "s"
        ("rules", "rul"),
        ("tests", "test"),
        ("passing", "pass"),
    ],
)
def test_suffix_is_stripped_only_from_tokens_longer_than_four(token, stemmed):
    assert stem(token) == stemmed


def test_only_the_first_matching_suffix_is_stripped():
    assert stem("meetings") == "meeting"


# --- sentence units ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "The 1.2-metre telescope is the largest on site.",
        "Flash is banned as Section 1.3 explains in full.",
        "Bring a torch, e.g. a red one, to the dome.",
        "Bring the badge, i.e. the blue card, to the gate.",
        "Ask Dr. Vega before touching the mount.",
        "Call extension No. 5 for the control room.",
    ],
)
def test_decimals_section_numbers_and_abbreviations_do_not_end_a_sentence(sentence):
    assert unit_texts(sentence + " Then leave.") == [sentence, "Then leave."]


def test_exclamation_and_question_marks_end_sentences():
    assert unit_texts("Stop now! Is it dark? Yes.") == ["Stop now!", "Is it dark?", "Yes."]


def test_closing_quote_after_the_stop_stays_with_the_sentence():
    assert unit_texts('He said "stop." Then he left.') == ['He said "stop."', "Then he left."]


def test_a_line_break_inside_a_paragraph_does_not_end_a_sentence():
    assert unit_texts("A rule that\nwraps here. Next one.") == [
        "A rule that\nwraps here.",
        "Next one.",
    ]


def test_a_blank_line_ends_a_sentence_without_a_stop():
    assert unit_texts("First without a stop\n\nSecond part") == [
        "First without a stop",
        "Second part",
    ]


def test_headings_list_items_and_table_rows_start_units():
    text = "Intro line\n# Heading\nBody line\n- item one\n- item two\nAfter\n| a | b |\n| 1 | 2 |"
    assert unit_texts(text) == [
        "Intro line",
        "# Heading",
        "Body line",
        "- item one",
        "- item two\nAfter",
        "| a | b |",
        "| 1 | 2 |",
    ]


def test_list_marker_full_stop_does_not_end_the_item_sentence():
    assert unit_texts("Steps:\n\n1. Open the dome.\n2. Check the filter.") == [
        "Steps:",
        "1. Open the dome.",
        "2. Check the filter.",
    ]


def test_unit_offsets_slice_the_text_exactly():
    text = "  # Title\n\nOne. Two!  Three?\n\n   - item\n"
    doc = parse_document(text)
    assert [(u.start, u.end, u.kind) for u in doc.units] == [
        (2, 9, "heading"),
        (11, 15, "sentence"),
        (16, 20, "sentence"),
        (22, 28, "sentence"),
        (33, 39, "sentence"),
    ]
    assert [text[u.start : u.end] for u in doc.units] == [
        "# Title",
        "One.",
        "Two!",
        "Three?",
        "- item",
    ]
    assert doc.unit_starts == tuple(u.start for u in doc.units)


# --- headings ---------------------------------------------------------------------------------


def test_atx_headings_with_closing_hashes_have_clean_titles():
    doc = parse_document("# Doc\n\n## Access ##\n\nText.\n\n### Gate hours\n\nMore.")
    assert [(p.title, p.path) for p in doc.provisions] == [
        ("Access", "Access"),
        ("Gate hours", "Access \u203a Gate hours"),  # SPEC 3: "1 Definitions › 1.3 Red-light zone"
    ]


def test_setext_underlines_make_level_one_and_two_headings():
    doc = parse_document("Handbook\n========\n\nAccess\n------\n\nThe gate opens.\n")
    assert doc.title == "Handbook"
    assert headings(doc.text) == ["Handbook", "Access"]
    assert [p.title for p in doc.provisions] == ["Access"]


@pytest.mark.parametrize(
    ("line", "pid", "title"),
    [
        ("1.3 Red-light zone", "1.3", "Red-light zone"),
        ("2.2. Effective Date", "2.2", "Effective Date"),
        ('1.1. "Contributor"', "1.1", '"Contributor"'),
        ("3. Basic Permissions.", "3", "Basic Permissions"),
    ],
)
def test_numbered_lines_are_headings(line, pid, title):
    doc = parse_document(f"Some preamble text.\n\n{line}\n\nThe body of it.\n")
    p = provision(doc, pid)
    assert p.title == title
    assert doc.text[doc.units[p.heading].start : doc.units[p.heading].end] == line
    assert body_texts(doc, p) == ["The body of it."]


def test_numbered_heading_right_after_a_paragraph_line_keeps_document_order():
    doc = parse_document("Some text here.\n1.3 Red-light zone\nBody of it.\n")
    assert [doc.text[u.start : u.end] for u in doc.units] == [
        "Some text here.",
        "1.3 Red-light zone",
        "Body of it.",
    ]
    assert list(doc.unit_starts) == sorted(doc.unit_starts)
    assert body_texts(doc, provision(doc, "1.3")) == ["Body of it."]


def test_numbered_line_with_a_long_sentence_starts_an_untitled_provision():
    text = (
        "Terms.\n\n"
        "3. This License applies to any program or other work which contains a notice placed\n"
        "by the copyright holder saying it may be distributed. Each licensee is addressed as you.\n"
    )
    doc = parse_document(text)
    p = provision(doc, "3")
    assert p.title == ""
    assert p.label == "3"
    assert body_texts(doc, p) == [
        "This License applies to any program or other work which contains a notice placed\n"
        "by the copyright holder saying it may be distributed.",
        "Each licensee is addressed as you.",
    ]


def test_numbered_line_with_a_short_title_then_body_splits_title_from_body():
    text = "4. Redistribution. You may reproduce copies of the\nWork in any medium.\n"
    doc = parse_document(text)
    p = provision(doc, "4")
    assert p.title == "Redistribution"
    assert body_texts(doc, p) == ["You may reproduce copies of the\nWork in any medium."]


@pytest.mark.parametrize(
    "line", ["****", "----", "* * *", "\u2500" * 20, "\u2550\u2550\u2550\u2550"]
)
def test_decoration_lines_are_not_units(line):
    text = f"First paragraph.\n\n{line}\n\nSecond paragraph."
    assert unit_texts(text) == ["First paragraph.", "Second paragraph."]


def test_dashes_under_a_text_line_make_a_heading_not_a_decoration():
    assert headings("Intro.\n\nAccess rules\n------------\n\nBody.") == ["Access rules"]


def test_markdown_ordered_list_does_not_become_headings():
    text = "## Usage\n\n1. Import the module.\n2. Call split on your text.\n3. Print it.\n"
    doc = parse_document(text)
    assert headings(text) == ["## Usage"]
    assert [p.title for p in doc.provisions] == ["Usage"]


def test_hash_lines_inside_code_fences_are_not_headings():
    text = "## Install\n\n```bash\n# not a heading\npip install x\n```\n\n~~~\n## nor this\n~~~\n"
    doc = parse_document(text)
    assert headings(text) == ["## Install"]
    assert [u.kind for u in doc.units] == ["heading", "code", "code"]


def test_unclosed_code_fence_runs_to_the_end_as_one_code_unit():
    text = "Intro.\n\n```\n# code\nmore code"
    assert unit_texts(text) == ["Intro.", "```\n# code\nmore code"]


# --- provisions -------------------------------------------------------------------------------

HIERARCHY = """\
# Handbook

Preamble text.

## 1 Definitions

Intro of section one.

### 1.1 Dark window

A dark window is dark.

### 1.2 Visitor

A visitor visits.

## 2 Access

### 2.1 Gate

The gate opens.
"""


def test_level_three_headings_are_provisions_with_paths_without_the_title():
    doc = parse_document(HIERARCHY)
    assert doc.title == "Handbook"
    assert [(p.id, p.path) for p in doc.provisions] == [
        (None, ""),
        ("1", "1 Definitions"),
        ("1.1", "1 Definitions \u203a 1.1 Dark window"),
        ("1.2", "1 Definitions \u203a 1.2 Visitor"),
        ("2.1", "2 Access \u203a 2.1 Gate"),
    ]


def test_preamble_and_section_intro_text_become_provisions():
    doc = parse_document(HIERARCHY)
    preamble, intro = doc.provisions[0], doc.provisions[1]
    assert preamble.heading is None and body_texts(doc, preamble) == ["Preamble text."]
    assert intro.title == "Definitions" and body_texts(doc, intro) == ["Intro of section one."]
    assert intro.section == doc.provisions[2].section == "1 Definitions"


def test_section_heading_without_intro_text_owns_no_provision():
    doc = parse_document(HIERARCHY)
    access = next(u for u in doc.units if doc.text[u.start : u.end] == "## 2 Access")
    assert access.provision == -1
    assert all(p.title != "Access" for p in doc.provisions)


def test_numbered_x_y_heading_is_a_provision_even_at_level_two():
    doc = parse_document(
        "## 1 Rules\n\nIntro.\n\n## 1.1 Gate\n\nOpens.\n\n## 1.2 Dome\n\nCloses.\n"
    )
    assert [p.id for p in doc.provisions] == ["1", "1.1", "1.2"]
    assert provision(doc, "1.2").path == "1.2 Dome"


def test_deepest_heading_level_defines_provisions_when_none_is_level_three():
    text = (
        "# Alpha\n\nAlpha intro.\n\n## Alpha one\n\nText a.\n\n# Beta\n\n## Beta one\n\nText b.\n"
    )
    doc = parse_document(text)
    assert doc.title is None  # two level-one headings: neither is the document title
    assert [(p.title, p.path) for p in doc.provisions] == [
        ("Alpha", "Alpha"),
        ("Alpha one", "Alpha \u203a Alpha one"),
        ("Beta one", "Beta \u203a Beta one"),
    ]


def test_level_one_heading_after_text_is_not_the_title():
    doc = parse_document("Intro.\n\n# Access\n\nAccess text.\n\n1.1 Gate\n\nGate text.\n")
    assert doc.title is None
    assert [(p.path, body_texts(doc, p)) for p in doc.provisions] == [
        ("", ["Intro."]),
        ("Access", ["Access text."]),
        ("Access \u203a 1.1 Gate", ["Gate text."]),
    ]


def test_every_unit_belongs_to_the_provision_whose_range_holds_it():
    doc = parse_document(HIERARCHY)
    for p in doc.provisions:
        assert all(u.provision == p.index for u in doc.units[p.first : p.stop])
        if p.heading is not None:
            assert doc.units[p.heading].provision == p.index


def test_document_without_headings_is_one_preamble_provision():
    doc = parse_document(NO_HEADINGS)
    assert len(doc.provisions) == 1
    p = doc.provisions[0]
    assert (p.id, p.title, p.path, p.label) == (None, "", "", "Preamble")
    assert (p.first, p.stop) == (0, len(doc.units))


# --- cross-references -------------------------------------------------------------------------

REFERENCES = """\
## 1 Rules

### 1.1 Alpha

Alpha follows Section 1.3 and Sections 3.1, 3.2 and 3.4.

### 1.3 Gamma

Gamma points to \u00a7 4.2 and to Section 2.1(b), never to Section 9.9 or Section 1.3.

## 2 More

### 2.1 Delta

Delta text.

### 3.1 One

One.

### 3.2 Two

Two.

### 3.4 Four

Four.

### 4.2 Five

Five.
"""


def test_cross_references_resolve_to_provisions():
    doc = parse_document(REFERENCES)
    cites = {}
    for r in doc.references:
        cites.setdefault(doc.provisions[r.source].id, []).append(doc.provisions[r.target].id)
    assert cites == {"1.1": ["1.3", "3.1", "3.2", "3.4"], "1.3": ["4.2", "2.1"]}


def test_reference_offsets_point_at_the_citation():
    doc = parse_document(REFERENCES)
    texts = [doc.text[r.start : r.end] for r in doc.references]
    assert texts[0] == "Section 1.3"
    assert "\u00a7 4.2" in texts
    assert any(t.startswith("Section 2.1(b)") for t in texts)


def test_references_are_sorted_by_position():
    doc = parse_document(REFERENCES)
    assert [r.start for r in doc.references] == sorted(r.start for r in doc.references)


# --- real documents ---------------------------------------------------------------------------


def test_gpl_like_license_parses_numbered_sections():
    doc = parse_document(GPL_LIKE)
    assert doc.title == "GNU GENERAL PUBLIC LICENSE"
    numbered = [(p.id, p.title) for p in doc.provisions if p.id is not None]
    assert numbered == [
        ("0", "Definitions"),
        ("1", "Source Code"),
        ("2", "Basic Permissions"),
        ("3", "Protecting Users' Legal Rights From Anti-Circumvention Law"),
        ("4", "Conveying Verbatim Copies"),
        ("5", ""),
    ]
    assert [p.title for p in doc.provisions if p.id is None] == [
        "",
        "Preamble",
        "TERMS AND CONDITIONS",
    ]
    assert body_texts(doc, provision(doc, "5"))[0].startswith("You may charge any price")
    assert [(doc.provisions[r.source].id, doc.provisions[r.target].id) for r in doc.references] == [
        ("2", "1"),
        ("5", "2"),
    ]


def test_apache_like_license_keeps_wrapped_first_sentences_whole():
    doc = parse_document(APACHE_LIKE)
    assert [(p.id, p.title) for p in doc.provisions] == [
        (None, ""),
        ("1", "Definitions"),
        ("2", "Grant of Copyright License"),
        ("3", "Grant of Patent License"),
        ("4", "Redistribution"),
        ("5", "Submission of Contributions"),
    ]
    first = body_texts(doc, provision(doc, "2"))[0]
    assert first.startswith("Subject to the terms and conditions of\n")
    assert first.endswith("copyright license to reproduce the Work.")
    items = body_texts(doc, provision(doc, "4"))
    assert [t[:3] for t in items] == ["You", "(a)", "(b)"]
    # "Section 3" inside section 3 is a self-reference; "Section 2" in section 4 resolves.
    assert [(doc.provisions[r.source].id, doc.provisions[r.target].id) for r in doc.references] == [
        ("4", "2"),
    ]


def test_readme_code_blocks_tables_and_lists_parse():
    doc = parse_document(README)
    assert doc.title == "chunky"
    assert [p.path for p in doc.provisions] == ["", "Install", "Usage"]
    kinds = [u.kind for u in doc.units]
    assert kinds.count("code") == 2 and kinds.count("row") == 3 and kinds.count("heading") == 3
    assert "chunky" not in " ".join(p.path for p in doc.provisions)


def test_notes_without_headings_split_on_sentences_only():
    assert unit_texts(NO_HEADINGS) == [
        "Meeting notes from the spring planning session.",
        "Everyone agreed that the\nold telescope needs a new mount before the autumn open nights.",
        "The budget for repairs is 4,000 pounds, approx. half of last year's figure!",
        "Who\nsigns off the order?",
        "The treasurer does, after Dr. Patel checks the quote.",
        "Next meeting: the first Tuesday of May.",
    ]


@pytest.mark.parametrize("name", sorted(REAL_DOCUMENTS))
def test_real_document_units_are_ordered_disjoint_and_never_span_paragraphs(name):
    text = REAL_DOCUMENTS[name]
    doc = parse_document(text, name)
    assert doc.units
    ends = [0]
    for u in doc.units:
        piece = text[u.start : u.end]
        assert u.start >= ends[-1] and u.start < u.end
        assert piece == piece.strip()
        if u.kind != "code":
            assert not re.search(r"\n[ \t]*\n", piece), piece
        ends.append(u.end)


@pytest.mark.parametrize("name", sorted(REAL_DOCUMENTS))
def test_decoration_lines_of_real_documents_are_in_no_unit(name):
    text = REAL_DOCUMENTS[name]
    doc = parse_document(text)
    decorations = [
        m.start() for m in re.finditer(r"(?m)^[ \t]*(\*{4}|-{4}|\u2500{4,})[ \t]*$", text)
    ]
    for pos in decorations:
        assert not any(u.start <= pos < u.end for u in doc.units)


def test_handbook_paths_leave_out_the_document_title(handbook_doc):
    p = provision(handbook_doc, "1.3")
    assert p.path == "1 Definitions \u203a 1.3 Red-light zone"
    assert handbook_doc.title.startswith("Carrow Fell Observatory")
    assert all(handbook_doc.title not in q.path for q in handbook_doc.provisions)


def test_handbook_has_its_provisions_and_references(handbook_doc):
    ids = [p.id for p in handbook_doc.provisions if p.id and "." in p.id]
    assert len(ids) == len(set(ids)) >= 12
    assert len(handbook_doc.references) >= 8
    assert all(r.source != r.target for r in handbook_doc.references)


def test_windows_line_endings_parse_like_unix_ones():
    text = "\r\n".join(
        [
            "# Title",
            "",
            "## 1 Access",
            "",
            "The gate opens.",
            "Cars wait.",
            "",
            "1.2 Parking",
            "Park here.",
        ]
    )
    doc = parse_document(text)
    assert [text[u.start : u.end] for u in doc.units] == [
        "# Title",
        "## 1 Access",
        "The gate opens.",
        "Cars wait.",
        "1.2 Parking",
        "Park here.",
    ]
    assert [p.path for p in doc.provisions] == ["1 Access", "1 Access \u203a 1.2 Parking"]
