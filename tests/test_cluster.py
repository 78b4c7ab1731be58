"""Sweeps on Dask: the serial frame, a LocalCluster's and that of a scheduler and a worker started
as separate processes are identical; workers dying mid-sweep lose nothing; a cluster with no
worker left fails with a clear message; the command line's cluster flags.

Every cluster here lives on 127.0.0.1 with ports the system picks, and is shut down (its
processes killed if need be) when its test ends, passed or failed.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout, suppress
from pathlib import Path

import pandas as pd
import pytest

distributed = pytest.importorskip(
    "distributed", reason="pip install -r requirements-distributed.txt"
)

from distributed import Client, LocalCluster  # noqa: E402

from lab import LabConfig, build_corpus, cluster, embed, load_collection, sweep  # noqa: E402
from lab.cli import main  # noqa: E402
from lab.generate import generate_corpus  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(480)]

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = (40, 120, 300)
SIZES = (250, 450)
CONFIG = LabConfig(split="all")
WAIT = 120  # seconds to wait for a process or a worker on a busy machine


@pytest.fixture(scope="module")
def serial(handbook) -> pd.DataFrame:
    return sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES).frame()


@pytest.fixture(scope="module")
def heavier():
    """A 100 KB generated corpus and the serial frame of a grid of 15 tasks on it, each long
    enough (a tenth of a second or more) to kill a worker in."""
    text, qe = generate_corpus(100_000, 60)
    corpus = build_corpus({"generated": text}, qe)
    grid = {"budgets": (40, 120), "sizes": (250, 450, 800)}
    return corpus, grid, sweep(corpus, CONFIG, **grid).frame()


def local(n_workers: int = 2) -> LocalCluster:
    return LocalCluster(
        n_workers=n_workers, processes=True, threads_per_worker=1, dashboard_address=":0"
    )


@pytest.fixture(scope="module")
def two_workers() -> Iterator[LocalCluster]:
    """A ``LocalCluster(n_workers=2, processes=True)`` shared by this module's tests."""
    lc = local(2)
    try:
        yield lc
    finally:
        cluster.close_quietly(lc)  # the tests below kill and restart its workers


@pytest.fixture
def client(two_workers) -> Iterator[Client]:
    """A client of the shared LocalCluster once both its workers are up (a test may have
    killed some; their nannies restart them)."""
    with Client(two_workers, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=WAIT)
        yield c


@contextmanager
def process(args: list[str], log: Path) -> Iterator[subprocess.Popen]:
    """``python -m dask ARGS`` in its own process group, output to ``log``; on exit it gets
    SIGINT, then (after 15 s, or at once if the test failed) SIGKILL for the whole group."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=log.parent,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
                with suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=15)
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def scheduler_address(file: Path, proc: subprocess.Popen, log: Path) -> str:
    """The address a ``dask scheduler --scheduler-file FILE`` wrote, once it has."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the scheduler exited:\n{log.read_text()}"
        try:
            return json.loads(file.read_text())["address"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            time.sleep(0.1)
    raise AssertionError(f"no scheduler address after {WAIT} s:\n{log.read_text()}")


@contextmanager
def separate_cluster(tmp: Path, *worker_flags: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """A ``dask scheduler`` and one ``dask worker`` as processes of their own on 127.0.0.1: the
    scheduler's address and the worker's process once the worker has joined."""
    file = tmp / "scheduler.json"
    common = ["--host", "127.0.0.1", "--no-dashboard"]
    with process(
        ["scheduler", *common, "--port", "0", "--scheduler-file", str(file)], tmp / "scheduler.log"
    ) as sched:
        address = scheduler_address(file, sched, tmp / "scheduler.log")
        with process(
            ["worker", address, *common, "--nthreads", "1", *worker_flags], tmp / "worker.log"
        ) as worker:
            with Client(address, timeout=WAIT, set_as_default=False) as client:
                client.wait_for_workers(1, timeout=WAIT)
            yield address, worker


def assert_same(frame: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)


def test_serial_local_cluster_and_separate_processes_give_identical_frames(
    handbook, serial, client, tmp_path
):
    assert len(serial) == 5 * 2 * 3 * 2  # default chunkers x modes x budgets x sizes
    on_local = sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES, client=client).frame()
    with (
        separate_cluster(tmp_path) as (address, _),
        Client(address, timeout=WAIT, set_as_default=False) as apart,
    ):
        workers = apart.run(os.getpid)
        on_processes = sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES, client=apart).frame()
    assert os.getpid() not in workers.values()
    assert_same(on_local, serial)
    assert_same(on_processes, serial)


TECHNOVA = ROOT / "data" / "technova" / "collection.json"


