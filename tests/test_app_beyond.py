"""AppTest of issue 27's settings: the heading guard and the adaptive budget, from the sidebar
and from a link, on every page."""

import pytest
from app_support import ALL_PAGES, open_app

pytestmark = pytest.mark.app

BEYOND = ["structure", "qes-dp", "qes-retrieval"]


@pytest.mark.parametrize("page", ALL_PAGES)
def test_every_page_runs_with_the_new_chunker_the_guard_and_an_adaptive_budget(page):
    app = open_app(page, chunker=BEYOND, heading_guard="true", budget="adaptive")
    assert not app.exception
    assert app.toggle(key="heading_guard").value is True
    assert app.toggle(key="adaptive_budget").value is True
    link = app.sidebar.code[-1].value
    assert "budget=adaptive" in link and "heading_guard=true" in link
    assert not [w.value for w in app.warning if "link" in w.value.lower()]


def test_recall_tables_change_with_the_guard_and_the_adaptive_budget():
    plain = open_app("app_pages/recall_tables.py", chunker=["qes-dp"])
    guarded = open_app("app_pages/recall_tables.py", chunker=["qes-dp"], heading_guard="true")
    adaptive = open_app("app_pages/recall_tables.py", chunker=["qes-dp"], budget="adaptive")
    words = [a.dataframe[0].value["context words"].tolist() for a in (plain, guarded, adaptive)]
    assert words[0] != words[1] and words[0] != words[2]


def test_a_bad_guard_value_in_the_link_is_named():
    app = open_app("app_pages/recall_tables.py", heading_guard="maybe")
    assert not app.exception
    assert any("heading_guard=maybe" in w.value for w in app.warning)


@pytest.mark.parametrize("page", ["app_pages/recall_tables.py", "app_pages/sweep_charts.py"])
def test_an_adaptive_budget_scored_on_its_train_questions_says_so(page):
    app = open_app(page, chunker=["fixed", "structure"], budget="adaptive", split="all")
    assert not app.exception
    assert any(
        "adaptive budget is fitted on the 12 train questions" in w.value for w in app.warning
    )
    test_split = open_app(page, chunker=["fixed", "structure"], budget="adaptive")
    assert not any("train questions" in w.value for w in test_split.warning)
