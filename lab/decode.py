"""Text from bytes: UTF-8, or any UTF with a byte-order mark, and line endings normalised to LF
with the offsets they moved (so pinned evidence starts counted in the file as given stay valid)."""

from __future__ import annotations

import codecs
import re
import stat
from bisect import bisect_left
from pathlib import Path

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


MAX_FILE_BYTES = 20_000_000  # 5 M characters (the document limit) of UTF-8 take at most this


class InputFileError(CorpusError):
    """An input file that cannot be read; ``reason`` says why without the file's path."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def read_input(path: Path, what: str) -> bytes:
    """The bytes of the input file ``path``; an :class:`InputFileError` saying precisely why
    not: missing, a folder, not a regular file (a pipe, ``/dev/zero``: never read, they need not
    end), larger than any input the lab takes, or unreadable."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputFileError(f"No such {what}: {path}", "it does not exist") from None
    except OSError as exc:
        raise _unreadable(path, what, exc) from None
    reason = None
    if stat.S_ISDIR(info.st_mode):
        reason = "it is a folder, not a file"
    elif not stat.S_ISREG(info.st_mode):
        reason = "it is not a regular file but a pipe, socket or device; give a file"
    elif info.st_size > MAX_FILE_BYTES:
        reason = (
            f"it is {info.st_size / 1e6:,.0f} MB; no input the lab takes is over "
            f"{MAX_FILE_BYTES / 1e6:,.0f} MB"
        )
    if reason:
        raise InputFileError(f"The {what} {path} cannot be used: {reason}.", reason)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, what, exc) from None


def _unreadable(path: Path, what: str, exc: OSError) -> InputFileError:
    reason = f"it cannot be read ({exc.strerror or type(exc).__name__})"
    return InputFileError(f"The {what} {path} cannot be used: {reason}.", reason)
