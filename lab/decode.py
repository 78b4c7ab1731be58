"""Text from bytes: UTF-8, or any UTF with a byte-order mark, and line endings normalised to LF
with the offsets they moved (so pinned evidence starts counted in the file as given stay valid)."""

from __future__ import annotations

import codecs
import re
from bisect import bisect_left

from .problems import CorpusError

# Byte-order marks, longest first (UTF-32's little-endian mark begins with UTF-16's).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)


def decode_text(data: bytes | str, what: str) -> str:
    """Text from an upload: UTF-8, or any UTF with a byte-order mark. A precise CorpusError for
    binary input and for text in another encoding."""
    if isinstance(data, str):
        return data
    encoding, name = "utf-8", "UTF-8"
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            encoding, name = codec, label
            break
    else:
        sample = data[:8192]
        if b"\x00" in sample:
            if _looks_like_utf16(sample):
                raise CorpusError(
                    f"{what} is not UTF-8 text: it looks like UTF-16 without a byte-order "
                    "mark; save it as UTF-8."
                )
            raise CorpusError(f"{what} looks like a binary file, not text.")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        fix = "" if name == "UTF-8" else " (its byte-order mark says so)"
        raise CorpusError(
            f"{what} is not {name} text{fix} (bad byte at position {exc.start}); save it as UTF-8."
        ) from None


def _looks_like_utf16(sample: bytes) -> bool:
    """Mostly-ASCII text in UTF-16 has a zero in nearly every other byte, and nowhere else."""
    half = len(sample) // 2
    if half < 2:
        return False
    for zeros, other in ((sample[1::2], sample[0::2]), (sample[0::2], sample[1::2])):
        if zeros.count(0) >= 0.9 * half and other.count(0) <= 0.1 * half:
            return True
    return False


def normalise_newlines(text: str) -> tuple[str, list[int]]:
    """``text`` with CRLF and lone CR line breaks turned into LF, and the original offsets of the
    CRs removed (a pinned start ``s`` of the original is ``shift_offset(s, removed)`` after)."""
    if "\r" not in text:
        return text, []
    removed = [m.start() for m in re.finditer("\r\n", text)]
    return text.replace("\r\n", "\n").replace("\r", "\n"), removed


def shift_offset(offset: int, removed: list[int]) -> int:
    """An offset of the original text in the text with the ``removed`` characters taken out."""
    return offset - bisect_left(removed, offset)


def original_offset(offset: int, removed: list[int] | tuple[int, ...]) -> int:
    """The offset in the original text of ``offset`` in the text with the ``removed``
    characters taken out (the inverse of :func:`shift_offset`)."""
    lo, hi = 0, len(removed)
    while lo < hi:  # removed CRs whose LF lands before ``offset`` once they are gone
        mid = (lo + hi) // 2
        if removed[mid] - mid < offset:
            lo = mid + 1
        else:
            hi = mid
    return offset + lo
