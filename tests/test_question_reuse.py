"""Writing a question does not chunk again: an index serves every corpus of the same documents
whose train questions teach its chunker the same, with results equal to a fresh build; and one
question can be run alone."""

import json
from pathlib import Path

import pytest

import lab.cache
from lab import CHUNKERS, LabCache, LabConfig, build_corpus, build_index, run_lab

DATA = Path(__file__).resolve().parent.parent / "data"
TEXT = (DATA / "handbook.md").read_text(encoding="utf-8")
QUESTIONS = json.loads((DATA / "handbook_qe.json").read_text(encoding="utf-8"))["questions"]
EVERY = LabConfig(chunkers=tuple(n for n, s in CHUNKERS.items() if not s.dense), split="all")
NEW = {
    "id": "q99",
    "question": "Where may visitors use a flash?",
    "evidence": [
        "Flash photography is banned everywhere in the red-light zone because a single flash "
        "ruins the night vision of everyone nearby."
    ],
}


def handbook_with(*extra: dict):
    return build_corpus({"handbook": TEXT}, {"questions": [*QUESTIONS, *extra]})


@pytest.fixture
def builds(monkeypatch) -> list:
    calls = []
    real = lab.cache.build_index

    def counted(corpus, chunker, *args, **kwargs):
        calls.append(chunker)
        return real(corpus, chunker, *args, **kwargs)

    monkeypatch.setattr(lab.cache, "build_index", counted)
    return calls


def test_a_new_test_question_chunks_nothing_again_and_a_train_one_only_what_learns(builds):
    cache = LabCache()
    run_lab(handbook_with(), EVERY, cache=cache)
    assert builds == list(EVERY.chunkers)
    builds.clear()
    test_question = run_lab(handbook_with({**NEW, "split": "test"}), EVERY, cache=cache)
    assert builds == []
    train_question = run_lab(handbook_with({**NEW, "split": "train"}), EVERY, cache=cache)
    assert builds == ["qes-dp", "qes-greedy", "qes-retrieval"]  # the supervised ones
    for reused in (test_question, train_question):
        corpus = handbook_with({**NEW, "split": reused.runs[0].questions[-1].split})
        assert reused.to_dict() == run_lab(corpus, EVERY, cache=LabCache()).to_dict()


def test_questions_run_alone_score_as_in_the_whole_run():
    corpus = handbook_with({**NEW, "split": "train"})
    cache = LabCache()
    whole = run_lab(corpus, EVERY, cache=cache)
    alone = run_lab(corpus, EVERY, cache=cache, questions=["q99", "q04"])
    assert [len(r.questions) for r in alone.runs] == [2] * len(whole.runs)
    for one, every in zip(alone.runs, whole.runs, strict=True):
        expected = {q.id: q for q in every.questions if q.id in ("q04", "q99")}
        assert {q.id: q for q in one.questions} == expected
    assert {q.verdict for r in alone.runs for q in r.questions} >= {"complete"}
    with pytest.raises(ValueError, match="no question of the corpus has the id.s. q42x"):
        run_lab(corpus, EVERY, questions=["q42x"])


def test_an_index_moves_only_to_the_same_documents_and_training():
    corpus = handbook_with()
    index = build_index(corpus, "qes-dp", 450)
    moved = index.over(handbook_with({**NEW, "split": "test"}))
    assert moved.chunks is index.chunks and moved.bm25 is index.bm25
    assert [q.id for q in moved.corpus.questions][-1] == "q99"
    with pytest.raises(ValueError, match="learns from other train questions"):
        index.over(handbook_with({**NEW, "split": "train"}))
    with pytest.raises(ValueError, match="same documents"):
        index.over(build_corpus({"handbook": TEXT + "\n\nOne more line."}, None))


def test_a_reworded_train_question_teaches_qes_retrieval_anew(builds):
    """qes-retrieval ranks windows for the train questions' text, so rewording one is new
    training: its index is not reused from the old wording."""
    config = LabConfig(chunkers=("qes-retrieval", "structure"), split="all")
    cache = LabCache()
    run_lab(handbook_with({**NEW, "split": "train"}), config, cache=cache)
    builds.clear()
    reworded = {**NEW, "split": "train", "question": "Is flash photography allowed?"}
    run_lab(handbook_with(reworded), config, cache=cache)
    assert builds == ["qes-retrieval"]
