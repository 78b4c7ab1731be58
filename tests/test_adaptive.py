"""The adaptive budget (issue 27): a budget per question, fitted on the train questions only,
never above the largest fixed budget, deterministic; in runs, sweeps, compare and the CLI."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from lab import LabConfig, build_corpus, load_collection, run_lab, sweep
from lab.adaptive import fit, score_gap
from lab.cache import LabCache
from lab.cli import main
from lab.run import question_budgets

DATA = Path(__file__).resolve().parent.parent / "data"
CHUNKERS = ("structure", "qes-dp", "qes-retrieval")


def handbook_with(change):
    """The handbook corpus with its questions passed through ``change(questions)``."""
    text = (DATA / "handbook.md").read_text(encoding="utf-8")
    questions = json.loads((DATA / "handbook_qe.json").read_text(encoding="utf-8"))["questions"]
    return build_corpus({"handbook": text}, change([dict(q) for q in questions]))


def budgets_of(corpus, budgets=(40, 80, 120, 200, 400), split="test"):
    config = LabConfig(
        chunkers=CHUNKERS,
        modes=("flat", "graph"),
        budget="adaptive",
        adaptive_budgets=budgets,
        split=split,
    )
    return {(r.chunker, r.mode): r.budgets for r in run_lab(corpus, config).runs}


def test_score_gap_by_hand():
    assert score_gap(np.array([0.0, 4.0, 1.0, 3.0])) == 0.25  # (4 - 3) / 4
    assert score_gap(np.array([0.0, 2.0])) == 1.0
    assert score_gap(np.zeros(3)) == 0.0


def test_budgets_are_candidates_never_above_the_largest(handbook):
    for budgets in ((40, 80, 120), (60, 300), (120,)):
        for chosen in budgets_of(handbook, budgets).values():
            assert len(chosen) == 13
            assert set(chosen) <= set(budgets)
            assert max(chosen) <= max(budgets)


def test_adaptive_budgets_are_deterministic(handbook):
    assert budgets_of(handbook) == budgets_of(handbook)
    assert budgets_of(handbook) == budgets_of(handbook_with(lambda qs: qs))


def test_a_test_questions_evidence_does_not_influence_the_fit():
    def move_test_evidence(questions):
        train = [q for q in questions if q.get("split") == "train"]
        for q in questions:
            if q.get("split", "test") == "test":
                q["evidence"] = train[0]["evidence"]  # other, findable sentences
        return questions

    assert budgets_of(handbook_with(move_test_evidence)) == budgets_of(handbook_with(lambda q: q))


def test_train_evidence_is_what_the_fit_learns_from():
    """The control for the test above: the same change on the train questions does move it."""

    def move_train_evidence(questions):
        test = [q for q in questions if q.get("split", "test") == "test"]
        for q in questions:
            if q.get("split") == "train":
                q["evidence"] = test[0]["evidence"]
        return questions

    assert budgets_of(handbook_with(move_train_evidence)) != budgets_of(handbook_with(lambda q: q))


def test_each_cluster_takes_the_knee_of_its_budget_curve():
    # two obvious clusters of train questions; the first is complete once at 80 words and
    # twice at 200, the second never: the first gets 200, the second the smallest budget
    # (more words would buy it nothing)
    signal = np.array([[0.9, 0.0], [0.9, 0.0], [0.1, 3.0], [0.1, 3.0]])
    texts = ["kit water", "kit water", "dome lens rule", "dome lens rule"]
    complete = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0], [0, 0, 0]], dtype=bool)
    model = fit(signal, texts, complete, (40, 80, 200), clusters=2)
    assert sorted(model.chosen) == [40, 200]
    chosen = model.predict(np.array([[0.9, 0.0], [0.1, 3.0]]), ["kit water", "dome lens rule"])
    assert chosen.tolist() == [200, 40]


def test_without_train_questions_every_question_gets_the_largest_budget():
    model = fit(np.zeros((0, 2)), [], np.zeros((0, 3), dtype=bool), (40, 80, 200))
    assert model.predict(np.zeros((2, 2)), ["a b", "c d"]).tolist() == [200, 200]


def test_one_budget_for_all_is_the_fixed_run(handbook):
    config = LabConfig(chunkers=("structure",), modes=("flat",))
    cache = LabCache()
    index = cache.index(handbook, config, "structure")
    retrieval = cache.retrieval(index, config, "flat")
    each = retrieval.evaluate_each([120] * len(retrieval.questions))
    assert each == retrieval.evaluate(120)
    adaptive = run_lab(handbook, replace(config, budget="adaptive", adaptive_budgets=(120,)))
    assert adaptive.runs[0].metrics == run_lab(handbook, config).runs[0].metrics
    assert question_budgets(cache, retrieval, config, (120,)) == (120,) * 13


def test_technova_adaptive_run_and_sweep_point():
    corpus = load_collection(DATA / "technova" / "collection.json")
    config = LabConfig(chunkers=("structure", "qes-retrieval"), modes=("flat",), budget="adaptive")
    frame = sweep(corpus, config, budgets=(40, 120, 300), sizes=(450,)).frame()
    points = frame[frame["adaptive"]]
    assert len(points) == 2 and len(frame) == 8
    assert (points["budget"] <= 300).all() and (points["budget"] >= 40).all()
    fixed = run_lab(corpus, replace(config, adaptive_budgets=(40, 120, 300)))
    for run in fixed.runs:
        row = points[points["chunker"] == run.chunker].iloc[0]
        assert row["complete"] == run.metrics.complete
        assert row["budget"] == round(sum(run.budgets) / len(run.budgets), 2)


def test_cli_budget_adaptive(capsys):
    assert (
        main(
            [
                "run",
                "--chunker",
                "structure",
                "--mode",
                "flat",
                "--budget",
                "adaptive",
                "--format",
                "json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    run = data["runs"][0]
    assert data["config"]["budget"] == "adaptive"
    assert all(q["budget"] in (40, 60, 80, 120, 160, 200, 300, 400) for q in run["questions"])
    assert run["mean_budget"] > 0


def test_cli_bad_budget_exits_2(capsys):
    assert main(["run", "--budget", "lots"]) == 2
    assert "whole number of words or adaptive" in capsys.readouterr().err
