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
