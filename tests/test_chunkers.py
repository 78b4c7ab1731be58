"""Hand-checked chunker cases, plus the exact chunkers against brute force and plain greedy."""

from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from samples import REAL_DOCUMENTS, SPEC_CHUNKERS, corpora

from lab import build_corpus, build_index, parse_document
from lab.chunkers import Params, Training, chunk_document
from lab.chunkers.base import fit_units, split_long
from lab.chunkers.qes_dp import segment
from lab.chunkers.qes_greedy import Coverage, greedy_lazy, select_windows
from lab.index import training_for

# The spec's numbers, written here so that a wrong constant in the code makes a test fail.
MU = 0.05  # SPEC 4.4: qes-dp's cost per chunk
INDEX_BUDGET = 1.35  # SPEC 4.5: qes-greedy's windows spend at most 1.35 x the document's length
MIN_WINDOW = 0.5  # SPEC 4.5: qes-greedy's candidate windows span at least 0.5 L
ALPHA = 0.02  # SPEC 4.5: qes-greedy's gain per newly covered unit
REFERENCE_MARK = "\u21b3"  # SPEC 4.3: "↳ Section x.y Title: " introduces reference text

# Four sentences of exactly 20 characters: units at 0, 21, 42, 63; two span 41, three span 62.
FOUR = "Alpha beta gamma de. Bravo beta gamma de. Charl beta gamma de. Delta beta gamma de."

RULES = """\
# Rules

## 1 Definitions

### 1.1 Dark window

A dark window is night time. It lasts an hour.

### 1.2 Torch

Torches are red. Use them as Section 1.1 says.
"""
DARK = "A dark window is night time. It lasts an hour."
TORCH = "Torches are red. Use them as Section 1.1 says."
DARK_PATH = "1 Definitions \u203a 1.1 Dark window"
TORCH_PATH = "1 Definitions \u203a 1.2 Torch"


NO_TRAINING = Training()


def plan(text, chunker, size, overlap=0, training=NO_TRAINING, headers=False, **params):
    doc = parse_document(text)
    given = Params(size, overlap, training, **params)
    chunks, made = chunk_document(doc, 0, chunker, given, headers=headers)
    return doc, chunks, made


def bodies(text, chunker, size, overlap=0, training=NO_TRAINING, **toggles):
    _, chunks, _ = plan(text, chunker, size, overlap, training, **toggles)
    return [c.source[0] for c in chunks]


# --- fixed ------------------------------------------------------------------------------------


def test_fixed_windows_step_by_size_minus_overlap_and_end_at_the_text_end():
    text = "x" * 210
    windows = bodies(text, "fixed", 80, overlap=50)
    assert windows[:5] == [(0, 80), (30, 110), (60, 140), (90, 170), (120, 200)]
    assert windows[-1][1] == 210
    assert all(e - s == 80 for s, e in windows)


def test_fixed_window_covers_a_short_text_whole():
    assert bodies("Short text.", "fixed", 80, overlap=50) == [(0, 11)]


def test_fixed_windows_cut_mid_word_by_design():
    windows = bodies(FOUR, "fixed", 30, overlap=10)
    assert windows[0] == (0, 30) and FOUR[27:32] == "beta "  # cut inside "beta"


# --- sentence ---------------------------------------------------------------------------------


def test_sentence_windows_repeat_trailing_sentences_within_the_overlap():
    assert bodies(FOUR, "sentence", 60, overlap=25) == [(0, 41), (21, 62), (42, 83)]


def test_sentence_windows_repeat_up_to_fifty_characters_by_default():
    # SPEC 4.2: overlap = 50 by default. S1..S3 span 62 <= 70; the next window starts with S2 S3
    # (41 <= 50), not S1 S2 S3 (62).
    index = build_index(build_corpus({"d": FOUR}, None), "sentence", 70)
    assert [c.source[0] for c in index.chunks] == [(0, 62), (21, 83)]


def test_sentence_windows_do_not_overlap_when_no_trailing_sentence_fits_the_overlap():
    assert bodies(FOUR, "sentence", 60, overlap=15) == [(0, 41), (42, 83)]


def test_sentence_overlap_is_dropped_when_the_next_sentence_would_not_fit_after_it():
    text = "Alpha beta gamma de. Bravo beta gamma de. " + "Long " * 7 + "sentence here."
    doc = parse_document(text)
    assert [u.end - u.start for u in doc.units] == [20, 20, 49]
    assert bodies(text, "sentence", 50, overlap=25) == [(0, 41), (42, 91)]


