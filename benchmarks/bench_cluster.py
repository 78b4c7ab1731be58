"""The default sweep grid on a generated 1 MB corpus (1,000 questions), serially and on a Dask
``LocalCluster`` of 2 worker processes, and an estimate of a 100 MB corpus on 16 workers from the
measured per-task times: ``python benchmarks/bench_cluster.py [--quick]``.

Needs ``pip install -r requirements-distributed.txt``. Several minutes on a 2-core machine;
``--quick`` is a smoke run on 100 KB.

Times are wall-clock and CPU seconds: on a machine shared with other work, wall time measures the
share of the cores the processes got, CPU time the work they did. The estimate scales each 1 MB
task's CPU seconds by how that chunker's task grew from the 1 MB to a 4 MB corpus (same questions,
size 450), extrapolated as a power law (exponent at least 1) to 100 MB; then it plays the tasks
onto 16 workers with a core each in submission order (Dask hands the next queued task to the
first idle worker), and adds sending the pickled corpus twice (to one worker, then on to the
others) at 1 Gbit/s.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab import (  # noqa: E402
    DEFAULT_BUDGETS,
    DEFAULT_SIZES,
    LabConfig,
    build_corpus,
    sweep,
    sweep_cell,
)
from lab.cluster import distributed_status, local_cluster  # noqa: E402
from lab.generate import generate_corpus  # noqa: E402

CONFIG = LabConfig(split="all")  # every default chunker, flat and graph, all questions
QUESTIONS = 1000
TARGET_MB, TARGET_WORKERS = 100, 16
NETWORK = 125e6  # bytes per second: 1 Gbit/s


def corpus_of(chars: int, questions: int = QUESTIONS):
    text, qe = generate_corpus(chars, questions)
    return build_corpus({"generated": text}, qe)


def serial_tasks(corpus) -> tuple[float, float, dict[tuple[str, int], float]]:
    """Wall and CPU seconds of the serial sweep, and the CPU seconds of each of its tasks."""
    cells = [(c, s) for s in DEFAULT_SIZES for c in CONFIG.chunkers]
    wall, cpu = [time.perf_counter()], [time.process_time()]

    def lap(done: int, total: int) -> None:
        wall.append(time.perf_counter())
        cpu.append(time.process_time())

    sweep(corpus, CONFIG, progress=lap)
    times = {cell: b - a for cell, a, b in zip(cells, cpu[:-1], cpu[1:], strict=True)}
    return wall[-1] - wall[0], cpu[-1] - cpu[0], times


def _cpu_seconds() -> float:
    import psutil

    times = psutil.Process().cpu_times()
    return times.user + times.system


def cluster_run(corpus, n_workers: int) -> tuple[float, float, float, list[float]]:
    """Seconds to start the cluster, wall seconds of the sweep on it (checks, scatter, tasks,
    gathering), the CPU seconds of this process meanwhile, and of each worker process."""
    start = time.perf_counter()
    with local_cluster(n_workers) as client:
        started = time.perf_counter() - start
        before = client.run(_cpu_seconds)
        start, start_cpu = time.perf_counter(), time.process_time()
        sweep(corpus, CONFIG, client=client)
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        after = client.run(_cpu_seconds)
    return started, wall, cpu, [after[w] - before[w] for w in sorted(after)]


def growth(small, large, ratio: float) -> dict[str, float]:
    """Per chunker: the exponent k of task CPU time ~ corpus size^k, from one task (size 450)
    on each corpus, ``large`` being ``ratio`` times ``small``."""
    exponents = {}
    for chunker in CONFIG.chunkers:
        seconds = []
        for corpus in (small, large):
            start = time.process_time()
            sweep_cell(corpus, CONFIG, chunker, 450, DEFAULT_BUDGETS)
            seconds.append(time.process_time() - start)
        exponents[chunker] = math.log(seconds[1] / seconds[0]) / math.log(ratio)
    return exponents


def list_schedule(durations: list[float], workers: int) -> float:
    """Makespan when each task, in order, goes to the worker that frees up first."""
    free = [0.0] * workers
    for d in durations:
        k = free.index(min(free))
        free[k] += d
    return max(free)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 KB smoke run")
    args = parser.parse_args()
    ok, status = distributed_status()
    if not ok:  # an optional stack: the other benchmarks still run, and bench still passes
        print(f"cluster: skipped, dask and distributed are not installed ({status})")
        return
    chars = 100_000 if args.quick else 1_000_000
    questions = 100 if args.quick else QUESTIONS
    corpus = corpus_of(chars, questions)
    grid = len(DEFAULT_SIZES) * len(CONFIG.chunkers)
    print(
        f"corpus: generated {len(corpus.documents[0].text):,} characters, "
        f"{len(corpus.questions)} questions; grid: {len(DEFAULT_BUDGETS)} budgets x "
        f"{len(DEFAULT_SIZES)} sizes x {len(CONFIG.chunkers)} chunkers x "
        f"{len(CONFIG.modes)} modes = {grid} tasks; machine: {os.cpu_count()} cores, load "
        f"{os.getloadavg()[0]:.1f}"
    )
    serial, serial_cpu, per_task = serial_tasks(corpus)
    print(
        f"serial: {serial:.1f} s wall, {serial_cpu:.1f} s CPU (load {os.getloadavg()[0]:.1f}); "
        f"tasks {min(per_task.values()):.2f} to {max(per_task.values()):.2f} CPU s"
    )
    started, wall, cpu, workers = cluster_run(corpus, 2)
    print(
        f"LocalCluster, 2 worker processes: {wall:.1f} s wall for the sweep (cluster start "
        f"{started:.1f} s more; load {os.getloadavg()[0]:.1f}); serial / cluster = "
        f"{serial / wall:.2f}x wall; CPU s of the workers "
        + " + ".join(f"{w:.1f}" for w in workers)
        + f" = {sum(workers):.1f}, of this process {cpu:.1f}; serial CPU / busiest worker's CPU "
        f"= {serial_cpu / max(workers):.2f}x"
    )
    print("per task, serial CPU seconds (chunker x size):")
    for chunker in CONFIG.chunkers:
        cells = "  ".join(f"{s}: {per_task[chunker, s]:6.2f}" for s in DEFAULT_SIZES)
        print(f"  {chunker:<11} {cells}")

    ratio = 4
    larger = corpus_of(ratio * chars, questions)
    exponents = growth(corpus, larger, ratio)
    print(
        f"growth from {chars / 1e6:g} to {ratio * chars / 1e6:g} MB (same questions, size 450), "
        "task time ~ corpus size^k: " + ", ".join(f"{c} k={k:.2f}" for c, k in exponents.items())
    )
    scale = TARGET_MB * 1e6 / chars
    order = [(c, s) for s in DEFAULT_SIZES for c in CONFIG.chunkers]
    projected = [per_task[c, s] * scale ** max(exponents[c], 1.0) for c, s in order]
    blob = len(pickle.dumps(corpus, protocol=pickle.HIGHEST_PROTOCOL)) * scale
    send = 2 * blob / NETWORK  # client to one worker, then worker to worker
    makespan = list_schedule(projected, TARGET_WORKERS)
    bound = max(max(projected), sum(projected) / TARGET_WORKERS)
    print(
        f"estimate, {TARGET_MB} MB on {TARGET_WORKERS} workers (k at least 1): tasks "
        f"{min(projected) / 60:.1f} to {max(projected) / 60:.1f} min, {sum(projected) / 3600:.1f} "
        f"worker-hours; wall {makespan / 60:.0f} min in submission order (bound "
        f"{bound / 60:.0f} min) + {send:.0f} s to send the {blob / 1e6:.0f} MB pickled corpus; "
        f"serial {sum(projected) / 3600:.1f} h"
    )


if __name__ == "__main__":
    main()
