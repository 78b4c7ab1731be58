"""Tokenisation shared by BM25, the novelty rule and the lexical graph edges.

Tokens: lowercase; apostrophes dropped, other punctuation turned into spaces, except a hyphen
inside a word; one-character tokens and English stop words removed; tokens longer than four
characters lose the first matching suffix of ``ing``, ``es``, ``ed``, ``s``.
"""

from __future__ import annotations

import re
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

_APOSTROPHES = re.compile(r"['\u2019\u2018]")
_PUNCT = re.compile(r"[^\w\s-]|_")
_LOOSE_HYPHEN = re.compile(r"(?<!\w)-+|-+(?!\w)")


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
    text = _APOSTROPHES.sub("", text.lower())
    text = _LOOSE_HYPHEN.sub(" ", _PUNCT.sub(" ", text))
    return [stem(t) for t in text.split() if len(t) > 1 and t not in STOP_WORDS]
