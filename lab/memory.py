"""The memory an index will take, estimated from what is known before building it: the text's
length, the chunk size and how repetitive the text is; and the budget it must fit.

The estimate is deliberately conservative (it errs high). Chunks: a fixed-size window every
``size - overlap`` characters is the most any chunker cuts; each costs its text and record.
Graph mode adds lexical pairs: chunks of ordinary prose share terms with a bounded set of
others, but chunks of repeated text share them with almost every other chunk, so the pairs grow
with the square of the chunk count. The estimate therefore takes ``BASE_NEIGHBOURS`` pairs per
chunk plus ``repetition x chunks`` more, each at ``PAIR_BYTES`` (the sparse matrices' entries
and the products that make them), whatever bound the graph itself applies.

Measured (issue 22): 400 KB of repeated text at ``size = 100`` took 4 GB; this estimates 4.2 GB.
The budget is ``CHUNKING_LAB_MEMORY_MB`` megabytes, by default 500: what a 1 GB Streamlit
Community Cloud machine leaves once Python, Streamlit, pandas and numpy are loaded.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable

MEMORY_ENV = "CHUNKING_LAB_MEMORY_MB"
DEFAULT_BUDGET_MB = 500
OVERLAP = 50  # the fixed chunker's overlap: its windows are the densest cut
CHUNK_BYTES = 1_000  # a chunk's record, ranges, tokens and term-vector row, beside its text
BASE_NEIGHBOURS = 64  # lexical pairs per chunk of prose that does not repeat
PAIR_BYTES = 64  # one lexical pair in the graph's sparse matrices and their products
MB = 1_000_000

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def repetition(text: str) -> float:
    """The share of ``text``'s sentences (and lines) that repeat an earlier one, word for word
    once whitespace and case are folded: 0 for prose, near 1 for one paragraph pasted over."""
    pieces = [" ".join(p.lower().split()) for p in _SENTENCE_END.split(text)]
    pieces = [p for p in pieces if p]
    if not pieces:
        return 0.0
    return 1 - len(set(pieces)) / len(pieces)


def index_bytes(chars: int, size: int, repeated: float, overlap: int = OVERLAP) -> int:
    """Estimated bytes of one index over ``chars`` characters cut at ``size`` characters, of a
    text whose :func:`repetition` is ``repeated`` (see the module for the model)."""
    step = max(1, size - overlap, size // 2)
    chunks = math.ceil(chars / step) if chars > 0 else 0
    pairs = chunks * min(chunks, BASE_NEIGHBOURS + repeated * chunks)
    return int(chunks * (CHUNK_BYTES + 2 * size) + pairs * PAIR_BYTES)


def corpus_bytes(texts: Iterable[str], size: int) -> int:
    """Estimated bytes of one index over documents ``texts`` (each indexed on its own graph
    would take less; one graph over them all is the bound)."""
    texts = list(texts)
    chars = sum(len(t) for t in texts)
    repeated = repetition("\n".join(texts)) if texts else 0.0
    return index_bytes(chars, size, repeated)


def budget_mb(setting: str | None = None) -> float:
    """The memory budget in megabytes: ``setting`` (by default the environment's
    ``CHUNKING_LAB_MEMORY_MB``) when it is a positive finite number, else the default."""
    raw = os.environ.get(MEMORY_ENV) if setting is None else setting
    try:
        value = float(raw) if raw else DEFAULT_BUDGET_MB
    except ValueError:
        return DEFAULT_BUDGET_MB
    return value if math.isfinite(value) and value > 0 else DEFAULT_BUDGET_MB


def over_budget(texts: Iterable[str], size: int, budget: float | None = None) -> str | None:
    """Why an index of ``texts`` at chunk size ``size`` would not fit the memory budget (in
    megabytes; by default :func:`budget_mb`), or None when it fits."""
    texts = list(texts)
    limit = budget_mb() if budget is None else budget
    need = corpus_bytes(texts, size)
    if need <= limit * MB:
        return None
    chars = sum(len(t) for t in texts)
    share = repetition("\n".join(texts))
    fits = next((s for s in range(size, 4001, 50) if corpus_bytes(texts, s) <= limit * MB), None)
    hint = f"a chunk size of {fits} or more fits" if fits else "a shorter text fits"
    return (
        f"an index of these {chars:,} characters at size {size} would take about "
        f"{need / MB:,.0f} MB ({share:.0%} of the text repeats, and repeated text makes the "
        f"lexical graph grow with the square of the chunks); the budget is {limit:,.0f} MB "
        f"({MEMORY_ENV}): {hint}"
    )
