"""AppTest of the app shell: navigation, the shared sidebar, URL binding and its fallbacks."""

import re

import pytest
from app_support import ALL_PAGES, ENTRY, TIMEOUT, open_app
from samples import SPEC_CHUNKERS
from streamlit.testing.v1 import AppTest

from lab import build_corpus
from ui import links
from ui.cache import USER, USER_CORPUS_KEY
from ui.link_notices import url_notices
from ui.settings import Settings
from ui.state import chunker_options

pytestmark = pytest.mark.app  # AppTest runs: `pytest -m "not app and not browser"` skips them


def settings(app) -> Settings:
    return app.session_state["settings"]


def share_link(app) -> str:
    return app.sidebar.code[-1].value


def test_app_opens_on_the_handbook_with_defaults():
    app = open_app()
    assert not app.exception
    assert app.title[0].value == "Index overview"
    assert settings(app) == Settings(question=settings(app).question)
    assert settings(app).question == "q04"  # the first test question
    assert not app.warning


def test_link_reproduces_the_view():
    query = {
        "size": "600",
        "budget": "80",
        "chunker": ["structure", "qes-dp"],
        "mode": "graph",
        "split": "all",
        "headers": "true",
        "refs": "index-only",
        "question": "q07",
    }
    app = open_app("app_pages/recall_tables.py", **query)
    assert not app.exception
    assert [w.icon for w in app.warning] == [":material/school:"]  # qes-dp on its training data
    assert settings(app) == Settings(
        chunkers=("structure", "qes-dp"),
        modes=("graph",),
        size=600,
        budget=80,
        split="all",
        headers=True,
        refs="index-only",
        question="q07",
    )
    link = share_link(app)
    assert link.startswith("/recall_tables?")
    for part in (
        "size=600",
        "budget=80",
        "chunker=structure&chunker=qes-dp",
        "mode=graph",
        "split=all",
        "headers=true",
        "refs=index-only",
        "question=q07",
    ):
        assert part in link


def test_settings_survive_a_page_switch():
    app = open_app()
    app.number_input(key="size").set_value(350).run()
    app.slider(key="budget").set_value(200).run()
    app.switch_page("app_pages/sweep_charts.py").run()
    assert not app.exception
    assert app.title[0].value == "Sweep charts"
    assert (settings(app).size, settings(app).budget) == (350, 200)
    assert "size=350" in share_link(app) and "budget=200" in share_link(app)
    assert share_link(app).startswith("/sweep_charts?")


def test_a_page_switch_puts_back_the_settings_the_browser_dropped():
    """The browser carries a bound parameter to the next page only once it has registered the
    widget's binding, as the widget mounts: a click right after a deep link loaded dropped
    them, and the URL of the next page lost them (the browser test races it for real)."""
    app = open_app("app_pages/recall_tables.py", size="600", chunker="fixed", refs="off")
    app.switch_page("app_pages/sweep_charts.py")
    del app.query_params["size"], app.query_params["chunker"]  # what the browser sent
    app.run()
    assert not app.exception
    assert (app.query_params["size"], app.query_params["chunker"]) == ("600", "fixed")
    assert app.query_params["refs"] == "off"
    assert app.number_input(key="size").value == 600
    assert (settings(app).size, settings(app).chunkers) == (600, ("fixed",))


def test_a_setting_put_back_to_its_default_stays_there_on_the_next_page():
    app = open_app("app_pages/recall_tables.py", size="600")
    app.number_input(key="size").set_value(450)
    del app.query_params["size"]  # the browser leaves a default out of its URL
    app.run()
    assert "size" not in app.query_params and settings(app).size == 450
    app.switch_page("app_pages/sweep_charts.py").run()
    assert "size" not in app.query_params
    assert app.number_input(key="size").value == settings(app).size == 450


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("size", "abc", 450),
        ("size", "450.0x", 450),
        ("budget", "nan", 120),
        ("chunker", "nope", SPEC_CHUNKERS),
        ("mode", "vector", ("flat", "graph")),
        ("split", "dev", "test"),
        ("headers", "maybe", False),
        ("refs", "sometimes", "delivered"),
        ("question", "q99", "q04"),
        ("corpus", "your corpus", "handbook"),
    ],
)
def test_garbage_in_the_url_falls_back_with_a_notice(key, value, expected):
    app = open_app(**{key: value})
    assert not app.exception
    field = {"chunker": "chunkers", "mode": "modes"}.get(key, key)
    assert getattr(settings(app), field) == expected
    assert len(app.warning) == 1
    assert f"{key}=" in app.warning[0].value


