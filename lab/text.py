"""Tokenisation shared by BM25, the novelty rule and the lexical graph edges.

Tokens: lowercase; apostrophes dropped, other punctuation turned into spaces, except a hyphen
inside a word; one-character tokens and English stop words removed; tokens longer than four
characters lose the first matching suffix of ``ing``, ``es``, ``ed``, ``s``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# A standard English stop-word list (NLTK's list, contractions spelled without apostrophes).
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren arent as at be because been
    before being below between both but by can cannot could couldn did didn didnt do does doesn
    doesnt doing don dont down during each few for from further had hadn hadnt has hasn hasnt have
    haven havent having he her here hers herself him himself his how i if in into is isn isnt it
    its itself just ll me mightn more most mustn my myself needn no nor not now of off on once
    only or other our ours ourselves out over own re same shan she should shouldn so some such
    than that the their theirs them themselves then there these they this those through to too
    under until up ve very was wasn wasnt we were weren werent what when where which while who
    whom why will with won wont would wouldn you your yours yourself yourselves mightnt mustnt
    neednt shant shouldnt wouldnt youd youll youre youve thats
    """.split()
)

SUFFIXES = ("ing", "es", "ed", "s")

# What is dropped, what turns into a space, and which hyphens do (those not inside a word).
_APOSTROPHES = "'\u2019\u2018"
_PUNCT = re.compile(r"[^\w\s-]|_")
_LOOSE_HYPHEN = re.compile(r"(?<!\w)-+|-+(?!\w)")
# The same steps at C speed: a regex whose first character is a class tried at every position
# reads about 10 MB/s and replaces one match at a time; a byte table or a literal search is
# many times faster.
_ASCII_PUNCT = "".join(c for c in map(chr, range(128)) if _PUNCT.match(c))
_ASCII_SPACED = bytes.maketrans(_ASCII_PUNCT.encode(), b" " * len(_ASCII_PUNCT))
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_HYPHENS = re.compile("--*")  # literal first character: the engine jumps between hyphens
_WORD = re.compile(r"\w")


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Strip the first matching suffix of ``ing``, ``es``, ``ed``, ``s`` (tokens over 4 chars)."""
    if len(token) > 4:
        for suffix in SUFFIXES:
            if token.endswith(suffix):
                return token[: -len(suffix)]
    return token


def tokenize(text: str) -> list[str]:
    """Return the BM25 tokens of ``text``.

    >>> tokenize("My 8-year-old is coming. What rule applies on the terrace?")
    ['8-year-old', 'com', 'rule', 'appli', 'terrace']
    """
    return _VOCABULARY.tokenize(text)


def tokenize_many(texts: Sequence[str]) -> list[list[str]]:
    """``[tokenize(t) for t in texts]``, in one pass over the texts joined.

    The texts are joined by a word none of them holds, with a space on each side: every step
    reads a character with its neighbours at most (lowercasing a final sigma, a hyphen), and a
    space reads as the start or end of a text does, so the joined text's steps give each text's
    result between the separators."""
    if len(texts) < 2:
        return [tokenize(t) for t in texts]
    low = "\n".join(texts).lower()
    mark = next(f"zqx{k}" for k in range(len(low) + 1) if f"zqx{k}" not in low)
    separator = f" {mark} "
    spaced = _spaced(separator.join(texts).lower())
    if spaced.count(mark) != len(texts) - 1:  # a dropped apostrophe made one ("zq'x0")
        return [tokenize(t) for t in texts]
    return [_VOCABULARY.tokens(part) for part in spaced.split(separator)]


def _spaced(low: str) -> str:
    """Lowercased text with apostrophes dropped and punctuation spaced out, but for a hyphen
    inside a word (only where the spaces fall matters: the text is split at whitespace next)."""
    for apostrophe in _APOSTROPHES:
        low = low.replace(apostrophe, "")
    # ASCII punctuation through a byte table (UTF-8 leaves other characters' bytes alone), then
    # any other punctuation the text holds through a class of just those.
    data = low.encode("utf-8", "surrogatepass").translate(_ASCII_SPACED)
    low = data.decode("utf-8", "surrogatepass")
    if not data.isascii():
        others = "".join(sorted({c for c in _NON_ASCII.findall(low) if _PUNCT.match(c)}))
        if others:
            low = _punct_class(others).sub(" ", low)
    return _HYPHENS.sub(_hyphen, low) if "-" in low else low


@lru_cache(maxsize=256)
def _punct_class(others: str) -> re.Pattern:
    """A class of the characters of ``others``."""
    return re.compile(f"[{re.escape(others)}]")


def _hyphen(m: re.Match) -> str:
    """A run of hyphens kept when it is one hyphen between word characters, else a space: what
    :data:`_LOOSE_HYPHEN` leaves, as far as where the spaces fall."""
    text, start, end = m.string, m.start(), m.end()
    if end - start > 1 or start == 0:
        return " "
    return "-" if _WORD.match(text, start - 1) and _WORD.match(text, end) else " "


KNOWN_WORDS = 500_000  # words whose tokens the tokenizer keeps (past it, it starts afresh)


class Vocabulary:
    """The token of every word seen ("" for a dropped word), so that each distinct word is
    stemmed once: at most ``limit`` words are kept, and a text that would pass it starts the
    vocabulary afresh with that text's words. The tokens are those of stemming every word."""

    def __init__(self, limit: int = KNOWN_WORDS):
        self.limit = limit
        self.known: dict[str, str] = {}

    def tokenize(self, text: str) -> list[str]:
        """:func:`tokenize` of ``text`` with this vocabulary."""
        return self.tokens(_spaced(text.lower()))

    def tokens(self, spaced: str) -> list[str]:
        """The tokens of ``spaced``, a text already lowercased and spaced out, in order."""
        words = spaced.split()
        found = list(map(self.known.get, words))
        if None in found:
            self._learn(words)
            found = list(map(self.known.get, words))
        return list(filter(None, found))

    def _learn(self, words: list[str]) -> None:
        """Add the token of each word of ``words`` not known yet (each distinct word once)."""
        new = set(words).difference(self.known)
        if len(self.known) + len(new) > self.limit:  # start afresh, with all of these words
            self.known.clear()
            new = set(words)
        for word in new:
            self.known[word] = stem(word) if len(word) > 1 and word not in STOP_WORDS else ""

    def cache_clear(self) -> None:
        """Forget every word (emptied with the functools caches, like ``stem``'s)."""
        self.known.clear()


_VOCABULARY = Vocabulary()  # the tokenizer's, shared by every text of the process
