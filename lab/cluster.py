"""Sweeps on a Dask cluster: one task per chunker and chunk size, run by ``distributed`` workers.

Optional: ``pip install -r requirements-distributed.txt`` brings ``dask`` and ``distributed``.
They are imported on first use only, so ``import lab`` works without them.

:func:`lab.sweep` calls :func:`sweep_on_cluster` when it is given a client. The corpus is
scattered to the workers once (every task refers to it by key); each task builds one index, its
embeddings included, on its worker and scores every mode and budget of it (the task
:func:`lab.sweeps.sweep` hands in: :func:`lab.sweeps.sweep_cell`); the rows are gathered in grid
order, so the frame is the serial one. A worker that dies loses its tasks to the others (Dask
reschedules them); if the corpus was lost with it, it is scattered again. A cluster left without
any worker for :func:`no_worker_grace` seconds (30, or ``CHUNKING_LAB_WORKER_GRACE``) ends the
sweep with a :class:`ClusterError`.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path

INSTALL_HINT = "pip install -r requirements-distributed.txt"
NO_WORKER_GRACE = 30.0  # seconds a sweep waits for a worker when the cluster has none
GRACE_ENV = "CHUNKING_LAB_WORKER_GRACE"  # ... in seconds, when set
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler
MAX_SCATTERS = 5  # times the corpus may be scattered (again) in one sweep
_POLL = 0.1  # seconds between looks at unfinished tasks
_WATCH = 1.0  # seconds between asking the scheduler how many workers it has
_REQUIRED = ("dask", "distributed")

Progress = Callable[[int, int], None]


def no_worker_grace() -> float:
    """Seconds a sweep waits for a worker while the cluster has none: the environment's
    ``CHUNKING_LAB_WORKER_GRACE`` when it is a positive finite number (a cluster whose workers
    restart slowly needs more), else :data:`NO_WORKER_GRACE`."""
    try:
        value = float(os.environ.get(GRACE_ENV) or NO_WORKER_GRACE)
    except ValueError:
        return NO_WORKER_GRACE
    return value if math.isfinite(value) and value > 0 else NO_WORKER_GRACE


class DistributedUnavailable(RuntimeError):
    """``dask`` or ``distributed`` is not installed here; the message names the install command."""


class ClusterError(RuntimeError):
    """The cluster cannot run the sweep (no worker, a lost scheduler, a task that kept killing
    its workers, workers running other code); the message says what happened and what to do."""


class SchedulerUnreachable(ClusterError):
    """No Dask scheduler answers at the given address."""


def missing_modules() -> list[str]:
    """The modules of the Dask stack that do not import here."""
    missing = []
    for name in _REQUIRED:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing


def distributed_status() -> tuple[bool, str]:
    """Whether sweeps can run on a Dask cluster from here, and if not, what to install."""
    missing = missing_modules()
    if missing:
        return False, f"{' and '.join(missing)} not installed: `{INSTALL_HINT}`"
    import distributed

    return True, f"distributed {distributed.__version__}"


def require() -> None:
    """Raise :class:`DistributedUnavailable` unless ``dask`` and ``distributed`` import."""
    ok, status = distributed_status()
    if not ok:
        raise DistributedUnavailable(f"Dask sweeps need dask and distributed: {status}")


@contextmanager
def local_cluster(n_workers: int) -> Iterator:
    """A client of a ``LocalCluster`` of ``n_workers`` single-threaded worker processes on this
    machine, closed (workers and all) on exit."""
    if not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be a whole number >= 1, got {n_workers!r}")
    require()
    from distributed import Client, LocalCluster

    try:
        cluster = LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    except Exception as exc:  # Dask raises whatever its start-up met: OSError, TimeoutError...
        raise ClusterError(
            f"the local Dask cluster of {n_workers} worker(s) could not start: "
            f"{type(exc).__name__}: {exc}".rstrip(": ")
            + "; run without --workers to sweep in this process"
        ) from None
    try:
        with Client(cluster, set_as_default=False) as client:
            yield client
    finally:
        close_quietly(cluster)


def close_quietly(cluster) -> None:
    """Close a ``LocalCluster``. Its workers and scheduler stop first; a ``KeyError`` after that
    comes from Dask's own record of workers that died and restarted, with nothing left running."""
    with suppress(KeyError):
        cluster.close()


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A client of the Dask scheduler at ``address`` (``tcp://HOST:8786``); the caller closes it.
    :class:`SchedulerUnreachable` when none answers within ``timeout`` seconds."""
    require()
    from distributed import Client
    from distributed.comm.addressing import get_address_host_port

    try:
        get_address_host_port(address)
    except ValueError as exc:
        raise SchedulerUnreachable(
            f"{address!r} is not a Dask scheduler address ({_reason(exc)}); give one like "
            "tcp://HOST:8786"
        ) from exc
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"no Dask scheduler answers at {address!r} ({_reason(exc)}); start one with "
            "`dask scheduler` and give the address it prints (tcp://HOST:8786)"
        ) from exc


@contextmanager
def connected(address: str, timeout: float = CONNECT_TIMEOUT) -> Iterator:
    """:func:`connect` as a context manager that closes the client."""
    client = connect(address, timeout)
    with client:
        yield client


def where(client) -> str:
    """The scheduler's address, for messages."""
    return client.scheduler.address if client.scheduler else "(no scheduler)"


def sweep_on_cluster(
    client,
    task: Callable[..., tuple[dict, ...]],
    corpus,
    config,
    cells: Sequence[tuple[str, int]],
    budgets: tuple[int, ...],
    progress: Progress | None = None,
) -> list[tuple[dict, ...]]:
    """The rows of every ``(chunker, size)`` cell, in the order of ``cells``, each computed by
    ``task(corpus, config, chunker, size, budgets)`` (:func:`lab.sweeps.sweep_cell`) on a worker
    of ``client``'s cluster. ``progress(done, total)``
    is called as tasks finish."""
    from distributed import as_completed

    results: dict[int, tuple[dict, ...]] = {}
    try:
        _check_workers(client, config, len(cells))
        for _ in range(MAX_SCATTERS):
            data = _scatter(client, corpus, len(results), len(cells))
            futures = {
                client.submit(
                    task,
                    data,
                    config,
                    chunker,
                    size,
                    budgets,
                    key=f"lab-sweep-{chunker}-{size}-{data.key}",
                ): i
                for i, (chunker, size) in enumerate(cells)
                if i not in results
            }
            try:
                lost = _collect(client, futures, cells, results, progress, as_completed)
            finally:
                with suppress(OSError, TimeoutError):  # nothing to cancel on a lost scheduler
                    client.cancel([*futures, data])
            if not lost:
                return [results[i] for i in range(len(cells))]
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"lost the Dask scheduler at {where(client)} ({_reason(exc)}): {len(results)} of "
            f"{len(cells)} sweep tasks finished"
        ) from exc
    raise ClusterError(
        f"the cluster at {where(client)} lost the corpus {MAX_SCATTERS} times (workers keep "
        f"dying); {len(results)} of {len(cells)} sweep tasks finished"
    )


