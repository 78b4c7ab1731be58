"""Supervised chunkers scored on the questions they learned from.

qes-dp and qes-greedy learn from the train questions (so does ``by-type`` when the collection's
policy gives a document one of them). Scoring them on the test split measures them; scoring them
on a split that holds the train questions ("train", "all") scores them on their own training
data, which flatters them: such results must say so. The adaptive budget (``budget=adaptive``)
is fitted on the train questions too, so on those splits it marks every chunker.
"""

from __future__ import annotations

from collections.abc import Iterable

from .corpus import Corpus
from .index import learns

TRAINING_SPLITS = ("train", "all")  # the splits that score the train questions
MARK = "scored on training data"


def scored_on_training(
    corpus: Corpus, split: str, chunkers: Iterable[str], adaptive: bool = False
) -> tuple[str, ...]:
    """The chunkers among ``chunkers`` that learned from train questions which ``split`` also
    scores ("train" or "all"): the supervised ones, or every one when the budget is adaptive
    (fitted on the train questions); () on the test split or when the corpus has no train
    question."""
    if split not in TRAINING_SPLITS or not corpus.split("train"):
        return ()
    return tuple(dict.fromkeys(c for c in chunkers if adaptive or learns(corpus, c)))


def training_warning(
    corpus: Corpus, split: str, chunkers: Iterable[str], adaptive: bool = False
) -> str | None:
    """One sentence for :func:`scored_on_training`'s chunkers, or None."""
    names = scored_on_training(corpus, split, chunkers, adaptive)
    if not names:
        return None
    trained = len(corpus.split("train"))
    if adaptive:
        return (
            f"The adaptive budget is fitted on the {trained} train questions, which the {split} "
            "split scores too: every result here includes its own training data and flatters it "
            f'(marked "{MARK}"). Score the test split to measure it.'
        )
    verb = "learns" if len(names) == 1 else "learn"
    return (
        f"{' and '.join(names)} {verb} from the {trained} train questions, which the {split} "
        "split scores too: these results include their own training data and flatter them "
        f'(marked "{MARK}"). Score the test split to measure them.'
    )


__all__ = ["MARK", "TRAINING_SPLITS", "scored_on_training", "training_warning"]
