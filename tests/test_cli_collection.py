"""The command line on collections: --collection, --doc with --type, the by-type chunker, and
documents named in JSON results."""

import csv
import io
import json
from pathlib import Path

from samples import TECHNOVA_DOCS as DOCS
from test_cli import assert_user_error, run_cli, run_json, write

from lab import CHUNKERS

ROOT = Path(__file__).resolve().parent.parent
TECHNOVA = ROOT / "data" / "technova"
MANIFEST = str(TECHNOVA / "collection.json")


def test_collection_json_names_the_document_of_every_chunk_and_evidence_span(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "--collection",
        MANIFEST,
        "--chunker",
        "by-type",
        "--format",
        "json",
        "--split",
        "all",
    )
    assert code == 0 and err == ""
    data = json.loads(out)
    texts = {name: (TECHNOVA / name).read_text(encoding="utf-8") for name in DOCS}
    (flat, graph) = data["runs"]
    assert (flat["chunker"], flat["mode"]) == ("by-type", "flat")
    assert len(flat["questions"]) == 31
    for q in flat["questions"]:
        for e in q["evidence"]:
            assert e["doc"] in texts
            start, end = e["span"]
            assert 0 <= start < end  # offsets of that document's (extracted) text
        for p in q["context"]:
            assert p["doc"] in texts
    spans = {(e["doc"], tuple(e["span"])) for q in flat["questions"] for e in q["evidence"]}
    guide = texts["troubleshooting-guide.md"]
    start = guide.index("Not listed? Reset")
    assert any(d == "troubleshooting-guide.md" and s == start for d, (s, _) in spans)
    assert "metrics_without_filters" in flat and "questions_without_filters" in flat


def test_collection_table_lists_the_documents_and_recall_without_filters(capsys):
    code, out, _ = run_cli(capsys, "run", "--collection", MANIFEST)
    assert code == 0
    assert out.startswith("TechNova support: 7 documents, 20 test questions (4 with a metadata")
    assert "complete w/o filters" in out
    table = out.split("\n\n")[1].splitlines()[1:]
    chunkers = {line.split()[0] for line in table if not line.startswith("Best")}
    assert chunkers == {"fixed", "sentence", "structure", "qes-dp", "qes-greedy", "by-type"}
    assert "product-specs.html        spec-table  html      table-rows" in out
    assert "wh-500-quick-start.md     procedure*" in out
    assert "* wh-500-quick-start.md: inferred: 3 numbered steps under 4 headings" in out


def test_chunker_all_includes_the_policy_and_table_rows(capsys):
    code, out, _ = run_cli(
        capsys,
        "run",
        "--collection",
        MANIFEST,
        "--chunker",
        "all",
        "--mode",
        "flat",
        "--format",
        "csv",
    )
    assert code == 0
    names = [r["chunker"] for r in csv.DictReader(io.StringIO(out))]
    assert names == [c for c in CHUNKERS if not CHUNKERS[c].dense and CHUNKERS[c].kind == "lab"]
    assert names[-2:] == ["table-rows", "by-type"]


def test_repeated_docs_with_types_run_the_same_questions(capsys):
    argv = ["run", "--qe", str(TECHNOVA / "questions.json"), "--chunker", "by-type"]
    for name in DOCS:
        argv += ["--doc", str(TECHNOVA / name)]
    argv += ["--type", "support-call.txt=transcript", "--type", "headphones-faq=faq"]
    code, out, err = run_cli(capsys, *argv, "--format", "json", "--split", "all")
    assert code == 0
    assert err.count("warning:") == 1 and "filters are ignored" in err
    data = json.loads(out)
    assert len(data["runs"][0]["questions"]) == 31
    assert {e["doc"] for q in data["runs"][0]["questions"] for e in q["evidence"]} == {
        Path(n).stem for n in DOCS
    }


def test_an_unknown_type_warns_and_runs_with_the_inferred_one(capsys, tmp_path):
    doc = write(tmp_path, "guide.md", "# G\n\n## A\n\n1. One.\n2. Two.\n3. Three.\n")
    qe = write(
        tmp_path, "qe.json", json.dumps([{"id": "a", "question": "two?", "evidence": ["2. Two."]}])
    )
    code, out, err = run_cli(capsys, "run", "--doc", doc, "--qe", qe, "--type", "guide=manual")
    assert code == 0
    assert "warning: guide: unknown type 'manual' for guide" in err
    assert "procedure*" not in out  # a single document: no documents table


