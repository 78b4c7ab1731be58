"""Invariants over generated documents: every chunker's contract, and the metrics'."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from samples import SPEC_CHUNKERS, corpora, markdown_documents

from lab import LabConfig, build_corpus, build_index, parse_document, run_lab
from lab.chunkers.base import fit_units
from lab.generate import generate_corpus
from lab.retrieval import Retrieval
from lab.text import tokenize

UNIT_BASED = ("sentence", "structure", "qes-dp", "qes-greedy")
# What a chunker promises to cover: every character, every unit, or every unit but headings.
COVERS = {
    "fixed": "characters",
    "sentence": "units",
    "qes-dp": "units",
    "qes-greedy": "units",
    "structure": "body units",
}
sizes = st.sampled_from([20, 45, 80, 160, 300, 450])


@st.composite
def generated_corpora(draw):
    """The benchmark generator at small sizes: structured handbooks with cross-references."""
    text, qe = generate_corpus(
        target_chars=draw(st.integers(1500, 5000)),
        n_questions=draw(st.integers(2, 8)),
        seed=draw(st.integers(0, 10_000)),
    )
    return build_corpus({"generated": text}, qe)


any_corpus = st.one_of(corpora(), generated_corpora())


def check_chunk_contract(corpus, chunker, size, overlap, headers, resolve_refs):
    doc = corpus.documents[0]
    text, units = doc.text, doc.units
    index = build_index(
        corpus,
        chunker,
        size,
        overlap=overlap,
        headers=headers,
        refs="delivered" if resolve_refs else "off",
    )
    chunks = index.chunks
    assert chunks
    # Unit-based chunkers cut on units, and on the pieces of units longer than L.
    pieces = fit_units(doc, size).doc.units
    starts = {u.start for u in pieces}
    ends = {u.end for u in pieces}
    headings = {(u.start, u.end) for u in units if u.kind == "heading"}
    for c in chunks:
        s, e = c.source[0]
        # Offsets match the text: the body follows the prefix; every source range is in the text.
        assert c.text.startswith(c.prefix)
        assert c.text[len(c.prefix) :].startswith(text[s:e])
        assert all(0 <= a < b <= len(text) and text[a:b] in c.text for a, b in c.source)
        assert c.words == len(c.text.split())
        if chunker in COVERS and chunker != "structure" and not headers:
            assert c.prefix == ""
        # Bodies stay within L, but for a heading line longer than L (fixed windows: always).
        assert e - s <= size or (s, e) in headings
        assert chunker != "fixed" or e - s <= size
        if chunker in UNIT_BASED:
            assert s in starts and e in ends  # cut on unit boundaries only
    bodies = [c.source[0] for c in chunks]
    if COVERS.get(chunker) == "characters":
        covered = np.zeros(len(text), dtype=bool)
        for s, e in bodies:
            covered[s:e] = True
        assert covered.all()
    elif chunker in COVERS:
        must_cover = [u for u in pieces if COVERS[chunker] == "units" or u.kind != "heading"]
        assert all(any(s <= u.start and u.end <= e for s, e in bodies) for u in must_cover)
    if chunker == "structure":
        assert all(len(c.provisions) == 1 for c in chunks)
    if chunker in ("sentence", "qes-dp", "fixed", "structure"):
        assert [s for s, _ in bodies] == sorted(s for s, _ in bodies)
    if chunker == "qes-dp":  # a segmentation: consecutive, non-overlapping
        assert all(a[1] <= b[0] for a, b in zip(bodies, bodies[1:], strict=False))
    assert len({c.id for c in chunks}) == len(chunks)
    return chunks


@given(
    any_corpus,
    st.sampled_from(SPEC_CHUNKERS),
    sizes,
    st.integers(0, 60),
    st.booleans(),
    st.booleans(),
)
def test_every_chunker_keeps_its_contract(corpus, chunker, size, overlap, headers, resolve_refs):
    overlap = min(overlap, size // 2)  # a step of at least L/2 keeps fixed windows few
    first = check_chunk_contract(corpus, chunker, size, overlap, headers, resolve_refs)
    again = build_index(
        corpus,
        chunker,
        size,
        overlap=overlap,
        headers=headers,
        refs="delivered" if resolve_refs else "off",
    )
    assert again.chunks == first  # deterministic


@given(markdown_documents(), sizes)
def test_parser_units_are_ordered_trimmed_and_never_empty(text, size):
    doc = parse_document(text)
    previous_end = 0
    for u in doc.units:
        piece = text[u.start : u.end]
        assert previous_end <= u.start < u.end
        assert piece == piece.strip()
        previous_end = u.end
    for p in doc.provisions:
        assert 0 <= p.first <= p.stop <= len(doc.units)
        assert (p.path == "") == (p.heading is None)
        assert all(u.provision == p.index for u in doc.units[p.first : p.stop])
    assert all(u.provision >= 0 for u in doc.units if u.kind != "heading")
    for r in doc.references:
        assert r.source != r.target
        assert doc.provisions[r.target].id is not None


@given(markdown_documents())
def test_headers_change_prefixes_only(text):
    corpus = build_corpus({"d": text}, None)
    for chunker in UNIT_BASED + ("fixed",):
        plain = build_index(corpus, chunker, 120)
        headed = build_index(corpus, chunker, 120, headers=True)
        assert [c.source for c in plain.chunks] == [c.source for c in headed.chunks]
        for a, b in zip(plain.chunks, headed.chunks, strict=True):
            assert b.text == b.prefix + a.text[len(a.prefix) :]


@given(any_corpus, st.sampled_from(SPEC_CHUNKERS), sizes, st.booleans(), st.booleans())
def test_indexed_tokens_are_the_tokens_of_each_chunk_text(
    corpus, chunker, size, headers, resolve_refs
):
    index = build_index(
        corpus,
        chunker,
        size,
        overlap=size // 2,
        headers=headers,
        refs="delivered" if resolve_refs else "off",
    )
    term = {i: t for t, i in index.bm25.vocab.items()}
    for chunk, ids in zip(index.chunks, index.bm25.token_ids, strict=True):
        assert [term[i] for i in ids] == tokenize(chunk.search_text)


# --- metrics ----------------------------------------------------------------------------------


@given(
    any_corpus, st.integers(1, 200), st.sampled_from([60, 160, 300]), st.booleans(), st.booleans()
)
def test_metrics_invariants(corpus, budget, size, headers, resolve_refs):
    config = LabConfig(
        chunkers=SPEC_CHUNKERS,
        size=size,
        budget=budget,
        split="all",
        headers=headers,
        refs="delivered" if resolve_refs else "off",
        overlap=min(50, size - 1),
    )
    with np.errstate(all="raise"):
        result = run_lab(corpus, config)
    for run in result.runs:
        for q in run.questions:
            assert q.complete <= q.partial
            assert q.words == sum(p.words for p in q.context) <= budget
            assert [p.rank for p in q.context] == sorted(p.rank for p in q.context)
        m = run.metrics
        assert m.complete <= m.partial and m.gap == m.partial - m.complete
        assert m.mean_context_words <= budget
    assert run_lab(corpus, config).to_dict() == result.to_dict()


@given(
    any_corpus,
    st.integers(1, 200),
    st.sampled_from(SPEC_CHUNKERS),
    st.sampled_from(["flat", "graph"]),
)
def test_picked_chunks_all_have_positive_scores(corpus, budget, chunker, mode):
    index = build_index(corpus, chunker, 160)
    with np.errstate(all="raise"):
        retrieval = Retrieval.of(index, corpus.questions, mode)
        results = retrieval.evaluate(budget)
    at = {c.id: k for k, c in enumerate(index.chunks)}
    for ranking, result in zip(retrieval.rankings, results, strict=True):
        assert all(ranking.score[at[p.chunk]] > 0 for p in result.context)
        assert all(ranking.score[k] > 0 for k in ranking.order)
        assert (ranking.score[np.setdiff1d(np.arange(len(index.chunks)), ranking.order)] <= 0).all()
