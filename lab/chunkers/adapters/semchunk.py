"""semchunk, which returns each chunk's offsets itself."""

from __future__ import annotations

from ...parse import Document
from ..base import Params, Plan, register
from .locate import offsets_plan

INSTALL = "pip install -r requirements-pipelines.txt"
REQUIRES = ("semchunk",)


def chunks_of(text: str, p: Params) -> tuple[list[str], list[tuple[int, int]]]:
    """``chunkerify(length, chunk_size=L)(text, offsets=True, overlap=overlap or None)``: the
    chunks and their offsets, measured by the lab's length function."""
    import semchunk

    chunker = semchunk.chunkerify(p.length, chunk_size=p.size)
    return chunker(text, offsets=True, overlap=p.overlap or None)


@register(
    "semchunk",
    "semchunk",
    "semchunk: splits at the most meaningful separator present (blank lines, line breaks, "
    "sentence ends, clauses, words), merging pieces up to L, with `overlap` carried over.",
    order=37,
    overlap=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def semchunk_chunker(doc: Document, p: Params) -> Plan:
    chunks, offsets = chunks_of(doc.text, p)
    return offsets_plan(doc.text, ((c, s, e) for c, (s, e) in zip(chunks, offsets, strict=True)))
