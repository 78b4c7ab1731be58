"""The corpus loader's fast paths against the plain way of computing the same thing: flat
offsets from a code-point mask against one regex match per word, and runs of three words found
by their hashes against a table of every run, on generated text (hypothesis) and real texts; QE
JSON read at once when it is shallow against the capped reading."""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import real_text

from lab.evidence import KEY_WORDS, Locator, _combine, _run_hash
from lab.jsonread import NOT_SHALLOW as _NOT_SHALLOW
from lab.jsonread import cap_nesting
from lab.jsonread import shallow as _shallow_json

REAL = [
    *sorted(Path("/usr/share/common-licenses").glob("*")),
    *sorted(Path("/usr/share/vim/vim90/doc").glob("*.txt"))[::6],
]
REAL = [p for p in REAL if p.is_file() and p.suffix != ".gz"]

# Letters, look-alikes and every kind of whitespace str.split knows (NBSP, U+3000, the
# information separators U+001C..U+001F, line and paragraph separators), and a lone surrogate.
PIECES = ["a", "b", "ab", "fi", "\ufb01", "'", "\u2019", "\u00ad", "\u00e9", "\ud800", "\U0001f600"]
PIECES += [" ", "  ", "\n", "\t", "\u00a0", "\u3000", "\x1c", "\x1f", "\u2028", "\x85", "\x0b"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def plain_offsets(text: str) -> list[int]:
    """Original offset of each character of the flat text, word by word."""
    out: list[int] = []
    for m in re.finditer(r"\S+", text):
        if out:
            out.append(out[-1] + 1)  # the space: the first character after the previous word
        out.extend(range(m.start(), m.end()))
    return out


def plain_run_starts(flat: str, run: str) -> list[int]:
    """Flat offsets of the words that begin ``run``, from a table of every run."""
    words = flat.split(" ")
    table: dict[str, list[int]] = {}
    pos = 0
    for i, word in enumerate(words):
        table.setdefault(" ".join(words[i : i + KEY_WORDS]), []).append(pos)
        pos += len(word) + 1
    return table.get(run, [])


def both_ways(text: str) -> tuple[Locator, Locator]:
    """Locators of ``text`` that find runs by reading the text (as a short text's does) and by
    the index of runs' hashes (as a long text's does past its first needles)."""
    return Locator(text), Locator(text, scan_chars=0)


def test_whitespace_table_is_what_str_split_reads():
    spaces = [c for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert max(spaces) == 0x3000
    assert re.findall(r"\s", "".join(map(chr, spaces))) == list(map(chr, spaces))


@given(texts)
def test_flat_offsets_match_one_match_per_word(text):
    locator = Locator(text)
    assert locator.flat == " ".join(text.split())
    assert locator.offsets.dtype == np.int64
    assert locator.offsets.tolist() == plain_offsets(text)


def test_flat_offsets_hand_checked():
    # "a\u3000 b\n\nc " -> "a b c": a at 0, the space at 1 (U+3000), b at 3, space at 4, c at 6
    assert Locator("a\u3000 b\n\nc ").offsets.tolist() == [0, 1, 3, 4, 6]
    assert Locator(" \n ").offsets.tolist() == []
    assert Locator("").offsets.tolist() == []


@settings(max_examples=200)
@given(texts, st.data())
def test_runs_found_by_reading_or_by_hash_are_those_a_table_of_every_run_holds(text, data):
    scanned, indexed = both_ways(text)
    words = indexed.flat.split(" ")
    runs = [
        " ".join(data.draw(st.lists(st.sampled_from(["a", "b", "ab"]), min_size=3, max_size=3)))
    ]
    if len(words) >= KEY_WORDS:
        i = data.draw(st.integers(0, len(words) - KEY_WORDS))
        runs.append(" ".join(words[i : i + KEY_WORDS]))
    for run in runs:
        assert (
            scanned.word_hits(run)
            == indexed.word_hits(run)
            == plain_run_starts(text_flat(text), run)
        )
    assert "_runs" not in vars(scanned)  # it read the text


def text_flat(text: str) -> str:
    return " ".join(text.split())


@settings(max_examples=200)
@given(texts, st.data())
def test_longer_needles_are_found_alike_by_reading_and_by_hash(text, data):
    scanned, indexed = both_ways(text)
    words = indexed.flat.split(" ")
    start = data.draw(st.integers(0, len(words)))
    needle = " ".join(words[start : start + data.draw(st.integers(0, 6))])
    needle += data.draw(st.sampled_from(["", "a", " a", "b b"]))
    assert scanned.find_all(needle) == indexed.find_all(needle)
    assert scanned.find_all(needle, 1) == indexed.find_all(needle, 1)


def test_runs_hand_checked():
    for locator in both_ways("the cat sat\n the cat  sat the cat sat down"):
        assert locator.word_hits("the cat sat") == [0, 12, 24]
        assert locator.word_hits("cat sat the") == [4, 16]
        assert locator.word_hits("sat down") == []  # two words are no run
        assert locator.word_hits("he cat sat") == []  # not at a word
        assert locator.word_hits("the cat sa") == []  # nor to one's end
        assert locator.find_all("the  cat sat down") == [(26, 42)]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_texts_offsets_and_runs(path):
    text = real_text(path)
    scanned, indexed = both_ways(text)
    assert indexed.offsets.tolist() == plain_offsets(text)
    words = indexed.flat.split(" ")
    for i in range(0, max(len(words) - KEY_WORDS, 0), max(len(words) // 50, 1)):
        run = " ".join(words[i : i + KEY_WORDS])
        expected = plain_run_starts(indexed.flat, run)
        assert scanned.word_hits(run) == indexed.word_hits(run) == expected
        sentence = " ".join(words[i : i + 12])
        assert scanned.find_all(sentence) == indexed.find_all(sentence)


@settings(max_examples=100)
@given(texts, st.data())
def test_runs_whose_hashes_all_collide_are_still_told_apart(text, data):
    from lab import evidence

    words = " ".join(text.split()).split(" ")
    runs = [" ".join(words[i : i + KEY_WORDS]) for i in range(len(words) - KEY_WORDS + 1)]
    three = st.lists(st.sampled_from(["a", "b", "ab"]), min_size=3, max_size=3)
    runs.append(" ".join(data.draw(three)))
    with pytest.MonkeyPatch.context() as patch:  # every run hashes to 0
        patch.setattr(evidence, "_combine", lambda h: np.zeros(len(next(iter(h))), np.int64))
        patch.setattr(evidence, "_run_hash", lambda words: 0)
        locator = both_ways(text)[1]
        for run in runs:
            assert locator.word_hits(run) == plain_run_starts(" ".join(words), run)


@given(st.lists(st.text(max_size=5), min_size=1, max_size=5))
def test_a_runs_hash_in_python_ints_is_the_numpy_one(words):
    arrays = [np.array([hash(w)], dtype=np.int64) for w in words]
    assert _run_hash(words) == int(_combine(arrays)[0])


json_values = st.recursive(
    st.none() | st.integers() | st.text('[]{}\\"a', max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text('[{"', max_size=2), inner, max_size=3)
    ),
    max_leaves=60,
)


@settings(max_examples=300)
@given(json_values, st.integers(0, 40), st.sampled_from(["", "]", "}", "[", "x"]))
def test_shallow_json_is_what_the_capped_reading_keeps_as_it_is(value, wrap, damage):
    text = "[" * wrap + json.dumps(value) + "]" * wrap + damage
    got = _shallow_json(text)
    capped, deep = cap_nesting(text)
    if got is _NOT_SHALLOW:
        assert deep is not None or not valid_json(capped)
    else:
        assert deep is None and capped == text
        assert got == json.loads(text)


def valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_shallow_json_hand_checked():
    assert _shallow_json("[" * 32 + "]" * 32) == json.loads("[" * 32 + "]" * 32)
    assert _shallow_json("[" * 33 + "]" * 33) is _NOT_SHALLOW
    assert _shallow_json('{"a": "[[[[["}') == {"a": "[[[[["}
    assert _shallow_json("null") is None
    assert _shallow_json("[1,") is _NOT_SHALLOW


def test_colliding_runs_hand_checked():
    from lab import evidence

    with pytest.MonkeyPatch.context() as patch:  # every run hashes to 0
        patch.setattr(evidence, "_combine", lambda h: np.zeros(len(next(iter(h))), np.int64))
        patch.setattr(evidence, "_run_hash", lambda words: 0)
        locator = both_ways("a b ab c a b a d")[1]
        assert locator.word_hits("a b a") == [9]  # not at 0: "ab" is not the word "a"
        assert locator.word_hits("b ab c") == [2]
        assert locator.word_hits("a b ab c a") == [0]
