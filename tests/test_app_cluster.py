"""AppTest of the sweep page on a Dask cluster named by ``CHUNKING_LAB_SCHEDULER`` (a secret or
an environment variable), and its fallback to this machine when the cluster cannot be used."""

from __future__ import annotations

import sys

import pytest
import streamlit as st
from app_support import ENTRY, TIMEOUT
from streamlit.testing.v1 import AppTest

from ui import cluster
from ui.draw import md_escape

distributed = pytest.importorskip(
    "distributed", reason="pip install -r requirements-distributed.txt"
)

from distributed import Client, LocalCluster, get_task_stream  # noqa: E402

pytestmark = [pytest.mark.app, pytest.mark.cluster, pytest.mark.timeout(300)]

SWEEP_PAGE = "app_pages/sweep_charts.py"


@pytest.fixture(autouse=True)
def no_scheduler_in_the_environment(monkeypatch):
    monkeypatch.delenv(cluster.ENV, raising=False)


def sweep_page(secrets: dict[str, str] | None = None) -> AppTest:
    app = AppTest.from_file(ENTRY, default_timeout=TIMEOUT)
    for key, value in (secrets or {}).items():
        app.secrets[key] = value
    app.switch_page(SWEEP_PAGE)
    return app


def sidebar_note(app: AppTest) -> str:
    return next(c.value for c in app.sidebar.caption if "Sweeps run on" in c.value)


def sweep_tasks(stream) -> list[str]:
    return [t["key"] for t in stream.data if str(t["key"]).startswith("lab-sweep-")]


def test_sweeps_run_on_this_machine_by_default():
    app = sweep_page().run()
    assert not app.exception and not app.warning
    assert sidebar_note(app) == ":material/computer: Sweeps run on this machine."


def test_sweep_page_runs_its_tasks_on_the_cluster_the_secret_names():
    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
        ) as lc,
        Client(lc, set_as_default=False) as client,
    ):
        address = lc.scheduler_address
        shown = md_escape(address)
        try:
            st.cache_data.clear()  # no sweep step may come from an earlier test's cache
            app = sweep_page({cluster.ENV: address})
            with get_task_stream(client) as first:
                app.run()
            assert not app.exception and not app.warning
            assert app.get("vega_lite_chart")
            assert len(sweep_tasks(first)) == 5 * 5  # default chunkers x default sizes
            assert sidebar_note(app).endswith(f"Sweeps run on the Dask cluster at {shown}.")
            with get_task_stream(client) as again:
                app.sidebar.slider(key="budget").set_value(70).run()
            assert not app.exception
            assert len(sweep_tasks(again)) == 5 * 5  # one new budget column, nothing else
        finally:
            link = cluster._link(address)
            link.failed("test over")
            link._close()
            cluster._link.clear()


def test_a_scheduler_that_cannot_be_reached_leaves_sweeps_on_this_machine(monkeypatch):
    monkeypatch.setenv(cluster.ENV, "scheduler-without-a-port")
    st.cache_data.clear()  # the cluster is only reached for steps no earlier test cached
    app = sweep_page().run()
    assert not app.exception
    assert app.get("vega_lite_chart")
    (warning,) = app.warning
    assert warning.value.startswith("Sweeping on this machine: ")
    assert "is not a Dask scheduler address" in warning.value
    app.run()
    assert sidebar_note(app) == (
        ":material/cloud_off: Sweeps run on this machine: the Dask cluster at "
        f"{md_escape('scheduler-without-a-port')} is unavailable."
    )


def test_a_named_scheduler_without_dask_installed_says_what_to_install(monkeypatch):
    monkeypatch.setenv(cluster.ENV, "tcp://127.0.0.1:8786")
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    st.cache_data.clear()  # the cluster is only reached for steps no earlier test cached
    app = sweep_page().run()
    assert not app.exception
    assert app.get("vega_lite_chart")
    (warning,) = app.warning
    assert md_escape("distributed not installed: pip install -r requirements-distributed.txt") in (
        warning.value
    )
