"""Comparing two configurations: transitions, their statistics and verdict, the settings that
differ, bad pairs, ties at the top, and ranking depth, checked by hand and on the handbook."""

from dataclasses import fields, replace
from pathlib import Path

import pytest

from lab import (
    LabConfig,
    build_corpus,
    compare,
    configure,
    differences,
    leaders,
    load_corpus,
    mcnemar_exact,
    points,
    ranking_depth,
    run_lab,
    setting_names,
    uses_embeddings,
)
from lab.cli.tables import settings_note
from lab.compare import Transitions, check_pair, fewest_significant
from lab.depth import found_at
from lab.metrics import EvidenceResult, QuestionResult
from lab.stats import mcnemar_interval

DATA = Path(__file__).resolve().parent.parent / "data"
STRUCTURE_FLAT = LabConfig(chunkers=("structure",), modes=("flat",))


@pytest.fixture(scope="module")
def handbook():
    return load_corpus(DATA / "handbook.md", DATA / "handbook_qe.json")


@pytest.fixture(scope="module")
def flat_vs_graph(handbook):
    return compare(handbook, STRUCTURE_FLAT, configure(STRUCTURE_FLAT, "mode=graph"))


# --- transitions and statistics -------------------------------------------------------------


def test_transitions_count_each_kind_of_question():
    a = [True, True, False, False, True, False]
    b = [True, False, True, True, True, False]
    t = Transitions.of("complete", a, b)
    assert (t.fixed, t.broken, t.kept, t.failed) == (2, 1, 2, 1)
    assert (t.a.hits, t.b.hits, t.a.n) == (3, 4, 6)
    assert t.difference == pytest.approx(1 / 6)
    assert t.p_value == pytest.approx(1.0)  # 2 against 1: as likely as not, capped at 1
    assert t.ci == Transitions.of("complete", a, b).ci  # seeded bootstrap


def test_verdict_names_fixed_and_broken_and_says_not_significant():
    a = [True] + [False] * 3 + [True] * 2 + [False] * 7
    b = [False] + [True] * 3 + [True] * 2 + [False] * 7
    t = Transitions.of("complete", a, b)
    assert (t.fixed, t.broken) == (3, 1)
    assert t.verdict().startswith(
        "B fixes 3 questions and breaks 1: +15 points (95% interval -19 to +30). With 13 "
        "questions this difference is not significant (exact McNemar test, p = 0.62); the "
        "interval includes zero."
    )


def test_verdict_calls_six_one_way_changes_significant():
    t = Transitions.of("complete", [False] * 6 + [True] * 7, [True] * 13)
    assert (t.fixed, t.broken, t.p_value) == (6, 0, pytest.approx(0.03125))  # 2 / 2**6
    # 6 of 6 changed went B's way: Clopper-Pearson lower end 0.025 ** (1/6) = 0.5407, so the
    # interval is 6/13 * (2 * 0.5407 - 1) = +3.8 to 6/13 = +46 points
    assert t.verdict() == (
        "B fixes 6 questions and breaks none: +46 points (95% interval +4 to +46). With 13 "
        "questions this difference is significant (exact McNemar test, p = 0.031); the "
        "interval leaves out zero."
    )


def test_verdict_without_changes_says_so():
    t = Transitions.of("partial", [True, False], [True, False])
    assert t.verdict() == (
        "B fixes no question and breaks none: A and B give the same partial verdicts on all "
        "2 questions."
    )
    assert t.ci == (0.0, 0.0)


def test_six_changed_questions_are_the_fewest_that_can_be_significant():
    assert fewest_significant() == 6  # 2 / 2**5 = 0.0625 > 0.05 > 2 / 2**6


# --- on the handbook ------------------------------------------------------------------------


