"""The sidebar's settings as one record, ``Settings``: what the pages read (never the widgets),
the engine's ``LabConfig`` they make, and the query parameters a share link carries.

:mod:`ui.state` draws the sidebar that produces it; :mod:`ui.link_notices` and the Compare page
read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab import ADAPTIVE, DEFAULT_CHUNKERS, LEXICAL_MODES, LabConfig, embed
from lab.rerank import DEFAULT_RERANKER

from . import cache, pipelines

ADAPTIVE_KEY = "adaptive_budget"  # the flag's parameter; a link says budget=adaptive instead


@dataclass(frozen=True)
class Settings:
    """What the sidebar says: the pages read this, never the widgets."""

    corpus: str = cache.HANDBOOK
    parser: str = cache.DEFAULT_PARSER  # the readings of HTML and PDF (LabConfig.parser)
    chunkers: tuple[str, ...] = DEFAULT_CHUNKERS
    modes: tuple[str, ...] = LEXICAL_MODES
    size: int = LabConfig.size
    budget: int = LabConfig.budget
    adaptive: bool = False  # a budget per question (``budget=adaptive``), up to the largest
    split: str = LabConfig.split
    headers: bool = LabConfig.headers
    refs: str = LabConfig.refs
    filters: bool = LabConfig.filters
    heading_guard: bool = LabConfig.heading_guard
    dense: bool = False
    late: bool = LabConfig.late
    rerank: bool = False
    rerank_model: str = DEFAULT_RERANKER
    rerank_top: int = LabConfig.rerank_top
    question: str | None = None
    corpus_id: str | None = None  # the store digest of the user's corpus shown, when kept
    rerank_source: str | None = None  # the folder the chosen reranker was loaded from
    rerank_problem: str | None = None  # why the chosen reranker cannot be had: it is not used
    tokenizer: str | None = None  # sizes, overlap and budget count its tokens (None: chars, words)

    @property
    def reranker(self) -> str | None:
        """The name of the cross-encoder in use, or None."""
        return self.rerank_model if self.rerank and self.rerank_source else None

    @property
    def config(self) -> LabConfig:
        return LabConfig(
            chunkers=self.chunkers,
            modes=self.modes,
            size=self.size,
            budget=ADAPTIVE if self.adaptive else self.budget,
            split=self.split,
            headers=self.headers,
            refs=self.refs,
            filters=self.filters,
            heading_guard=self.heading_guard,
            dense=embed.DEFAULT_MODEL if self.dense else None,
            late=self.late,
            rerank=self.reranker,
            rerank_top=self.rerank_top,
            tokenizer=self.tokenizer,
            parser=self.parser,
        )

    def params(self) -> dict[str, list[str]]:
        """Every setting as its query parameter values."""
        return {
            "corpus": [self.corpus],
            "parser": [self.parser],
            "chunker": list(self.chunkers),
            "mode": list(self.modes),
            "size": [str(self.size)],
            "budget": [ADAPTIVE if self.adaptive else str(self.budget)],
            "split": [self.split],
            "headers": [str(self.headers).lower()],
            "refs": [self.refs],
            "filters": [str(self.filters).lower()],
            "heading_guard": [str(self.heading_guard).lower()],
            ADAPTIVE_KEY: [str(self.adaptive).lower()],
            "dense": [str(self.dense).lower()],
            "late": [str(self.late).lower()],
            "rerank": [str(self.rerank).lower()],
            "rerank_model": [self.rerank_model],
            "rerank_top": [str(self.rerank_top)],
            "question": [self.question] if self.question else [],
            "corpus_id": [self.corpus_id] if self.corpus_id else [],
            "tokenizer": [self.tokenizer or pipelines.CHARACTERS],
        }

    def link_params(self) -> dict[str, list[str]]:
        """The settings a link must carry: those off their defaults, and the question."""
        default = Settings().params()
        return {
            key: values
            for key, values in self.params().items()
            if values
            and key != ADAPTIVE_KEY  # budget=adaptive says it
            and (key == "question" or values != default[key])
        }
