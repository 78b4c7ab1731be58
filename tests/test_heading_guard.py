"""The heading guard (issue 27): qes-dp, qes-greedy and qes-retrieval never cut between a heading
and its first unit, on real documents and the handbook, unless the two do not fit in L."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lab import LabConfig, build_index, load_collection, parse_document, run_lab
from lab.chunkers.base import CHUNKERS, Params, fitted_plan
from lab.index import training_for

REAL = Path(__file__).resolve().parent / "data" / "real"
DATA = Path(__file__).resolve().parent.parent / "data"
LICENSES = Path("/usr/share/common-licenses")
GUARDED = ("qes-dp", "qes-greedy", "qes-retrieval")


def stranded(doc, bodies, size):
    """Chunk boundaries that fall right after a heading although the heading run it ends and
    the unit after it fit in ``size`` characters together: what the guard forbids."""
    units = doc.units
    head_of = {}  # unit index after a heading -> the first heading of the run before it
    run_start = None
    for k, u in enumerate(units):
        if u.kind == "heading":
            run_start = k if run_start is None else run_start
            if k + 1 < len(units):
                head_of[k + 1] = run_start
        else:
            run_start = None
    bad = []
    starts = {u.start: k for k, u in enumerate(units)}
    ends = {u.end: k for k, u in enumerate(units)}
    for start, end in bodies:
        for b in (starts.get(start), None if end not in ends else ends[end] + 1):
            if b is None or b not in head_of:
                continue
            # the heading run may already have been glued to an earlier unit: the guard glues
            # from the first unit of its block, which starts no later than the run
            if units[b].end - units[head_of[b]].start <= size:
                bad.append((start, end, b))
    return bad


def real_documents():
    docs = [("handbook", (DATA / "handbook.md").read_text(encoding="utf-8"))]
    docs.append(("Apache-2.0", (REAL / "Apache-2.0").read_text(encoding="utf-8")))
    for name in ("GPL-3", "MPL-2.0", "GFDL-1.3", "LGPL-2.1"):
        if (LICENSES / name).is_file():
            docs.append((name, (LICENSES / name).read_text(encoding="utf-8")))
    return docs


@pytest.fixture(scope="module")
def technova():
    return load_collection(DATA / "technova" / "collection.json")


@pytest.mark.parametrize("chunker", GUARDED)
@pytest.mark.parametrize("size", [250, 450, 800])
def test_guard_never_strands_a_heading_on_real_documents(chunker, size, handbook):
    for name, text in real_documents():
        doc = parse_document(text, name)
        training = training_for(handbook, 0) if name == "handbook" else Params(size).training
        params = Params(size, training=training, heading_guard=True)
        plan = fitted_plan(CHUNKERS[chunker], doc, params)
        assert plan.bodies
        # the fitted document (long units split) is what the chunker cut
        fitted = doc if not plan.cuts else _fitted(doc, size)
        assert stranded(fitted, plan.bodies, size) == [], name
        assert all(e - s <= size or _one_unit(fitted, s, e) for s, e in plan.bodies)


def _fitted(doc, size):
    from lab.chunkers.base import fit_units

    return fit_units(doc, size).doc


def _one_unit(doc, start, end):
    return any(u.start == start and u.end == end for u in doc.units)


def test_without_the_guard_the_dp_strands_headings_on_the_handbook(handbook):
    """The mechanism the guard removes is really there: qes-dp's cuts strand headings."""
    doc = handbook.documents[0]
    plan = fitted_plan(CHUNKERS["qes-dp"], doc, Params(450, training=training_for(handbook, 0)))
    assert len(stranded(doc, plan.bodies, 450)) >= 3


@pytest.mark.parametrize("chunker", GUARDED)
def test_guard_on_technova_documents(chunker, technova):
    index = build_index(technova, chunker, 350, heading_guard=True)
    for d, doc in enumerate(technova.documents):
        bodies = [c.source[0] for c in index.chunks if c.doc == d]
        fitted = _fitted(doc, 350)
        assert stranded(fitted, bodies, 350) == [], doc.name


@pytest.mark.parametrize("chunker", GUARDED)
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(10, 140)),
        min_size=1,
        max_size=6,
    ),
    st.integers(60, 300),
)
def test_guard_holds_on_generated_documents(chunker, sections, size):
    lines = []
    for k, (level, sentences, length) in enumerate(sections):
        lines.append(f"{'#' * (level + 1)} {k + 1} Heading number {k}\n")
        for s in range(sentences):
            lines.append(("word " * (length // 5)).strip() + f" end{s}.")
        lines.append("")
    doc = parse_document("\n".join(lines), "generated")
    plan = fitted_plan(CHUNKERS[chunker], doc, Params(size, heading_guard=True))
    fitted = _fitted(doc, size)
    assert stranded(fitted, plan.bodies, size) == []
    covered = sorted(plan.bodies)
    assert (
        covered[0][0] == fitted.units[0].start and max(e for _, e in covered) == doc.units[-1].end
    )


def test_guard_lets_a_heading_go_when_it_and_its_first_unit_exceed_L():
    text = "## 1 Title\n\n" + "A sentence that is long enough to fill the chunk. " * 3
    doc = parse_document(text, "long")
    plan = fitted_plan(CHUNKERS["qes-dp"], doc, Params(60, heading_guard=True))
    assert plan.bodies[0] == (doc.units[0].start, doc.units[0].end)  # the heading stands alone


def test_guard_changes_only_the_guarded_chunkers(handbook):
    on = run_lab(handbook, LabConfig(chunkers=("fixed", "structure", "qes-dp"), heading_guard=True))
    off = run_lab(handbook, LabConfig(chunkers=("fixed", "structure", "qes-dp")))
    for chunker in ("fixed", "structure"):
        for mode in ("flat", "graph"):
            assert on.run(chunker, mode).metrics == off.run(chunker, mode).metrics
    assert on.run("qes-dp", "flat").index != off.run("qes-dp", "flat").index
