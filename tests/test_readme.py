"""The README's "Your own corpus" starts from a document with no questions and shows the three
ways to get them; every command it names is one the lab has, with options it takes."""

import re
import shlex
from pathlib import Path

import pytest

from lab.cli import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def test_your_own_corpus_starts_from_no_questions_and_shows_three_ways():
    text = section("Your own corpus")
    assert "no questions yet" in text
    ways = re.findall(r"^\d\. \*\*(\w+) them\*\*", text, re.M)
    assert ways == ["Write", "Import", "Draft"]
    assert "**Questions**" in text and "`python -m lab import" in text
    assert "`python -m lab generate" in text


def test_the_commands_it_names_exist_with_their_options(capsys):
    snippets = re.findall(r"`(python -m lab [^`]+)`", " ".join(section("Your own corpus").split()))
    assert len(snippets) == 2
    for snippet in snippets:
        words = shlex.split(snippet)[3:]
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args([words[0], "--help"])
        assert done.value.code == 0, snippet
        usage = capsys.readouterr().out
        flags = [w for w in words if w.startswith("--")]
        assert flags and all(f"{flag} " in usage for flag in flags), (snippet, usage)


def test_the_module_map_names_files_that_exist_and_the_front_door_is_short():
    """Every module, folder and test file the module map names is there (``pages/`` became
    ``app_pages/``), ``lab/fast/`` among them; the README stays at most 15,000 bytes."""
    root = Path(__file__).resolve().parent.parent
    rows = [line for line in README.splitlines() if line.startswith("| ")]
    start = rows.index("| stage | module | plain rule | fast path | its tests |")
    named = set()
    for row in rows[start + 1 :]:
        cells = row.split(" | ")
        named |= {p for p in re.findall(r"`([\w/.*]+)`", cells[1]) if "/" in p or p.endswith(".py")}
        named |= {f"tests/{t}" for t in re.findall(r"`(test_[\w*]+\.py)`", row)}
    assert {"lab/fast/", "app_pages/", "lab/graph.py", "tests/test_rules.py"} <= named
    assert [n for n in sorted(named) if not list(root.glob(n))] == []
    assert len(README.encode()) <= 15_000
