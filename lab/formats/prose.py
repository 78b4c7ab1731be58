"""A reader's paragraphs split into sentences all at once, at the end (:func:`lab.sentences.
prose_units`), rather than one by one as :meth:`lab.parse.UnitBuilder.add_prose` would; the units
are the same, several times faster on a long text."""

from __future__ import annotations

import numpy as np

from ..parse import Columns, TableRow, UnitBuilder
from ..sentences import prose_units, sentence_breaks


class ProseBatch(UnitBuilder):
    """A :class:`~lab.parse.UnitBuilder` that splits its paragraphs into sentences at the end."""

    def __init__(self, text: str):
        super().__init__(text)
        self.breaks = sentence_breaks(text, 0, len(text))
        # Paragraphs read and not yet split into sentences: ``(start, end, skip, block, units
        # added before it)``. :meth:`unit_columns` splits them all at once, at the end.
        self.prose: list[tuple[int, int, int, int, int]] = []
        self.heading_clock: dict[int, int] = {}  # a heading's unit index: paragraphs before it
        self.merged: Columns | None = None  # all units, once the paragraphs are split

    def add_prose(self, start: int, end: int, skip: int = 0) -> None:
        self.block += 1
        self.prose.append((start, end, skip, self.block, len(self.units)))

    def add_heading(self, start: int, end: int, level: int, title: str) -> None:
        self.heading_clock[len(self.units)] = len(self.prose)
        super().add_heading(start, end, level, title)

    def unit_columns(self) -> Columns:
        """Split the paragraphs read into sentences, as :meth:`UnitBuilder.add_prose` would
        one by one, and put their units among the others, renumbering headings and rows."""
        if self.merged is not None:
            return self.merged
        if not self.prose:
            return super().unit_columns()
        _, _, _, blocks, before = (
            np.array(c, dtype=np.int64) for c in zip(*self.prose, strict=True)
        )
        starts, ends, para = prose_units(self.text, self.breaks, self.prose)
        prose_before = np.concatenate(([0], np.cumsum(np.bincount(para, minlength=len(before)))))
        fixed = self.units
        total = len(fixed) + len(para)
        new_starts = np.empty(total, dtype=np.int64)
        new_ends = np.empty(total, dtype=np.int64)
        new_blocks = np.empty(total, dtype=np.int64)
        kinds = np.full(total, "sentence", dtype=object)
        # A paragraph's units come after the units added before it was read; a unit added
        # after ``k`` paragraphs moves on by their units.
        where = np.arange(len(para)) + before[para]
        new_starts[where], new_ends[where], new_blocks[where] = starts, ends, blocks[para]
        fixed_at = np.arange(len(fixed))
        fixed_at += prose_before[np.searchsorted(before, fixed_at, "right")]
        if fixed:
            f_starts, f_ends, f_kinds, f_blocks = zip(*fixed, strict=True)
            new_starts[fixed_at], new_ends[fixed_at] = f_starts, f_ends
            new_blocks[fixed_at], kinds[fixed_at] = f_blocks, f_kinds
        clock, cum = self.heading_clock, prose_before.tolist()
        self.headings = {k + cum[clock[k]]: h for k, h in self.headings.items()}
        moved = fixed_at.tolist()
        self.tables = [
            (
                None if header is None else TableRow(moved[header.unit], header.cells),
                [TableRow(moved[row.unit], row.cells) for row in rows],
            )
            for header, rows in self.tables
        ]
        self.merged = new_starts.tolist(), new_ends.tolist(), kinds.tolist(), new_blocks.tolist()
        return self.merged
