"""The chunking policy as one more chunker: each document cut as its type says."""

from __future__ import annotations

from dataclasses import replace

from ..parse import Document
from .base import CHUNKERS, Params, Plan, fitted_plan, register


@register(
    "by-type",
    "Policy by type",
    "Each document cut by the chunker (and parameters) the collection's policy gives its type: "
    "structure for changelogs, procedures, FAQs and policies, table rows for spec tables, "
    "sentence windows for transcripts, recursive otherwise, unless the manifest says more.",
    order=10,
    units=False,
)
def by_type(doc: Document, p: Params) -> Plan:
    """The plan of the chunker the policy (``p.policy``) gives the document's type
    (``p.doc_type``), with the size and overlap it fixes (the lab's otherwise). A chunker that
    needs embeddings falls back to recursive while they are off. Long units are fitted to the
    chosen size, not the lab's."""
    if p.policy is None:
        raise ValueError("the by-type chunker needs the collection's policy")
    choice = p.policy.resolve(p.doc_type, p.size, p.overlap, p.embedder is not None)
    params = replace(p, size=choice.size, overlap=choice.overlap)
    return fitted_plan(CHUNKERS[choice.chunker], doc, params)