def test_a_question_of_another_split_falls_back_with_a_notice():
    app = open_app(split="train", question="q04")  # q04 is a test question
    assert settings(app).question == "q01"
    assert "question=q04" in app.warning[0].value


def test_valid_values_beside_garbage_are_kept():
    app = open_app(chunker=["nope", "fixed", "sentence"], size="300")
    assert settings(app).chunkers == ("fixed", "sentence")
    assert settings(app).size == 300
    assert "chunker=nope" in app.warning[0].value
    assert "fixed" not in app.warning[0].value.split("from the link")[0]


def test_url_text_in_a_notice_is_escaped():
    app = open_app(question="<img src=x onerror=alert(1)>**bold**")
    notice = app.warning[0].value
    assert re.search(r"(?<!\\)[<>]", notice) is None  # every angle bracket escaped
    assert "\\<img" in notice
    assert "\\*\\*bold" in notice


def test_dismissing_the_notices_hides_them():
    app = open_app(size="abc")
    assert app.warning
    app.button(key="dismiss_url_notices").click().run()
    assert not app.warning
    app.run()
    assert not app.warning


def test_notices_appear_once_per_session():
    app = open_app(size="abc")
    app.slider(key="budget").set_value(60).run()
    assert len(app.warning) == 1  # still shown until dismissed, not duplicated
    assert settings(app).size == 450


def test_clearing_every_chunker_shows_all_with_a_note():
    app = open_app()
    app.multiselect(key="chunker").set_value([]).run()
    assert not app.exception
    assert settings(app).chunkers == SPEC_CHUNKERS
    assert any("No chunker chosen" in c.value for c in app.sidebar.caption)


def test_a_cold_deep_link_runs_through_the_entry_point():
    app = AppTest.from_file(ENTRY, default_timeout=TIMEOUT)
    app.query_params.update({"budget": "60", "size": "abc"})
    app.switch_page("app_pages/recall_tables.py").run()
    assert not app.exception
    assert app.title[0].value == "Recall tables"
    assert settings(app).budget == 60
    assert app.sidebar.slider(key="budget").value == 60
    assert "size=abc" in app.warning[0].value


def test_a_users_corpus_is_offered_and_keeps_its_own_questions():
    corpus = build_corpus(
        {"notes": "# Notes\n\n## 1 Rules\n\n### 1.1 Cats\n\nCats may sleep on the sofa.\n"},
        [
            {
                "id": "c1",
                "question": "Where may cats sleep?",
                "evidence": ["Cats may sleep on the sofa."],
            }
        ],
    )
    app = open_app()
    app.session_state[USER_CORPUS_KEY] = corpus
    app.run()
    assert app.selectbox(key="corpus").options == ["handbook", "technova", USER]
    app.selectbox(key="corpus").select(USER).run()
    assert not app.exception
    assert settings(app).corpus == USER
    assert settings(app).question == "c1"


def test_url_notices_name_only_what_was_dropped():
    used = Settings(chunkers=("fixed",), size=300, question="q04")
    notices = url_notices(
        {"chunker": ["fixed", "nope"], "size": ["300"], "question": ["q04"]}, used
    )
    # the chunkers that wait for dense=true: semantic, and chonkie-semantic where chonkie is here
    waiting = [c for c in chunker_options(dense=True) if c not in chunker_options(dense=False)]
    verb = "needs" if len(waiting) == 1 else "need"
    assert notices == [
        "Ignored **chunker=nope** from the link: expected one or more of "
        + ", ".join(chunker_options(dense=False))
        + f" ({', '.join(waiting)} {verb} dense=true). Using **fixed**."
    ]


