"""The parser as a setting of the experiment (``LabConfig.parser``): checked in one place, the
run reads the documents with it, and runs, sweeps, compare and the JSON echo carry it."""

import json
from pathlib import Path

import pytest

from lab import LabCache, LabConfig, build_corpus, compare, run_lab, sweep

SPEC = Path(__file__).resolve().parent / "data" / "real" / "formats"
RAW = (SPEC / "shared-mime-info-spec-ch2.html").read_text(encoding="utf-8")
QE = {
    "questions": [
        {
            "id": "body",
            "question": "What was clear about the differences between the databases?",
            "evidence": ["the differences between the databases were simply a result"],
        },
        {
            "id": "nav",
            "question": "Where does the previous page link go?",
            "evidence": ["Prev | Home | Next"],
        },
    ]
}
ONE = {"chunkers": ("fixed",), "modes": ("flat",), "split": "all", "size": 250, "budget": 40}


@pytest.fixture(scope="module")
def spec():
    return build_corpus({"spec.html": RAW}, QE)


def test_an_unknown_parser_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"unknown parser 'pag'; choose from main, page, pypdf"):
        LabConfig(parser="pag")
    with pytest.raises(ValueError, match="names two html readings: main, page"):
        LabConfig(parser="main,page")
    with pytest.raises(ValueError, match="parser must be a name"):
        LabConfig(parser=3)


def test_settings_that_read_every_document_alike_are_one_config():
    assert LabConfig(parser="main") == LabConfig() and LabConfig().parser is None
    assert LabConfig(parser="main,pypdf").parser is None
    assert LabConfig(parser="layout, page").parser == "page,layout"
    assert LabConfig(parser="pypdf,page") == LabConfig(parser="page")


def test_page_and_main_give_different_contexts_on_a_page_with_navigation(spec):
    main = run_lab(spec, LabConfig(**ONE))
    page = run_lab(spec, LabConfig(**ONE, parser="page"))
    assert [q.id for q in main.runs[0].questions] == ["body"]  # its navigation is not read
    assert [q.id for q in page.runs[0].questions] == ["body", "nav"]
    body_main, body_page = main.runs[0].questions[0], page.runs[0].questions[0]
    assert body_main.context != body_page.context
    assert main.to_dict()["config"]["parser"] is None
    assert page.to_dict()["config"]["parser"] == "page"


def test_the_config_not_the_loaded_corpus_decides_the_reading(spec):
    page_corpus = spec.read_with("page")
    assert page_corpus.parser == "page" and page_corpus.read_with("page") is page_corpus
    assert spec.read_with("main") is spec  # the default reading: itself
    assert page_corpus.read_with(None).digest == spec.digest
    cache = LabCache()
    default = run_lab(page_corpus, LabConfig(**ONE), cache=cache)
    assert [q.id for q in default.runs[0].questions] == ["body"]
    again = run_lab(spec, LabConfig(**ONE, parser="page"), cache=cache)  # keys: the reading's
    assert [q.id for q in again.runs[0].questions] == ["body", "nav"]


def test_a_sweep_reads_with_the_configs_parser(spec):
    grid = {"budgets": (40,), "sizes": (250,)}
    main = sweep(spec, LabConfig(**ONE), **grid).rows
    page = sweep(spec, LabConfig(**ONE, parser="page"), **grid).rows
    assert main[0]["questions"] == 1 and page[0]["questions"] == 2


def test_compare_of_two_parsers_through_the_public_api(spec):
    c = compare(spec, LabConfig(**ONE), LabConfig(**ONE, parser="page"))
    assert [str(d) for d in c.differences] == ["parser (main → page)"]
    assert [q.id for q in c.questions] == ["body"] and c.only_b == ("nav",)
    with pytest.raises(ValueError, match="same configuration"):
        compare(spec, LabConfig(**ONE, parser="layout"), LabConfig(**ONE))  # no PDF here


def test_the_cli_carries_the_parser_into_the_config(tmp_path, capsys):
    from lab.cli import main

    page, qe = tmp_path / "spec.html", tmp_path / "qe.json"
    page.write_bytes(RAW.encode("utf-8"))
    qe.write_text(json.dumps(QE), encoding="utf-8")
    args = ["--doc", str(page), "--qe", str(qe), "--chunker", "fixed", "--mode", "flat"]
    args += ["--split", "all", "--format", "json"]
    assert main(["run", *args, "--parser", "page"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["parser"] == "page"
    assert [q["id"] for q in out["runs"][0]["questions"]] == ["body", "nav"]
    assert main(["compare", *args, "--a", "chunker=fixed,mode=flat", "--b-parser", "page"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["a"]["parser"], out["b"]["parser"]) == (None, "page")
    assert main(["run", *args, "--parser", "pag"]) == 2
    assert "unknown parser 'pag'; choose from main, page" in capsys.readouterr().err
