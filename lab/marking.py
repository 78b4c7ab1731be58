"""Mark evidence by choosing units: the sentences, list items and table rows of a corpus's
documents, found by words or a phrase, each with its heading path; and the questions a corpus
holds as QE objects, their evidence pinned where it was found, so that editing and saving them
loses nothing. Evidence made from a unit is the document's own text at the unit's offsets:
exact by construction."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from .corpus import Corpus
from .decode import original_offset

MARKABLE = ("sentence", "row", "code")
KIND_NAMES = {"sentence": "sentence", "row": "table row", "code": "code"}


@dataclass(frozen=True, slots=True)
class Hit:
    """One markable unit: document ``doc`` (its index), unit ``unit``, its kind, the heading
    path it sits under ("" before the first heading) and its text at ``[start, end)``."""

    doc: int
    unit: int
    kind: str
    path: str
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """The unit's identity in a corpus: document index and start."""
        return f"{self.doc}:{self.start}"


def units(corpus: Corpus, doc: int | None = None) -> list[Hit]:
    """Every markable unit of document ``doc`` (None: of every document), in order."""
    out = []
    docs = range(len(corpus.documents)) if doc is None else [doc]
    for d in docs:
        document = corpus.documents[d]
        for k, u in enumerate(document.units):
            if u.kind not in MARKABLE or not document.text[u.start : u.end].strip():
                continue
            path = document.provisions[u.provision].path if u.provision >= 0 else ""
            text = document.text[u.start : u.end]
            out.append(Hit(d, k, u.kind, path, text, u.start, u.end))
    return out


_QUOTED = re.compile(r'"([^"]+)"')


def search(corpus: Corpus, query: str, doc: int | None = None) -> list[Hit]:
    """Units holding every word of ``query`` (case-insensitive, whole or as a word's start) and
    every ``"quoted phrase"`` in it (any run of whitespace matching any other); all units when
    the query is blank."""
    phrases = [" ".join(p.lower().split()) for p in _QUOTED.findall(query)]
    words = _QUOTED.sub(" ", query).lower().split()
    patterns = [re.compile(r"\b" + re.escape(w)) for w in words]
    hits = []
    for hit in units(corpus, doc):
        flat = " ".join(hit.text.lower().split())
        if all(p in flat for p in phrases) and all(p.search(flat) for p in patterns):
            hits.append(hit)
    return hits


_INLINE = (  # markdown's inline marks -> the text they mark, in this order
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # an image: its alt text
    (re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])"), r"\1"),  # a link: its text
    (re.compile(r"<((?:https?|mailto):[^<>\s]+)>"), r"\1"),  # an autolink: its address
    (re.compile(r"(`+)(.+?)\1"), r"\2"),  # code
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),  # struck through
    (re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])"), r"\1"),
    (re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>"), ""),  # an HTML tag
)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")  # a backslash escape: no mark
_HIDDEN = 0xE000  # escaped characters wait in the private use area while marks are removed
_LINE_START = re.compile(r"^\s*(?:>\s?)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?)?")


def readable(text: str, kind: str = "sentence") -> str:
    """A unit's text as a reader sees it rendered: without the markdown marks of its line
    (heading hashes, a bullet, a quote's ``>``), its emphasis and code marks, and a link's or
    image's address; a table row's cells between `` | ``; code as it is."""
    if kind == "code":
        return text
    if kind == "row":
        cells = text.strip().strip("|").split("|")
        return " | ".join(readable(c.strip()) for c in cells)
    escaped = _ESCAPED.search(text) is not None
    out = _ESCAPED.sub(lambda m: chr(_HIDDEN + ord(m.group(1))), text) if escaped else text
    out = _LINE_START.sub("", out, count=1)
    for pattern, replacement in _INLINE:
        out = pattern.sub(replacement, out)
    if escaped:
        out = re.sub("[\ue000-\ue07f]", lambda m: chr(ord(m.group()) - _HIDDEN), out)
    return html.unescape(out)


def entry(corpus: Corpus, doc: int, start: int, end: int) -> dict:
    """The evidence entry for ``[start, end)`` of document ``doc``: its text, pinned there (the
    start counted in the file as given, as the loader reads it: a CRLF counts as two)."""
    document = corpus.documents[doc]
    pinned = original_offset(start, corpus.removed[doc]) if corpus.removed else start
    return {"doc": document.name, "text": document.text[start:end], "start": pinned}


def anywhere(corpus: Corpus, ev) -> dict:
    """The evidence entry for evidence that accepts any occurrence: its text as located, not
    pinned, in its document when every occurrence is in that one."""
    out = {"text": corpus.documents[ev.doc].text[ev.start : ev.end], "occurrence": "any"}
    if len({d for d, _, _ in ev.occurrences}) == 1:
        out = {"doc": corpus.documents[ev.doc].name} | out
    return out


def question_items(corpus: Corpus) -> list[dict]:
    """The corpus's questions as QE objects, each evidence entry the located text pinned at
    its start in its document (evidence that accepts any occurrence stays so)."""
    items = []
    for q in corpus.questions:
        item = {
            "id": q.id,
            "question": q.question,
            "split": q.split,
            "evidence": [
                entry(corpus, e.doc, e.start, e.end)
                if e.occurrences is None
                else anywhere(corpus, e)
                for e in q.evidence
            ],
        }
        if q.case:
            item["case"] = q.case
        if q.filter:
            item["filter"] = {k: v[0] if len(v) == 1 else list(v) for k, v in q.filter}
        items.append(item)
    return items


def qe_text(items: list[dict]) -> str:
    """QE JSON of ``items``, one question to a line block, as a person would write it."""
    return json.dumps({"questions": items}, ensure_ascii=False, indent=1) + "\n"


def next_id(items: list[dict], prefix: str = "q") -> str:
    """An id no question of ``items`` has: ``prefix`` and the next number."""
    taken = {str(i.get("id")) for i in items}
    numbers = [int(m.group(1)) for t in taken if (m := re.fullmatch(rf"{prefix}(\d+)", t))]
    k = max(numbers, default=0) + 1
    while f"{prefix}{k:02d}" in taken:
        k += 1
    return f"{prefix}{k:02d}"