def test_graph_mode_fixes_a_structure_question_on_the_handbook(flat_vs_graph):
    # The handbook's definition hub: "The red-light zone covers the dome floor ..." (Section
    # 1.3), cited by the flash rule. Graph retrieval lifts it into q07's context (rank 3 -> 2),
    # so q07 goes from partial to complete; it also pushes the same hub out of q08's context
    # (rank 4 -> 5, over the budget), so q08's partial verdict breaks. One question each way:
    # nowhere near significant.
    c = flat_vs_graph
    fixed = [q.id for q in c.questions if q.transition == "fixed"]
    assert fixed == ["q07"]
    assert (c.complete.fixed, c.complete.broken, c.complete.kept, c.complete.failed) == (1, 0, 9, 3)
    assert (c.complete.a.hits, c.complete.b.hits, c.complete.a.n) == (9, 10, 13)
    assert c.complete.p_value == pytest.approx(1.0)  # one changed question: 2 * 1/2, capped at 1
    assert (c.partial.fixed, c.partial.broken, c.partial.p_value) == (0, 1, 1.0)
    assert [q.id for q in c.questions if q.partial_transition == "broken"] == ["q08"]
    assert c.verdict.startswith(
        "B fixes 1 question and breaks none: +8 points (95% interval -7 to +8). With 13 "
        "questions this difference is not significant (exact McNemar test, p = 1.00)"
    )
    assert [str(d) for d in c.differences] == ["mode (flat → graph)"]
    assert c.warning is None
    q07 = next(q for q in c.questions if q.id == "q07")
    assert (q07.a, q07.b, q07.text) == (
        "partial",
        "complete",
        "Is flash photography allowed on the dome floor?",
    )
    q08 = next(q for q in c.questions if q.id == "q08")
    assert (q08.a, q08.b, q08.transition, q08.partial_transition) == (
        "partial",
        "miss",
        "same",
        "broken",
    )


def test_comparison_reruns_to_the_same_numbers(handbook, flat_vs_graph):
    again = compare(handbook, STRUCTURE_FLAT, configure(STRUCTURE_FLAT, "mode=graph"))
    assert again.to_dict() == flat_vs_graph.to_dict()
    assert flat_vs_graph.complete.ci[0] <= 1 / 13 <= flat_vs_graph.complete.ci[1]


def test_a_changed_chunker_breaks_questions_on_the_handbook(handbook):
    # q12, q21 and q23 each need a rule and a definition elsewhere in the handbook: qes-greedy's
    # smaller trained windows fit both into 120 words, fixed windows leave the definition
    # below the cut. q15's two refund passages sit in one fixed window; qes-greedy splits them
    # and the second goes over the budget. A change that fixes one question and breaks three.
    a = LabConfig(chunkers=("qes-greedy",), modes=("flat",))
    c = compare(handbook, a, configure(a, "chunker=fixed"))
    assert (c.complete.fixed, c.complete.broken) == (1, 3)
    assert [q.id for q in c.questions if q.transition == "broken"] == ["q12", "q21", "q23"]
    assert [q.id for q in c.questions if q.transition == "fixed"] == ["q15"]
    assert c.complete.p_value == pytest.approx(0.625)  # 2 * P(X <= 1), X ~ Bin(4, 1/2) = 10/16
    assert (c.partial.fixed, c.partial.broken) == (0, 3)
    assert c.verdict.startswith("B fixes 1 question and breaks 3:")


def test_structure_against_fixed_windows_is_significant_on_the_handbook(handbook):
    # The handbook's lesson at its settings: structure fixes seven of the questions fixed windows
    # fail and breaks none, more than the six one-way changes significance needs.
    a = LabConfig(chunkers=("fixed",), modes=("flat",))
    c = compare(handbook, a, configure(a, "chunker=structure"))
    assert (c.complete.fixed, c.complete.broken) == (7, 0)
    assert c.complete.p_value == pytest.approx(2 / 2**7)
    assert c.complete.significant
    assert c.verdict == (
        "B fixes 7 questions and breaks none: +54 points (95% interval +10 to +54). With 13 "
        "questions this difference is significant (exact McNemar test, p = 0.016); the "
        "interval leaves out zero."
    )


def test_json_shape_of_a_comparison(flat_vs_graph):
    data = flat_vs_graph.to_dict()
    assert {"a", "b", "questions", "complete", "partial", "verdict", "differences"} <= set(data)
    assert data["a"]["chunkers"] == ["structure"] and data["b"]["modes"] == ["graph"]
    assert set(data["questions"][0]) == {"id", "a", "b", "transition"}
    assert {q["a"] for q in data["questions"]} <= {"complete", "partial", "miss"}
    assert {q["transition"] for q in data["questions"]} <= {"fixed", "broken", "same"}
    for measure in ("complete", "partial"):
        part = data[measure]
        assert {"fixed", "broken", "a", "b", "p_value", "ci"} <= set(part)
        assert part["a"]["interval"][0] <= part["a"]["recall"] <= part["a"]["interval"][1]
    # Wilson 95% interval of 9/13 (z = 1.95996): centre (9/13 + z²/26) / (1 + z²/13) = 0.64844,
    # half-width z·sqrt(9·4/13³ + z²/676) / (1 + z²/13) = 0.22475
    assert data["complete"]["a"]["interval"] == pytest.approx([0.4237, 0.8732])


