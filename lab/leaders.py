"""Ties and near-ties at the top of a run's recall: with a few questions, configurations one
question apart are not told apart."""

from __future__ import annotations

from dataclasses import dataclass

from .run import LabResult
from .stats import percent_text, wilson_interval

MEASURES = ("complete", "partial")


@dataclass(frozen=True)
class Leaders:
    """The configurations at the top of one measure, and those within one question of them."""

    measure: str
    value: float
    interval: tuple[float, float]
    questions: int
    best: tuple[tuple[str, str], ...]  # (chunker, mode) of every configuration at the top
    near: tuple[tuple[str, str], ...]  # one question below the top

    def summary(self) -> str:
        """ "77%: structure · graph; 1 configuration is within one question of it"."""
        names = ", ".join(f"{c} · {m}" for c, m in self.best)
        text = f"{percent_text(self.value, self.questions)}: {names}"
        if len(self.best) > 1:
            text += f" ({len(self.best)} configurations tie)"
        if self.near:
            k = len(self.near)
            it = "them" if len(self.best) > 1 else "it"
            text += f"; {k} configuration{'s are' if k != 1 else ' is'} within one question of {it}"
        return text


def leaders(result: LabResult, measure: str = "complete") -> Leaders | None:
    """Ties and near-ties at the top of ``measure`` ("complete" or "partial") recall: with 13
    questions one question is 7.7 points, so configurations a question apart are not told apart.
    None without runs or questions."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    counts = [
        (sum(getattr(q, measure) for q in r.questions), (r.chunker, r.mode))
        for r in result.runs
        if r.questions
    ]
    if not counts:
        return None
    n = len(result.runs[0].questions)
    top = max(k for k, _ in counts)
    return Leaders(
        measure=measure,
        value=top / n,
        interval=wilson_interval(top, n),
        questions=n,
        best=tuple(name for k, name in counts if k == top),
        near=tuple(name for k, name in counts if k == top - 1),
    )