def test_link_params_leave_defaults_out_but_keep_the_question():
    assert Settings(question="q04").link_params() == {"question": ["q04"]}
    assert Settings(budget=60).link_params() == {"budget": ["60"]}


@pytest.mark.parametrize("page", ["app_pages/recall_tables.py", "app_pages/sweep_charts.py"])
def test_a_page_with_no_questions_in_the_split_still_shows_the_share_link(page):
    corpus = build_corpus(
        {"notes": "# Notes\n\n## 1 Rules\n\n### 1.1 Cats\n\nCats may sleep on the sofa.\n"},
        [
            {
                "id": "c1",
                "question": "Where may cats sleep?",
                "evidence": ["Cats may sleep on the sofa."],
            }
        ],
    )
    app = open_app(page)
    app.session_state[USER_CORPUS_KEY] = corpus
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    app.radio(key="split").set_value("train").run()
    assert not app.exception
    assert any("no train questions" in i.value for i in app.info)
    assert "split=train" in share_link(app)


@pytest.mark.parametrize(("old", "refs"), [("false", "off"), ("true", "delivered")])
def test_an_old_link_with_resolve_refs_opens_with_the_matching_placement(old, refs):
    app = open_app("app_pages/recall_tables.py", resolve_refs=old, size="600")
    assert not app.exception and not app.warning
    assert settings(app).refs == refs and settings(app).size == 600
    assert app.sidebar.radio(key="refs").value == refs
    link = share_link(app)
    assert "resolve_refs" not in link
    assert ("refs=off" in link) is (refs == "off")


def test_an_old_link_with_a_bad_resolve_refs_value_falls_back_with_a_notice():
    app = open_app(resolve_refs="maybe")
    assert not app.exception
    assert settings(app).refs == "delivered"
    (notice,) = app.warning
    assert "resolve\\_refs=maybe" in notice.value or "resolve_refs=maybe" in notice.value
    assert "refs" in notice.value


def test_every_page_says_where_references_go():
    app = open_app(refs="index-only")
    pages = {
        "app_pages/index_overview.py": "references index-only",
        "app_pages/recall_tables.py": "references index-only",
        "app_pages/sweep_charts.py": "references index-only",
        "app_pages/question_drilldown.py": "references index-only",
    }
    for page, phrase in pages.items():
        app.switch_page(page).run()
        assert not app.exception, page
        assert any(phrase in c.value for c in app.caption), page
    app.switch_page("app_pages/chunk_graph.py").run()
    assert any("References index-only" in c.value for c in app.caption)


def test_untrained_qes_chunkers_get_a_notice_and_marked_rows():
    corpus = build_corpus(
        {"notes": "# Notes\n\n## 1 Rules\n\n### 1.1 Cats\n\nCats may sleep on the sofa.\n"},
        [
            {
                "id": "c1",
                "question": "Where may cats sleep?",
                "evidence": ["Cats may sleep on the sofa."],
            }
        ],
    )
    app = open_app("app_pages/recall_tables.py")
    app.session_state[USER_CORPUS_KEY] = corpus
    app.run()
    app.selectbox(key="corpus").select(USER).run()
    assert not app.exception
    (notice,) = [w.value for w in app.warning]
    assert "qes-dp and qes-greedy" in notice and "untrained" in notice
    table = app.dataframe[0].value
    marked = table[table["note"] != ""]["configuration"].tolist()
    assert marked == ["qes-dp · flat", "qes-dp · graph", "qes-greedy · flat", "qes-greedy · graph"]
    app.switch_page("app_pages/index_overview.py").run()
    labels = app.dataframe[0].value.set_index("chunker")["label"]
    assert labels["qes-dp"].endswith("(untrained: no train questions)")
    assert "untrained" not in labels["structure"]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("size", "inf", 4000),
        ("size", "1e309", 4000),
        pytest.param("size", "9" * 10_000, 4000, id="size-10000-nines"),
        ("size", "99999999999999999999", 4000),
        ("size", "-inf", 100),
        ("size", "20", 100),
        ("budget", "inf", 1000),
        ("budget", "5000", 1000),
    ],
)
def test_a_number_beyond_its_range_is_clamped_before_the_widget(key, value, expected):
    app = open_app(**{key: value})
    assert not app.exception
    assert getattr(settings(app), key) == expected
    (notice,) = app.warning
    assert notice.value.startswith(f"Clamped **{key}=")
    assert f"to **{expected}**" in notice.value
    assert len(notice.value) < 300  # ten thousand nines are cut short


