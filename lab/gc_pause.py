"""The cyclic garbage collector paused while a stage builds many small objects and no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Cyclic garbage collection paused for the duration: parsing, chunking and a run allocate
    many small objects (units, chunks, token lists, contexts, results) and no cycles, and the
    collector's passes over a large corpus's live objects cost a fifth of parsing 1 MB and a
    tenth of a 1 MB run. Reference counting still frees everything; the collector is on again
    afterwards (if it was on before).

    What the stage built is handed to the oldest generation (``gc.freeze`` then
    ``gc.unfreeze``, two list splices) rather than left in the youngest, whose next collection
    would walk every object of it once more (25 ms after a 1 MB run); a cycle among them is
    found by the next full collection. Not done while something else keeps objects frozen
    (``gc.get_freeze_count()``), which ``gc.unfreeze`` would release."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