def test_a_manifest_naming_a_missing_file_warns_and_runs_the_rest(capsys, tmp_path):
    write(tmp_path, "a.md", "# A\n\nAlpha rules apply.\n")
    write(
        tmp_path,
        "qe.json",
        json.dumps([{"id": "a", "question": "alpha?", "evidence": ["Alpha rules apply."]}]),
    )
    manifest = write(
        tmp_path,
        "collection.json",
        json.dumps(
            {
                "documents": ["a.md", "gone.md"],
                "questions": "qe.json",
                "policy": {"other": {"chunker": "nope"}},
            }
        ),
    )
    code, out, err = run_cli(capsys, "run", "--collection", manifest, "--chunker", "by-type")
    assert code == 0
    assert "collection.json names 'gone.md', which does not exist; it was left out" in err
    assert "names unknown chunker 'nope'" in err
    assert "by-type" in out


def test_collection_errors_are_one_line_with_status_2(capsys, tmp_path):
    assert_user_error(
        *run_cli(capsys, "run", "--collection", str(tmp_path / "none.json")),
        "No such collection manifest",
    )
    bad = write(tmp_path, "bad.json", "{oops")
    assert_user_error(*run_cli(capsys, "run", "--collection", bad), "bad.json is not valid JSON")
    doc = write(tmp_path, "x.md", "Text.")
    assert_user_error(
        *run_cli(capsys, "run", "--collection", MANIFEST, "--doc", doc), "exclude each other"
    )
    assert_user_error(*run_cli(capsys, "run", "--type", "x=faq"), "give --doc too")
    assert_user_error(*run_cli(capsys, "run", "--type", "faq"), "expected NAME=TYPE")
    assert_user_error(
        *run_cli(capsys, "run", "--collection", MANIFEST, "--type", "a=faq"),
        "--type goes with --doc",
    )


def compare_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, "compare", "--collection", MANIFEST, "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


def changed(data: dict) -> dict[str, str]:
    return {q["id"]: q["transition"] for q in data["questions"] if q["transition"] != "same"}


def test_compare_sets_metadata_filters_on_against_off(capsys):
    data = compare_json(capsys, "--a", "chunker=by-type,mode=flat", "--b", "filters=off")
    assert data["differences"] == [{"setting": "filters", "a": "on", "b": "off"}]
    assert (data["a"]["filters"], data["b"]["filters"]) == (True, False)
    assert changed(data) == {"t14": "fixed", "t29": "broken"}
    assert (data["complete"]["fixed"], data["complete"]["broken"]) == (1, 1)
    assert data["complete"]["p_value"] == 1.0


def test_compare_sets_the_policy_against_structure(capsys):
    data = compare_json(capsys, "--a", "chunker=structure,mode=flat", "--b", "chunker=by-type")
    assert changed(data) == {"t11": "fixed", "t13": "fixed", "t16": "fixed"}
    assert data["complete"]["p_value"] == 0.25  # 2 x (1/2)^3: three changes, all one way
    assert (data["complete"]["a"]["questions"], data["complete"]["b"]["questions"]) == (9, 12)


def test_no_filters_runs_every_question_on_every_document_and_says_so(capsys):
    code, out, err = run_cli(
        capsys, "run", "--collection", MANIFEST, "--chunker", "by-type", "--mode", "flat",
        "--no-filters",
    )  # fmt: skip
    assert code == 0, err
    title, _, table = out.split("\n")[:3]
    assert "(4 with a metadata filter)" in title and "metadata filters off" in title
    assert "w/o filters" not in table  # no second recall: the filters are off already
    data = run_json(capsys, "--collection", MANIFEST, "--chunker", "by-type", "--no-filters")
    assert "metrics_without_filters" not in data["runs"][0]
    t14 = next(q for q in data["runs"][0]["questions"] if q["id"] == "t14")
    assert t14["complete"]  # the comparison table its filter removes is ranked