def _collect(client, futures, cells, results, progress, as_completed) -> bool:
    """Wait for ``futures``, filing each result under its cell index; True when the tasks were
    cancelled because the corpus was lost with a worker (scatter it again and resubmit)."""
    from distributed import CancelledError

    finished = as_completed(futures, loop=client.loop)
    no_workers_since, looked = None, time.monotonic()
    while not finished.is_empty():
        batch = finished.next_batch(block=False)
        if not batch:
            if time.monotonic() - looked > _WATCH:
                no_workers_since = _watch_workers(client, no_workers_since, results, cells)
                looked = time.monotonic()
            time.sleep(_POLL)
            continue
        for future in batch:
            if future.status == "error":
                raise _task_error(future, cells[futures[future]], client)
            try:
                rows = future.result() if future.status == "finished" else None
            except CancelledError:  # finished, but lost with its worker before it was fetched
                rows = None
            if rows is None:
                _check_scheduler(client, results, cells)
                return True
            results[futures[future]] = rows
            if progress:
                progress(len(results), len(cells))
    return False


def _watch_workers(client, since: float | None, results, cells) -> float | None:
    """When the cluster first had no worker (None while it has some); a ClusterError once that
    has lasted :func:`no_worker_grace` seconds."""
    _check_scheduler(client, results, cells)
    if _worker_count(client):
        return None
    now = time.monotonic()
    if since is not None and now - since > no_worker_grace():
        raise ClusterError(_no_worker(client, len(results), len(cells)))
    return since if since is not None else now


