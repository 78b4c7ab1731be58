"""Chunk functions the plugin tests load with ``--plugin pipeline_plugins:NAME``."""


def paragraphs(text, size, overlap):
    """Blank-line paragraphs, as strings."""
    return [p for p in text.split("\n\n") if p.strip()]


def halves(text, size, overlap):
    """The two halves of the text, as (start, end) pairs."""
    middle = len(text) // 2
    return [(0, middle), (middle, len(text))]


def broken(text, size, overlap):
    raise RuntimeError("the model server is down")


def outside(text, size, overlap):
    return [(0, len(text) + 5)]
