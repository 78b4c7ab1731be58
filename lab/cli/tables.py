"""The command line's tables: aligned plain-text columns for runs, sweeps and comparisons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .. import (
    Comparison,
    Corpus,
    LabConfig,
    leaders,
    percent_text,
    scored_on_training,
    untrained_chunkers,
)
from ..compare import label, p_text, points, uses_embeddings
from ..config import question_count
from ..run import LabResult
from ..sweeps import SweepResult
from ..training import MARK


def table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> str:
    """Aligned columns: the first ``left`` (names) to the left, the rest (numbers) to the right."""
    widths = [max(map(len, col)) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


def pct(x: float, n: int) -> str:
    """A share of ``n`` items by the one rounding rule (``lab.percent_text``)."""
    return percent_text(x, n)


def interval(low: float, high: float, n: int) -> str:
    return f"{pct(low, n).removesuffix('%')}-{pct(high, n)}"


def on_off(flag: bool) -> str:
    return "on" if flag else "off"


def dense_note(c: LabConfig) -> str:
    """The dense settings for a table's title: "" when dense retrieval and reranking are off."""
    parts = [f"dense {c.dense}"] if c.dense else []
    parts += ["late chunking"] if c.late else []
    parts += [f"reranked by {c.rerank} (top {c.rerank_top})"] if c.rerank else []
    return "".join(f", {p}" for p in parts)


def documents_table(corpus: Corpus, config: LabConfig) -> str:
    """Each document's type (``*``: inferred), format, the chunker the policy gives it, size
    and metadata, with how inferred types were read."""
    rows, notes = [], []
    for info, doc in zip(corpus.info, corpus.documents, strict=True):
        choice = corpus.policy.resolve(
            info.type, config.size, config.overlap, config.dense is not None
        )
        inferred = info.type_source != "given"
        if inferred:
            notes.append(f"* {info.name}: {info.type_source}")
        if choice.note:
            notes.append(f"{info.name}: {choice.note}")
        rows.append(
            (
                info.name,
                info.type + "*" * inferred,
                info.format,
                choice.chunker + (f" (L={choice.size})" if choice.size != config.size else ""),
                info.describe_meta() or "-",
                f"{len(doc.text):,}",
            )
        )
    columns = table(("document", "type", "format", "by-type", "meta", "chars"), rows, left=5)
    return "\n".join([f"Documents ({corpus.name})", columns, *notes])


def budget_unit(c: LabConfig) -> str:
    """What the budget counts: "words", or "NAME tokens" with a tokenizer."""
    return f"{c.tokenizer} tokens" if c.tokenizer else "words"


def size_unit(c: LabConfig) -> str:
    """What the chunk size counts: "chars", or "NAME tokens" with a tokenizer."""
    return f"{c.tokenizer} tokens" if c.tokenizer else "chars"


def budget_text(c: LabConfig) -> str:
    """The budget in words: "budget 120 words", or the adaptive budget's candidates."""
    unit = budget_unit(c)
    if c.adaptive:
        return f"budget adaptive (per question, {min(c.adaptive_budgets)}-{c.words} {unit})"
    return f"budget {c.budget} {unit}"


def settings_note(c: LabConfig, dense: bool = True) -> str:
    """Size, budget, heading prefixes, reference placement, metadata filters when off, and
    dense options (unless ``dense`` is False: a side of a comparison that does not use them),
    in words."""
    size = f"{c.tokenizer} tokens" if c.tokenizer else "chars"
    return (
        f"size {c.size} {size}, {budget_text(c)}, headers {on_off(c.headers)}, "
        f"references {c.refs}{'' if c.filters else ', metadata filters off'}"
        + (", heading guard on" if c.heading_guard else "")
        + (dense_note(c) if dense else "")
    )