def test_sentence_longer_than_the_size_is_split_between_words():
    long = "This sentence is much longer than the chunk size allows it to be."
    text = f"Short one here. {long} Short two here."
    windows = bodies(text, "sentence", 40, overlap=20)
    # 66 characters make two pieces of about 33: the word gap nearest 33 is after "than".
    assert [text[s:e] for s, e in windows] == [
        "Short one here.",
        "This sentence is much longer than",
        "the chunk size allows it to be.",
        "Short two here.",
    ]


def test_a_long_sentence_is_cut_after_clause_punctuation_before_any_word_gap():
    text = (
        "Visitors who arrive after the gate has closed, or who miss the last tour, "
        "must phone the control room."
    )
    # 102 characters, L = 60: two pieces, aiming at 51. The comma after "closed" (46) is in the
    # second half of the window, so it wins over the word gap nearest 51.
    assert split_long(text, 0, len(text), 60) == [46, 102]
    # the first piece packs with the short sentence before it (6 + 1 + 46 = 53 <= 60)
    assert bodies(f"Short. {text}", "sentence", 60) == [(0, 7 + 46), (7 + 47, 7 + 102)]


def test_a_long_code_block_is_cut_at_a_line_break():
    code = "a, b = 1, 2\nc, d = 3, 4\ne = a + b + c + d"
    # 41 characters, L = 30, aiming at 20.5: prose would cut after "3," (21); code keeps lines
    # whole and cuts at the line break after "4" (23).
    assert split_long(code, 0, len(code), 30, "code") == [23, 41]
    assert split_long(code, 0, len(code), 30) == [21, 41]


def test_a_word_longer_than_L_is_cut_every_L_characters():
    assert split_long("x" * 25, 0, 25, 10) == [10, 20, 25]


def test_pieces_of_a_long_sentence_keep_training_evidence_on_the_right_pieces():
    text = "Short one here. " + "Word " * 20 + "end. Short two here."
    doc = parse_document(text)
    fit = fit_units(doc, 40)
    assert fit.first_piece[:2] == (0, 1) and fit.first_piece[2] - fit.first_piece[1] == 3
    moved = Training((((1, 1),), ((0, 0), (2, 2)))).renumbered(fit.first_piece)
    assert moved.questions == (((1, 3),), ((0, 0), (4, 4)))


# --- structure --------------------------------------------------------------------------------


def test_structure_gives_one_chunk_per_provision_with_its_path_and_cited_text():
    doc, chunks, _ = plan(RULES, "structure", 450)
    dark, torch = chunks
    assert dark.text == f"[{DARK_PATH}] {DARK}"
    assert dark.prefix == f"[{DARK_PATH}] "
    assert torch.text == f"[{TORCH_PATH}] {TORCH} {REFERENCE_MARK} Section 1.1 Dark window: {DARK}"
    assert [doc.text[s:e] for s, e in torch.source] == [TORCH, DARK]
    assert torch.cites == (dark.provisions[0],)
    assert torch.words == len(torch.text.split())


def test_structure_without_resolve_refs_appends_no_reference_text():
    doc, chunks, _ = plan(RULES, "structure", 450, refs="off")
    torch = chunks[1]
    assert torch.text == f"[{TORCH_PATH}] {TORCH}"
    assert [doc.text[s:e] for s, e in torch.source] == [TORCH]


def test_structure_splits_a_long_provision_on_sentence_boundaries():
    doc, chunks, _ = plan(RULES, "structure", 30)
    assert [(c.prefix, doc.text[c.start : c.end]) for c in chunks] == [
        (f"[{DARK_PATH}] ", "A dark window is night time."),
        (f"[{DARK_PATH}] ", "It lasts an hour."),
        (f"[{TORCH_PATH}] ", "Torches are red."),
        (f"[{TORCH_PATH}] ", "Use them as Section 1.1 says."),
    ]
    assert [len(c.source) for c in chunks] == [1, 1, 1, 2]  # only the citing chunk gets the text


def test_structure_never_crosses_a_provision_boundary(handbook):
    index = build_index(handbook, "structure", 2000)
    assert all(len(c.provisions) == 1 for c in index.chunks)
    with_body = [p for p in handbook.documents[0].provisions if p.first < p.stop]
    assert len(index.chunks) == len(with_body)


