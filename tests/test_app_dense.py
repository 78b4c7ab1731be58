"""The app with dense retrieval on and off: every page with embeddings, every page without
them (the install hint shown, everything else working), the rank table of the drill-down, the
reranker, and dense settings in links."""

import json

import pytest
from app_support import ALL_PAGES, open_app, tiny_cross_encoder
from samples import DENSE_INSTALL, EMBEDDING_MODEL, LEXICAL_MODES, RERANKER_MODEL

from lab import CHUNKERS, MODES, chunker_status, embed
from ui import dense, draw, models

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them

PAGES = ALL_PAGES
DRILL = "app_pages/question_drilldown.py"
DENSE_OK, DENSE_STATUS = embed.dense_status()
needs_dense = pytest.mark.skipif(
    not DENSE_OK, reason=f"dense retrieval unavailable: {DENSE_STATUS}"
)
AVAILABLE = [c for c in CHUNKERS if chunker_status(c)[0]]  # other libraries' where installed
DENSE_CHUNKERS = [c for c in AVAILABLE if CHUNKERS[c].dense]
RANK_TABLE = ["chunk", "evidence", "BM25 rank", "dense rank", "fused rank", "RRF", "final rank"]
PARENTS_NOTICE = ":material/crop_free:"  # ui.cache.parents_notice
NOT_INSTALLED = f"sentence_transformers not installed: `{DENSE_INSTALL}` enables dense modes"


def settings(app):
    return app.session_state["settings"]


def rank_tables(app) -> list:
    return [d.value for d in app.dataframe if "fused rank" in d.value.columns]


@pytest.fixture
def no_dense(monkeypatch):
    """A machine without the dense packages, as the app sees it."""
    monkeypatch.setattr(embed, "dense_status", lambda: (False, NOT_INSTALLED))


@pytest.fixture(scope="module")
def models_folder(tmp_path_factory):
    """A models directory holding one tiny cross-encoder, ``tiny-reranker``."""
    if not DENSE_OK:
        pytest.skip(f"dense retrieval unavailable: {DENSE_STATUS}")
    folder = tmp_path_factory.mktemp("models")
    tiny_cross_encoder(folder / "tiny-reranker")
    return folder


@pytest.fixture
def local_reranker(models_folder, monkeypatch):
    """The name of a cross-encoder in the app's models directory."""
    monkeypatch.setenv(models.MODELS_ENV, str(models_folder))
    return "tiny-reranker"


# Dense on --------------------------------------------------------------------------------------


@needs_dense
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_with_every_mode_and_chunker(page):
    chunkers = ["structure", *DENSE_CHUNKERS, "parent-child"] if "sweep" in page else AVAILABLE
    app = open_app(page, dense="true", mode=list(MODES), chunker=chunkers)
    assert not app.exception
    # the one notice a page may give: parent-child's parents can outgrow the default budget
    assert {w.icon for w in app.warning} <= {PARENTS_NOTICE}
    assert settings(app).config.dense == EMBEDDING_MODEL
    in_order = tuple(c for c in AVAILABLE if c in chunkers)  # the sidebar lists in registry order
    assert settings(app).modes == MODES and settings(app).chunkers == in_order
    assert "dense=true" in app.sidebar.code[-1].value


@needs_dense
def test_recall_table_has_every_chunker_in_every_mode():
    app = open_app("app_pages/recall_tables.py", dense="true", mode=list(MODES), chunker=AVAILABLE)
    table = app.dataframe[0].value
    assert list(table["configuration"]) == draw.config_order(AVAILABLE, MODES, dense=True)
    assert (table["complete"] <= table["partial"]).all()
    assert any(f"dense embeddings: {EMBEDDING_MODEL}" in c.value for c in app.caption)


@needs_dense
def test_sweep_covers_the_dense_modes_and_chunkers():
    app = open_app(
        "app_pages/sweep_charts.py", dense="true", mode=["dense", "hybrid"], chunker=["semantic"]
    )
    assert not app.exception
    sweep = [b for b in app.get("download_button") if b.proto.label == "Sweep (CSV)"]
    assert sweep
    charts = app.get("vega_lite_chart")
    # a budget panel and a size panel for the one chunker, then a heatmap per mode
    assert len(charts) == 2 + 2
    lines = json.dumps(json.loads(charts[0].proto.spec), ensure_ascii=False)
    assert (
        '["dense · complete", "dense · partial", "hybrid · complete", "hybrid · partial"]' in lines
    )