def test_a_sweep_of_the_support_collection_on_workers_gives_the_local_numbers(client):
    """Documents with their types and metadata, the policy and the questions' filters all reach
    the workers: the by-type rows follow the policy, and switching filters off changes the
    rows of the single chunkers as it does locally."""
    corpus = load_collection(TECHNOVA)
    grid = {"budgets": (40, 120), "sizes": (250, 450)}
    for filters in (True, False):
        config = LabConfig(
            chunkers=("fixed", "structure", "by-type"), modes=("flat",), filters=filters
        )
        local_frame = sweep(corpus, config, **grid).frame()
        on_workers = sweep(corpus, config, **grid, client=client).frame()
        assert_same(on_workers, local_frame)
        at = on_workers[(on_workers["size"] == 450) & (on_workers["budget"] == 120)]
        complete = dict(zip(at["chunker"], at["complete"], strict=True))
        # of 20 test questions; filters off, fixed and structure lose one question the filters
        # helped, by-type gains t14 (its filter hid the spec table) and loses t29
        expected = (
            {"fixed": 0.20, "structure": 0.45, "by-type": 0.60}
            if filters
            else {"fixed": 0.15, "structure": 0.40, "by-type": 0.60}
        )
        assert complete == expected


def test_the_configs_parser_reaches_the_workers(client):
    """The documents are read with ``LabConfig.parser`` before they are sent: on the workers
    the whole page's navigation question is scored as it is here, and not with "main"."""
    raw = ROOT / "tests" / "data" / "real" / "formats" / "shared-mime-info-spec-ch2.html"
    qe = [
        {"id": "nav", "question": "Where next?", "evidence": ["Prev | Home | Next"]},
        {"id": "body", "question": "Why?", "evidence": ["the differences between the databases"]},
    ]
    corpus = build_corpus({"spec.html": raw.read_bytes()}, qe)
    grid = {"budgets": (40,), "sizes": (250,)}
    for parser, questions in ((None, 1), ("page", 2)):
        config = LabConfig(chunkers=("fixed",), modes=("flat",), split="all", parser=parser)
        on_workers = sweep(corpus, config, **grid, client=client).frame()
        assert_same(on_workers, sweep(corpus, config, **grid).frame())
        assert on_workers["questions"].tolist() == [questions]


def test_progress_counts_finished_tasks(handbook, client):
    seen = []
    sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES, client=client, progress=_record(seen))
    assert seen == [(done, 10) for done in range(1, 11)]


def _record(seen: list):
    return lambda done, total: seen.append((done, total))


def kill_busy_worker(client: Client, pids: dict[str, int], killed: list[str]):
    """A progress callback that, once, kills (SIGKILL) the process of a worker running a task."""

    def on_progress(done: int, total: int) -> None:
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys and w in pids]
        if busy:
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(busy[0])

    return on_progress


def test_a_worker_killed_mid_sweep_loses_nothing(heavier, client, monkeypatch):
    monkeypatch.setenv(cluster.GRACE_ENV, str(WAIT))  # a restart may be slow on a busy machine
    corpus, grid, expected = heavier
    killed: list[str] = []
    progress = kill_busy_worker(client, client.run(os.getpid), killed)
    frame = sweep(corpus, CONFIG, **grid, client=client, progress=progress).frame()
    assert killed, "no worker was busy when tasks finished"
    removed = [m for _, m in client.get_events(killed[0]) if m.get("action") == "remove-worker"]
    assert any(k.startswith("lab-sweep-") for k in removed[0]["processing-tasks"])
    assert_same(frame, expected)


def test_every_worker_killed_mid_sweep_scatters_the_corpus_again(heavier, client, monkeypatch):
    monkeypatch.setenv(cluster.GRACE_ENV, str(WAIT))  # a restart may be slow on a busy machine
    corpus, grid, expected = heavier
    pids = client.run(os.getpid)

    def kill_all(done: int, total: int) -> None:
        if done == 1:
            for pid in pids.values():
                os.kill(pid, signal.SIGKILL)

    frame = sweep(corpus, CONFIG, **grid, client=client, progress=kill_all).frame()
    assert set(client.run(os.getpid).values()).isdisjoint(pids.values())  # nannies restarted
    assert_same(frame, expected)


def test_a_sweep_fails_clearly_when_no_worker_is_left(heavier, tmp_path, monkeypatch):
    corpus, grid, _ = heavier
    monkeypatch.setenv(cluster.GRACE_ENV, "2")
    with (
        separate_cluster(tmp_path, "--no-nanny") as (address, worker),
        Client(address, timeout=WAIT, set_as_default=False) as apart,
    ):

        def kill_the_worker(done: int, total: int) -> None:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGKILL)

        start = time.monotonic()
        with pytest.raises(cluster.ClusterError, match="no Dask worker on the cluster") as failure:
            sweep(corpus, CONFIG, **grid, client=apart, progress=kill_the_worker)
        assert time.monotonic() - start < WAIT
    message = str(failure.value)
    assert f"start workers with `dask worker {address}`" in message
    finished = int(message.split("(")[1].split(" of ")[0])
    assert 1 <= finished < 15
    assert f"({finished} of 15 sweep tasks finished)" in message