def reference_text(long_body):
    """The reference text a citing provision gets for a provision whose body is ``long_body``."""
    text = f"### 1.1 Long\n\n{long_body}\n\n### 1.2 Short\n\nSee Section 1.1 here.\n"
    doc, chunks, _ = plan(text, "structure", 2000)
    s, e = chunks[1].source[1]
    excerpt = doc.text[s:e]
    assert s == text.index(long_body[:5])
    assert chunks[1].text.endswith(f"Section 1.1 Long: {excerpt}")
    return excerpt


# Sentences 0-9 are 37 characters, 10-19 are 38: sentences 0-7 and their seven joining spaces take
# 8 x 37 + 7 = 303 characters, and " Word8 is part of" brings the text to exactly 320.
DEFINITION = " ".join(f"Word{i} is part of the long definition." for i in range(20))


def test_reference_text_is_the_provision_body_up_to_exactly_320_characters():
    # SPEC 4.3: "up to 320 characters of its body"; here the 320th character ends a word.
    excerpt = reference_text(DEFINITION)
    assert len(excerpt) == 320
    assert excerpt == DEFINITION[:320]
    assert excerpt.endswith("Word7 is part of the long definition. Word8 is part of")


def test_reference_text_is_cut_back_to_the_last_whole_word_within_320_characters():
    # Two more characters in front: "of" would end at character 322, so the excerpt stops after
    # "part" (317 + 2 = 319 characters) rather than cutting a word.
    excerpt = reference_text("A " + DEFINITION)
    assert len(excerpt) == 319
    assert excerpt.endswith("Word8 is part")


# --- headers toggle ---------------------------------------------------------------------------


def test_headers_prefix_every_provision_a_chunk_touches():
    _, chunks, _ = plan(RULES, "sentence", 450, headers=True)
    assert [c.prefix for c in chunks] == [f"[{DARK_PATH}] [{TORCH_PATH}] "]
    assert chunks[0].text == chunks[0].prefix + RULES.strip()


@pytest.mark.parametrize("chunker", ["fixed", "sentence", "qes-dp", "qes-greedy"])
def test_headers_toggle_adds_and_removes_path_prefixes(chunker, handbook):
    plain = build_index(handbook, chunker, 250)
    headed = build_index(handbook, chunker, 250, headers=True)
    doc = handbook.documents[0]
    assert all(c.prefix == "" for c in plain.chunks)
    assert [c.source for c in plain.chunks] == [c.source for c in headed.chunks]
    for c in headed.chunks:
        paths = [doc.provisions[p].path for p in c.provisions if doc.provisions[p].path]
        assert c.prefix == "".join(f"[{path}] " for path in paths)
    assert sum(bool(c.prefix) for c in headed.chunks) > len(headed.chunks) / 2


def test_preamble_gets_no_prefix():
    text = "Preamble words here.\n\n### 1.1 Rule\n\nRule text."
    _, chunks, _ = plan(text, "structure", 450, headers=True)
    assert [c.prefix for c in chunks] == ["", "[1.1 Rule] "]


# --- qes-dp -----------------------------------------------------------------------------------

# One train question whose two evidence sentences are units 1 and 2 of FOUR.
PAIR = Training((((1, 1), (2, 2)),))


def test_qes_dp_finds_the_hand_computed_optimum():
    doc = parse_document(FOUR)
    runs, value = segment(doc, 45, PAIR)
    # [0] | [1, 2] | [3]: two spans and one whole question inside the middle chunk, minus 3 mu.
    assert runs == [(0, 1), (1, 3), (3, 4)]
    assert value == pytest.approx(3 - 3 * 0.05)


# Two train questions, each with two evidence sentences: units 0 and 1, units 2 and 3 of FOUR.
TWO_PAIRS = Training((((0, 0), (1, 1)), ((2, 2), (3, 3))))


def test_qes_dp_allows_a_chunk_spanning_exactly_l_characters():
    # SPEC 4.4: chunks span at most L. Units 0-1 and 2-3 each span exactly 41 characters; with
    # L = 41 the two-chunk cut keeps all four spans and both questions: 4 + 2 - 2 x 0.05.
    runs, value = segment(parse_document(FOUR), 41, TWO_PAIRS)
    assert runs == [(0, 2), (2, 4)]
    assert value == pytest.approx(5.9)
    _, chunks, made = plan(FOUR, "qes-dp", 41, training=TWO_PAIRS)
    assert [c.source[0] for c in chunks] == [(0, 41), (42, 83)]
    assert made.objective == pytest.approx(5.9)