def run_table(result: LabResult, corpus: Corpus) -> str:
    c = result.config
    questions = corpus.split(c.split)
    n = len(questions)
    filtered = sum(1 for q in questions if q.filter)
    docs = len(corpus.documents)
    title = (
        f"{corpus.name}: {f'{docs} documents, ' if docs > 1 else ''}"
        f"{question_count(n, c.split)}"
        f"{f' ({filtered} with a metadata filter)' if filtered else ''}, {settings_note(c)}"
    )
    without = ("complete w/o filters", "partial w/o filters") if filtered and c.filters else ()
    untrained = set(untrained_chunkers(corpus, c.chunkers))
    on_training = set(scored_on_training(corpus, c.split, c.chunkers, c.adaptive))

    def name(chunker: str) -> str:
        if chunker in untrained:
            return f"{chunker} (untrained)"
        return f"{chunker} ({MARK})" if chunker in on_training else chunker

    metrics = table(
        (
            "chunker",
            "mode",
            "partial",
            "complete",
            "complete 95% CI",
            "gap",
            "context tokens" if c.tokenizer else "context words",
            "chunks",
            "MRR",
        )
        + without,
        [
            (
                name(r.chunker),
                "graph (hybrid seeds)" if c.dense and r.mode == "graph" else r.mode,
                pct(m.partial, n),
                pct(m.complete, n),
                interval(*m.complete_ci, n),
                pct(m.gap, n),
                f"{m.mean_context_words:.1f}",
                f"{m.mean_chunks:.2f}",
                f"{m.mrr:.3f}",
            )
            + ((pct(u.complete, n), pct(u.partial, n)) if u is not None else ())
            for r in result.runs
            for m, u in [(r.metrics, r.unfiltered_metrics)]
        ],
        left=2,
    )
    documents = documents_table(corpus, c) + "\n\n" if docs > 1 else ""
    spans = sum(len(q.evidence) for q in corpus.questions)
    seen: dict[str, object] = {}
    for r in result.runs:
        seen.setdefault(r.chunker, r.index)
    index = table(
        (
            "chunker",
            "chunks",
            "mean chars",
            "max chars",
            "max delivered",
            "index/doc",
            "evidence intact",
            "heading starts",
            "over size",
            "over budget",
            "long units",
            "split evidence",
            "objective",
        ),
        [
            (
                name(chunker),
                str(s.chunks),
                f"{s.mean_chars:.0f}",
                str(s.max_chars),
                str(s.max_delivered_chars),
                f"{s.index_ratio:.2f}",
                pct(s.evidence_intact, spans),
                pct(s.heading_starts, s.chunks),
                str(s.over_size),
                str(s.over_budget),
                str(s.long_units),
                str(s.split_evidence),
                "-" if s.objective is None else f"{s.objective:.2f}",
            )
            for chunker, s in seen.items()
        ],
        left=1,
    )
    index_title = (
        f"Index statistics (max delivered: prefix, body and delivered references; over "
        f"budget: longer than {c.words} {budget_unit(c)}; long units: sentences longer than L, "
        "split)"
    )
    top = leaders(result)
    best = f"Best complete recall {top.summary()}.\n" if top and len(result.runs) > 1 else ""
    return f"{title}\n\n{metrics}\n{best}\n{documents}{index_title}\n{index}\n"


def _nearest(values: Sequence[int], target: int) -> int:
    return min(values, key=lambda v: (abs(v - target), v))


def _pivot(result: SweepResult, axis: str, fixed: str, at: int, n: int) -> str:
    rows = [r for r in result.rows if r[fixed] == at]
    columns = sorted({r[axis] for r in rows})
    cells: dict[tuple[str, str], dict[int, str]] = {}
    for r in rows:
        cells.setdefault((r["chunker"], r["mode"]), {})[r[axis]] = (
            f"{pct(r['complete'], n)} ({pct(r['partial'], n)})"
        )
    return table(
        ("chunker", "mode", *map(str, columns)),
        [(chunker, mode, *(by[v] for v in columns)) for (chunker, mode), by in cells.items()],
        left=2,
    )


