"""Shared fixtures: the bundled handbook corpus and the inline real-world documents; the app's
corpus store and models directory in temporary folders; a canned chat-completions server."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from llm_server import start
from samples import REAL_DOCUMENTS

from lab import build_corpus, load_corpus

DATA = Path(__file__).resolve().parent.parent / "data"

# Modest example counts keep the suite fast; `pytest --hypothesis-profile=thorough` digs deeper.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("lab", max_examples=30, deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=_QUIET
)
settings.load_profile("lab")


@pytest.fixture(scope="session")
def handbook():
    """The bundled handbook with its 25 questions."""
    return load_corpus(DATA / "handbook.md", DATA / "handbook_qe.json")


@pytest.fixture(scope="session")
def handbook_doc(handbook):
    return handbook.documents[0]


@pytest.fixture(scope="session")
def real_corpora():
    """Each inline real-world document as a one-document corpus without questions."""
    return {name: build_corpus({name: text}, None) for name, text in REAL_DOCUMENTS.items()}


@pytest.fixture(autouse=True, scope="session")
def app_folders(tmp_path_factory):
    """The app's corpus store and models directory (``ui.store``, ``ui.models``) in temporary
    folders, for the AppTest runs and the browser test's server: tests never touch the user's
    own cache, and results never depend on what it holds."""
    folders = {
        "CHUNKING_LAB_STORE": tmp_path_factory.mktemp("corpus-store"),
        "CHUNKING_LAB_MODELS": tmp_path_factory.mktemp("models"),
    }
    saved = {name: os.environ.get(name) for name in folders}
    os.environ.update({name: str(folder) for name, folder in folders.items()})
    yield folders
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def restore_main_module():
    """AppTest runs the app as ``__main__`` and leaves it there; worker processes that Dask spawns
    in a later test would then re-run the app on start. Put the real ``__main__`` back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


def unmarked_app_tests(items) -> list[str]:
    """The files among ``items`` named ``test_app_*.py`` with a test that lacks the ``app``
    marker: engine-only runs (``-m "not app and not browser"``) would run their AppTests."""
    return sorted(
        {
            item.path.name
            for item in items
            if item.path.name.startswith("test_app_") and item.get_closest_marker("app") is None
        }
    )


def pytest_collection_modifyitems(config, items):
    unmarked = unmarked_app_tests(items)
    if unmarked:
        raise pytest.UsageError(
            f"{', '.join(unmarked)}: an AppTest file needs pytestmark = pytest.mark.app"
        )


@pytest.fixture
def llm_server(tmp_path):
    """Start tests/llm_server.py, a chat-completions server on 127.0.0.1, with a script of
    canned answers: ``llm_server(script)`` gives its base URL, the log of requests and the
    process; every server started is stopped after the test."""
    processes = []

    def started(script: list[dict]):
        folder = tmp_path / f"llm-server-{len(processes)}"
        folder.mkdir()
        url, log, process = start(script, folder)
        processes.append(process)
        return url, log, process

    yield started
    for process in processes:
        process.terminate()
        process.wait(timeout=10)