def test_qes_dp_forbids_a_chunk_one_character_longer_than_l():
    # L = 40: no two sentences fit together, so every sentence stands alone: 4 spans - 4 x 0.05.
    runs, value = segment(parse_document(FOUR), 40, TWO_PAIRS)
    assert runs == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert value == pytest.approx(3.8)


def test_qes_dp_reports_its_objective_in_the_plan_and_the_index():
    _, chunks, made = plan(FOUR, "qes-dp", 45, training=PAIR)
    assert made.objective == pytest.approx(2.85)
    assert [c.source[0] for c in chunks] == [(0, 20), (21, 62), (63, 83)]
    qe = [
        {
            "id": "t",
            "question": "beta?",
            "split": "train",
            "evidence": ["Bravo beta gamma de.", "Charl beta gamma de."],
        }
    ]
    index = build_index(build_corpus({"d": FOUR}, qe), "qes-dp", 45, overlap=0)
    assert index.objective == pytest.approx(2.85)


def test_qes_dp_without_training_makes_as_few_chunks_as_fit():
    runs, value = segment(parse_document(FOUR), 45, Training())
    assert len(runs) == 2 and value == pytest.approx(-2 * 0.05)


def test_qes_dp_keeps_a_two_sentence_evidence_span_that_sentence_windows_cut():
    qe = [
        {
            "id": "t",
            "question": "beta?",
            "split": "train",
            "evidence": ["Bravo beta gamma de. Charl beta gamma de."],
        }
    ]
    c = build_corpus({"d": FOUR}, qe)
    ev = c.questions[0].evidence[0]
    assert len(build_index(c, "sentence", 45, overlap=0).holding(ev)) == 0
    assert len(build_index(c, "qes-dp", 45, overlap=0).holding(ev)) == 1


def test_qes_dp_keeps_every_training_evidence_span_of_the_handbook_intact(handbook):
    index = build_index(handbook, "qes-dp", 450)
    for q in handbook.split("train"):
        for ev in q.evidence:
            assert len(index.holding(ev)), (q.id, ev.text)


def test_qes_dp_uses_train_questions_only(handbook):
    training = training_for(handbook, 0)
    assert len(training.questions) == len(handbook.split("train"))
    test_only = build_corpus(
        {"d": FOUR},
        [
            {
                "id": "t",
                "question": "beta?",
                "split": "test",
                "evidence": ["Bravo beta gamma de.", "Charl beta gamma de."],
            }
        ],
    )
    assert build_index(test_only, "qes-dp", 45, overlap=0).objective == pytest.approx(-0.1)


# --- qes-greedy -------------------------------------------------------------------------------


def test_qes_greedy_hand_computed_windows_and_gap():
    doc = parse_document(FOUR)
    # Candidates span 41 (two units); budget 1.35 x 83 = 112 fits two windows. The middle one
    # gains 2 spans + 1 question; then unit 0's window wins the 0.02 tie by position; unit 3 is
    # left over as a gap chunk.
    assert select_windows(doc, 45, PAIR) == [(0, 2), (1, 3), (3, 4)]


def three_sentences(middle):
    """Two 20-character sentences around ``middle``."""
    return f"Alpha beta gamma de. {middle} Charl beta gamma de."


# Two train questions: one needs units 0 and 1, the other units 1 and 2.
CHAIN = Training((((0, 0), (1, 1)), ((1, 1), (2, 2))))


def test_qes_greedy_takes_a_window_that_fits_1_35_times_the_document_but_not_once():
    # The middle sentence has 22 characters: the text is 64, windows (0, 2) and (1, 3) span 43
    # each (L = 49, so single sentences, under 24.5, are not candidates). Both gain 3.04; the
    # first by position is taken, then (1, 3) still gains a span, a question and a unit (2.02).
    # Together they cost 86: within 1.35 x 64 = 86.4, though more than the document itself.
    text = three_sentences("Bravo beta gamma deep.")
    assert len(text) == 64
    assert select_windows(parse_document(text), 49, CHAIN) == [(0, 2), (1, 3)]