@needs_dense
def test_drilldown_shows_bm25_dense_and_fused_ranks_side_by_side():
    app = open_app(DRILL, dense="true", mode=list(MODES), chunker="structure", question="q07")
    assert not app.exception
    tables = rank_tables(app)
    assert len(tables) == 3  # graph, dense and hybrid rank with the fusion; flat by BM25 alone
    for table in tables:
        assert list(table.columns) == RANK_TABLE
        assert table["evidence"].any()
        fused = table.dropna(subset=["fused rank"]).sort_values("fused rank")
        assert fused["RRF"].is_monotonic_decreasing  # the fused rank orders by RRF
    hybrid = tables[-1]
    assert (hybrid["final rank"].dropna() == hybrid["fused rank"].dropna()).all()


@needs_dense
def test_a_local_cross_encoder_reranks_and_its_ranks_show(local_reranker):
    app = open_app(
        DRILL,
        dense="true",
        mode="hybrid",
        chunker="structure",
        rerank="true",
        rerank_model=local_reranker,
        rerank_top="5",
    )
    assert not app.exception and not app.warning
    assert settings(app).config.rerank == local_reranker  # by its name, loaded from its folder
    assert settings(app).rerank_source == str(models.models_dir() / local_reranker)
    assert settings(app).config.rerank_top == 5
    (table,) = rank_tables(app)
    assert "reranked rank" in table.columns
    assert table["reranked rank"].dropna().between(1, 5).all()
    assert any("reordered by the cross-encoder" in c.value for c in app.caption)


@needs_dense
def test_a_reranker_that_cannot_be_had_is_named_and_retrieval_goes_on_without_it():
    model = "no-such-org/no-such-cross-encoder"
    app = open_app("app_pages/recall_tables.py", dense="true", rerank="true", rerank_model=model)
    assert not app.exception
    assert settings(app).rerank and settings(app).config.rerank is None
    (warning,) = app.warning
    assert "Reranking is off" in warning.value and "no\\-such\\-cross\\-encoder" in warning.value
    assert app.dataframe[0].value["complete"].between(0, 100).all()


@needs_dense
def test_the_hub_reranker_is_downloaded_only_when_asked(monkeypatch, local_reranker):
    """Offered as a button, never fetched on its own; a click fetches it, or says why not."""
    import ui.cache
    import ui.models

    model = "no-such-org/no-such-cross-encoder"
    app = open_app("app_pages/recall_tables.py", dense="true", rerank="true", rerank_model=model)
    (button,) = [b for b in app.sidebar.button if b.key == "download_reranker"]
    monkeypatch.setattr(ui.cache, "download_reranker", lambda m: f"{m} could not be reached")
    button.click().run()
    assert any("Download failed" in e.value for e in app.error)
    assert settings(app).config.rerank is None

    cached = str(models.models_dir() / local_reranker)  # stands in for the model cache's copy

    def fetched(m):  # stands in for the download: the model is then in the model cache
        monkeypatch.setattr(ui.models, "hub_folder", lambda name: cached if name == m else None)
        return None

    monkeypatch.setattr(ui.cache, "download_reranker", fetched)
    app.sidebar.button(key="download_reranker").click().run()
    assert not app.exception
    assert settings(app).config.rerank == model
    assert settings(app).rerank_source == cached


@needs_dense
@pytest.mark.parametrize(
    "name",
    ["/nonexistent", "/etc", "../../etc", "~/.cache", "C:\\models", "a/b/c", "x" * 120, "a--b"],
)
def test_a_reranker_path_from_a_link_is_refused_before_the_disk_is_touched(monkeypatch, name):
    import ui.cache
    import ui.models

    touched = []
    monkeypatch.setattr(ui.cache, "reranker_problem", lambda *args: touched.append(args))
    monkeypatch.setattr(ui.models, "hub_folder", touched.append)
    app = open_app("app_pages/recall_tables.py", dense="true", rerank="true", rerank_model=name)
    assert not app.exception
    assert touched == []
    assert settings(app).rerank and settings(app).config.rerank is None
    (warning,) = app.warning
    assert "is not a model hub id" in warning.value and "not loaded" in warning.value
    assert app.dataframe[0].value["complete"].between(0, 100).all()


@needs_dense
def test_a_refusal_does_not_tell_which_server_paths_exist():
    said = [
        open_app(dense="true", rerank="true", rerank_model=path).warning[0].value
        for path in ("/etc", "/no-such-folder-here")
    ]
    assert said[0].replace("/etc", "/no\\-such\\-folder\\-here") == said[1]


@needs_dense
def test_a_hub_id_is_never_loaded_from_the_servers_working_directory(monkeypatch):
    import ui.cache

    loaded = []
    monkeypatch.setattr(ui.cache, "reranker_problem", lambda *args: loaded.append(args))
    app = open_app(dense="true", rerank="true", rerank_model="tests")  # ./tests exists
    assert loaded == []
    assert settings(app).config.rerank is None
    assert "not in this server's model cache" in app.warning[0].value
    assert [b.key for b in app.sidebar.button if b.key == "download_reranker"]