# --- settings -------------------------------------------------------------------------------


def test_configure_reads_names_and_values():
    c = configure(LabConfig(), "chunker=qes-dp, mode=graph,size=300,headers=on,refs=index-only")
    assert (c.chunkers, c.modes, c.size, c.headers, c.refs) == (
        ("qes-dp",),
        ("graph",),
        300,
        True,
        "index-only",
    )
    assert configure(c, {"budget": "80"}).budget == 80
    assert configure(c, "") == c
    assert configure(LabConfig(), "dense=true").dense == "all-MiniLM-L6-v2"
    assert configure(LabConfig(dense="all-MiniLM-L6-v2"), "dense=off").dense is None
    assert configure(LabConfig(), "filters=off").filters is False
    assert configure(LabConfig(filters=False), {"filters": "on"}).filters is True


@pytest.mark.parametrize(
    ("base", "spec", "refs"),
    [
        ("delivered", "resolve_refs=no", "off"),
        ("index-only", "resolve_refs=false", "off"),
        ("off", "resolve_refs=true", "delivered"),
        ("index-only", "resolve_refs=on", "index-only"),  # already resolved: kept where it is
    ],
)
def test_configure_reads_the_older_resolve_refs_switch_as_refs(base, spec, refs):
    assert configure(LabConfig(refs=base), spec).refs == refs


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("chunk=structure", "unknown setting 'chunk'; settings are chunker, mode, size"),
        ("size=big", "size must be a whole number, got 'big'"),
        ("headers=maybe", "headers must be true or false, got 'maybe'"),
        ("structure", "expected NAME=VALUE, got 'structure'"),
        ("size=300,size=400", "size is given twice"),
        ("chunker=nope", "unknown chunker 'nope'"),
        ("budget=0", "budget must be a whole number of words >= 1"),
        ("refs=sometimes", "refs must be one of delivered, index-only, off, got 'sometimes'"),
        ("resolve_refs=maybe", "resolve_refs must be true or false, got 'maybe'"),
        (
            "refs=off,resolve_refs=true",
            r"refs is given twice \(refs and resolve_refs are one setting\)",
        ),
    ],
)
def test_configure_rejects_bad_settings_by_name(spec, message):
    with pytest.raises(ValueError, match=message):
        configure(LabConfig(), spec)


def test_every_configuration_field_is_a_setting_a_side_can_name():
    names = setting_names()
    assert names[:2] == ["chunker", "mode"]
    assert len(names) == len(fields(LabConfig))
    assert {"size", "budget", "headers", "refs", "dense", "late", "rerank", "filters"} <= set(names)
    assert "resolve_refs" not in names  # still read (as refs), no longer offered


def test_differences_name_every_changed_setting_and_warn_past_one(handbook):
    b = configure(STRUCTURE_FLAT, "mode=graph,budget=80,headers=true")
    assert [(d.setting, d.a, d.b) for d in differences(STRUCTURE_FLAT, b)] == [
        ("mode", ("flat",), ("graph",)),
        ("budget", 120, 80),
        ("headers", False, True),
    ]
    c = compare(handbook, STRUCTURE_FLAT, b)
    assert c.warning == (
        "A and B differ in 3 settings (mode, budget, headers): change one thing at a time, or "
        "you cannot tell which change made the difference."
    )


def test_a_pair_that_cannot_be_compared_says_why(handbook):
    with pytest.raises(ValueError, match=r"same configuration \(structure · flat\)"):
        compare(handbook, STRUCTURE_FLAT, STRUCTURE_FLAT)
    with pytest.raises(ValueError, match="A must name one chunker, got 5"):
        compare(handbook, LabConfig(modes=("flat",)), STRUCTURE_FLAT)
    with pytest.raises(ValueError, match="A uses the test split, B the train split"):
        compare(handbook, STRUCTURE_FLAT, configure(STRUCTURE_FLAT, "split=train"))
    only_test = build_corpus(
        {"d": "# D\n\n### 1.1 A\n\nAlpha is first.\n"},
        [{"id": "x", "question": "alpha", "evidence": ["Alpha is first."]}],
    )
    train = configure(STRUCTURE_FLAT, "split=train")
    with pytest.raises(ValueError, match="no train questions to compare on"):
        compare(only_test, train, configure(train, "mode=graph"))


# --- ties at the top ------------------------------------------------------------------------