def test_qes_greedy_leaves_a_gap_when_the_second_window_would_pass_1_35_times_the_document():
    # A 24-character middle sentence: the text is 66 and the windows span 45 each. Together they
    # would cost 90 > 1.35 x 66 = 89.1, so unit 2 is left to a gap chunk.
    text = three_sentences("Bravo beta gamma deeper.")
    assert len(text) == 66
    assert select_windows(parse_document(text), 49, CHAIN) == [(0, 2), (2, 3)]


def test_qes_greedy_candidate_windows_span_half_l_to_l():
    doc = parse_document(FOUR)
    # L = 40: single sentences (20 = 0.5 L) are candidates, pairs (41) are too long.
    assert [c[:2] for c in Coverage(doc, 40, NO_TRAINING).candidates] == [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
    ]
    # L = 41: pairs fit, single sentences (20 < 20.5) are too short to be windows.
    assert [c[:2] for c in Coverage(doc, 41, NO_TRAINING).candidates] == [(0, 2), (1, 3), (2, 4)]


def test_qes_greedy_never_picks_a_window_shorter_than_half_l():
    # Evidence in unit 0 only. A lone sentence (20 characters) would gain 1.02 per 20 characters,
    # twice the pair's 1.04 per 41, but with L = 41 it is under 0.5 L: the pair is taken.
    evidence = Training((((0, 0),),))
    assert select_windows(parse_document(FOUR), 41, evidence) == [(0, 2), (2, 4)]


def test_qes_greedy_windows_fit_the_index_budget_and_gaps_cover_the_rest(handbook, handbook_doc):
    size = 450
    training = training_for(handbook, 0)
    cov = Coverage(handbook_doc, size, training)
    chosen = greedy_lazy(cov, INDEX_BUDGET * len(handbook_doc.text))
    windows = [cov.candidates[c] for c in chosen]
    assert windows
    assert all(MIN_WINDOW * size <= cost <= size for _, _, cost in windows)
    assert sum(cost for _, _, cost in windows) <= INDEX_BUDGET * len(handbook_doc.text)

    runs = select_windows(handbook_doc, size, training)
    gaps = sorted(set(runs) - {(j, i) for j, i, _ in windows})
    covered = {u for j, i, _ in windows for u in range(j, i)}
    assert {u for j, i in gaps for u in range(j, i)} == set(
        range(len(handbook_doc.units))
    ) - covered
    units = handbook_doc.units
    assert all(units[i - 1].end - units[j].start <= size or i - j == 1 for j, i in gaps)


def test_qes_greedy_gives_every_handbook_training_span_a_window(handbook, handbook_doc):
    training = training_for(handbook, 0)
    cov = Coverage(handbook_doc, 450, training)
    greedy_lazy(cov, INDEX_BUDGET * len(handbook_doc.text))
    assert len(cov.span_covered) == len(training.spans) > 0
    assert all(cov.span_covered)  # not left to gap chunks


# --- every chunker on real documents ----------------------------------------------------------


@pytest.mark.parametrize("chunker", SPEC_CHUNKERS)
@pytest.mark.parametrize("name", sorted(REAL_DOCUMENTS))
def test_every_chunker_runs_on_real_documents(name, chunker, real_corpora):
    corpus = real_corpora[name]
    text = corpus.documents[0].text
    for headers in (False, True):
        index = build_index(corpus, chunker, 250, headers=headers)
        assert index.chunks
        for c in index.chunks:
            s, e = c.source[0]
            assert 0 <= s < e <= len(text)
            assert c.text.startswith(c.prefix)
            assert c.text[len(c.prefix) :].startswith(text[s:e])


def test_invalid_parameters_name_the_allowed_values(handbook):
    with pytest.raises(ValueError, match="choose one of fixed, sentence"):
        build_index(handbook, "no-such-chunker", 450)
    with pytest.raises(ValueError, match=">= 20"):
        build_index(handbook, "fixed", 10)
    with pytest.raises(ValueError, match="overlap must be"):
        build_index(handbook, "fixed", 40, overlap=40)


# --- oracles ----------------------------------------------------------------------------------


def test_qes_dp_breaks_ties_by_the_later_cut():
    # FOUR at L = 62 without training: every two-chunk segmentation scores -2 mu; the rule keeps
    # the one whose last chunk starts latest.
    runs, value = segment(parse_document(FOUR), 62, Training())
    assert runs == [(0, 3), (3, 4)] and value == -0.1


