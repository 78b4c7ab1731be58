"""What one experiment is: the chunkers, modes, chunk size, budget, split and toggles
(``LabConfig``), checked once when it is made, and the models it names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .adaptive import ADAPTIVE
from .chunkers import CHUNKERS, REFERENCE_PLACEMENTS, reference_placement
from .formats import canonical_parser
from .index import DEFAULT_OVERLAP, check_chunking
from .retrieve import LEXICAL_MODES, MODES, RERANK_TOP

SPLITS = ("test", "train", "all")
DEFAULT_CHUNKERS = ("fixed", "sentence", "structure", "qes-dp", "qes-greedy")
DEFAULT_BUDGETS = (40, 60, 80, 120, 160, 200, 300, 400)
DEFAULT_SIZES = (250, 350, 450, 600, 800)

Progress = Callable[[int, int], None]


def question_count(n: int, split: str) -> str:
    """``n`` questions of ``split`` in words: "13 test questions", "1 train question", "all 25
    questions"."""
    noun = f"question{'s' * (n != 1)}"
    return f"all {n} {noun}" if split == "all" else f"{n} {split} {noun}"


@dataclass(frozen=True)
class LabConfig:
    """One experiment: which chunkers and modes, the chunk size ``L`` in characters, the context
    budget in words, the question split, and the toggles. ``refs`` places the text of cited
    provisions: "delivered" (in the chunk and its budget), "index-only" (retrieval matches it,
    the context does not carry it) or "off"; references also give the chunk graph its
    cross-reference edges unless off. ``dense`` names an embedding model (None: keyword
    retrieval only); it enables the dense and hybrid modes, dense chunkers and ``late``
    chunking, and seeds graph mode from hybrid. ``rerank`` names a cross-encoder that reorders
    the top ``rerank_top`` chunks before assembly. ``filters`` applies the questions' metadata
    filters (each question ranks only the documents whose metadata match it); off, every
    question ranks every document. ``heading_guard`` keeps qes-dp, qes-greedy and qes-retrieval
    from cutting between a heading and its first unit (:mod:`lab.chunkers.guard`; the other
    chunkers cut as before). ``budget="adaptive"`` gives each question its own budget, one of
    ``adaptive_budgets``, fitted on the train questions (:mod:`lab.adaptive`). ``tokenizer``
    names one (``lab.tokens``): chunk size, overlap and budget then count its tokens, not
    characters and words. ``parser`` names the readings of the formats that offer several
    (HTML ``main`` or ``page``, PDF ``pypdf`` or ``layout``, joined by commas; None: each
    format's default, :func:`lab.formats.canonical_parser`): the run reads the documents with
    it (:meth:`lab.corpus.Corpus.read_with`)."""

    chunkers: tuple[str, ...] = DEFAULT_CHUNKERS
    modes: tuple[str, ...] = LEXICAL_MODES
    size: int = 450
    budget: int | str = 120
    split: str = "test"
    headers: bool = False
    refs: str = REFERENCE_PLACEMENTS[0]
    overlap: int = DEFAULT_OVERLAP
    dense: str | None = None
    late: bool = False
    rerank: str | None = None
    rerank_top: int = RERANK_TOP
    filters: bool = True
    heading_guard: bool = False
    adaptive_budgets: tuple[int, ...] = DEFAULT_BUDGETS
    tokenizer: str | None = None
    parser: str | None = None

    @property
    def adaptive(self) -> bool:
        """Whether each question gets its own budget (``budget="adaptive"``)."""
        return self.budget == ADAPTIVE

    @property
    def words(self) -> int:
        """The fixed budget, or the largest an adaptive one may choose."""
        return max(self.adaptive_budgets) if self.adaptive else self.budget

    def __post_init__(self):
        object.__setattr__(self, "chunkers", tuple(self.chunkers))
        object.__setattr__(self, "adaptive_budgets", tuple(self.adaptive_budgets))
        object.__setattr__(self, "modes", tuple(self.modes))
        object.__setattr__(self, "parser", canonical_parser(self.parser))
        reference_placement(self.refs)
        if not self.chunkers:
            raise ValueError(f"choose at least one chunker of {', '.join(CHUNKERS)}")
        for name in self.chunkers:
            check_chunking(name, self.size, self.overlap)
        if not self.modes or any(m not in MODES for m in self.modes):
            raise ValueError(f"modes must be some of {', '.join(MODES)}, got {self.modes!r}")
        if self.dense is None:
            needs = [m for m in self.modes if m not in LEXICAL_MODES]
            needs += [c for c in self.chunkers if CHUNKERS[c].dense]
            needs += ["late chunking"] if self.late else []
            if needs:
                raise ValueError(
                    f"{', '.join(needs)} need(s) dense embeddings: set dense to a model"
                )
        if not isinstance(self.rerank_top, int) or self.rerank_top < 1:
            raise ValueError(f"rerank_top must be a whole number >= 1, got {self.rerank_top!r}")
        if self.budget != ADAPTIVE and (not isinstance(self.budget, int) or self.budget < 1):
            raise ValueError(
                f"budget must be a whole number of words >= 1 or {ADAPTIVE!r}, got {self.budget!r}"
            )
        if not self.adaptive_budgets or any(
            not isinstance(b, int) or b < 1 for b in self.adaptive_budgets
        ):
            raise ValueError(
                "adaptive_budgets must be whole numbers of words >= 1, got "
                f"{self.adaptive_budgets!r}"
            )
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")


def tokenizer_for(config: LabConfig):
    """The shared tokenizer the configuration names, or None when sizes count characters."""
    if config.tokenizer is None:
        return None
    from .tokens import get_tokenizer

    return get_tokenizer(config.tokenizer)


def embedder_for(config: LabConfig):
    """The shared embedder the configuration names, or None when dense retrieval is off."""
    if config.dense is None:
        return None
    from .embed import get_embedder

    return get_embedder(config.dense)


def reranker_for(config: LabConfig):
    """The shared cross-encoder the configuration names, or None."""
    if config.rerank is None:
        return None
    from .rerank import get_reranker

    return get_reranker(config.rerank)