def test_headline_names_the_leader_and_the_near_ties_on_the_handbook(handbook):
    top = leaders(run_lab(handbook))
    assert top.best == (("structure", "graph"),)
    assert top.near == (("structure", "flat"),)  # 9 of 13 against 10: graph adds q07
    assert top.summary() == "77%: structure · graph; 1 configuration is within one question of it"


def test_partial_headline_names_a_four_way_tie_on_the_handbook(handbook):
    top = leaders(run_lab(handbook), "partial")
    assert top.best == (
        ("structure", "flat"),
        ("qes-dp", "flat"),
        ("qes-greedy", "flat"),
        ("qes-greedy", "graph"),
    )  # 12 of 13 each
    assert len(top.near) == 4  # 11 of 13: sentence flat and graph, structure and qes-dp graph
    assert top.summary() == (
        "92%: structure · flat, qes-dp · flat, qes-greedy · flat, qes-greedy · graph "
        "(4 configurations tie); 4 configurations are within one question of them"
    )


def test_headline_names_every_tied_configuration():
    doc = "# D\n\n### 1.1 A\n\nAlpha rules here.\n\n### 1.2 B\n\nBeta rules there.\n"
    corpus = build_corpus(
        {"d": doc},
        [
            {"id": "a", "question": "alpha", "evidence": ["Alpha rules here."]},
            {"id": "b", "question": "zeta", "evidence": ["Beta rules there."]},
        ],
    )
    config = LabConfig(chunkers=("structure", "sentence"), size=100, overlap=0)
    top = leaders(run_lab(corpus, config))
    assert top.value == 0.5 and top.questions == 2
    assert len(top.best) == 4 and top.near == ()
    assert top.summary() == (
        "50%: structure · flat, structure · graph, sentence · flat, sentence · graph "
        "(4 configurations tie)"
    )


# --- ranking depth --------------------------------------------------------------------------


def question(*ranks):
    evidence = tuple(
        EvidenceResult((i, i + 1), False, "below the cut", r) for i, r in enumerate(ranks)
    )
    return QuestionResult("q", "test", False, False, (), evidence, 0)


def test_found_at_is_the_rank_of_the_last_evidence_found():
    assert found_at(question(2, 7)) == 7
    assert found_at(question(1)) == 1
    assert found_at(question(1, None)) is None


def test_depth_blames_ranking_when_evidence_sits_between_rank_4_and_10():
    d = ranking_depth([question(1), question(2, 5), question(9), question(4, 4), question(12)])
    assert d.found == {1: 1, 3: 1, 5: 3, 10: 4}
    assert (d.in_top, d.ranked_low, d.not_found) == (1, 3, 1)
    assert d.finding == "ranking"
    assert d.advice == (
        "3 of 5 questions have all their evidence in the top 10 but not in the top 3: ranking is "
        "the problem, and a reranker is worth testing. 1 more is not in the top 10."
    )


def test_depth_blames_retrieval_when_evidence_is_not_in_the_top_10():
    d = ranking_depth([question(None), question(11, 2), question(5), question(3)])
    assert (d.in_top, d.ranked_low, d.not_found) == (1, 1, 2)
    assert d.finding == "retrieval or chunking"
    assert d.advice.startswith("2 of 4 questions do not have all their evidence in the top 10")


def test_depth_with_everything_in_the_top_3_blames_neither():
    d = ranking_depth([question(1, 3), question(2)])
    assert d.finding == "neither"
    assert d.advice.startswith("All 2 questions have their evidence in the top 3")


# --- issue 21: the verdict's own interval, what partial recall did, JSON's figures -------------


def test_the_verdicts_interval_is_the_exact_tests_and_never_contradicts_it():
    """Issue 21, item 9: "B − A −38 (−69 to −15)" beside "significant: no" read as a
    contradiction: the bootstrap interval is approximate. The verdict gives the exact test's own
    interval, which leaves out zero exactly when the test calls the difference significant."""
    for fixed in range(21):
        for broken in range(21):
            if fixed + broken == 0:
                continue
            low, high = mcnemar_interval(fixed, broken, fixed + broken + 4)
            assert low <= (fixed - broken) / (fixed + broken + 4) <= high
            assert (low > 0 or high < 0) == (mcnemar_exact(fixed, broken) < 0.05), (fixed, broken)
    t = Transitions.of("complete", [True] * 5 + [False] * 8, [False] * 13)
    # 0 of 5 changed went B's way: Clopper-Pearson upper end 1 - 0.025 ** (1/5) = 0.5218, so
    # the interval is -5/13 = -38 to 5/13 * (2 * 0.5218 - 1) = +1.7 points
    assert t.exact_ci == pytest.approx((-5 / 13, 5 / 13 * (2 * 0.52182 - 1)), abs=1e-5)
    assert t.ci[1] < 0  # the bootstrap leaves out zero: the test does not
    assert t.verdict().startswith(
        "B fixes 0 questions and breaks 5: -38 points (95% interval -38 to +2). With 13 "
        "questions this difference is not significant (exact McNemar test, p = 0.062); the "
        "interval includes zero."
    )


