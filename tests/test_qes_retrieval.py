"""qes-retrieval (issue 27): QES-DP with a term for the training questions BM25 would retrieve
the chunk for, ranked against the fixed-window index."""

import math
from dataclasses import replace
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from lab import LabConfig, build_corpus, build_index, parse_document, run_lab
from lab.chunkers import CHUNKERS
from lab.chunkers.base import Training
from lab.chunkers.guard import allowed_cuts
from lab.chunkers.qes_dp import segment as dp_segment
from lab.chunkers.qes_retrieval import Reference, segment
from lab.text import tokenize

KIT = (
    "## 1 Site rules\n\n"
    "Visitors sign in at the lodge desk on arrival. "
    "Quiet hours run from ten at night until six in the morning. "
    "Pets stay on a leash at all times on the grounds.\n\n"
    "### 1.1 Emergency kit\n\n"
    "Every crew member carries a sealed pack with water, a whistle and a torch.\n\n"
    "### 1.2 Parking\n\n"
    "Cars park on the gravel lot behind the lodge. Buses use the upper lot.\n"
)
RULE = "Every crew member carries a sealed pack with water, a whistle and a torch."
QUESTION = "What must the emergency kit contain?"


def kit_corpus():
    return build_corpus(
        {"site": KIT},
        [{"id": "q1", "question": QUESTION, "evidence": [RULE], "split": "train"}],
    )


def heading_and_rule(index):
    """The chunk holding the rule, and whether it starts with its heading."""
    holder = next(c for c in index.chunks if RULE in c.text)
    return holder, holder.text.startswith("### 1.1 Emergency kit")


def test_the_retriever_term_moves_the_cut_to_the_heading():
    corpus = kit_corpus()
    size = KIT.index("### 1.1") + len("### 1.1 Emergency kit")  # section 1 to the heading fits
    dp = build_index(corpus, "qes-dp", size)
    retrieval = build_index(corpus, "qes-retrieval", size)
    # qes-dp keeps the rule intact by cutting right before it: the heading stays behind
    holder, with_heading = heading_and_rule(dp)
    assert not with_heading
    assert any(c.text.rstrip().endswith("### 1.1 Emergency kit") for c in dp.chunks)
    # the retrieval term pays for a chunk BM25 ranks first for the question: heading + rule
    holder, with_heading = heading_and_rule(retrieval)
    assert with_heading
    assert retrieval.objective > dp.objective
    result = run_lab(
        corpus, LabConfig(chunkers=("qes-dp", "qes-retrieval"), size=size, split="train")
    )
    assert result.run("qes-dp", "flat").metrics.complete == 0.0
    assert result.run("qes-retrieval", "flat").metrics.complete == 1.0


def test_without_train_questions_it_is_qes_dp():
    doc = parse_document(KIT, "site")
    assert segment(doc, 200, Training()) == dp_segment(doc, 200, Training())


def naive_bm25(query, doc_tokens, corpus_tokens, k1=1.2, b=0.75):
    """Okapi BM25 of one token list against the statistics of ``corpus_tokens``."""
    n = len(corpus_tokens)
    avgdl = sum(map(len, corpus_tokens)) / n
    total = 0.0
    for t in query:
        df = sum(t in d for d in corpus_tokens)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        tf = doc_tokens.count(t)
        total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc_tokens) / avgdl))
    return total


def fixed_windows(text, size, overlap):
    starts = list(range(0, max(len(text) - size, 0) + 1, size - overlap))
    if starts[-1] + size < len(text):
        starts.append(len(text) - size)
    return [tokenize(text[s : s + size]) for s in starts]


def test_windows_are_ranked_against_the_fixed_window_index():
    """The approximation the docstring states: a window's score uses the fixed windows'
    statistics, and its rank counts the fixed windows that score more, nothing else."""
    doc = parse_document(KIT, "site")
    query = tokenize(QUESTION)
    ref = Reference(doc, 120, 50, [query])
    windows = fixed_windows(KIT, 120, 50)
    assert ref.n == len(windows)
    from collections import Counter

    for w in windows:
        assert math.isclose(ref.score(query, Counter(w), len(w)), naive_bm25(query, w, windows))
    heading_rule = tokenize("### 1.1 Emergency kit\n\n" + RULE)
    s = naive_bm25(query, heading_rule, windows)
    above = sum(naive_bm25(query, w, windows) > s for w in windows)
    assert ref.rank(0, ref.score(query, Counter(heading_rule), len(heading_rule))) == 1 + above
    assert ref.rank(0, ref.score(query, Counter(tokenize(RULE)), len(tokenize(RULE)))) > 1


