"""The engine's targets (issue 23), each measured in a fresh process (CPU seconds; peak memory
is the process's maximum resident set): the default sweep on a generated 1 MB corpus with 1,000
questions and on 4 MB, the 1 MB default run with its assembly and scoring on their own, and the
handbook full run, cold.

``--against DIR`` measures the same in another checkout (the code before a change) side by side,
alternating, and prints the ratios.

    python benchmarks/bench_engine.py [--repeats N] [--quick] [--against DIR]
"""

import argparse
import json
import statistics
import subprocess
import sys

from common import ROOT

TARGETS = {  # measure: (CPU seconds, peak MB), None where there is none
    "sweep 1 MB": (6.0, 700),
    "sweep 4 MB": (None, 2048),
    "run 1 MB": (1.6, None),
    "run 1 MB: assembly + scoring": (0.1, None),
    "handbook run, cold": (None, None),
}

MEASURE = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from lab import LabCache, LabConfig, build_corpus, load_corpus, run_lab, sweep
from lab.generate import generate_corpus
what, out = sys.argv[2], {}
config = LabConfig(split="all")
if what == "handbook":
    text = open(sys.argv[1] + "/data/handbook.md").read()
    qe = open(sys.argv[1] + "/data/handbook_qe.json").read()
    run_lab(build_corpus({"handbook": text}, qe), config, cache=LabCache())
    times = []
    for _ in range(30):
        t = time.process_time()
        run_lab(build_corpus({"handbook": text}, qe), config, cache=LabCache())
        times.append(time.process_time() - t)
    out["cpu"] = sorted(times)[len(times) // 2]
else:
    chars = {"sweep1": 1_000_000, "sweep4": 4_000_000, "run1": 1_000_000}[what]
    text, qe = generate_corpus(chars, 1000)
    corpus = build_corpus({"generated": text}, qe)
    cache = LabCache()
    t = time.process_time()
    if what.startswith("sweep"):
        sweep(corpus, config, cache=cache)
    else:
        run_lab(corpus, config, cache=cache)
    out["cpu"] = time.process_time() - t
    if what == "run1":  # the same rankings assembled and scored again, from fresh retrievals
        fresh = []
        for chunker in config.chunkers:
            index = cache.index(corpus, config, chunker)
            for mode in config.modes:
                r = cache.retrieval(index, config, mode)
                fresh.append(type(r)(r.index, r.mode, r.questions, r.rankings, r.matrix))
        t = time.process_time()
        for r in fresh:
            r.evaluate(config.budget)
            r.metrics(config.budget)
        out["assembly"] = time.process_time() - t
out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def measure(tree: str, what: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, tree, what], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def rows(results: dict) -> dict[str, tuple[float, float]]:
    return {
        "sweep 1 MB": (results["sweep1"]["cpu"], results["sweep1"]["peak"]),
        "sweep 4 MB": (results["sweep4"]["cpu"], results["sweep4"]["peak"])
        if "sweep4" in results
        else None,
        "run 1 MB": (results["run1"]["cpu"], results["run1"]["peak"]),
        "run 1 MB: assembly + scoring": (results["run1"].get("assembly"), None),
        "handbook run, cold": (results["handbook"]["cpu"], None),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="leave out the 4 MB sweep")
    parser.add_argument("--against", help="another checkout measured side by side")
    args = parser.parse_args()
    measures = ["handbook", "run1", "sweep1"] + ([] if args.quick else ["sweep4"])
    trees = [str(ROOT)] + ([args.against] if args.against else [])
    found: dict[str, dict[str, list[dict]]] = {t: {m: [] for m in measures} for t in trees}
    for _ in range(args.repeats):
        for what in measures:
            for tree in trees:
                found[tree][what].append(measure(tree, what))
    medians = {
        tree: {
            what: {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            for what, runs in by.items()
        }
        for tree, by in found.items()
    }
    ours = rows(medians[trees[0]])
    theirs = rows(medians[trees[1]]) if args.against else {}
    for name, value in ours.items():
        if value is None:
            continue
        cpu, peak = value
        cpu_target, peak_target = TARGETS[name]
        line = f"{name}: {cpu:.3f} s CPU" + (f", peak {peak:.0f} MB" if peak else "")
        if cpu_target is not None:
            line += f" (target <= {cpu_target:g} s)"
        if peak_target is not None:
            line += f" (peak target <= {peak_target} MB)"
        if name in theirs and theirs[name] is not None and theirs[name][0]:
            line += f"; against: {theirs[name][0]:.3f} s = {cpu / theirs[name][0]:.2f}x"
            if peak and theirs[name][1]:
                line += f", peak {theirs[name][1]:.0f} MB"
        print(line)


if __name__ == "__main__":
    main()
