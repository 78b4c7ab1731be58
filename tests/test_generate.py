import re
from collections import Counter

import pytest

from lab.generate import generate_corpus


@pytest.fixture(scope="module")
def corpus():
    return generate_corpus(target_chars=100_000, n_questions=400, seed=3)


def test_same_seed_gives_same_corpus(corpus):
    assert generate_corpus(target_chars=100_000, n_questions=400, seed=3) == corpus


def test_different_seeds_give_different_corpora(corpus):
    text, _ = corpus
    other, _ = generate_corpus(target_chars=100_000, n_questions=400, seed=4)
    assert other != text


@pytest.mark.parametrize("target", [20_000, 100_000, 1_000_000])
def test_size_is_within_ten_percent_of_target(target):
    text, _ = generate_corpus(target_chars=target, n_questions=10)
    assert abs(len(text) - target) <= 0.1 * target


def test_requested_question_count_with_alternating_splits(corpus):
    questions = corpus[1]["questions"]
    assert len(questions) == 400
    assert [q["id"] for q in questions[:3]] == ["g0001", "g0002", "g0003"]
    assert len({q["id"] for q in questions}) == 400
    assert [q["split"] for q in questions[:4]] == ["train", "test", "train", "test"]
    assert Counter(q["split"] for q in questions) == {"train": 200, "test": 200}


def test_every_evidence_string_occurs_exactly_once(corpus):
    text, qe = corpus
    evidence = [e for q in qe["questions"] for e in q["evidence"]]
    assert [e for e in evidence if text.count(e) != 1] == []


def test_most_questions_need_two_evidence_sentences(corpus):
    counts = Counter(len(q["evidence"]) for q in corpus[1]["questions"])
    assert set(counts) <= {1, 2, 3}
    assert 0.6 <= counts[2] / 400 <= 0.8


def test_two_evidence_questions_join_a_citing_rule_to_the_provision_it_cites(corpus):
    text, qe = corpus
    provision_of, current = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            current = re.match(r"### (\d+\.\d+) ", line) and line.split()[1]
        elif line:
            provision_of.update(dict.fromkeys(re.split(r"(?<=\.) ", line), current))
    for q in qe["questions"]:
        if len(q["evidence"]) == 2:
            rule, cited = q["evidence"]
            assert f"Section {provision_of[cited]}" in rule
            assert provision_of[rule] != provision_of[cited]


def test_sections_hold_two_to_six_provisions_after_definitions(corpus):
    text, _ = corpus
    assert text.startswith("# Generated handbook\n\n## 1 Definitions\n")
    per_section = Counter(re.findall(r"^### (\d+)\.\d+ ", text, re.M))
    assert all(2 <= n <= 6 for n in per_section.values())
