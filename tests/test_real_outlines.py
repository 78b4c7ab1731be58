"""The readers scored on real documents (``tests/data/real``) against outlines written by hand
from reading each document (``outlines.json``): precision and recall of heading titles, and of
levels among the titles found, per format. Run as a script to print the table."""

import json
import re
import sys
from collections import defaultdict
from difflib import SequenceMatcher
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parent / "data" / "real"
OUTLINES = json.loads((REAL / "outlines.json").read_text(encoding="utf-8"))
TARGET_F1 = 0.9
# Levels are compared as ranks within each document: a reader that misses a parent level (the
# Apache licence's "TERMS AND CONDITIONS" divider) shifts the levels of everything under it.
TARGET_LEVELS = 0.85


def normal(title: str) -> str:
    """A title compared without case, markup, a number's trailing dot or a final colon or stop."""
    title = re.sub(r"[`*_]", "", title.lower())
    title = re.sub(r"^(\d+(?:\.\d+)*)\.(?=\s)", r"\1", " ".join(title.split()))
    return title.rstrip(".: ")


def ranks(levels: list[int]) -> list[int]:
    """Levels as their rank among the document's levels (1 the topmost used)."""
    order = {level: k for k, level in enumerate(sorted(set(levels)), 1)}
    return [order[level] for level in levels]


def read_outline(name: str, parser: str | None = None) -> tuple[str, list[tuple[int, str]]]:
    sys.path.insert(0, str(REAL.parents[2]))
    from lab.cli.outline import read_outline as read

    entry = read(REAL / name, parser)
    return entry["format"], [(h["level"], h["title"]) for h in entry["headings"]]


def score(name: str, parser: str | None = None) -> tuple[str, int, int, int, int]:
    """The format, and the headings read, expected, matched, and matched at their level."""
    format, read = read_outline(name, parser)
    expected = [(level, title) for level, title in OUTLINES[name]]
    got_titles, want_titles = [normal(t) for _, t in read], [normal(t) for _, t in expected]
    got_levels, want_levels = ranks([lv for lv, _ in read]), ranks([lv for lv, _ in expected])
    matched = levelled = 0
    blocks = SequenceMatcher(None, got_titles, want_titles, autojunk=False).get_matching_blocks()
    for a, b, size in blocks:
        for k in range(size):
            matched += 1
            levelled += got_levels[a + k] == want_levels[b + k]
    return format, len(read), len(expected), matched, levelled


def table(parser: str | None = None) -> dict[str, dict[str, float]]:
    """Per format: documents, precision, recall and F1 of titles, and level accuracy, each
    format read with the reading ``parser`` names for it (its default where it names none)."""
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for name in OUTLINES:
        format, read, expected, matched, levelled = score(name, parser)
        s = sums[format]
        s[0] += 1
        s[1] += read
        s[2] += expected
        s[3] += matched
        s[4] += levelled
    out = {}
    for format, (docs, read, expected, matched, levelled) in sorted(sums.items()):
        p, r = matched / max(read, 1), matched / max(expected, 1)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        out[format] = {
            "documents": docs,
            "precision": p,
            "recall": r,
            "f1": f1,
            "levels": levelled / max(matched, 1),
        }
    return out


def test_outlines_name_real_documents_of_every_format():
    formats = {read_outline(name)[0] for name in OUTLINES}
    assert formats == {"text", "markdown", "rst", "html", "pdf", "docx"}
    assert len(OUTLINES) >= 12


@pytest.fixture(scope="module")
def scores():
    pytest.importorskip("pypdf", reason="PDF needs pypdf (requirements.txt)")
    pytest.importorskip("docx", reason="DOCX needs python-docx (requirements.txt)")
    return table()


@pytest.mark.parametrize("format", ["text", "markdown", "rst", "html", "pdf", "docx"])
def test_the_reader_finds_the_hand_written_outline(scores, format):
    row = scores[format]
    assert row["f1"] >= TARGET_F1, row
    assert row["levels"] >= TARGET_LEVELS, row


def test_pdfminer_layout_reads_the_pdf_outline_too():
    pytest.importorskip("pdfminer", reason="parser=layout needs pdfminer.six (requirements.txt)")
    row = table("layout")["pdf"]
    assert row["f1"] >= TARGET_F1, row
    assert row["levels"] >= TARGET_LEVELS, row


if __name__ == "__main__":
    print("| format | reader | documents | precision | recall | F1 | levels right |")
    print("|---|---|---|---|---|---|---|")
    rows = [(f, "default", row) for f, row in table().items()]
    rows.append(("pdf", "layout", table("layout")["pdf"]))
    for format, reader, row in rows:
        print(
            f"| {format} | {reader} | {row['documents']} | {row['precision']:.2f} "
            f"| {row['recall']:.2f} | {row['f1']:.2f} | {row['levels']:.2f} |"
        )


def test_the_real_documents_collection_runs_with_its_questions():
    pytest.importorskip("pypdf", reason="PDF needs pypdf (requirements.txt)")
    from lab import LabConfig, load_collection, run_lab

    corpus = load_collection(REAL / "formats" / "collection.json")
    assert len(corpus.documents) == 8 and len(corpus.questions) == 27
    assert not corpus.errors
    assert {i.format for i in corpus.info} == {"text", "markdown", "rst", "html", "pdf"}
    result = run_lab(
        corpus, LabConfig(split="all", chunkers=("fixed", "structure"), modes=("flat",))
    )
    recall = result.metrics_frame().set_index("chunker")["complete"]
    assert recall["structure"] > recall["fixed"]