def _worker_count(client) -> int:
    try:
        return len(client.nthreads())
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"lost the Dask scheduler at {where(client)}: {_reason(exc)}") from exc


def _check_scheduler(client, results, cells) -> None:
    if client.status != "running":
        raise ClusterError(
            f"lost the Dask scheduler at {where(client)}: {len(results)} of {len(cells)} sweep "
            "tasks finished"
        )


def _task_error(future, cell: tuple[str, int], client) -> ClusterError:
    from distributed import KilledWorker

    exc = future.exception()
    chunker, size = cell
    if isinstance(exc, KilledWorker):
        return ClusterError(
            f"the sweep task for {chunker} at size {size} was running on every worker that died "
            f"({exc}); it may need more memory than a worker of {where(client)} has"
        )
    return ClusterError(
        f"the sweep task for {chunker} at size {size} failed on the cluster: "
        f"{type(exc).__name__}: {exc}"
    )


def _scatter(client, corpus, finished: int, total: int):
    """The corpus on every worker, as one future. Workers that come and go while it is being
    copied around can make one attempt fail (inside Dask); it is tried again."""
    problem: Exception | None = None
    for _ in range(MAX_SCATTERS):
        _wait_for_a_worker(client, finished, total)
        try:
            return client.scatter(corpus, broadcast=True, hash=False)
        except Exception as exc:
            if client.status != "running":
                raise
            problem = exc
            time.sleep(_WATCH)
    raise ClusterError(
        f"could not send the corpus to the workers of {where(client)} in {MAX_SCATTERS} "
        f"tries: {type(problem).__name__}: {_reason(problem)}"
    ) from problem


def _wait_for_a_worker(client, finished: int, total: int) -> None:
    try:
        client.wait_for_workers(1, timeout=no_worker_grace())
    except TimeoutError as exc:
        raise ClusterError(_no_worker(client, finished, total)) from exc


def _no_worker(client, finished: int, total: int) -> str:
    return (
        f"no Dask worker on the cluster at {where(client)} for {no_worker_grace():g} s "
        f"({finished} of {total} sweep tasks finished): start workers with "
        f"`dask worker {where(client)}` and sweep again"
    )


def _check_workers(client, config, total: int) -> None:
    """Every worker runs this lab code and can load the models the configuration names."""
    _wait_for_a_worker(client, 0, total)
    reports = client.run(_worker_report, config, on_error="return")
    ours = code_fingerprint()
    for address, report in sorted(reports.items()):
        if isinstance(report, BaseException):
            raise ClusterError(
                f"worker {address} cannot run lab code ({type(report).__name__}: {report}); "
                "start workers from the Chunking Lab checkout, or with it on PYTHONPATH"
            )
        fingerprint, problem = report
        if fingerprint != ours:
            raise ClusterError(
                f"worker {address} runs a different version of the lab code than this machine; "
                "start every worker from the same checkout so results match a serial sweep"
            )
        if problem:
            raise ClusterError(f"worker {address} cannot run this sweep: {problem}")


def _worker_report(config) -> tuple[str, str | None]:
    """On a worker: its lab code fingerprint, and why it cannot load the configured models."""
    from .config import embedder_for
    from .embed import DenseUnavailable
    from .rerank import reranker_status

    try:
        embedder_for(config)
    except DenseUnavailable as exc:
        return code_fingerprint(), str(exc).splitlines()[0]
    if config.rerank is not None:
        ok, status = reranker_status(config.rerank)
        if not ok:
            return code_fingerprint(), f"cannot rerank: {status}"
    return code_fingerprint(), None


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the lab package's source files: equal on two machines running the same code."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
