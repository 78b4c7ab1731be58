"""The bundled handbook: its shape (SPEC section 10) and the five results of the seed article
(shared/seeds/000_bddd1b66d5f4c2d6.txt) that it is written to teach.

The article's settings unless a test says otherwise: L = 450 characters, B = 120 words, the 13
test questions, references delivered, no heading prefixes. With 13 questions one question is
7.7 percentage points, so results are stated in questions: 2 of 13 is 15 %, 9 of 13 is 69 %.
Every count below was read off a run and checked against the mechanism the test names; the
comment beside each threshold says where the threshold comes from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lab import (
    CHUNKERS,
    DEFAULT_BUDGETS,
    DEFAULT_SIZES,
    LabConfig,
    build_index,
    explain,
    load_corpus,
    parse_document,
    run_lab,
    sweep,
)
from lab.index import starts_at_heading
from lab.text import tokenize

DATA = Path(__file__).resolve().parents[1] / "data"
DOC = DATA / "handbook.md"
QE = DATA / "handbook_qe.json"

SIZE, BUDGET = 450, 120  # the article's fixed conditions: L = 450 characters, B = 120 words
TEST_QUESTIONS = 13  # SPEC section 10: 12 train and 13 test questions
MODES = ("flat", "graph")
# The article's five chunkers (and the lab's defaults), in its order.
ARTICLE_CHUNKERS = ("fixed", "sentence", "structure", "qes-dp", "qes-greedy")
# Every chunker that runs without an embedding model (semantic needs one).
KEYWORD_CHUNKERS = tuple(n for n, s in CHUNKERS.items() if not s.dense and s.kind == "lab")
WINDOWED = ("fixed", "sentence")  # the article's "default chunkers": the tutorial windows
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


@pytest.fixture(scope="module")
def grid(corpus):
    """Flat retrieval over the default budget and size sweeps (the article's two sweeps)."""
    config = LabConfig(chunkers=ARTICLE_CHUNKERS, modes=("flat",))
    return sweep(corpus, config, budgets=DEFAULT_BUDGETS, sizes=DEFAULT_SIZES).frame()


def complete(result, chunker, mode="flat"):
    """Test questions a configuration answers completely, as a count."""
    return round(result.run(chunker, mode).metrics.complete * TEST_QUESTIONS)


def partial(result, chunker, mode="flat"):
    return round(result.run(chunker, mode).metrics.partial * TEST_QUESTIONS)


def swept(grid, chunker, *, size=SIZE, budget=BUDGET, measure="complete"):
    row = grid[(grid.chunker == chunker) & (grid["size"] == size) & (grid.budget == budget)]
    return round(float(row[measure].iloc[0]) * TEST_QUESTIONS)


def question(corpus, qid):
    return next(q for q in corpus.questions if q.id == qid)


def verdict(result, chunker, mode, qid):
    return next(q for q in result.run(chunker, mode).questions if q.id == qid)


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
    assert len(corpus.questions) == len(qe) == 25  # SPEC section 10: 25 questions


def test_length_is_5000_to_7000_characters(text):
    assert 5000 <= len(text) <= 7000  # SPEC section 10: about 5,000 to 7,000 characters


def test_six_to_eight_sections_of_two_to_four_provisions(text, doc):
    sections = SECTION.findall(text)
    assert 6 <= len(sections) <= 8  # SPEC section 10: 6-8 "## N Title" sections
    assert [int(n) for n, _ in sections] == list(range(1, len(sections) + 1))
    provisions = PROVISION.findall(text)
    for n, _ in sections:
        numbers = [int(m) for s, m, _ in provisions if s == n]
        # SPEC section 10: each section has 2-4 "### N.M Title" provisions
        assert 2 <= len(numbers) <= 4, f"section {n} has {len(numbers)} provisions"
        assert numbers == list(range(1, len(numbers) + 1))
    # every provision heading is a parsed provision, in order, with a heading path
    parsed = [p for p in doc.provisions if p.id]
    assert [p.id for p in parsed] == [f"{s}.{m}" for s, m, _ in provisions]
    assert all(p.path.count(" › ") == 1 for p in parsed)


def test_definitions_are_cited_by_other_provisions(text, doc):
    assert SECTION.findall(text)[0] == ("1", "Definitions")
    definitions = [p for p in doc.provisions if p.id and p.id.startswith("1.")]
    assert len(definitions) >= 4  # SPEC section 10: at least four defined terms
    cited = {}
    for r in doc.references:
        target = doc.provisions[r.target]
        if target in definitions and r.source != r.target:
            cited.setdefault(target.id, set()).add(doc.provisions[r.source].id)
    # SPEC section 10: the defined terms are cited by other provisions
    assert len(cited) >= 4, f"only {sorted(cited)} are cited"
    for pid, sources in cited.items():
        # cited by number, "Section 1.x", from outside the definition itself
        assert any(re.search(rf"Section {re.escape(pid)}\b", body(doc, s)) for s in sources)


def test_at_least_eight_cross_references(doc):
    assert len(doc.references) >= 8  # SPEC section 10: at least eight cross-references in all
    assert parse_document(doc.text).references == doc.references


def test_one_provision_is_longer_than_the_chunk_size(doc):
    lengths = {p.id: len(body(doc, p.id)) for p in doc.provisions if p.id}
    assert max(lengths.values()) > SIZE  # SPEC section 10: one provision longer than 450


def test_twelve_train_and_thirteen_test_questions(corpus, qe):
    assert len({q["id"] for q in qe}) == 25
    assert sum(q.split == "train" for q in corpus.questions) == 12  # SPEC section 10
    assert sum(q.split == "test" for q in corpus.questions) == TEST_QUESTIONS


def test_most_questions_need_evidence_from_two_provisions(corpus, doc):
    multi = [
        q.id
        for q in corpus.questions
        if len(q.evidence) >= 2 and len({provision_of(doc, ev) for ev in q.evidence}) >= 2
    ]
    # SPEC section 10: at least 18 need two or more sentences from different provisions
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
    assert not asked & set(tokenize(body(doc, p.id)))
    assert ev.first == p.first  # the rule is the provision's first sentence


def test_hub_rule_does_not_cite_its_definition(corpus, doc):
    q = question(corpus, CASES["hub"])
    assert [provision_of(doc, ev) for ev in q.evidence] == ["4.3", "1.3"]
    hub = provision(doc, "1.3")
    citing = {doc.provisions[r.source].id for r in doc.references if r.target == hub.index}
    assert len(citing) >= 3  # SPEC section 10: a definition that several provisions cite
    assert "4.3" not in citing  # so the rule's own chunk never carries the definition


# --- the article's five results -------------------------------------------------------------------


def test_result_1_partial_recall_flatters(result):
    """Every strategy finds something for 69-92 % of the questions; the default (windowed)
    chunkers assemble the whole answer less than a quarter of the time."""
    for chunker in ARTICLE_CHUNKERS:
        for mode in MODES:
            # the article's range, 69-92 %: 9 to 12 of 13 questions
            assert 9 <= partial(result, chunker, mode) <= 12, (chunker, mode)
            assert complete(result, chunker, mode) < partial(result, chunker, mode)
    assert partial(result, "fixed") == 9 and partial(result, "structure") == 12  # 69 and 92 %
    for chunker in WINDOWED:
        # "less than a quarter of the time": under 3.25 of 13, while 9 or more are partial
        assert complete(result, chunker) == 2, chunker
        assert partial(result, chunker) - complete(result, chunker) >= 7  # a gap of 54 points


def test_result_2_structure_wins_when_context_is_scarce(grid, result):
    """Provision-sized chunks fit two or three to a small budget. At 40 words structure is the
    only chunker above 10 %; at 120 it is the best; the big windows catch up by 300 words.
    Over the size sweep structure stays at 62-69 %, and at L = 800 no window fits 120 words."""
    at_40 = {c: swept(grid, c, budget=40) for c in ARTICLE_CHUNKERS}
    assert at_40["structure"] == 2  # 15 %: the only one above 10 % (more than 1.3 of 13)
    assert all(n == 0 for c, n in at_40.items() if c != "structure")  # no 60+-word window fits
    at_120 = {c: complete(result, c) for c in ARTICLE_CHUNKERS}
    assert at_120["structure"] == 9  # 69 %, the article's graph-mode figure; flat had 62 %
    assert all(n < 9 for c, n in at_120.items() if c != "structure")  # structure best at 120
    for budget in (300, 400):
        # "by 300 words the big-window chunkers have caught up": structure is no longer ahead
        windows = max(swept(grid, c, budget=budget) for c in WINDOWED)
        assert windows >= swept(grid, "structure", budget=budget) == 10, budget
    sizes = [swept(grid, "structure", size=s) for s in DEFAULT_SIZES]
    assert sizes == [8, 9, 9, 9, 9]  # the article's 62-69 %: L barely changes provisions
    for chunker in WINDOWED:
        # an 800-character window is about 130 words: none fits a 120-word budget
        assert swept(grid, chunker, size=800) == 0
        assert swept(grid, chunker, size=800, measure="partial") == 0


def test_result_3_the_provably_optimal_dp_came_last(result, corpus):
    """QES-DP is optimal for its objective, evidence kept intact, and scores lowest of the five
    on held-out questions: it cuts between a heading and its rule. The overlapping greedy,
    whose windows can start at headings, does better, and shows the training/held-out gap."""
    dp = complete(result, "qes-dp")
    assert dp == 1  # 8 % (the article: 15 %)
    assert all(dp < complete(result, c) for c in ARTICLE_CHUNKERS if c != "qes-dp")  # last
    assert result.run("qes-dp", "flat").index.evidence_intact == 1.0  # its objective is met
    assert result.run("qes-dp", "flat").index.heading_starts <= 0.1  # the article: 0 %
    greedy = complete(result, "qes-greedy")
    assert greedy == 4  # 31 % (the article: 46 %)
    trained = run_lab(corpus, LabConfig(chunkers=("qes-greedy",), modes=("flat",), split="train"))
    # the article's caveat, 83 % on its training questions against 46 % held out: 8 of 12 here
    assert round(trained.runs[0].metrics.complete * 12) == 8


def test_result_4_the_chunk_graph_helps_where_definitions_are_hubs(corpus, result):
    """Graph retrieval lifts structure by one question, the hub question, whose definition
    several provisions cite; with references off that gain is gone. Windowed chunkers gain
    nothing from the graph."""
    gained = [
        q.id
        for q in result.run("structure", "graph").questions
        if q.complete and not verdict(result, "structure", "flat", q.id).complete
    ]
    assert gained == [CASES["hub"]]  # the article: 62 % -> 69 %, one question
    assert complete(result, "structure", "graph") == 10
    for chunker in WINDOWED:
        assert complete(result, chunker, "graph") <= complete(result, chunker)  # no help
    off = run_lab(corpus, LabConfig(chunkers=("structure",), refs="off"))
    assert not any(q.complete for r in off.runs for q in r.questions if q.id == CASES["hub"])
    # without reference text and xref edges the graph falls back: 10 -> 7 of 13
    assert round(off.run("structure", "graph").metrics.complete * TEST_QUESTIONS) == 7


def test_result_5_what_none_of_them_fixed(result, corpus):
    """An age against "children under 10": no chunker, no mode, puts the rule in the context."""
    q = question(corpus, CASES["vocabulary-gap"])
    for chunker in KEYWORD_CHUNKERS:
        for mode in MODES:
            r = verdict(result, chunker, mode, q.id)
            assert not r.complete, (chunker, mode)
            assert not r.evidence[0].in_context, (chunker, mode)  # the "under 10" rule


# --- the mechanisms behind them -------------------------------------------------------------------


@pytest.mark.parametrize("split", ["test", "train", "all"])
def test_complete_recall_never_exceeds_partial(corpus, split):
    config = LabConfig(chunkers=KEYWORD_CHUNKERS, size=SIZE, budget=BUDGET, split=split)
    result = run_lab(corpus, config)
    assert len(result.runs) == len(KEYWORD_CHUNKERS) * len(MODES)
    for run in result.runs:
        assert run.metrics.complete <= run.metrics.partial, (run.chunker, run.mode)
        assert all(q.partial for q in run.questions if q.complete)


@pytest.mark.parametrize("chunker", WINDOWED)
def test_every_evidence_window_at_800_characters_is_longer_than_the_budget(corpus, chunker):
    index = build_index(corpus, chunker, 800)
    holders = {int(k) for q in corpus.split("test") for ev in q.evidence for k in index.holding(ev)}
    assert holders and all(index.chunks[k].words > BUDGET for k in holders)
    if chunker == "fixed":
        assert {c.body_chars for c in index.chunks} == {800}
        assert int(index.words.min()) > BUDGET  # every fixed window: none can ever be picked


@pytest.fixture(scope="module")
def dp(corpus):
    return build_index(corpus, "qes-dp", SIZE)


def test_qes_dp_keeps_every_training_span_intact(corpus, dp, result):
    train = [ev for q in corpus.split("train") for ev in q.evidence]
    assert train and all(len(dp.holding(ev)) for ev in train)
    assert result.run("qes-dp", "flat").index.objective == dp.objective > 0


def test_qes_dp_rarely_starts_a_chunk_at_a_heading(result):
    dp_share = result.run("qes-dp", "flat").index.heading_starts
    structure_share = result.run("structure", "flat").index.heading_starts
    assert dp_share <= 0.1  # the article's DP: 0 % (here 1 of 17 chunks, the first)
    assert structure_share >= 0.9  # one chunk per provision: all but the preamble and a split
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
    e = explain(dp, q, "flat", BUDGET)
    assert not e.result.complete
    assert int(e.ranking.order[0]) == k - 1  # the query finds the stranded heading...
    assert e.result.evidence[0].diagnosis == "not ranked"  # ...and the rule not at all
    # the structure chunker keeps the heading with its rule (in the path prefix) and finds it
    structure = build_index(corpus, "structure", SIZE)
    assert all(explain(structure, q, mode, BUDGET).result.complete for mode in MODES)


@pytest.fixture(scope="module")
def hub(corpus):
    return question(corpus, CASES["hub"])


@pytest.fixture(scope="module")
def structure_refs(corpus):
    return build_index(corpus, "structure", SIZE, refs="delivered")


@pytest.fixture(scope="module")
def structure_no_refs(corpus):
    return build_index(corpus, "structure", SIZE, refs="off")


def test_hub_is_complete_in_graph_mode_only(result, hub):
    verdicts = {mode: verdict(result, "structure", mode, hub.id) for mode in MODES}
    assert verdicts["graph"].complete
    assert verdicts["flat"].partial and not verdicts["flat"].complete


def test_hub_flat_ranking_loses_the_definition_for_space(doc, hub, structure_refs):
    e = explain(structure_refs, hub, "flat", BUDGET)
    rule, definition = e.result.evidence
    assert rule.in_context and rule.rank == 1
    assert not definition.in_context and definition.rank == 3  # the article: ranked third
    words = structure_refs.words
    k = chunk_of(structure_refs, doc, "1.3")
    first, between = (int(c) for c in e.ranking.order[:2])
    assert words[first] + words[k] <= BUDGET  # it would have fitted after the rule alone...
    assert words[first] + words[between] + words[k] > BUDGET  # ...not after the chunk between
    assert e.context.picked[:2] == (first, between)
    holders = {int(h) for ev in hub.evidence for h in structure_refs.holding(ev)}
    assert between not in holders  # which holds no evidence at all


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
    assert len(xref_neighbours) >= 3  # the provisions that cite it: 3.3, 4.1 and 4.4


def test_hub_graph_gain_comes_from_the_xref_edges(hub, structure_no_refs):
    assert structure_no_refs.graph.edge_counts()["xref"] == 0
    for mode in MODES:
        e = explain(structure_no_refs, hub, mode, BUDGET)
        assert e.result.partial and not e.result.complete, mode


def test_reference_text_brings_the_definition_into_the_rule_chunk(corpus, doc, structure_refs):
    # Results 1-2 rest on this: with references delivered, "Cars are turned away in the half
    # hour before a dark window (Section 1.1)" carries what a dark window is.
    q = question(corpus, "q14")
    k = chunk_of(structure_refs, doc, "2.1")
    assert all(k in structure_refs.holding(ev).tolist() for ev in q.evidence)
    assert structure_refs.words[k] <= 40  # small enough for the 40-word budget
    e = explain(structure_refs, q, "flat", 40)
    assert e.result.complete and e.context.picked == (k,)


def test_vocabulary_gap_reference_text_lifts_the_rule_but_not_enough(corpus, doc):
    q = question(corpus, CASES["vocabulary-gap"])
    rule = q.evidence[0]
    for refs in ("delivered", "off"):
        index = build_index(corpus, "structure", SIZE, refs=refs)
        e = explain(index, q, "flat", BUDGET)
        k = chunk_of(index, doc, "3.3")
        if refs == "delivered":
            # the resolved Section 1.3 text brings "terrace" into the children's chunk...
            assert e.ranking.bm25[k] > 0
            # ...but provisions that share the word outrank it and fill the budget first
            assert e.ranking.positions()[k] >= 3
            assert e.result.evidence[0].diagnosis in ("below the cut", "over budget")
        else:
            assert e.ranking.bm25[k] == 0
            assert e.result.evidence[0].diagnosis == "not ranked"
        assert not any(int(h) in e.context.picked for h in index.holding(rule))