def test_a_fraction_is_rounded_to_a_whole_number():
    app = open_app(size="450.4", budget="60.0")
    assert (settings(app).size, settings(app).budget) == (450, 60)
    (notice,) = app.warning
    assert "Rounded **size=450\\.4** from the link to **450**" in notice.value


@pytest.mark.parametrize(
    ("key", "values", "field", "expected"),
    [
        ("size", ["300", "600"], "size", 600),
        ("budget", ["60", "80"], "budget", 80),
        ("split", ["train", "all"], "split", "all"),
        ("headers", ["false", "true"], "headers", True),
        ("question", ["q04", "q07"], "question", "q07"),
    ],
)
def test_a_setting_given_twice_takes_the_last_value(key, values, field, expected):
    app = open_app(**{key: values})
    assert not app.exception
    assert getattr(settings(app), field) == expected
    # with split=all, the other warning says qes-dp and qes-greedy score their training data
    (notice,) = [w for w in app.warning if w.icon == ":material/link_off:"]
    assert f"The link gives **{key}** 2 times" in notice.value
    assert f"the last one counts: **{expected if key != 'headers' else 'true'}**" in notice.value


def test_a_list_setting_keeps_each_value_once_in_order():
    app = open_app(chunker=["structure", "fixed", "structure"], mode=["graph", "graph"])
    assert not app.exception and not app.warning
    assert settings(app).chunkers == ("fixed", "structure")  # shown in registry order
    assert settings(app).modes == ("graph",)


def test_a_list_setting_may_be_joined_by_commas_as_on_the_command_line():
    app = open_app(chunker=["qes-dp,structure", " fixed ,structure"], mode="graph")
    assert not app.exception and not app.warning
    assert settings(app).chunkers == ("fixed", "structure", "qes-dp")
    cleaned, fixes = links.clean({"mode": ["flat,,graph", "flat"]}, {}, {"mode"})
    assert cleaned == {"mode": ["flat", "graph"]} and fixes == []


def test_cleaning_follows_one_rule_for_every_parameter():
    url = {
        "size": ["300", "inf"],
        "b_budget": ["80", "60"],
        "chunker": ["fixed", "sentence", "fixed"],
        "heat": ["partial", "complete"],
        "budget": ["abc"],
    }
    cleaned, fixes = links.clean(url, {"size": (100, 4000), "budget": (10, 1000)}, {"chunker"})
    assert cleaned == {
        "size": ["4000"],
        "b_budget": ["60"],
        "chunker": ["fixed", "sentence"],
        "heat": ["complete"],
    }
    assert [(f.key, f.why, f.used) for f in fixes] == [
        ("size", "repeated", "inf"),
        ("size", "clamped", "4000"),
        ("b_budget", "repeated", "60"),
        ("heat", "repeated", "complete"),
        ("budget", "not a number", None),
    ]


def test_the_question_picker_lists_each_question_by_id_and_text():
    app = open_app()
    options = app.selectbox(key="question").options
    assert options[:2] == [
        "q04 · What is the largest group allowed on a tour, and can a…",
        "q07 · Is flash photography allowed on the dome floor?",
    ]
    app.selectbox(key="question").select("q07").run()
    assert settings(app).question == "q07"
    assert app.query_params["question"] == "q07"  # the id goes to the URL, not the label
    assert share_link(app).endswith("?question=q07")


def test_a_question_the_browser_goes_back_to_is_shown():
    app = open_app(question="q07")
    app.selectbox(key="question").select("q08").run()
    app.query_params["question"] = "q07"  # back: the URL holds the earlier question
    app.run()
    assert settings(app).question == "q07"


