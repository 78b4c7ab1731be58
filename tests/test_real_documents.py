"""Real license texts (Debian's /usr/share/common-licenses) parse into their numbered sections
and run through every keyword chunker; skipped where the files are absent."""

from pathlib import Path

import pytest

from lab import DEFAULT_CHUNKERS, LabConfig, build_corpus, build_index, parse_document, run_lab

LICENSES = Path("/usr/share/common-licenses")


def license_text(name: str) -> str:
    path = LICENSES / name
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine")
    return path.read_text(encoding="utf-8")


def test_apache_sections_are_provisions():
    doc = parse_document(license_text("Apache-2.0"), "apache")
    numbered = [(p.id, p.title) for p in doc.provisions if p.id]
    assert [i for i, _ in numbered] == [str(n) for n in range(1, 10)]
    assert numbered[1] == ("2", "Grant of Copyright License")  # title and body share the line


def test_gpl_sections_and_lowercase_references_resolve():
    doc = parse_document(license_text("GPL-3"), "gpl")
    ids = [p.id for p in doc.provisions if p.id]
    assert ids == [str(n) for n in range(18)]
    by_index = {p.index: p.id for p in doc.provisions}
    cited = {by_index[r.target] for r in doc.references}
    assert {"4", "7", "10"} <= cited  # "section 7", "section 10" in the text


def test_mpl_numbered_definitions_have_heading_paths():
    doc = parse_document(license_text("MPL-2.0"), "mpl")
    contributor = next(p for p in doc.provisions if p.id == "1.1")
    assert contributor.path == '1 Definitions \u203a 1.1 "Contributor"'
    assert any(doc.provisions[r.target].id == "2.1" for r in doc.references)


@pytest.mark.parametrize("name", ["Apache-2.0", "GPL-3", "MPL-2.0"])
def test_every_chunker_keeps_its_contract_on_a_license(name):
    text = license_text(name)
    doc = parse_document(text, name)
    evidence = text[doc.units[5].start : doc.units[5].end]
    corpus = build_corpus(
        {name: text}, [{"id": "q1", "question": evidence, "evidence": [evidence]}]
    )
    for chunker in DEFAULT_CHUNKERS:
        index = build_index(corpus, chunker, 450)
        for chunk in index.chunks:
            start, end = chunk.source[0]
            assert chunk.text[len(chunk.prefix) :].startswith(text[start:end])
    result = run_lab(corpus, LabConfig(split="all"))
    assert all(run.metrics.partial == 1.0 for run in result.runs)  # the sentence finds itself