def test_a_sweep_fails_clearly_when_the_scheduler_dies(heavier, tmp_path):
    corpus, grid, _ = heavier
    with (
        separate_cluster(tmp_path) as (address, _),
        Client(address, timeout=WAIT, set_as_default=False) as apart,
    ):
        scheduler = apart.run_on_scheduler(os.getpid)

        def kill_the_scheduler(done: int, total: int) -> None:
            with suppress(ProcessLookupError):
                os.kill(scheduler, signal.SIGKILL)

        with pytest.raises(cluster.ClusterError, match="lost the Dask scheduler at") as failure:
            sweep(corpus, CONFIG, **grid, client=apart, progress=kill_the_scheduler)
    assert address in str(failure.value)
    assert "of 15 sweep tasks finished" in str(failure.value)


def test_a_scheduler_without_workers_is_reported(handbook, monkeypatch):
    monkeypatch.setenv(cluster.GRACE_ENV, "1")
    expected = r"for 1 s \(0 of 10 sweep tasks finished\)"
    with (
        local(n_workers=0) as lc,
        Client(lc, set_as_default=False) as nobody,
        pytest.raises(cluster.ClusterError, match=expected),
    ):
        sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES, client=nobody)


def test_workers_running_other_lab_code_are_refused(handbook, client, monkeypatch):
    monkeypatch.setattr(cluster, "code_fingerprint", lambda: "another checkout")
    with pytest.raises(cluster.ClusterError, match="different version of the lab code"):
        sweep(handbook, CONFIG, budgets=BUDGETS, sizes=SIZES, client=client)


@pytest.mark.skipif(not embed.dense_status()[0], reason=embed.dense_status()[1])
def test_dense_embeddings_are_computed_on_the_workers(handbook, client):
    config = LabConfig(
        chunkers=("structure", "recursive"), modes=("dense", "hybrid"), dense=embed.DEFAULT_MODEL
    )
    grid = {"budgets": (60, 200), "sizes": (450,)}
    expected = sweep(handbook, config, **grid).frame()
    here = embed.get_embedder(config.dense)
    encoded_here = len(here._vectors)
    frame = sweep(handbook, config, **grid, client=client).frame()
    on_workers = client.run(lambda: len(embed.get_embedder(embed.DEFAULT_MODEL)._vectors))
    assert len(here._vectors) == encoded_here
    assert sum(on_workers.values()) > 0
    assert_same(frame, expected)


CLI_SWEEP = ("sweep", "--chunker", "fixed,structure", "--budgets", "40,120", "--sizes", "250,450")


@pytest.fixture(scope="module")
def serial_csv() -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*CLI_SWEEP, "--format", "csv"]) == 0
    return out.getvalue()


def test_cli_workers_flag_gives_the_serial_csv_and_a_progress_bar(capsys, serial_csv):
    assert main([*CLI_SWEEP, "--format", "csv", "--workers", "2", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert out == serial_csv
    assert "sweep [###############...............] 2/4 tasks" in err
    assert "4/4 tasks (chunker x size) on 2 local worker processes" in err


def test_cli_scheduler_flag_uses_a_running_cluster(capsys, serial_csv, client):
    address = client.scheduler.address
    assert main([*CLI_SWEEP, "--format", "csv", "--scheduler", address]) == 0
    assert capsys.readouterr().out == serial_csv


def test_cli_bad_scheduler_address_is_a_user_error(capsys):
    assert main([*CLI_SWEEP, "--scheduler", "localhost"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: 'localhost' is not a Dask scheduler address")
    assert "tcp://HOST:8786" in err


@pytest.mark.parametrize("flag", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:8786"]])
def test_cli_cluster_flags_without_dask_exit_2_with_the_install_command(capsys, monkeypatch, flag):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    assert main([*CLI_SWEEP, *flag]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"error: {flag[0]} needs dask and distributed: distributed not installed: "
        "`pip install -r requirements-distributed.txt`\n"
    )


@pytest.mark.parametrize(
    ("setting", "seconds"), [(None, 30.0), ("5", 5.0), ("0.5", 0.5), ("inf", 30.0), ("-1", 30.0)]
)
def test_the_wait_for_a_worker_is_the_environments_when_it_is_a_positive_number(
    monkeypatch, setting, seconds
):
    if setting is None:
        monkeypatch.delenv(cluster.GRACE_ENV, raising=False)
    else:
        monkeypatch.setenv(cluster.GRACE_ENV, setting)
    assert cluster.no_worker_grace() == seconds
