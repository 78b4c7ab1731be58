"""The bundled handbook: its shape (SPEC section 10) and the mechanisms it is written to show.

Defaults unless a test says otherwise: L = 450 characters, B = 120 words, test split, cross-
references resolved, no heading prefixes. The mechanism sections follow results 1-5 of the seed
article (shared/seeds/000_bddd1b66d5f4c2d6.txt).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lab import CHUNKERS, LabConfig, build_index, explain, load_corpus, parse_document, run_lab
from lab.metrics import starts_at_heading
from lab.text import tokenize

DATA = Path(__file__).resolve().parents[1] / "data"
DOC = DATA / "handbook.md"
QE = DATA / "handbook_qe.json"

SIZE, BUDGET = 450, 120
MODES = ("flat", "graph")
# Every chunker that runs without an embedding model (semantic needs one).
KEYWORD_CHUNKERS = tuple(n for n, s in CHUNKERS.items() if not s.dense)
WINDOWED = ("fixed", "sentence")
CASES = {"hub": "q07", "vocabulary-gap": "q08", "stranded-heading": "q05", "limit-exception": "q04"}

SECTION = re.compile(r"^## (\d+) (\S.*)$", re.M)
PROVISION = re.compile(r"^### (\d+)\.(\d+) (\S.*)$", re.M)


@pytest.fixture(scope="module")
def text():
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def qe():
    return json.loads(QE.read_text(encoding="utf-8"))["questions"]


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(DOC, QE)


@pytest.fixture(scope="module")
def doc(corpus):
    return corpus.documents[0]


@pytest.fixture(scope="module")
def result(corpus):
    return run_lab(
        corpus, LabConfig(chunkers=KEYWORD_CHUNKERS, size=SIZE, budget=BUDGET, split="test")
    )


def question(corpus, qid):
    return next(q for q in corpus.questions if q.id == qid)


def provision(doc, pid):
    return next(p for p in doc.provisions if p.id == pid)


def provision_of(doc, ev):
    """Id of the provision owning an evidence span."""
    return doc.provisions[doc.units[ev.first].provision].id


def body(doc, pid):
    start, end = doc.body_span(provision(doc, pid))
    return doc.text[start:end]


def chunk_of(index, doc, pid):
    """The structure chunk of a provision that fits in one chunk."""
    p = provision(doc, pid)
    (k,) = [k for k, c in enumerate(index.chunks) if c.provisions == (p.index,)]
    return k


def occurrences(needle, haystack):
    pattern = r"\s+".join(re.escape(w) for w in needle.split())
    return len(re.findall(pattern, haystack))


# --- shape (SPEC section 10) ----------------------------------------------------------------------


def test_loads_cleanly(corpus, qe):
    assert corpus.errors == ()
    assert len(corpus.documents) == 1
    assert len(corpus.questions) == len(qe) == 25


def test_length_is_5000_to_7000_characters(text):
    assert 5000 <= len(text) <= 7000


def test_six_to_eight_sections_of_two_to_four_provisions(text, doc):
    sections = SECTION.findall(text)
    assert 6 <= len(sections) <= 8
    assert [int(n) for n, _ in sections] == list(range(1, len(sections) + 1))
    provisions = PROVISION.findall(text)
    for n, _ in sections:
        numbers = [int(m) for s, m, _ in provisions if s == n]
        assert 2 <= len(numbers) <= 4, f"section {n} has {len(numbers)} provisions"
        assert numbers == list(range(1, len(numbers) + 1))
    # every provision heading is a parsed provision, in order, with a heading path
    parsed = [p for p in doc.provisions if p.id]
    assert [p.id for p in parsed] == [f"{s}.{m}" for s, m, _ in provisions]
    assert all(p.path.count(" › ") == 1 for p in parsed)


def test_definitions_are_cited_by_other_provisions(text, doc):
    assert SECTION.findall(text)[0] == ("1", "Definitions")
    definitions = [p for p in doc.provisions if p.id and p.id.startswith("1.")]
    assert len(definitions) >= 4
    cited = {}
    for r in doc.references:
        target = doc.provisions[r.target]
        if target in definitions and r.source != r.target:
            cited.setdefault(target.id, set()).add(doc.provisions[r.source].id)
    assert len(cited) >= 4, f"only {sorted(cited)} are cited"
    for pid, sources in cited.items():
        # cited by number, "Section 1.x", from outside the definition itself
        assert any(re.search(rf"Section {re.escape(pid)}\b", body(doc, s)) for s in sources)


def test_at_least_eight_cross_references(doc):
    assert len(doc.references) >= 8
    assert parse_document(doc.text).references == doc.references


def test_one_provision_is_longer_than_the_chunk_size(doc):
    lengths = {p.id: len(body(doc, p.id)) for p in doc.provisions if p.id}
    assert max(lengths.values()) > SIZE


def test_twelve_train_and_thirteen_test_questions(corpus, qe):
    assert len({q["id"] for q in qe}) == 25
    assert sum(q.split == "train" for q in corpus.questions) == 12
    assert sum(q.split == "test" for q in corpus.questions) == 13


def test_most_questions_need_evidence_from_two_provisions(corpus, doc):
    multi = [
        q.id
        for q in corpus.questions
        if len(q.evidence) >= 2 and len({provision_of(doc, ev) for ev in q.evidence}) >= 2
    ]
    assert len(multi) >= 18, multi


def test_every_evidence_string_occurs_exactly_once(text, qe):
    for q in qe:
        for ev in q["evidence"]:
            assert occurrences(ev, text) == 1, (q["id"], ev[:40])


def test_case_questions_are_present(corpus, qe):
    assert {q["case"]: q["id"] for q in qe if "case" in q} == CASES
    assert {q.case: q.id for q in corpus.questions if q.case} == CASES


def test_limit_and_exception_sit_in_different_provisions(corpus, doc):
    q = question(corpus, CASES["limit-exception"])
    assert [provision_of(doc, ev) for ev in q.evidence] == ["3.1", "3.2"]
    limit, exception = (ev.text for ev in q.evidence)
    assert "12" in limit and "24" in exception


def test_vocabulary_gap_question_shares_no_token_with_its_rule(corpus):
    q = question(corpus, CASES["vocabulary-gap"])
    rule = q.evidence[0]
    assert rule.text.startswith("Children under 10")
    assert not set(tokenize(q.question)) & set(tokenize(rule.text))


def test_stranded_heading_key_term_is_only_in_the_heading(corpus, doc):
    q = question(corpus, CASES["stranded-heading"])
    (ev,) = q.evidence
    p = doc.provisions[doc.units[ev.first].provision]
    asked = set(tokenize(q.question))
    assert set(tokenize(p.title)) <= asked
    assert not asked & set(tokenize(ev.text))
    assert ev.first == p.first  # the rule is the provision's first sentence


def test_hub_rule_does_not_cite_its_definition(corpus, doc):
    q = question(corpus, CASES["hub"])
    assert [provision_of(doc, ev) for ev in q.evidence] == ["4.3", "1.3"]
    hub = provision(doc, "1.3")
    citing = {doc.provisions[r.source].id for r in doc.references if r.target == hub.index}
    assert len(citing) >= 3
    assert "4.3" not in citing  # so the rule's own chunk never carries the definition


# --- mechanism 1 (result 1): partial recall flatters ----------------------------------------------


@pytest.mark.parametrize("split", ["test", "train", "all"])
def test_complete_recall_never_exceeds_partial(corpus, split):
    config = LabConfig(chunkers=KEYWORD_CHUNKERS, size=SIZE, budget=BUDGET, split=split)
    result = run_lab(corpus, config)
    assert len(result.runs) == len(KEYWORD_CHUNKERS) * len(MODES)
    for run in result.runs:
        assert run.metrics.complete <= run.metrics.partial, (run.chunker, run.mode)
        assert all(q.partial for q in run.questions if q.complete)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunker", WINDOWED)
def test_windowed_chunkers_show_a_clear_gap(result, chunker, mode):
    m = result.run(chunker, mode).metrics
    assert m.partial - m.complete >= 0.25
    assert m.gap == pytest.approx(m.partial - m.complete)


# --- mechanism 2 (result 2): at L = 800 no window fits a 120-word budget --------------------------


@pytest.fixture(scope="module")
def wide(corpus):
    return run_lab(corpus, LabConfig(size=800, budget=BUDGET, chunkers=WINDOWED))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunker", WINDOWED)
def test_800_character_windows_never_fit_the_budget(corpus, wide, chunker, mode):
    run = wide.run(chunker, mode)
    assert run.index.chunks > 0
    assert run.index.over_budget == run.index.chunks
    assert run.metrics.mean_chunks == 0
    assert run.metrics.mean_context_words == 0
    assert run.metrics.complete == 0 and run.metrics.partial == 0


@pytest.mark.parametrize("chunker", WINDOWED)
def test_every_800_character_window_is_longer_than_the_budget(corpus, chunker):
    index = build_index(corpus, chunker, 800)
    assert int(index.words.min()) > BUDGET
    if chunker == "fixed":
        assert {c.body_chars for c in index.chunks} == {800}


# --- mechanism 3 (result 3): the optimal chunker strands headings ---------------------------------


@pytest.fixture(scope="module")
def dp(corpus):
    return build_index(corpus, "qes-dp", SIZE)


def test_qes_dp_keeps_every_training_span_intact(corpus, dp, result):
    train = [ev for q in corpus.split("train") for ev in q.evidence]
    assert train and all(len(dp.holding(ev)) for ev in train)
    assert result.run("qes-dp", "flat").index.evidence_intact == 1.0
    assert result.run("qes-dp", "flat").index.objective == dp.objective > 0


def test_qes_dp_rarely_starts_a_chunk_at_a_heading(result):
    dp_share = result.run("qes-dp", "flat").index.heading_starts
    structure_share = result.run("structure", "flat").index.heading_starts
    assert 0 <= dp_share <= 0.25
    assert structure_share >= 0.75
    assert dp_share < structure_share / 2
    reported = result.index_frame().set_index("chunker")["heading_starts"]
    assert reported["qes-dp"] == dp_share and reported["structure"] == structure_share


def test_stranded_heading(corpus, doc, dp):
    q = question(corpus, CASES["stranded-heading"])
    (ev,) = q.evidence
    (k,) = dp.holding(ev).tolist()
    rule = dp.chunks[k]
    assert not starts_at_heading(dp, rule)
    assert rule.start == ev.start  # the cut falls between the heading and its rule
    heading = doc.units[provision(doc, "5.2").heading]
    before = dp.chunks[k - 1]
    assert before.start <= heading.start and heading.end <= before.end
    assert doc.text[before.start : before.end].rstrip().endswith("### 5.2 Emergency kit")
    for mode in MODES:
        e = explain(dp, q, mode, BUDGET)
        assert not e.result.complete
        assert int(e.ranking.order[0]) == k - 1  # the query finds the stranded heading
    # the structure chunker keeps the heading with its rule (in the path prefix) and finds it
    structure = build_index(corpus, "structure", SIZE)
    assert all(explain(structure, q, mode, BUDGET).result.complete for mode in MODES)


# --- mechanism 4 (result 4): the chunk graph helps where definitions are hubs ---------------------


@pytest.fixture(scope="module")
def hub(corpus):
    return question(corpus, CASES["hub"])


@pytest.fixture(scope="module")
def structure_refs(corpus):
    return build_index(corpus, "structure", SIZE, resolve_refs=True)


@pytest.fixture(scope="module")
def structure_no_refs(corpus):
    return build_index(corpus, "structure", SIZE, resolve_refs=False)


def test_hub_is_complete_in_graph_mode_only(result, hub):
    verdicts = {
        mode: next(q for q in result.run("structure", mode).questions if q.id == hub.id)
        for mode in MODES
    }
    assert verdicts["graph"].complete
    assert verdicts["flat"].partial and not verdicts["flat"].complete


def test_hub_flat_ranking_loses_the_definition_for_space(doc, hub, structure_refs):
    e = explain(structure_refs, hub, "flat", BUDGET)
    rule, definition = e.result.evidence
    assert rule.in_context and rule.rank == 1
    assert not definition.in_context and definition.diagnosis == "over budget"
    words = structure_refs.words
    positions = e.ranking.positions()
    k = chunk_of(structure_refs, doc, "1.3")
    first = int(e.ranking.order[0])
    assert words[first] + words[k] <= BUDGET  # it would have fitted after the rule alone...
    before = [p for p in e.context.picked if positions[p] < positions[k]]
    after = [p for p in e.context.picked if positions[p] > positions[k]]
    between = int(e.ranking.order[1])
    assert before == [first, between]  # ...but a chunk ranked in between took the space
    assert after and all(words[p] < words[k] for p in after)  # `continue`: a shorter chunk fills in
    holders = {int(h) for ev in hub.evidence for h in structure_refs.holding(ev)}
    assert not holders & set(e.context.picked[1:])  # neither of them holds any evidence


def test_hub_graph_lifts_the_definition_through_cross_references(doc, hub, structure_refs):
    e = explain(structure_refs, hub, "graph", BUDGET)
    k = chunk_of(structure_refs, doc, "1.3")
    flat = explain(structure_refs, hub, "flat", BUDGET)
    taker = int(flat.ranking.order[1])
    assert e.ranking.pagerank[k] > e.ranking.pagerank[taker]
    assert e.ranking.score[k] > e.ranking.score[taker]
    assert k in e.context.picked
    graph = structure_refs.graph.to_networkx()
    xref_neighbours = [j for j in graph[k] if "xref" in graph[k][j]]
    assert len(xref_neighbours) >= 3


def test_hub_graph_gain_comes_from_the_xref_edges(hub, structure_no_refs):
    assert structure_no_refs.graph.edge_counts()["xref"] == 0
    for mode in MODES:
        e = explain(structure_no_refs, hub, mode, BUDGET)
        assert e.result.partial and not e.result.complete, mode


def test_without_references_graph_mode_is_not_complete(corpus, hub):
    result = run_lab(corpus, LabConfig(chunkers=("structure",), resolve_refs=False))
    assert not next(
        q for q in result.run("structure", "graph").questions if q.id == hub.id
    ).complete


# --- mechanism 5 (result 5): what none of them fixed ----------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunker", KEYWORD_CHUNKERS)
def test_vocabulary_gap_is_missed_by_every_chunker(result, corpus, chunker, mode):
    q = question(corpus, CASES["vocabulary-gap"])
    r = next(x for x in result.run(chunker, mode).questions if x.id == q.id)
    assert not r.complete
    rule = next(
        e for e, ev in zip(r.evidence, q.evidence, strict=True) if ev.text.startswith("Children")
    )
    assert not rule.in_context


def test_vocabulary_gap_reference_text_lifts_the_rule_but_not_enough(corpus, doc):
    q = question(corpus, CASES["vocabulary-gap"])
    rule = q.evidence[0]
    for refs in (True, False):
        index = build_index(corpus, "structure", SIZE, resolve_refs=refs)
        e = explain(index, q, "flat", BUDGET)
        k = chunk_of(index, doc, "3.3")
        if refs:
            # the resolved Section 1.3 text brings "terrace" into the children's chunk...
            assert e.ranking.bm25[k] > 0
            # ...but provisions that share the word outrank it and fill the budget first
            assert e.ranking.positions()[k] >= 3
            assert e.result.evidence[0].diagnosis in ("below the cut", "over budget")
        else:
            assert e.ranking.bm25[k] == 0
            assert e.result.evidence[0].diagnosis == "not ranked"
        assert not any(int(h) in e.context.picked for h in index.holding(rule))
