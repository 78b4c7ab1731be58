"""Plain-text headings (``lab.formats.plain``): the shapes real texts use, only where their
context says a line is a heading."""

import pytest

from lab import outline, read_document


def heads(text):
    return [(h["level"], h["title"]) for h in outline(read_document(text, "x.txt", "text"))]


def test_changelog_release_lines_are_headings():
    text = (
        "2.3.1 (2021-05-04)\n\n- Fix the crash.\n- Faster start.\n\n"
        "Version 0.14 (21-Mar-2004)\n\nFirst public release.\n"
    )
    assert heads(text) == [(2, "2.3.1 (2021-05-04)"), (2, "Version 0.14 (21-Mar-2004)")]


def test_faq_question_lines_are_headings_with_their_whole_question():
    text = (
        "Q: Can I run it twice?\nYes, with care.\n\n"
        "1. Is the library thread-safe?\n\nMostly. See below.\n\n"
        "Why does it fail on NFS?\n\n\tLocks are advisory there.\n"
    )
    assert heads(text) == [
        (2, "Q: Can I run it twice?"),
        (2, "1 Is the library thread-safe?"),
        (2, "Why does it fail on NFS?"),
    ]


def test_man_page_sections_are_headings_and_its_option_list_is_not():
    text = (
        "LS(1)        User Commands        LS(1)\n\nNAME\n       ls - list directory contents\n\n"
        "SYNOPSIS\n       ls [OPTION]... [FILE]...\n\nOPTIONS\n"
        "       -a, --all\n              do not ignore entries starting with .\n\n"
        "       1. first.\n       2. second.\n\nEXIT STATUS\n       0      if OK,\n"
    )
    assert heads(text) == [(2, "NAME"), (2, "SYNOPSIS"), (2, "OPTIONS"), (2, "EXIT STATUS")]


def test_article_and_section_lines_are_clause_headings():
    text = "ARTICLE I\n\nThe name.\n\nARTICLE II - Purpose\n\nThe purpose.\n"
    assert heads(text) == [(2, "ARTICLE I"), (2, "ARTICLE II - Purpose")]


def test_outline_mode_stars_are_headings_at_their_depth():
    text = (
        "GNU gzip NEWS    -*- outline -*-\n\n* Noteworthy changes in release 1.12 (2022-04-07)\n\n"
        "** Bug fixes\n\n  zgrep names its input.\n\n* Noteworthy changes in release 1.11\n\n"
        "** Bug fixes\n\n  None.\n"
    )
    assert heads(text) == [
        (1, "Noteworthy changes in release 1.12 (2022-04-07)"),
        (2, "Bug fixes"),
        (1, "Noteworthy changes in release 1.11"),
        (2, "Bug fixes"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        # a lone line of a shape is no pattern
        "Intro text here.\n\nNAME\n\nls lists files.\n",
        # sentences, list items and table rows are not headings
        "WARNING: DO NOT RUN.\n\nText.\n\nDANGER, HIGH VOLTAGE.\n\nText.\n",
        "Steps:\n\n1. Does it start?\n2. Does it stop?\n3. Done.\n",
        "NAME    SIZE    DATE\n\nfoo     12      2020\n\nBAR     13      2021\n\nbaz.\n",
        "Did you know?\nIt works.\nReally?\nYes.\n",  # no blank line before: running text
    ],
)
def test_lines_whose_context_says_no_are_not_headings(text):
    assert heads(text) == []


def test_shapes_inside_code_fences_are_not_headings():
    text = "```\nNAME\n\nfoo\n\nSYNOPSIS\n\nbar\n```\n"
    assert heads(text) == []


LICENCE_HEAD = (
    "\n" + " " * 33 + "Apache License\n" + " " * 27 + "Version 2.0, January 2004\n\n"
    "   TERMS AND CONDITIONS FOR USE\n\n"
    "   1. Definitions.\n\n"
    + '      "License" shall mean the terms and conditions for use, reproduction,\n' * 3
    + "\n   2. Grant of Copyright License.\n\n"
    + "      Each Contributor hereby grants to You a perpetual, worldwide, non-\n" * 3
    + "\n   END OF TERMS AND CONDITIONS\n\n"
    "   APPENDIX: How to apply the License to your work.\n\n"
    "      To apply the License to your work, attach the following notice.\n"
)


def test_a_centred_title_and_dividers_at_the_texts_margin_are_read():
    assert heads(LICENCE_HEAD) == [
        (1, "Apache License"),
        (2, "TERMS AND CONDITIONS FOR USE"),
        (3, "1 Definitions"),
        (3, "2 Grant of Copyright License"),
        (2, "APPENDIX: How to apply the License to your work"),
    ]


def test_an_indented_first_line_that_is_not_centred_is_no_title():
    body = "This line is body text that runs on to the full width of the page here.\n" * 4
    assert heads("        Indented but far from centred\n" + body) == []
    assert heads(" " * 30 + "Centred but last\n") == []  # no body under it
