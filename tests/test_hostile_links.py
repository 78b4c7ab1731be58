"""Issue 22, item 1: a link, a stored corpus or a manifest cannot put a live link or an image on
any page. Markdown link and image syntax goes into every place user or link text reaches the
screen (URL values and repeated keys, the reranker's name, document names and headings, question
ids, text and evidence, manifest type names, metadata and filters), and every page's every
markdown body, caption, label and help text is read back: the syntax shows as text."""

from __future__ import annotations

import json

import pytest
from app_support import ALL_PAGES, IMAGE, LINK, open_app, raw_links

from lab import embed
from ui import cache, store
from ui.draw import md_escape

pytestmark = pytest.mark.app


def test_md_escape_keeps_link_and_image_syntax_text():
    for planted in (LINK, IMAGE, f"<{LINK}>", "www.evil.example", "x@evil.example"):
        escaped = md_escape(planted)
        assert "](" not in escaped and "https://" not in escaped
        assert "www." not in escaped and "x@" not in escaped


def test_a_repeated_key_with_link_syntax_is_shown_escaped_in_the_link_notice():
    # ?[Sign in](https://evil.example)=1&[Sign in](https://evil.example)=2 (issue 22, item 1)
    app = open_app(None, **{LINK: ["1", "2"], IMAGE: ["1", "2"]})
    assert not app.exception, app.exception
    notices = [w.value for w in app.warning]
    assert any("gives" in n and "Sign in" in n for n in notices), notices
    assert not raw_links(app)


URL_KEYS = (
    "corpus",
    "corpus_id",
    "chunker",
    "mode",
    "size",
    "budget",
    "split",
    "headers",
    "refs",
    "filters",
    "late",
    "rerank_top",
    "question",
    "map",
    "doc",
    "b_chunker",
    "b_mode",
    "b_size",
    "b_refs",
    "resolve_refs",
    "b_resolve_refs",
)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_link_and_image_syntax_in_every_url_value_renders_as_text(page):
    query = {key: [LINK, IMAGE] if key in ("chunker", "mode") else LINK for key in URL_KEYS}
    query |= {"dense": "true", "rerank": "true", "rerank_model": LINK, "b_rerank": "true"}
    app = open_app(page, **query)
    assert not app.exception, app.exception
    assert app.warning  # the values were refused, in words
    assert not raw_links(app)


@pytest.mark.skipif(not embed.dense_status()[0], reason="needs requirements-dense.txt")
def test_a_reranker_named_with_link_syntax_is_escaped_in_compares_rerank_tooltip():
    app = open_app(
        "app_pages/compare.py", dense="true", rerank="true", rerank_model=IMAGE, b_rerank="true"
    )
    assert not app.exception, app.exception
    helps = [t.proto.help for t in app.toggle if t.proto.label == "Rerank"]
    assert helps and "pixel" in helps[0] and "](https" not in helps[0]
    assert not raw_links(app)


HOSTILE_DOC = (
    f"# Guide {LINK}\n\n## Pairing {IMAGE}\n\n### 1.1 Charge {LINK}\n\n"
    f"Charge it fully at https://evil.example before use. See {IMAGE} for more.\n\n"
    f"### 1.2 Hold {IMAGE}\n\nHold the power key for five seconds. Then visit {LINK}.\n"
)
HOSTILE_NAME = f"{LINK}.md"
HOSTILE_TYPE = f"{LINK}type"
HOSTILE_QE = [
    {
        "id": LINK,
        "question": f"How do I charge it? {IMAGE}",
        "evidence": ["Charge it fully at https://evil.example before use."],
        "doc": HOSTILE_NAME,
        "filter": {LINK: IMAGE},
    },
    {
        "id": IMAGE,
        "question": f"Which key? {LINK}",
        "evidence": [f"Then visit {LINK}.", "Hold the power key for five seconds."],
        "split": "train",
        "doc": HOSTILE_NAME,
    },
    {"id": "bad", "question": f"Gone {LINK}", "evidence": [f"not here {IMAGE}"]},
]
HOSTILE_MANIFEST = {
    "documents": [
        {"path": HOSTILE_NAME, "type": HOSTILE_TYPE, "meta": {LINK: IMAGE}},
        {"path": "plain.md", "type": "faq", "meta": {"product": LINK}},
        {"path": f"missing {IMAGE}.md"},
    ],
    "policy": {HOSTILE_TYPE: {"chunker": "structure"}, LINK: {"chunker": IMAGE}},
}


@pytest.fixture(scope="module")
def hostile_digest():
    inputs = store.Inputs(
        {HOSTILE_NAME: HOSTILE_DOC, "plain.md": "# Plain\n\n## A\n\nA plain sentence here.\n"},
        json.dumps(HOSTILE_QE),
        ("collection.json", json.dumps(HOSTILE_MANIFEST)),
    )
    return store.default_store().put(inputs)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_a_stored_corpus_full_of_link_syntax_renders_it_as_text_on_every_page(page, hostile_digest):
    app = open_app(
        page, corpus=cache.USER, corpus_id=hostile_digest, chunker=["structure", "by-type"]
    )
    assert not app.exception, app.exception
    assert app.session_state["settings"].corpus_id == hostile_digest
    assert not raw_links(app)


def test_the_index_overview_caption_escapes_a_manifest_type_name(hostile_digest):
    app = open_app(
        "app_pages/index_overview.py",
        corpus=cache.USER,
        corpus_id=hostile_digest,
        chunker="by-type",
        map="by-type",
    )
    assert not app.exception, app.exception
    captions = [c.value for c in app.caption if "the policy cuts it" in c.value]
    assert captions and "Sign in" in captions[0]
    assert not raw_links(app)
