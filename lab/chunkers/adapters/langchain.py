"""LangChain's text splitters (``langchain-text-splitters``)."""

from __future__ import annotations

from ...parse import Document
from ..base import Params, Plan, register
from .locate import locate

INSTALL = "pip install -r requirements-pipelines.txt"
REQUIRES = ("langchain_text_splitters",)
HEADERS = tuple(("#" * level, f"Header {level}") for level in range(1, 7))


def recursive_splitter(p: Params):
    """``RecursiveCharacterTextSplitter(chunk_size=L, chunk_overlap=overlap)``, measuring with
    the lab's length function (tokens of its tokenizer, or characters)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(
        chunk_size=p.size, chunk_overlap=p.overlap, length_function=p.length
    )


def markdown_pieces(text: str, p: Params) -> list[str]:
    """``MarkdownHeaderTextSplitter`` on ATX headings of every level, each section then split by
    :func:`recursive_splitter` (LangChain's documented pairing)."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter

    sections = MarkdownHeaderTextSplitter(headers_to_split_on=list(HEADERS)).split_text(text)
    return [d.page_content for d in recursive_splitter(p).split_documents(sections)]


@register(
    "langchain-recursive",
    "LangChain recursive",
    "LangChain's RecursiveCharacterTextSplitter: splits at blank lines, then line breaks, "
    "spaces and characters, merging pieces up to L with `overlap` carried over.",
    order=30,
    overlap=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def langchain_recursive(doc: Document, p: Params) -> Plan:
    return locate(doc.text, recursive_splitter(p).split_text(doc.text))


@register(
    "langchain-markdown",
    "LangChain markdown",
    "LangChain's MarkdownHeaderTextSplitter (one section per heading, headings moved into "
    "metadata) followed by the recursive splitter at L with `overlap`.",
    order=31,
    overlap=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def langchain_markdown(doc: Document, p: Params) -> Plan:
    return locate(doc.text, markdown_pieces(doc.text, p))