def test_with_complete_recall_unmoved_the_verdict_says_what_partial_recall_did(handbook):
    """Issue 21, item 18: with metadata filters off, "B fixes no question and breaks none"
    hid that partial recall changed."""
    a = LabConfig(chunkers=("fixed",), modes=("flat",))
    c = compare(handbook, a, configure(a, "headers=true"))
    assert (c.complete.fixed, c.complete.broken) == (0, 0)
    assert c.partial.fixed + c.partial.broken > 0
    assert c.verdict.startswith("B fixes no question and breaks none: A and B give the same")
    assert (
        f" Partial recall (some evidence in the context) moved: B {c.partial.moves()} "
        f"({points(c.partial.difference)} points, p = "
    ) in c.verdict


def test_comparison_json_gives_shares_to_four_decimals():
    """Issue 21, item 18: 1/20 came out as 0.04999999999999999 (a subtraction's float noise);
    recall moves in steps of 1/n, so four decimals tell every step apart."""
    a = [True] * 3 + [False] * 17
    t = Transitions.of("complete", a, [True] * 4 + [False] * 16)
    assert t.difference != 0.05  # 0.2 - 0.15 in floats
    data = t.as_dict()
    assert data["difference"] == 0.05 and data["a"]["recall"] == 0.15
    assert all(round(x, 4) == x for x in data["ci"] + data["exact_ci"] + data["a"]["interval"])


def test_a_side_names_the_dense_model_only_when_it_uses_it():
    """Issue 21, item 18: the "A:" line named the dense model when A was BM25 flat."""
    dense = LabConfig(chunkers=("structure",), modes=("flat",), dense="all-MiniLM-L6-v2")
    assert not uses_embeddings(dense)
    assert "dense" not in settings_note(dense, uses_embeddings(dense))
    for changed in ("mode=hybrid", "mode=graph", "chunker=semantic", "late=true"):
        assert uses_embeddings(configure(dense, changed)), changed
    assert not uses_embeddings(replace(dense, modes=("graph",), dense=None))


def test_b_may_read_the_documents_with_another_parser_and_questions_match_by_id():
    spec = Path(__file__).resolve().parent / "data" / "real" / "formats"
    raw = (spec / "shared-mime-info-spec-ch2.html").read_text(encoding="utf-8")
    qe = {
        "questions": [
            {"id": "nav", "question": "Where next?", "evidence": ["Prev | Home | Next"]},
            {
                "id": "body",
                "question": "What was clear about the differences between the databases?",
                "evidence": ["the differences between the databases were simply a result"],
            },
        ]
    }
    main = build_corpus({"spec.html": raw}, qe)
    page = main.read_with("page")
    assert [q.id for q in main.questions] == ["body"]  # the navigation is not main content
    assert [q.id for q in page.questions] == ["nav", "body"]
    a = LabConfig(chunkers=("fixed",), modes=("flat",), split="all")
    with pytest.raises(ValueError, match="same configuration"):
        check_pair(main, a, a)
    with pytest.raises(ValueError, match="same configuration"):  # "main" is the default
        check_pair(main, a, replace(a, parser="main"))
    c = compare(main, a, replace(a, parser="page"))
    assert [str(d) for d in c.differences] == ["parser (main → page)"]
    assert [q.id for q in c.questions] == ["body"]
    assert (c.only_a, c.only_b) == ((), ("nav",))
    assert "1 only B (nav)" in c.unmatched
    assert c.to_dict()["only_b"] == ["nav"]
    assert c.to_dict()["b"]["parser"] == "page" and c.to_dict()["a"]["parser"] is None
    assert c.complete.a.n == c.complete.b.n == 1
    reverse = compare(main, replace(a, parser="page"), a)
    assert reverse.only_a == ("nav",) and not reverse.only_b
    assert compare(page, a, replace(a, parser="page")).only_b == ("nav",)  # A reads it again
    same = compare(main, a, replace(a, modes=("graph",)))
    assert same.unmatched is None and "only_b" not in same.to_dict()
