"""Tables as CSV a spreadsheet opens as data: a text cell beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets
(`OWASP, CSV injection <https://owasp.org/www-community/attacks/CSV_Injection>`_), so such a cell
is written with a leading apostrophe, which spreadsheets show as text. Numbers stay numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def defuse(cell: object) -> object:
    """``cell`` with an apostrophe before it when it is text a spreadsheet would run."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as CSV (no index), every text cell and column name defused."""
    safe = frame.rename(columns=defuse)
    for column in safe.columns:
        if safe[column].dtype == object or str(safe[column].dtype) in ("string", "str"):
            safe[column] = safe[column].map(defuse)
    return safe.to_csv(index=False)
