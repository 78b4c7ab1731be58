"""Every lexical chunker on a long real text with few headings, the case where ``parent-child``
once delivered whole heading-less documents: time of a full run per chunker (load included),
and complete / partial recall in flat mode, so a parent that never fits the budget shows as 0%.

Text: the first 740 KB of Vim's release notes (``/usr/share/vim/vim90/doc/version8.txt``, cut at
a blank line): six headings, one section of 540 KB, long prose paragraphs between code samples.
Questions: 200 drawn with a fixed seed from its sentences (one sentence, or two consecutive ones
of one paragraph), each asked with six content words of its evidence.

    python benchmarks/bench_parent_child.py [--repeats N] [--quick] [--chunker NAME]
"""

import random
import re
import statistics
from pathlib import Path

from common import arguments, cpu_seconds, seconds, verdict

from lab import CHUNKERS, LabCache, LabConfig, build_corpus, parse_document, run_lab

TEXT = Path("/usr/share/vim/vim90/doc/version8.txt")
CHARS = 740_000
QUESTIONS = 200
TARGET = 10.0
_WORD = re.compile(r"[A-Za-z]{4,}")


def filing(chars: int) -> str:
    text = TEXT.read_text(encoding="utf-8")
    return text[: text.rfind("\n\n", 0, chars) + 1]


def questions(text: str, n: int, seed: int = 8) -> dict:
    """``n`` questions whose evidence is one sentence or two consecutive sentences of a
    paragraph, each evidence string unique in the text."""
    doc = parse_document(text)
    rng = random.Random(seed)
    units = [u for u in doc.units if u.kind == "sentence"]
    chosen, seen = [], set()
    while len(chosen) < n:
        i = rng.randrange(len(units) - 1)
        pair = rng.random() < 0.5 and units[i + 1].block == units[i].block
        parts = [units[i], units[i + 1]] if pair else [units[i]]
        evidence = [text[u.start : u.end] for u in parts]
        words = _WORD.findall(" ".join(evidence))
        if len(words) < 8 or any(text.count(e) != 1 for e in evidence) or evidence[0] in seen:
            continue
        seen.add(evidence[0])
        asked = " ".join(rng.sample(words, 6))
        chosen.append(
            {"id": f"v{len(chosen):03d}", "question": asked, "evidence": evidence, "split": "test"}
        )
    return {"questions": chosen}


def main() -> None:
    args = arguments(
        __doc__, 1, lambda p: p.add_argument("--chunker", action="append", metavar="NAME")
    )
    if not TEXT.exists():
        print(f"parent-child on a long text: not measured: {TEXT} is not installed here")
        return
    text = filing(74_000 if args.quick else CHARS)
    qe = questions(text, 20 if args.quick else QUESTIONS)
    names = args.chunker or [name for name, spec in CHUNKERS.items() if not spec.dense]
    print(f"Vim release notes, {len(text) // 1000} KB, {len(qe['questions'])} questions")
    for name in names:
        config = LabConfig(chunkers=(name,), modes=("flat",), split="all")
        result = []

        def run(config=config, result=result) -> None:
            result[:] = [run_lab(build_corpus({"vim": text}, qe), config, cache=LabCache())]

        times = cpu_seconds(run, args.repeats)
        m = result[0].runs[0].metrics
        stats = result[0].runs[0].index
        line = (
            f"{name}: {seconds(statistics.median(times))} median of {len(times)}; "
            f"complete {m.complete:.0%}, partial {m.partial:.0%}; {stats.chunks} chunks, "
            f"mean {stats.mean_chars:.0f} chars, {stats.over_budget} over budget"
        )
        if name == "parent-child" and not args.quick:
            median = statistics.median(times)
            line += f"; target <= {TARGET:g} s: " + verdict(median <= TARGET, median / TARGET)
        print(line, flush=True)


if __name__ == "__main__":
    main()
