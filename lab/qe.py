"""Question-evidence (QE) JSON: read it (bounded in size and nesting, one precise message per
problem) and check each question's fields before its evidence is located."""

from __future__ import annotations

from .collection import parse_meta, resolve_name
from .decode import decode_text
from .jsonread import JsonError, loads_capped
from .problems import CorpusError, InputError

SPLITS = ("train", "test")
MAX_QE_CHARS = 5_000_000


def parse_qe(raw: str | bytes | dict | list) -> tuple[list[dict], list[InputError]]:
    """Question objects from QE JSON (an object with "questions" or a bare list)."""
    nesting: list[InputError] = []
    if isinstance(raw, (str, bytes)):
        try:
            text = decode_text(raw, "The QE file")
        except CorpusError as exc:  # the documents are still usable: report, do not raise
            return [], [InputError(str(exc))]
        if len(text) > MAX_QE_CHARS:
            return [], [
                InputError(
                    f"The QE JSON is {len(text):,} characters; the limit is {MAX_QE_CHARS:,}."
                )
            ]
        if not text.strip():
            return [], [InputError("The QE JSON is empty.")]
        try:
            raw, notes = loads_capped(text, "The QE JSON")
        except JsonError as exc:
            return [], [*(InputError(n) for n in exc.notes), InputError(str(exc))]
        nesting = [InputError(n) for n in notes]
    items = raw.get("questions") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        return [], [
            *nesting,
            InputError(
                'The QE JSON must be a list of questions or an object with a "questions" list.'
            ),
        ]
    return items, nesting


def check_question(
    item: object, index: int, seen: set[str], doc_names: dict[str, int]
) -> tuple[dict | None, list[InputError]]:
    where = f"question #{index + 1}"
    if not isinstance(item, dict):
        return None, [InputError(f"{where} is not an object.")]
    qid = item.get("id")
    if qid is None or (isinstance(qid, str) and not qid.strip()):
        return None, [InputError(f'{where} has no "id".')]
    qid = str(qid)
    if qid in seen:
        return None, [
            InputError(f"duplicate id {qid!r}: only the first question with it is used.", qid)
        ]
    seen.add(qid)
    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        return None, [InputError('missing "question" text.', qid)]
    evidence = item.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        return None, [InputError('missing "evidence": give a list of evidence sentences.', qid)]
    split = item.get("split", "test")
    if split not in SPLITS:
        return None, [InputError(f"split {split!r} is not one of {', '.join(SPLITS)}.", qid)]
    doc = item.get("doc")
    doc_index = None
    if doc is not None:
        doc_index = resolve_name(str(doc), doc_names)
        if doc_index is None:
            return None, [_unknown_doc(doc, doc_names, qid)]
    filter, problems = parse_meta(item.get("filter"), "the filter")
    if problems:
        return None, [InputError(f"{problems[0]}; the question is left out", qid)]
    case = item.get("case")
    return {
        "id": qid,
        "question": text.strip(),
        "split": split,
        "doc": doc_index,
        "evidence": evidence,
        "case": str(case) if case is not None else None,
        "filter": filter,
    }, []


def _unknown_doc(doc: object, doc_names: dict[str, int], qid: str) -> InputError:
    return InputError(f"unknown doc {doc!r}; the corpus has {sorted(doc_names)}.", qid)


def entry_doc(
    entry: object, default: int | None, doc_names: dict[str, int], qid: str
) -> tuple[int | None, InputError | None]:
    """The document an evidence entry names (its own "doc", else its question's), or None to
    search every document."""
    if isinstance(entry, dict) and entry.get("doc") is not None:
        found = resolve_name(str(entry["doc"]), doc_names)
        if found is None:
            return None, _unknown_doc(entry["doc"], doc_names, qid)
        return found, None
    if default is None and len(doc_names) == 1:
        return 0, None
    return default, None