@pytest.mark.parametrize(
    ("address", "base_path", "page", "expected"),
    [
        ("http://127.0.0.1:8501/no_such_page?size=600", "", "", "http://127.0.0.1:8501/"),
        (
            "https://lab.example.org/recall_tables",
            "",
            "sweep_charts",
            "https://lab.example.org/sweep_charts",
        ),
        ("http://host/lab/nope", "/lab/", "chunk_graph", "http://host/lab/chunk_graph"),
        (None, "", "recall_tables", "/recall_tables"),
    ],
)
def test_the_share_link_names_the_page_shown_not_the_address_typed(
    address, base_path, page, expected
):
    assert links.page_url(address, base_path, page) == expected


# A broken install: the bundled handbook's files missing or empty --------------------------------

NOTES = "# Notes\n\n## 1 Rules\n\n### 1.1 Cats\n\nCats may sleep on the sofa.\n"
NOTES_QE = (
    '[{"id": "c1", "question": "Where may cats sleep?", '
    '"evidence": ["Cats may sleep on the sofa."]}]'
)


@pytest.fixture
def data_folder(tmp_path, monkeypatch):
    """The bundled data copied to a folder the test may break, and the app pointed at it."""
    import ui.cache

    for name in ("handbook.md", "handbook_qe.json"):
        (tmp_path / name).write_bytes((ui.cache.DATA / name).read_bytes())
    monkeypatch.setattr(ui.cache, "DATA", tmp_path)
    return tmp_path


def button(app, label: str):
    """The button labelled ``label``: found by its label, since which buttons a run draws (and
    so their order) depends on what is installed, the dense stack's help button among them."""
    return next(b for b in app.button if b.label == label)


@pytest.fixture(params=["dense installed", "dense not installed"])
def dense_here(request, monkeypatch):
    """Run the test as on this machine and as on a fresh one with only requirements-dev.txt,
    where the sidebar offers the dense stack's help button instead of its toggle (issue 21,
    item 1: the README's test command failed there)."""
    if request.param == "dense not installed":
        import lab.embed

        monkeypatch.setattr(lab.embed, "missing_modules", lambda: ["torch"])
    return request.param


@pytest.mark.parametrize("damage", ["missing", "empty"])
def test_without_the_handbook_every_page_says_so_and_your_corpus_still_works(
    data_folder, damage, dense_here
):
    document = data_folder / "handbook.md"
    document.unlink() if damage == "missing" else document.write_text("")
    said = "is missing" if damage == "missing" else "cannot be used\\: Document 'handbook' is empty"
    for page in ALL_PAGES:
        app = open_app(page)
        assert not app.exception, page
        assert any(f"handbook\\.md {said}" in e.value for e in app.error), page
        if page != "app_pages/your_corpus.py":
            assert any("needs a corpus" in i.value for i in app.info), page
    app.text_area(key="yc_document__widget").set_value(NOTES)
    app.text_area(key="yc_qe__widget").set_value(NOTES_QE)
    button(app.run(), "Check and load").click()
    app.run()
    assert settings(app).corpus == USER
    for page in ALL_PAGES:
        app.switch_page(page).run()
        assert not app.exception, page
        assert not any("needs a corpus" in i.value for i in app.info), page
    assert settings(app).question == "c1"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "handbook\\_qe\\.json is missing, so the handbook has no questions"),
        ("", "The QE JSON is empty"),
        ("{", "not valid JSON"),
    ],
)
def test_without_the_handbooks_questions_the_pages_run_without_them(data_folder, content, said):
    questions = data_folder / "handbook_qe.json"
    questions.unlink() if content is None else questions.write_text(content)
    for page in ALL_PAGES:
        app = open_app(page)
        assert not app.exception, page
        assert any(said in w.value for w in app.warning), page
    assert settings(app).question is None


def test_the_bundled_example_button_says_when_its_files_are_missing(data_folder):
    (data_folder / "handbook.md").unlink()
    app = open_app("app_pages/your_corpus.py")
    next(b for b in app.button if b.label == "Fill in the bundled example").click().run()
    assert not app.exception
    assert any("handbook\\.md cannot be read" in e.value for e in app.error)
    assert app.text_area(key="yc_qe__widget").value.startswith("{")  # the questions still came