def sweep_table(result: SweepResult, corpus: Corpus, size: int, budget: int) -> str:
    c = result.config
    adaptive_rows = [r for r in result.rows if r.get("adaptive")]
    if adaptive_rows:
        result = replace(result, rows=tuple(r for r in result.rows if not r.get("adaptive")))
    sizes = sorted({r["size"] for r in result.rows})
    budgets = sorted({r["budget"] for r in result.rows})
    at_size, at_budget = _nearest(sizes, size), _nearest(budgets, budget)
    n = len(corpus.split(c.split))
    by_budget = _pivot(result, "budget", "size", at_size, n)
    by_size = _pivot(result, "size", "budget", at_budget, n)
    return (
        f"{corpus.name}: {question_count(n, c.split)}{dense_note(c)}; "
        "cells are complete (partial) recall\n\n"
        f"By budget ({budget_unit(c)}) at size {at_size} {size_unit(c)}\n{by_budget}\n\n"
        f"By size ({size_unit(c)}) at budget {at_budget} {budget_unit(c)}\n{by_size}\n"
        + (adaptive_table(adaptive_rows, at_size, n, c) if adaptive_rows else "")
    )


def adaptive_table(points: list[dict], size: int, n: int, c: LabConfig) -> str:
    """The adaptive budget's points at ``size``: recall against the words it sent."""
    rows = [
        (
            f"{r['chunker']} {r['mode']}",
            f"{r['budget']:.1f}",
            f"{r['mean_context_words']:.1f}",
            f"{pct(r['complete'], n)} ({pct(r['partial'], n)})",
        )
        for r in points
        if r["size"] == size
    ]
    sent = "mean tokens sent" if c.tokenizer else "mean words sent"
    head = ("configuration", "mean budget", sent, "complete (partial)")
    return f"\nAdaptive budget at size {size} {size_unit(c)}\n{table(head, rows, 1)}\n"


def compare_table(c: Comparison, corpus: Corpus) -> str:
    n = len(c.questions)
    changed = "; ".join(map(str, c.differences))
    rows = [
        (
            t.measure,
            f"{pct(t.a.value, n)} ({interval(t.a.low, t.a.high, n)})",
            f"{pct(t.b.value, n)} ({interval(t.b.low, t.b.high, n)})",
            f"{points(t.difference)} ({points(t.exact_ci[0])} to {points(t.exact_ci[1])})",
            p_text(t.p_value),
            str(t.fixed),
            str(t.broken),
            str(t.kept),
            str(t.failed),
            f"{points(t.ci[0])} to {points(t.ci[1])}",
        )
        for t in (c.complete, c.partial)
    ]
    summary = table(
        (
            "recall",
            "A (95% CI)",
            "B (95% CI)",
            "B - A points (exact 95% CI)",
            "p (exact McNemar)",
            "fixed",
            "broken",
            "both pass",
            "both fail",
            "bootstrap 95% CI",
        ),
        rows,
        left=1,
    )
    questions = table(
        ("question", "A", "B", "complete", "partial"),
        [(q.id, q.a, q.b, q.transition, q.partial_transition) for q in c.questions],
        left=5,
    )
    warning = f"Warning: {c.warning}\n" if c.warning else ""
    untrained = set(untrained_chunkers(corpus, c.a.chunkers + c.b.chunkers))
    on_training = set(
        scored_on_training(
            corpus, c.a.split, c.a.chunkers + c.b.chunkers, c.a.adaptive or c.b.adaptive
        )
    )

    def side(config: LabConfig) -> str:
        chunker = config.chunkers[0]
        mark = " (untrained)" if chunker in untrained else f" ({MARK})" * (chunker in on_training)
        return label(config) + mark

    return (
        f"{corpus.name}: {question_count(n, c.a.split)}\n"
        f"A: {side(c.a)}; {settings_note(c.a, uses_embeddings(c.a))}\nB: {side(c.b)}\n"
        f"B differs from A in: {changed}\n{warning}\n"
        f"{summary}\n\n{c.verdict}\n\n"
        f"Ranking depth, A: {c.depth_a.advice}\nRanking depth, B: {c.depth_b.advice}\n\n"
        f"{questions}\n"
    )
