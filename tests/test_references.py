"""Reference placement: cited provisions' text delivered with the chunk, in the index only, or
off; and the older on/off switch still understood."""

import pytest

from lab import LabConfig, build_corpus, build_index, configure, explain, run_lab
from lab.chunkers import REFERENCE_MARK, REFERENCE_PLACEMENTS, Params, references_switched

RULES = """\
## 1 Definitions

### 1.1 Dark window

A dark window is night time. It lasts an hour.

### 1.2 Torch

Torches are red. Use them as Section 1.1 says.
"""
DARK = "A dark window is night time. It lasts an hour."
TORCH = "Torches are red. Use them as Section 1.1 says."
TORCH_PATH = "1 Definitions \u203a 1.2 Torch"
CITED = f"{REFERENCE_MARK} Section 1.1 Dark window: {DARK}"


def corpus(question="How long does a dark window last for torches?"):
    qe = [{"id": "q", "question": question, "evidence": [TORCH, DARK]}]
    return build_corpus({"rules": RULES}, qe)


def torch_chunk(refs):
    index = build_index(corpus(), "structure", 450, refs=refs)
    return index, index.chunks[1]


def test_delivered_references_are_in_the_chunk_its_words_and_its_sources():
    _, chunk = torch_chunk("delivered")
    assert chunk.text == f"[{TORCH_PATH}] {TORCH} {CITED}"
    assert chunk.search is None
    assert chunk.words == len(chunk.text.split()) == 29  # 5 path + 9 body + 15 cited
    assert [RULES[s:e] for s, e in chunk.source] == [TORCH, DARK]


def test_index_only_references_are_matched_but_not_delivered_or_charged():
    _, chunk = torch_chunk("index-only")
    assert chunk.text == f"[{TORCH_PATH}] {TORCH}"
    assert chunk.search == f"[{TORCH_PATH}] {TORCH} {CITED}"
    assert chunk.words == len(chunk.text.split()) == 14  # 5 path + 9 body
    assert [RULES[s:e] for s, e in chunk.source] == [TORCH]


def test_off_has_no_reference_text_anywhere():
    _, chunk = torch_chunk("off")
    assert chunk.text == f"[{TORCH_PATH}] {TORCH}" and chunk.search is None
    assert chunk.cites  # the citation is still known; nothing is done with it


@pytest.mark.parametrize(("refs", "scores"), [("index-only", True), ("off", False)])
def test_the_cited_words_make_the_citing_chunk_score_only_when_indexed(refs, scores):
    index, _ = torch_chunk(refs)
    q = corpus("How long does a window last?").questions[0]
    e = explain(index, q, "flat", 100)
    assert bool(e.ranking.bm25[1] > 0) is scores  # "window" and "last" are only in the cited text


@pytest.mark.parametrize(("refs", "xref"), [("delivered", 1), ("index-only", 1), ("off", 0)])
def test_reference_edges_exist_unless_references_are_off(refs, xref):
    index, _ = torch_chunk(refs)
    assert index.graph.edge_counts()["xref"] == xref


@pytest.mark.parametrize(("refs", "holders"), [("delivered", [0, 1]), ("index-only", [0])])
def test_evidence_in_cited_text_counts_only_where_it_is_delivered(refs, holders):
    index, _ = torch_chunk(refs)
    dark = index.corpus.questions[0].evidence[1]
    assert index.holding(dark).tolist() == holders


def test_index_statistics_measure_what_is_delivered():
    stats = {
        refs: run_lab(corpus(), LabConfig(chunkers=("structure",), refs=refs, size=60))
        .runs[0]
        .index
        for refs in ("delivered", "index-only")
    }
    dark_chars = len(f"[1 Definitions \u203a 1.1 Dark window] {DARK}")
    torch_chars = len(f"[{TORCH_PATH}] {TORCH} {CITED}")
    assert stats["delivered"].max_delivered_chars == torch_chars == 28 + 46 + 1 + 73
    assert stats["delivered"].delivered_over_size == 2  # both over L = 60 with their prefixes
    assert stats["index-only"].max_delivered_chars == dark_chars == 34 + 46
    assert stats["delivered"].max_chars == stats["index-only"].max_chars == len(TORCH)


def test_older_resolve_refs_switch_is_read_where_old_settings_are_translated():
    assert configure(LabConfig(), "resolve_refs=false").refs == "off"
    assert configure(LabConfig(refs="off"), "resolve_refs=true").refs == "delivered"
    assert configure(LabConfig(refs="index-only"), "resolve_refs=true").refs == "index-only"
    assert configure(LabConfig(refs="index-only"), "resolve_refs=false").refs == "off"
    with pytest.raises(TypeError, match="resolve_refs"):
        LabConfig(resolve_refs=False)
    with pytest.raises(TypeError, match="resolve_refs"):
        build_index(corpus(), "structure", 450, resolve_refs=False)
    with pytest.raises(TypeError, match="resolve_refs"):
        Params(450, resolve_refs=False)  # chunkers are given the placement, and read it
    assert [Params(450, refs=r).resolve_refs for r in ("delivered", "index-only", "off")] == [
        True,
        True,
        False,
    ]
    switched = [references_switched(r, on) for on in (True, False) for r in REFERENCE_PLACEMENTS]
    assert switched == ["delivered", "index-only", "delivered", "off", "off", "off"]


def test_unknown_placement_names_the_choices():
    with pytest.raises(ValueError, match="refs must be one of delivered, index-only, off"):
        LabConfig(refs="sometimes")
    with pytest.raises(ValueError, match="refs must be one of"):
        build_index(corpus(), "structure", 450, refs="yes")
    with pytest.raises(ValueError, match="refs must be one of"):
        Params(450, refs="yes")
    with pytest.raises(ValueError, match="refs must be one of"):
        references_switched("yes", False)


def test_results_carry_the_placement():
    result = run_lab(corpus(), LabConfig(chunkers=("structure",), refs="index-only"))
    assert result.to_dict()["config"]["refs"] == "index-only"
    assert "resolve_refs" not in result.to_dict()["config"]
