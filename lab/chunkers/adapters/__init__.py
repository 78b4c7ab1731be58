"""Other libraries' chunkers as lab chunkers: one module per library, each chunker registered
like the lab's own (``kind="adapter"``) and listed as unavailable where its library is missing.

Every adapter maps the lab's size and overlap onto the library's own parameters (in tokens of
``Params.tokenizer`` when one is set, characters otherwise) and turns what the library returns
into exact source ranges (:mod:`.locate`). The libraries are imported on first use only.
"""

from __future__ import annotations

from . import chonkie, langchain, llamaindex, semchunk  # noqa: F401  (register the adapters)