def exact_rule_segmentation(doc, size, training, mu=Fraction(1, 20)):
    """An independent exact oracle: best prefix values in Fractions, then, from the end, the
    latest start whose chunk completes an optimal prefix."""
    n, units = len(doc.units), doc.units
    items = [*training.spans, *training.groups]

    def fits(j, i):
        return i - j == 1 or units[i - 1].end - units[j].start <= size

    def u(j, i):
        return sum(j <= f and last < i for f, last in items) - mu

    best = [Fraction(0)]
    for i in range(1, n + 1):
        best.append(max(best[j] + u(j, i) for j in range(i) if fits(j, i)))
    runs, i = [], n
    while i > 0:
        j = max(j for j in range(i) if fits(j, i) and best[j] + u(j, i) == best[i])
        runs.append((j, i))
        i = j
    return runs[::-1], best[n]


def test_qes_dp_ties_are_not_broken_by_float_rounding():
    # Thirteen short units, one training span (unit 4), L = 40: several four-chunk segmentations
    # keep the span and score 1 - 4 mu = 0.8. Summed in floats, one of them came to
    # 0.7999999999999999 and rounding, not the rule, chose.
    lengths = [8, 4, 12, 8, 7, 12, 7, 2, 2, 3, 4, 3, 4]
    doc = parse_document(" ".join("W" + "x" * k + "." for k in lengths))
    training = Training((((4, 4),),))
    runs, value = segment(doc, 40, training)
    assert value == 0.8
    assert runs == [(0, 3), (3, 6), (6, 12), (12, 13)]
    assert (runs, Fraction(4, 5)) == exact_rule_segmentation(doc, 40, training)


def test_qes_dp_objective_is_exact_on_the_handbook(handbook, handbook_doc):
    # At L = 450 several segmentations score 24.15; summed in floats the best came to
    # 24.149999999999995 and rounding picked a different one than the stated rule.
    training = training_for(handbook, 0)
    runs, value = segment(handbook_doc, 450, training)
    expected_runs, expected = exact_rule_segmentation(handbook_doc, 450, training)
    assert expected == Fraction("24.15")
    assert value == 24.15
    assert runs == expected_runs


def objective(doc, runs, training, mu=MU):
    """SPEC 4.4's sum of u(j, i): distinct evidence spans inside each chunk, plus multi-evidence
    questions whose whole evidence is inside it, minus mu per chunk."""
    spans = {s for q in training.questions for s in q}
    wholes = [(min(f for f, _ in q), max(last for _, last in q)) for q in training.questions]
    items = [*spans, *(w for w, q in zip(wholes, training.questions, strict=True) if len(q) > 1)]
    return sum(sum(j <= f and last < i for f, last in items) - mu for j, i in runs)


def brute_force(doc, size, training):
    """Best objective over every segmentation into chunks spanning at most ``size`` characters
    (or a single unit)."""
    n, units, best = len(doc.units), doc.units, float("-inf")
    for k in range(n):
        for cuts in combinations(range(1, n), k):
            bounds = [0, *cuts, n]
            runs = list(zip(bounds, bounds[1:], strict=False))
            if all(i - j == 1 or units[i - 1].end - units[j].start <= size for j, i in runs):
                best = max(best, objective(doc, runs, training))
    return best


@st.composite
def small_segmentation_problems(draw):
    lengths = draw(st.lists(st.integers(1, 30), min_size=1, max_size=8))
    text = " ".join("W" + "x" * k + "." for k in lengths)
    doc = parse_document(text)
    n = len(doc.units)
    unit_range = st.tuples(st.integers(0, n - 1), st.integers(0, 2)).map(
        lambda t: (t[0], min(n - 1, t[0] + t[1]))
    )
    questions = draw(st.lists(st.lists(unit_range, min_size=1, max_size=3), max_size=4))
    # Often exactly the span of some run of units: the limit's boundary case.
    spans = [
        doc.units[i - 1].end - doc.units[j].start for j in range(n) for i in range(j + 1, n + 1)
    ]
    size = draw(st.one_of(st.integers(5, 80), st.sampled_from(spans)))
    return doc, size, Training(tuple(tuple(q) for q in questions))