def brute_force(doc, size, training, beta, r, mu, overlap, guard):
    """The best objective over every segmentation, u computed from its definition."""
    units = doc.units
    n = len(units)
    windows = fixed_windows(doc.text, size, overlap)
    ref_scores = [[naive_bm25(q, w, windows) for w in windows] for q in training.queries]
    allowed = allowed_cuts(doc, size) if guard else [True] * (n + 1)

    def u(j, i):
        inside = sum(j <= a and b < i for q in training.questions for a, b in set(q))
        inside = sum(j <= a and b < i for a, b in training.spans)
        inside += sum(j <= a and b < i for a, b in training.groups)
        tokens = tokenize(doc.text[units[j].start : units[i - 1].end])
        found = 0
        for q, spans in enumerate(training.questions):
            if any(j <= a and b < i for a, b in spans):
                s = naive_bm25(training.queries[q], tokens, windows)
                rank = 1 + sum(x > s + 1e-9 for x in ref_scores[q])
                found += s > 0 and rank <= r
        return inside + Fraction(str(beta)) * found - Fraction(str(mu))

    best = None
    for mask in range(1 << (n - 1)):
        cuts = [0] + [k + 1 for k in range(n - 1) if mask >> k & 1] + [n]
        if not all(allowed[c] for c in cuts):
            continue
        runs = list(zip(cuts, cuts[1:], strict=False))
        if any(units[i - 1].end - units[j].start > size and i - j > 1 for j, i in runs):
            continue
        value = sum(u(j, i) for j, i in runs)
        best = value if best is None else max(best, value)
    return best


WORDS = ["kit", "water", "torch", "gate", "dome", "lens", "night", "rule"]


@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=5)),
        min_size=2,
        max_size=8,
    ),
    st.lists(
        st.tuples(
            st.integers(0, 7), st.integers(0, 2), st.lists(st.sampled_from(WORDS), max_size=3)
        ),
        min_size=1,
        max_size=3,
    ),
    st.integers(40, 160),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.integers(1, 3),
    st.booleans(),
)
def test_the_dp_finds_the_brute_force_optimum(lines, questions, size, beta, r, guard):
    text = "\n\n".join(
        (f"### {k + 1} {' '.join(ws)}" if head else " ".join(ws).capitalize() + ".")
        for k, (head, ws) in enumerate(lines)
    )
    doc = parse_document(text, "small")
    n = len(doc.units)
    spans, queries = [], []
    for first, extra, words in questions:
        a = min(first, n - 1)
        spans.append(((a, min(a + extra, n - 1)),))
        queries.append(tuple(tokenize(" ".join(words))))
    training = Training(tuple(spans), tuple(queries))
    allowed = allowed_cuts(doc, size) if guard else None
    runs, value = segment(doc, size, training, 10, beta, r, allowed=allowed)
    expected = brute_force(doc, size, training, beta, r, 0.05, 10, guard)
    assert math.isclose(value, float(expected), abs_tol=1e-9)
    assert runs[0][0] == 0 and runs[-1][1] == n
    assert all(a == b for (_, a), (b, _) in zip(runs, runs[1:], strict=False))


def test_registered_as_a_supervised_chunker_and_runs_with_the_others(handbook):
    assert CHUNKERS["qes-retrieval"].supervised
    result = run_lab(handbook, LabConfig(chunkers=("qes-dp", "qes-retrieval")))
    run = result.run("qes-retrieval", "flat")
    assert run.index.objective is not None
    assert len(run.questions) == 13


def test_the_licence_collection_measures_what_docs_beyond_reports():
    """The real collection of docs/beyond.md: 30 questions with exact evidence in three
    licences; the guard adds a held-out question to qes-dp there (39 -> 44 % of 18)."""
    from pathlib import Path

    from lab import load_collection

    corpus = load_collection(Path(__file__).parent / "data/real/licences/collection.json")
    assert not corpus.errors
    assert len(corpus.questions) == 30 and len(corpus.split("train")) == 12
    config = LabConfig(chunkers=("qes-dp",), modes=("flat",))
    plain = run_lab(corpus, config).runs[0].metrics.complete
    guarded = run_lab(corpus, replace(config, heading_guard=True)).runs[0].metrics.complete
    assert (round(plain * 18), round(guarded * 18)) == (7, 8)


def test_the_plain_utility_summed_over_the_dps_chunks_is_its_objective(handbook):
    from lab.chunkers.qes_retrieval import utility
    from lab.index import training_for

    doc, training = handbook.documents[0], training_for(handbook, 0)
    runs, value = segment(doc, 450, training)
    reference = Reference(doc, 450, 50, training.queries)
    total = sum(utility(doc, j, i, training, reference) for j, i in runs)
    assert math.isclose(float(total), value)
    plain_dp = dp_segment(doc, 450, training)[1]
    assert value > plain_dp  # the retrieval term pays on the handbook's training questions
