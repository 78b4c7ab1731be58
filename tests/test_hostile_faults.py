"""Issue 22, item 6: store and deployment faults. A damaged store entry, a nonsense store size,
killed writes, "Forget my corpus", missing or unreadable bundled files, a collection with one
unreadable file, a local cluster that cannot start, ``bench`` without dask, and crash pages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from app_support import ALL_PAGES, ROOT, open_app

from lab import load_collection
from lab.cli import main
from ui import cache, store
from ui.store import CorpusStore, DamagedEntry, Inputs

DOC = "# Harbour\n\n## Swimming\n\nSwimming is allowed from the east quay only.\n"
QE = json.dumps([{"id": "h1", "question": "Where may I swim?", "evidence": ["Swimming is"]}])


@pytest.mark.parametrize(
    "damage",
    [b"{not json", b"\xff\xfe garbage", b"[" * 100_000, b'{"documents": 5, "qe": null}', b"[]"],
    ids=["invalid", "not utf-8", "deep", "wrong shape", "a list"],
)
def test_a_damaged_store_entry_is_removed_and_said(tmp_path, damage):
    kept = CorpusStore(tmp_path, 100_000)
    digest = kept.put(Inputs({"harbour": DOC}, QE))
    path = tmp_path / f"{digest}.json"
    path.write_bytes(damage)
    with pytest.raises(DamagedEntry):
        kept.get(digest)
    assert not path.exists()


@pytest.mark.app
def test_a_link_to_a_damaged_entry_says_so_and_the_app_runs():
    digest = store.default_store().put(Inputs({"harbour": DOC + "Damaged.\n"}, QE))
    path = store.default_folder() / f"{digest}.json"
    path.write_bytes(path.read_bytes()[:40])  # cut short, as a full disk would
    app = open_app(None, corpus=cache.USER, corpus_id=digest)
    assert not app.exception, app.exception
    assert any("was damaged on this server" in w.value for w in app.warning)
    assert app.session_state["settings"].corpus == cache.HANDBOOK
    assert not path.exists()


@pytest.mark.parametrize("setting", ["inf", "-inf", "nan", "-5", "0", "lots", ""])
def test_a_store_size_that_is_no_size_falls_back_to_the_default(monkeypatch, setting):
    monkeypatch.setenv(store.SIZE_ENV, setting)
    assert store.default_store().max_bytes == 256_000_000


def test_a_store_size_setting_is_honoured():
    assert store.megabytes("1.5") == 1.5


def test_killed_writes_count_towards_the_bytes_and_are_cleaned_once_stale(tmp_path):
    one = len(Inputs({"one": DOC}, None).encoded())
    kept = CorpusStore(tmp_path, 2_000 + one + one // 2)  # a live write and one entry fit
    stale, fresh = tmp_path / "a.part", tmp_path / "b.part"
    stale.write_bytes(b"x" * 5_000)
    fresh.write_bytes(b"y" * 2_000)
    old = time.time() - 3_600
    os.utime(stale, (old, old))
    first = kept.put(Inputs({"one": DOC}, None))
    assert not stale.exists() and fresh.exists()  # a stale temporary goes; a live write stays
    second = kept.put(Inputs({"two": DOC}, None))
    # the live write's 2,000 bytes count: only the newest entry fits beside it
    assert kept.get(second) is not None and kept.get(first) is None


@pytest.mark.app
def test_forget_my_corpus_means_its_link_no_longer_opens_it():
    digest = store.default_store().put(Inputs({"harbour": DOC + "Forget me.\n"}, QE))
    app = open_app("app_pages/your_corpus.py", corpus=cache.USER, corpus_id=digest)
    assert app.session_state["settings"].corpus_id == digest
    next(b for b in app.button if b.label == "Forget my corpus").click().run()
    assert not app.exception, app.exception
    assert app.session_state["settings"].corpus == cache.HANDBOOK
    assert app.text_area(key="yc_document__widget").value == DOC + "Forget me.\n"  # text stays
    assert store.default_store().get(digest) is None
    again = open_app(None, corpus=cache.USER, corpus_id=digest)
    assert any("no longer kept" in w.value for w in again.warning)


def _data_copy(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(cache.DATA, data)
    return data


@pytest.mark.app
def test_filling_in_technova_with_a_file_missing_keeps_the_rest_and_says_which(
    tmp_path, monkeypatch
):
    data = _data_copy(tmp_path)
    (data / "technova" / "headphones-faq.md").unlink()
    monkeypatch.setattr(cache, "DATA", data)
    app = open_app("app_pages/your_corpus.py")
    next(b for b in app.button if "TechNova" in b.label).click().run()
    assert not app.exception, app.exception
    assert any("headphones-faq.md cannot be read" in e.value.replace("\\", "") for e in app.error)
    kept = app.session_state["yc_files"]
    assert "headphones-faq.md" not in kept and len(kept) == 6
    assert app.text_area(key="yc_qe__widget").value  # the questions came in


@pytest.mark.app
@pytest.mark.parametrize("page", ALL_PAGES)
def test_an_unreadable_bundled_handbook_leaves_every_page_running(tmp_path, monkeypatch, page):
    data = _data_copy(tmp_path)
    (data / "handbook.md").unlink()
    (data / "handbook.md").mkdir()  # stat works, reading fails (root reads any file)
    monkeypatch.setattr(cache, "DATA", data)
    app = open_app(page)
    assert not app.exception, app.exception
    said = " ".join(e.value for e in [*app.error, *app.warning, *app.info]).replace("\\", "")
    assert "handbook.md cannot be used: it is a folder, not a file" in said, said
    assert str(tmp_path) not in said  # no server folders


def test_a_collection_with_one_unreadable_file_leaves_that_file_out(tmp_path, monkeypatch):
    folder = tmp_path / "technova"
    shutil.copytree(cache.DATA / "technova", folder)
    unreadable = folder / "headphones-faq.md"
    read_bytes = Path.read_bytes

    def guarded(path: Path) -> bytes:
        if path == unreadable:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", guarded)
    corpus = load_collection(folder / "collection.json")
    assert len(corpus.documents) == 6
    assert any(
        e.message == "collection.json names 'headphones-faq.md', but it cannot be read "
        "(Permission denied); it was left out"
        for e in corpus.errors
    )


def test_sweep_on_a_local_cluster_that_cannot_start_is_one_error_line(capsys, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="needs requirements-distributed.txt")

    def refuse(*args, **kwargs):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(distributed, "LocalCluster", refuse)
    code = main(["sweep", "--workers", "1", "--chunker", "fixed", "--sizes", "300"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines() == [
        "error: the local Dask cluster of 1 worker(s) could not start: OSError: [Errno 98] "
        "Address already in use; run without --workers to sweep in this process"
    ]


def test_bench_without_dask_skips_the_cluster_benchmark_and_passes(tmp_path):
    hidden = tmp_path / "hidden"
    for name in ("dask", "distributed"):
        (hidden / name).mkdir(parents=True)
        (hidden / name / "__init__.py").write_text(f"raise ImportError('no {name} here')\n")
    env = os.environ | {"PYTHONPATH": f"{hidden}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-m", "lab", "bench", "--only", "cluster"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "cluster: skipped, dask and distributed are not installed" in done.stdout


def test_crash_pages_show_the_exception_type_only():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "type"


@pytest.mark.app
def test_a_crash_page_shows_no_server_path():
    from streamlit.testing.v1 import AppTest

    script = "raise PermissionError(13, 'Permission denied', '/srv/chunking-lab/data/x.md')"
    crashed = AppTest.from_string(script).run()
    (shown,) = crashed.exception
    assert shown.proto.type == "PermissionError"
    assert "/srv" not in shown.proto.message and not list(shown.proto.stack_trace)