@given(small_segmentation_problems())
@example((parse_document(FOUR), 41, TWO_PAIRS))  # the best chunks span exactly L
@example((parse_document(FOUR), 40, TWO_PAIRS))  # and here one character more than L
def test_qes_dp_matches_brute_force_on_small_inputs(problem):
    doc, size, training = problem
    runs, value = segment(doc, size, training)
    assert value == pytest.approx(brute_force(doc, size, training))
    assert value == pytest.approx(objective(doc, runs, training))
    assert (runs, Fraction(value).limit_denominator(20)) == exact_rule_segmentation(
        doc, size, training
    )
    assert [j for j, _ in runs[1:]] == [i for _, i in runs[:-1]]
    assert runs[0][0] == 0 and runs[-1][1] == len(doc.units)


def plain_greedy(doc, size, training):
    """SPEC 4.5 read literally, rescanning every candidate each round.

    Candidates: runs of consecutive units spanning 0.5 L to L characters. Budget: 1.35 x the
    document's length, spent in window characters. Gain: newly covered evidence spans + newly
    completed multi-evidence questions + 0.02 per newly covered unit. Each round takes the best
    gain per character among the windows that still fit and gain something (the first in
    document order on a tie). Uncovered units then become gap chunks, packed up to L."""
    units = doc.units
    n = len(units)

    def span(j, i):
        return units[i - 1].end - units[j].start

    windows = [
        (j, i)
        for j in range(n)
        for i in range(j + 1, n + 1)
        if MIN_WINDOW * size <= span(j, i) <= size
    ]
    spans = sorted({s for q in training.questions for s in q})
    multi = [q for q in training.questions if len(q) > 1]
    covered_units, covered_spans, completed = set(), set(), set()

    def inside(j, i, evidence):
        return j <= evidence[0] and evidence[1] < i

    def gain(j, i):
        new_spans = sum(1 for e in spans if e not in covered_spans and inside(j, i, e))
        new_questions = sum(
            1 for k, q in enumerate(multi) if k not in completed and all(inside(j, i, e) for e in q)
        )
        new_units = sum(1 for u in range(j, i) if u not in covered_units)
        return new_spans + new_questions + ALPHA * new_units

    budget, spent, chosen = INDEX_BUDGET * len(doc.text), 0, []
    while True:
        best, best_ratio = None, 0.0
        for j, i in windows:
            g = gain(j, i)
            if spent + span(j, i) <= budget and g > 0 and g / span(j, i) > best_ratio:
                best, best_ratio = (j, i), g / span(j, i)
        if best is None:
            break
        j, i = best
        chosen.append(best)
        spent += span(j, i)
        covered_units.update(range(j, i))
        covered_spans.update(e for e in spans if inside(j, i, e))
        completed.update(k for k, q in enumerate(multi) if all(inside(j, i, e) for e in q))

    gaps, u = [], 0
    while u < n:
        if u in covered_units:
            u += 1
            continue
        first = u
        while u < n and u not in covered_units:
            if u > first and span(first, u + 1) > size:
                gaps.append((first, u))
                first = u
            u += 1
        gaps.append((first, u))
    return sorted(chosen + gaps)


def test_plain_greedy_reproduces_the_hand_computed_cases():
    assert plain_greedy(parse_document(FOUR), 45, PAIR) == [(0, 2), (1, 3), (3, 4)]
    fits = parse_document(three_sentences("Bravo beta gamma deep."))
    assert plain_greedy(fits, 49, CHAIN) == [(0, 2), (1, 3)]
    too_big = parse_document(three_sentences("Bravo beta gamma deeper."))
    assert plain_greedy(too_big, 49, CHAIN) == [(0, 2), (2, 3)]


@given(corpora(), st.sampled_from([60, 120, 250]))
def test_lazy_greedy_picks_the_same_windows_as_plain_greedy(corpus, size):
    doc = corpus.documents[0]
    training = training_for(corpus, 0)
    assert select_windows(doc, size, training) == plain_greedy(doc, size, training)


@pytest.mark.parametrize("size", [250, 450, 800])
def test_lazy_greedy_matches_plain_greedy_on_the_handbook(handbook, handbook_doc, size):
    training = training_for(handbook, 0)
    lazy = select_windows(handbook_doc, size, training)
    assert lazy == plain_greedy(handbook_doc, size, training)
    assert len(lazy) > 1
