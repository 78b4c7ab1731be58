"""LlamaIndex's node parsers (``llama-index-core``). The lab passes its own length function, so
the sentence splitter never loads tiktoken (which would download its files on first use)."""

from __future__ import annotations

from ...parse import Document
from ..base import Params, Plan, register
from .locate import locate

INSTALL = "pip install -r requirements-pipelines.txt"
REQUIRES = ("llama_index.core",)


def token_list(p: Params):
    """What LlamaIndex calls a tokenizer, ``text -> list`` (it counts the list): the lab
    tokenizer's ids, or the characters."""
    return list if p.tokenizer is None else p.tokenizer.encode


def sentence_splitter(p: Params):
    """``SentenceSplitter(chunk_size=L, chunk_overlap=overlap, tokenizer=...)``."""
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(chunk_size=p.size, chunk_overlap=p.overlap, tokenizer=token_list(p))


def markdown_pieces(text: str) -> list[str]:
    """``MarkdownNodeParser``'s nodes of the text: one per heading section (it has no size)."""
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import MarkdownNodeParser

    nodes = MarkdownNodeParser().get_nodes_from_documents([LlamaDocument(text=text)])
    return [n.get_content() for n in nodes]


@register(
    "llamaindex-sentence",
    "LlamaIndex sentence",
    "LlamaIndex's SentenceSplitter: whole sentences (then phrases, then words) packed up to L, "
    "with `overlap` carried over.",
    order=32,
    overlap=True,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def llamaindex_sentence(doc: Document, p: Params) -> Plan:
    return locate(doc.text, sentence_splitter(p).split_text(doc.text))


@register(
    "llamaindex-markdown",
    "LlamaIndex markdown",
    "LlamaIndex's MarkdownNodeParser: one chunk per markdown heading section, whatever its "
    "length (it takes no size).",
    order=33,
    units=False,
    kind="adapter",
    requires=REQUIRES,
    install=INSTALL,
)
def llamaindex_markdown(doc: Document, p: Params) -> Plan:
    return locate(doc.text, markdown_pieces(doc.text))
