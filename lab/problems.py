"""How the engine reports input it cannot use: a refusal, or a problem with one part of it."""

from __future__ import annotations

from dataclasses import dataclass


class CorpusError(ValueError):
    """The input cannot make a corpus at all (no usable document)."""


@dataclass(frozen=True, slots=True)
class InputError:
    """Something in the input that could not be used, and why. ``question`` is its id and
    ``document`` its document's name, when it concerns one."""

    message: str
    question: str | None = None
    severity: str = "error"  # "error": left out; "warning": used, with a caveat
    document: str | None = None