@needs_dense
def test_rerank_top_beyond_its_range_is_clamped():
    app = open_app(dense="true", rerank="true", rerank_top="inf")
    assert not app.exception
    assert settings(app).rerank_top == 200
    assert any("Clamped **rerank_top=inf**" in w.value for w in app.warning)


@needs_dense
def test_default_reranker_is_the_ms_marco_cross_encoder():
    app = open_app(dense="true")
    app.toggle(key="rerank").set_value(True).run()
    assert app.text_input(key="rerank_model").value == RERANKER_MODEL
    assert app.number_input(key="rerank_top").value == 20
    assert not app.exception


@needs_dense
def test_chunk_graph_says_dense_modes_do_not_use_the_graph():
    app = open_app("app_pages/chunk_graph.py", dense="true", mode=["dense", "hybrid"])
    assert not app.exception
    assert any("without the graph" in i.value for i in app.info)
    assert any("hybrid fusion" in c.value for c in app.caption)


@needs_dense
def test_late_chunking_reaches_the_engine():
    app = open_app("app_pages/recall_tables.py", dense="true", late="true", chunker="sentence")
    assert not app.exception
    assert settings(app).config.late
    assert any("late chunking" in c.value for c in app.caption)


@needs_dense
def test_turning_dense_off_drops_the_dense_only_choices():
    app = open_app(dense="true", mode=["flat", "dense"], chunker=["structure", "semantic"])
    assert settings(app).modes == ("flat", "dense")
    app.toggle(key="dense").set_value(False).run()
    assert not app.exception
    assert settings(app).modes == ("flat",)
    assert settings(app).chunkers == ("structure",)
    assert settings(app).config.dense is None


# Dense off or unavailable ----------------------------------------------------------------------


def test_dense_only_choices_wait_for_the_dense_toggle():
    app = open_app()
    assert "semantic" not in app.multiselect(key="chunker").options
    assert "parent-child" in app.multiselect(key="chunker").options
    needing = ", ".join(DENSE_CHUNKERS)  # semantic, and chonkie-semantic where chonkie is here
    verb = "needs" if len(DENSE_CHUNKERS) == 1 else "need"
    assert any(f"{needing} {verb} dense embeddings" in c.value for c in app.sidebar.caption)
    assert settings(app).config.dense is None


def test_a_dense_only_choice_in_a_link_without_dense_falls_back_with_a_notice():
    app = open_app(mode="hybrid", chunker="semantic")
    assert not app.exception
    assert settings(app).modes == LEXICAL_MODES
    notices = " ".join(w.value for w in app.warning)
    assert "mode=hybrid" in notices and "chunker=semantic" in notices
    assert "dense=true" in notices


def test_garbage_dense_value_falls_back_with_a_notice():
    app = open_app(dense="maybe")
    assert not app.exception
    assert settings(app).dense is False
    (notice,) = app.warning
    assert "dense=maybe" in notice.value


@pytest.mark.parametrize("page", PAGES)
def test_without_the_dense_packages_every_page_works_and_says_so_in_one_line(no_dense, page):
    app = open_app(page)
    assert not app.exception
    assert app.toggle(key="dense").disabled
    assert [b.label for b in app.sidebar.button] == ["Not installed here: how to enable it"]
    assert all(DENSE_INSTALL not in c.value for c in app.sidebar.code)  # no install line
    assert not any("Unavailable here" in c.value for c in app.sidebar.caption)
    assert settings(app).config.dense is None
    keys = [getattr(e, "key", None) for e in app.sidebar]
    assert keys.index("question") < keys.index("chunker")  # the question sits with its split


def test_how_to_enable_dense_retrieval_is_the_dense_guide():
    section = dense.guide()
    assert f"```bash\n{DENSE_INSTALL}\n```" in section
    assert "CHUNKING_LAB_MODELS" in section and "Community Cloud" in section
    assert not section.startswith("#")  # the guide's own title is left out


def test_a_dense_link_without_the_dense_packages_says_what_enables_it(no_dense):
    app = open_app("app_pages/recall_tables.py", dense="true", mode=["flat", "dense"])
    assert not app.exception
    assert settings(app).dense is False and settings(app).modes == ("flat",)
    notices = [w.value for w in app.warning]
    assert any("dense=true" in n and DENSE_INSTALL in n for n in notices)
    assert list(app.dataframe[0].value["configuration"]) == [
        draw.config_label(c, "flat") for c in settings(app).chunkers
    ]


def test_index_overview_draws_parent_child_children_and_their_parents():
    app = open_app(chunker="parent-child")
    assert not app.exception
    assert any("delivers its parent" in c.value for c in app.caption)
    assert "delivers its parent" in app.get("html")[0].proto.body
