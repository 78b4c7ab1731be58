"""The command line: formats, options, and bad input as one ``error:`` line with exit status 2."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from app_support import tiny_cross_encoder
from samples import ALL_MODES, DENSE_INSTALL, EMBEDDING_MODEL, RERANKER_MODEL, SPEC_CHUNKERS

from lab import CHUNKERS, embed
from lab.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
QE = ROOT / "data" / "handbook_qe.json"
HANDBOOK_QUESTIONS = json.loads(QE.read_text(encoding="utf-8"))["questions"]
SPLIT_IDS = {
    split: [q["id"] for q in HANDBOOK_QUESTIONS if split in ("all", q.get("split", "test"))]
    for split in ("train", "test", "all")
}


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, "run", "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def default_json(tmp_path_factory):
    """The JSON of a default run on the bundled handbook (every chunker x mode, test split)."""
    target = tmp_path_factory.mktemp("cli") / "default.json"
    assert main(["run", "--format", "json", "--output", str(target)]) == 0
    return json.loads(target.read_text(encoding="utf-8"))


def test_json_has_every_default_chunker_and_mode_with_the_documented_shape(default_json):
    data = default_json
    assert set(data) == {"config", "runs", "errors"}
    assert [(r["chunker"], r["mode"]) for r in data["runs"]] == [
        (c, m) for c in SPEC_CHUNKERS for m in ("flat", "graph")
    ]
    run = data["runs"][0]
    assert {"chunker", "mode", "metrics", "index", "questions"} <= set(run)
    assert {"partial", "complete", "gap", "mrr"} <= set(run["metrics"])
    question = run["questions"][0]
    assert {"id", "split", "partial", "complete", "context", "evidence"} <= set(question)
    assert {"chunk", "rank", "words", "source"} <= set(question["context"][0])
    assert {"span", "in_context", "diagnosis"} <= set(question["evidence"][0])
    assert data["errors"] == []


def test_json_lists_exactly_the_test_questions_by_default(default_json):
    for run in default_json["runs"]:
        assert [q["id"] for q in run["questions"]] == SPLIT_IDS["test"]
        assert {q["split"] for q in run["questions"]} == {"test"}


@pytest.mark.parametrize("split", ["train", "all"])
def test_json_lists_exactly_the_questions_of_the_split(capsys, split):
    data = run_json(capsys, "--split", split, "--chunker", "fixed")
    assert [q["id"] for q in data["runs"][0]["questions"]] == SPLIT_IDS[split]
    assert data["runs"][0]["metrics"]["questions"] == len(SPLIT_IDS[split])


@pytest.mark.parametrize(
    ("command", "title"),
    [
        (["run", "--chunker", "structure"], "handbook: all 25 questions, size 450 chars"),
        (
            ["compare", "--a", "chunker=structure", "--b", "mode=graph"],
            "handbook: all 25 questions",
        ),
        (
            ["sweep", "--chunker", "fixed", "--sizes", "450", "--budgets", "120"],
            "handbook: all 25 questions; cells are",
        ),
    ],
)
def test_the_all_split_is_counted_as_all_questions(capsys, command, title):
    code, out, err = run_cli(capsys, *command, "--split", "all", "--mode", "flat")
    assert code == 0, err
    assert out.startswith(title)


def test_picked_context_never_exceeds_the_budget(capsys):
    data = run_json(capsys, "--budget", "80")
    for run in data["runs"]:
        for q in run["questions"]:
            assert sum(p["words"] for p in q["context"]) <= 80


def test_table_shows_metrics_and_index_statistics(capsys):
    code, out, err = run_cli(capsys, "run")
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("chunker") and "partial" in line)
    for column in ("mode", "complete", "gap", "context words", "chunks", "MRR"):
        assert column in header
    assert "Index statistics" in out
    for name in SPEC_CHUNKERS:
        assert sum(line.startswith(f"{name} ") for line in lines) == 3  # flat, graph, index row
    assert err == ""


def test_csv_is_one_row_per_chunker_and_mode(capsys):
    code, out, _ = run_cli(capsys, "run", "--format", "csv", "--chunker", "fixed,qes-dp")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["chunker"], r["mode"]) for r in rows] == [
        ("fixed", "flat"),
        ("fixed", "graph"),
        ("qes-dp", "flat"),
        ("qes-dp", "graph"),
    ]
    assert all(0 <= float(r["complete"]) <= float(r["partial"]) <= 1 for r in rows)


def test_one_chunker_in_graph_mode_is_one_run(capsys):
    data = run_json(capsys, "--chunker", "structure", "--mode", "graph")
    assert [(r["chunker"], r["mode"]) for r in data["runs"]] == [("structure", "graph")]
    assert data["config"]["chunkers"] == ["structure"]
    assert data["config"]["modes"] == ["graph"]


def test_options_reach_the_config(capsys):
    data = run_json(capsys, "--chunker", "sentence", "--size", "300", "--budget", "90", "--headers")
    config = data["config"]
    assert (config["size"], config["budget"], config["headers"]) == (300, 90, True)
    assert config["refs"] == "delivered"


def test_no_refs_drops_reference_text_from_structure_chunks(capsys):
    with_refs = run_json(capsys, "--chunker", "structure", "--split", "all", "--budget", "400")
    without = run_json(
        capsys, "--chunker", "structure", "--split", "all", "--budget", "400", "--no-refs"
    )

    def sources(data):
        return [
            len(p["source"]) for r in data["runs"] for q in r["questions"] for p in q["context"]
        ]

    assert max(sources(with_refs)) > 1  # some picked chunk carries a cited provision's text
    assert max(sources(without)) == 1
    ratio = [d["runs"][0]["index"]["index_ratio"] for d in (with_refs, without)]
    assert ratio[1] < ratio[0]
    assert without["config"]["refs"] == "off"
    again = run_json(
        capsys, "--chunker", "structure", "--split", "all", "--budget", "400", "--refs", "off"
    )
    assert again == without


def test_index_only_references_help_retrieval_but_are_neither_delivered_nor_charged(capsys):
    args = ("--chunker", "structure", "--split", "all", "--budget", "400", "--format", "json")
    runs = {
        refs: run_json(capsys, *args, "--refs", refs)["runs"][0]
        for refs in ("delivered", "index-only", "off")
    }
    most_sources = {
        refs: max(len(p["source"]) for q in run["questions"] for p in q["context"])
        for refs, run in runs.items()
    }
    assert most_sources["delivered"] > 1  # a picked chunk carries a cited provision's text
    assert most_sources["index-only"] == most_sources["off"] == 1
    # the delivered text (and so the words charged) of index-only chunks is that of "off"
    assert (
        runs["index-only"]["index"]["max_delivered_chars"]
        == (runs["off"]["index"]["max_delivered_chars"])
    )
    assert (
        runs["delivered"]["index"]["max_delivered_chars"]
        > (runs["off"]["index"]["max_delivered_chars"])
    )
    # ...while retrieval differs: the cited text is matched
    ranks = {
        refs: [e["rank"] for q in run["questions"] for e in q["evidence"]]
        for refs, run in runs.items()
    }
    assert ranks["index-only"] != ranks["off"]


def test_table_says_where_references_go(capsys):
    code, out, _ = run_cli(capsys, "run", "--chunker", "structure", "--refs", "index-only")
    assert code == 0
    assert "references index-only" in out.splitlines()[0]


def test_unknown_reference_placement_names_the_choices(capsys):
    code, _, err = run_cli(capsys, "run", "--refs", "sometimes")
    assert code == 2
    assert "invalid choice: 'sometimes'" in err and "index-only" in err


def test_untrained_qes_chunkers_are_warned_about_and_marked(capsys, tmp_path):
    tested = [{**q, "split": "test"} for q in HANDBOOK_QUESTIONS]
    qe = write(tmp_path, "qe.json", json.dumps(tested))
    code, out, err = run_cli(capsys, "run", "--qe", qe)
    assert code == 0
    (warning,) = [line for line in err.splitlines() if "untrained" in line]
    assert warning.startswith("warning: qes-dp and qes-greedy have no train questions")
    rows = [line.split()[:2] for line in out.splitlines()]
    assert ["qes-dp", "(untrained)"] in rows and ["qes-greedy", "(untrained)"] in rows
    assert ["structure", "flat"] in rows  # unsupervised chunkers are not marked
    code, out, err = run_cli(capsys, "run", "--chunker", "qes-dp")  # the handbook has train
    assert "untrained" not in err + out


def test_output_writes_the_file_instead_of_stdout(capsys, tmp_path):
    target = tmp_path / "result.json"
    code, out, _ = run_cli(
        capsys, "run", "--format", "json", "--chunker", "fixed", "--output", str(target)
    )
    assert code == 0
    assert out == ""
    assert json.loads(target.read_text())["runs"][0]["chunker"] == "fixed"


SWEEP = ("sweep", "--chunker", "fixed,structure", "--budgets", "40,120", "--sizes", "250,450")


def test_sweep_csv_has_one_row_per_chunker_mode_size_and_budget(capsys):
    code, out, _ = run_cli(capsys, *SWEEP, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    keys = {(r["chunker"], r["mode"], r["size"], r["budget"]) for r in rows}
    assert len(rows) == len(keys) == 2 * 2 * 2 * 2
    assert {r["budget"] for r in rows} == {"40", "120"}
    assert {r["size"] for r in rows} == {"250", "450"}


def test_sweep_json_carries_config_and_rows(capsys):
    code, out, _ = run_cli(capsys, *SWEEP, "--mode", "flat", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["config"]["modes"] == ["flat"]
    assert len(data["rows"]) == 2 * 2 * 2
    assert all(r["complete"] <= r["partial"] for r in data["rows"])


def test_sweep_table_pivots_budgets_and_sizes(capsys):
    code, out, _ = run_cli(capsys, *SWEEP, "--size", "450", "--budget", "120")
    assert code == 0
    assert "By budget (words) at size 450 chars" in out
    assert "By size (chars) at budget 120 words" in out
    budget_header = out.splitlines()[3]
    assert budget_header.split() == ["chunker", "mode", "40", "120"]


def test_sweep_progress_goes_to_stderr_when_asked(capsys):
    code, out, err = run_cli(capsys, *SWEEP, "--progress", "--format", "csv")
    assert code == 0
    assert err.splitlines() == [
        f"sweep [{'#' * bar}{'.' * (30 - bar)}] {done}/4 tasks (chunker x size) on this machine"
        for done, bar in ((1, 7), (2, 15), (3, 22), (4, 30))
    ]
    assert "sweep" not in out


def test_sweep_is_quiet_on_stderr_without_a_terminal(capsys):
    code, _, err = run_cli(capsys, *SWEEP, "--format", "csv")
    assert code == 0
    assert err == ""


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def assert_user_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert "Traceback" not in err
    for word in words:
        assert word in err


def test_missing_document_is_an_error(capsys, tmp_path):
    missing = str(tmp_path / "nope.md")
    assert_user_error(*run_cli(capsys, "run", "--doc", missing, "--qe", str(QE)), "nope.md")


def test_missing_qe_file_is_an_error(capsys, tmp_path):
    assert_user_error(*run_cli(capsys, "run", "--qe", str(tmp_path / "qe.json")), "qe.json")


def test_invalid_json_is_one_error_line(capsys, tmp_path):
    qe = write(tmp_path, "qe.json", '{"questions": [')
    code, out, err = run_cli(capsys, "run", "--qe", qe)
    assert_user_error(code, out, err, "not valid JSON")
    assert len(err.splitlines()) == 1


def test_unknown_chunker_names_the_choices(capsys):
    code, out, err = run_cli(capsys, "run", "--chunker", "fixed,semantic-magic")
    assert_user_error(code, out, err, "semantic-magic", "qes-greedy")
    assert len(err.splitlines()) == 1


def test_size_not_above_overlap_is_an_error(capsys):
    assert_user_error(*run_cli(capsys, "run", "--size", "50"), "--size", "--overlap")


def test_sweep_size_not_above_overlap_is_an_error(capsys):
    assert_user_error(*run_cli(capsys, "sweep", "--sizes", "30,450"), "--sizes 30")


def test_bad_budget_list_is_an_error(capsys):
    assert_user_error(*run_cli(capsys, "sweep", "--budgets", "40,lots"), "--budgets")


def test_empty_document_is_an_error(capsys, tmp_path):
    doc = write(tmp_path, "empty.md", "  \n\n")
    assert_user_error(*run_cli(capsys, "run", "--doc", doc, "--qe", str(QE)), "empty")


def test_non_utf8_document_is_an_error(capsys, tmp_path):
    doc = write(tmp_path, "latin.md", "# Caf\xe9 rules\n\nNo dogs.\n".encode("latin-1"))
    assert_user_error(*run_cli(capsys, "run", "--doc", doc, "--qe", str(QE)), "UTF-8")


def test_doc_without_qe_is_an_error(capsys, tmp_path):
    doc = write(tmp_path, "mine.md", "# Rules\n\nNo dogs allowed.\n")
    assert_user_error(*run_cli(capsys, "run", "--doc", doc), "--qe")


def test_split_without_questions_is_an_error(capsys, tmp_path):
    train_only = [q for q in HANDBOOK_QUESTIONS if q["split"] == "train"]
    qe = write(tmp_path, "qe.json", json.dumps(train_only))
    assert_user_error(*run_cli(capsys, "run", "--qe", qe), "no test questions")


BAD = {
    "id": "q99",
    "question": "Is there a cafe on the roof?",
    "evidence": ["The rooftop cafe serves soup to all visitors."],
    "split": "test",
}


def test_bad_question_is_a_warning_and_the_valid_ones_still_run(capsys, tmp_path):
    qe = write(tmp_path, "qe.json", json.dumps({"questions": [*HANDBOOK_QUESTIONS, BAD]}))
    code, out, err = run_cli(capsys, "run", "--qe", qe, "--format", "json")
    assert code == 0
    assert err.startswith("warning: q99: evidence not found: 'The rooftop cafe")
    assert "Traceback" not in err
    data = json.loads(out)
    for run in data["runs"]:
        assert [q["id"] for q in run["questions"]] == SPLIT_IDS["test"]
    assert [e["question"] for e in data["errors"]] == ["q99"]
    assert "evidence not found" in data["errors"][0]["message"]


def test_bad_question_warning_also_shows_with_the_table(capsys, tmp_path):
    qe = write(tmp_path, "qe.json", json.dumps([*HANDBOOK_QUESTIONS, BAD]))
    code, out, err = run_cli(capsys, "run", "--qe", qe, "--chunker", "fixed")
    assert code == 0
    assert "warning: q99:" in err
    assert "fixed" in out


def test_deeply_nested_question_is_one_warning_line_and_the_rest_run(capsys, tmp_path):
    deep = '{"id": "q98", "question": "Deep?", "evidence": ' + "[" * 50_000 + "]" * 50_000 + "}"
    body = json.dumps({"questions": HANDBOOK_QUESTIONS})
    qe = write(tmp_path, "qe.json", body[:-2] + ", " + deep + "]}")
    code, out, err = run_cli(capsys, "run", "--qe", qe, "--chunker", "fixed", "--format", "json")
    assert code == 0, err
    assert "Traceback" not in err and "RecursionError" not in err
    lines = err.splitlines()
    assert lines[0].startswith(f"warning: {qe}: The QE JSON nests deeper than 32 levels")
    assert [q["id"] for q in json.loads(out)["runs"][0]["questions"]] == SPLIT_IDS["test"]


def test_no_valid_question_is_an_error(capsys, tmp_path):
    qe = write(tmp_path, "qe.json", json.dumps([BAD]))
    code, out, err = run_cli(capsys, "run", "--qe", qe)
    assert code == 2
    assert out == ""
    assert "q99: evidence not found" in err
    assert err.splitlines()[-1].startswith("error: no usable question")


def test_module_runs_out_of_the_box_and_fails_cleanly(tmp_path):
    ok = subprocess.run(
        [sys.executable, "-m", "lab", "run", "--format", "csv", "--chunker", "fixed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("chunker,mode,")
    bad = subprocess.run(
        [sys.executable, "-m", "lab", "run", "--qe", str(tmp_path / "missing.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


# compare ----------------------------------------------------------------------------------------

FLAT = "chunker=structure,mode=flat"


def test_compare_table_gives_the_transitions_and_the_verdict(capsys):
    code, out, err = run_cli(capsys, "compare", "--a", FLAT, "--b", "chunker=structure,mode=graph")
    assert code == 0, err
    assert (
        "A: structure · flat; size 450 chars, budget 120 words, headers off, references "
        "delivered\nB: structure · graph\nB differs from A in: mode (flat → graph)"
    ) in out
    # graph mode lifts the red-light zone definition into q07's context (see test_compare)
    complete = next(line for line in out.splitlines() if line.startswith("complete "))
    # p, then fixed broken kept failed, then the bootstrap interval
    assert complete.split()[-8:-3] == ["1.00", "1", "0", "9", "3"]
    partial = next(line for line in out.splitlines() if line.startswith("partial "))
    assert partial.split()[-8:-3] == ["1.00", "0", "1", "11", "1"]  # q08 loses its passage
    assert "B fixes 1 question and breaks none: +8 points (95% interval -7 to +8)." in out
    assert "Warning" not in out and err == ""


def test_compare_json_has_the_documented_shape(capsys):
    code, out, err = run_cli(
        capsys, "compare", "--a", FLAT, "--b", "mode=graph", "--format", "json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["a"]["chunkers"] == ["structure"] and data["b"]["modes"] == ["graph"]
    assert [q["id"] for q in data["questions"]] == SPLIT_IDS["test"]
    assert {(q["id"], q["a"], q["b"], q["transition"]) for q in data["questions"]} >= {
        ("q07", "partial", "complete", "fixed"),
        ("q08", "partial", "miss", "same"),  # a partial loss is not a complete transition
    }
    for measure in ("complete", "partial"):
        assert {"fixed", "broken", "a", "b", "p_value", "ci"} <= set(data[measure])
    assert (data["complete"]["fixed"], data["complete"]["broken"]) == (1, 0)
    assert (data["partial"]["fixed"], data["partial"]["broken"]) == (0, 1)
    assert data["complete"]["p_value"] == pytest.approx(1.0)
    assert data["complete"]["b"]["recall"] == 0.7692  # 10 / 13 to four decimals
    assert data["a"]["refs"] == data["b"]["refs"] == "delivered"


def test_compare_csv_is_one_row_per_question(capsys):
    code, out, _ = run_cli(capsys, "compare", "--a", FLAT, "--b", "mode=graph", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["id"] for r in rows] == SPLIT_IDS["test"]
    assert rows[1]["question"] == "Is flash photography allowed on the dome floor?"
    assert (rows[1]["a"], rows[1]["b"], rows[1]["transition"]) == ("partial", "complete", "fixed")


def test_fail_on_broken_exits_1_only_when_b_breaks_a_question(capsys):
    # qes-greedy -> fixed windows fixes q15 and breaks q12, q21, q23 (see test_compare): the
    # gate fails on the broken ones even though B also fixes one.
    greedy = "chunker=qes-greedy,mode=flat"
    code, out, err = run_cli(
        capsys, "compare", "--a", greedy, "--b", "chunker=fixed", "--fail-on-broken"
    )
    assert code == 1
    assert "B fixes 1 question and breaks 3:" in out
    assert err == "fail: B breaks 3 question(s) that A passed: q12, q21, q23\n"
    code, _, _ = run_cli(capsys, "compare", "--a", greedy, "--b", "chunker=fixed")
    assert code == 0
    # structure flat -> graph loses q08's partial verdict but breaks no complete one: it passes
    code, _, err = run_cli(capsys, "compare", "--a", FLAT, "--b", "mode=graph", "--fail-on-broken")
    assert (code, err) == (0, "")


@pytest.mark.parametrize("change", ["refs=off", "resolve_refs=false"])
def test_compare_names_the_reference_placement_as_a_setting(capsys, change):
    # With references off, the second passage of q07, q11 and q15 no longer reaches the
    # context: q11's came appended to the provision that cites it; q07's (the red-light zone
    # definition) and q15's fall from rank 2 to 3 and 12, over the budget.
    graph = "chunker=structure,mode=graph"
    code, out, err = run_cli(capsys, "compare", "--a", graph, "--b", change, "--fail-on-broken")
    assert code == 1
    assert "B differs from A in: refs (delivered → off)" in out
    assert err == "fail: B breaks 3 question(s) that A passed: q07, q11, q15\n"
    code, out, _ = run_cli(
        capsys, "compare", "--a", graph, "--b", "refs=index-only", "--format", "json"
    )
    data = json.loads(out)
    assert (data["a"]["refs"], data["b"]["refs"]) == ("delivered", "index-only")
    assert data["differences"] == [{"setting": "refs", "a": "delivered", "b": "index-only"}]


def test_compare_warns_about_and_marks_an_untrained_side(capsys, tmp_path):
    tested = [{**q, "split": "test"} for q in HANDBOOK_QUESTIONS]
    qe = write(tmp_path, "qe.json", json.dumps(tested))
    code, out, err = run_cli(capsys, "compare", "--qe", qe, "--a", FLAT, "--b", "chunker=qes-dp")
    assert code == 0
    assert err.startswith("warning: qes-dp has no train questions to learn from")
    assert "A: structure · flat; size" in out and "\nB: qes-dp · flat (untrained)\n" in out


def test_compare_warns_when_more_than_one_setting_changes(capsys):
    code, out, _ = run_cli(capsys, "compare", "--a", FLAT, "--b", "mode=graph,budget=200")
    assert code == 0
    assert "Warning: A and B differ in 2 settings (mode, budget): change one thing at a time" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--a", "chunk=structure", "--b", "mode=graph"], ["--a: unknown setting 'chunk'"]),
        (["--a", FLAT, "--b", "mode=flat"], ["A and B are the same configuration"]),
        (["--a", "mode=flat", "--b", "mode=graph"], ["--a must name one chunker"]),
        (["--a", FLAT, "--b", "size=big"], ["--b: size must be a whole number"]),
        (["--a", FLAT, "--b", "graph"], ["--b: expected NAME=VALUE, got 'graph'"]),
        (["--a", FLAT, "--b", "refs=never"], ["--b: refs must be one of delivered, index-only"]),
        (["--a", FLAT], ["give B's settings (--b NAME=VALUE,...) or B's parser (--b-parser)"]),
        (["--a", FLAT, "--b-parser", "ocr"], ["unknown parser 'ocr'"]),
    ],
)
def test_compare_bad_settings_are_user_errors(capsys, argv, words):
    assert_user_error(*run_cli(capsys, "compare", *argv), *words)


def test_compare_b_parser_reads_bs_documents_with_another_parser(capsys):
    pytest.importorskip("pdfminer", reason="parser=layout needs pdfminer.six (requirements.txt)")
    collection = str(Path(__file__).resolve().parent / "data/real/formats/collection.json")
    code, out, err = run_cli(
        capsys, "compare", "--collection", collection, "--a", FLAT, "--b-parser", "layout",
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["differences"] == [{"setting": "parser", "a": "main,pypdf", "b": "main,layout"}]
    assert (data["a"]["parser"], data["b"]["parser"]) == (None, "layout")
    assert {**data["a"], "parser": "layout"} == data["b"] and len(data["questions"]) == 20
    code, out, err = run_cli(
        capsys, "compare", "--collection", collection, "--a", FLAT, "--b-parser", "page",
        "--parser", "layout",
    )  # fmt: skip
    assert code == 0, err
    assert "parser (main,layout → page,pypdf)" in out


def test_compare_b_parser_on_documents_with_one_reading_is_a_user_error(capsys):
    code, out, err = run_cli(capsys, "compare", "--a", FLAT, "--b-parser", "layout")
    assert code == 2 and "no document here has several readings" in err


def test_compare_on_a_split_without_questions_is_a_user_error(capsys, tmp_path):
    doc = write(tmp_path, "d.md", "# D\n\n### 1.1 A\n\nAlpha is first.\n")
    qe = write(
        tmp_path, "q.json", '[{"id": "x", "question": "alpha", "evidence": ["Alpha is first."]}]'
    )
    assert_user_error(
        *run_cli(
            capsys, "compare", "--doc", doc, "--qe", qe, "--a", FLAT + ",split=train",
            "--b", "mode=graph",
        ),
        "no train questions",
    )  # fmt: skip


def test_compare_module_exit_codes(tmp_path):
    def status(*argv: str) -> int:
        return subprocess.run(
            [sys.executable, "-m", "lab", "compare", *argv], cwd=ROOT, capture_output=True
        ).returncode

    assert status("--a", FLAT, "--b", "mode=graph", "--fail-on-broken") == 0
    assert status("--a", "chunker=qes-greedy,mode=flat", "--b", "chunker=fixed",
                  "--fail-on-broken") == 1  # fmt: skip
    assert status("--a", FLAT, "--b", "mode=flat") == 2


# Dense retrieval and reranking ------------------------------------------------------------------

DENSE_OK, DENSE_STATUS = embed.dense_status()
needs_dense = pytest.mark.skipif(
    not DENSE_OK, reason=f"dense retrieval unavailable: {DENSE_STATUS}"
)


def test_dense_and_rerank_flags_default_to_the_bundled_models():
    args = build_parser().parse_args(["run", "--dense", "--rerank", "--mode", "all"])
    assert (args.dense, args.rerank, args.rerank_top) == (EMBEDDING_MODEL, RERANKER_MODEL, 20)
    plain = build_parser().parse_args(["run"])
    assert (plain.dense, plain.rerank, plain.late) == (None, None, False)


@needs_dense
def test_dense_mode_all_runs_every_mode_of_every_chunker_named(capsys):
    data = run_json(capsys, "--dense", "--mode", "all", "--chunker", "structure,semantic")
    assert [(r["chunker"], r["mode"]) for r in data["runs"]] == [
        (c, m) for c in ("structure", "semantic") for m in ALL_MODES
    ]
    assert data["config"]["dense"] == EMBEDDING_MODEL
    question = data["runs"][-1]["questions"][0]
    assert {"id", "split", "partial", "complete", "context", "evidence"} <= set(question)
    assert all(r["metrics"]["complete"] <= r["metrics"]["partial"] for r in data["runs"])


@needs_dense
def test_chunker_all_with_dense_includes_the_chunkers_that_need_embeddings(capsys):
    code, out, err = run_cli(
        capsys, "run", "--dense", "--chunker", "all", "--mode", "dense", "--format", "csv"
    )
    assert code == 0, err
    own = [c for c in CHUNKERS if CHUNKERS[c].kind != "adapter"]  # adapters: --chunker adapters
    assert [r["chunker"] for r in csv.DictReader(io.StringIO(out))] == own


def test_chunker_all_without_dense_runs_every_chunker_that_needs_no_embeddings(capsys):
    code, out, _ = run_cli(capsys, "run", "--chunker", "all", "--mode", "flat", "--format", "csv")
    assert code == 0
    names = [r["chunker"] for r in csv.DictReader(io.StringIO(out))]
    assert names == [c for c in CHUNKERS if not CHUNKERS[c].dense and CHUNKERS[c].kind == "lab"]
    assert "parent-child" in names and "semantic" not in names


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--mode", "all"), "--mode all"),
        (("--mode", "hybrid"), "--mode hybrid"),
        (("--chunker", "semantic"), "semantic chunker"),
        (("--late",), "--late"),
    ],
)
def test_dense_choices_without_dense_name_the_flag_to_add(capsys, argv, flag):
    code, out, err = run_cli(capsys, "run", *argv)
    assert_user_error(code, out, err, flag, "add --dense")


def test_dense_without_its_packages_exits_with_the_install_command(capsys, monkeypatch):
    def unavailable(model):
        raise embed.DenseUnavailable(embed.missing_message(["sentence_transformers"]))

    monkeypatch.setattr(embed, "get_embedder", unavailable)
    code, out, err = run_cli(capsys, "run", "--dense", "--chunker", "fixed")
    assert_user_error(code, out, err, "sentence_transformers", DENSE_INSTALL)
    assert len(err.splitlines()) == 1


def test_rerank_top_below_one_is_an_error(capsys):
    assert_user_error(*run_cli(capsys, "run", "--rerank-top", "0"), "--rerank-top")


@needs_dense
def test_a_hub_reranker_that_is_not_here_exits_with_a_plain_reason(capsys):
    code, out, err = run_cli(
        capsys, "run", "--chunker", "fixed", "--rerank", "no-such-org/no-such-cross-encoder"
    )
    assert_user_error(code, out, err, "cannot rerank", "no-such-org/no-such-cross-encoder")
    assert "--rerank PATH" in err and "--download" in err
    assert len(err.splitlines()) == 1


@needs_dense
def test_a_local_cross_encoder_folder_reranks(capsys, tmp_path):
    folder = str(tiny_cross_encoder(tmp_path / "reranker"))
    data = run_json(
        capsys,
        "--chunker",
        "structure",
        "--mode",
        "hybrid",
        "--dense",
        "--rerank",
        folder,
        "--rerank-top",
        "5",
    )
    assert (data["config"]["rerank"], data["config"]["rerank_top"]) == (folder, 5)
    assert [(r["chunker"], r["mode"]) for r in data["runs"]] == [("structure", "hybrid")]
    code, out, _ = run_cli(
        capsys, "run", "--chunker", "structure", "--dense", "--rerank", folder, "--mode", "flat"
    )
    assert code == 0
    assert f"reranked by {folder} (top 20)" in out.splitlines()[0]


def test_bench_runs_the_benchmark_scripts_and_prints_their_figures(capfd):
    # Smoke run of one script through the command; figures are not judged in tests.
    code = main(["bench", "--quick", "--only", "handbook"])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "== bench_handbook.py" in out
    assert "handbook full run, cold:" in out and "handbook full run, warm LabCache:" in out
    assert "bench: running bench_handbook.py --quick" in err


def test_bench_names_an_unknown_script(capfd):
    code = main(["bench", "--only", "nothing"])
    _, err = capfd.readouterr()
    assert code != 0
    assert "no benchmark named nothing" in err


def test_split_all_warns_and_marks_the_qes_rows_as_scored_on_training_data(capsys):
    """Issue 21, item 17: qes-dp and qes-greedy learn from the train questions; --split all
    scores them on those same questions, so the CLI says so and marks their rows."""
    code, out, err = run_cli(capsys, "run", "--split", "all")
    assert code == 0
    assert "qes-dp and qes-greedy learn from the 12 train questions" in err
    rows = [line.split()[0:5] for line in out.splitlines()]
    marked = {r[0] for r in rows if r[1:5] == ["(scored", "on", "training", "data)"]}
    assert marked == {"qes-dp", "qes-greedy"}
    data = run_json(capsys, "--split", "all")
    flagged = {r["chunker"] for r in data["runs"] if r.get("scored_on_training_data")}
    assert flagged == {"qes-dp", "qes-greedy"}
    code, out, err = run_cli(capsys, "run")  # the test split: nothing to say
    assert "training data" not in err + out
    assert not any("scored_on_training_data" in r for r in run_json(capsys)["runs"])


def test_an_adaptive_budget_on_the_train_questions_marks_every_chunker(capsys):
    """The adaptive budget is fitted on the train questions: on a split that scores them too,
    every chunker's results include that fit's training data, and say so."""
    args = ("--split", "all", "--budget", "adaptive", "--chunker", "fixed,structure")
    code, out, err = run_cli(capsys, "run", *args)
    assert code == 0
    assert "The adaptive budget is fitted on the 12 train questions" in err
    data = run_json(capsys, *args)
    assert {r["chunker"] for r in data["runs"] if r.get("scored_on_training_data")} == {
        "fixed",
        "structure",
    }
    code, out, err = run_cli(capsys, "run", "--budget", "adaptive", "--chunker", "fixed")
    assert "training data" not in err + out  # the test split: the fit never saw them


def test_parent_child_says_up_front_when_its_parents_cannot_fit_the_budget(capsys):
    """Issue 21, item 16: a parent spans up to 2 L characters, more words than a small budget
    holds; chunks that can never be retrieved are reported before the results."""
    code, out, err = run_cli(capsys, "run", "--chunker", "parent-child", "--budget", "60")
    assert code == 0
    (line,) = [w for w in err.splitlines() if "parent-child:" in w]
    stats = run_json(capsys, "--chunker", "parent-child", "--budget", "60")["runs"][0]
    over, chunks = stats["index"]["over_budget"], stats["index"]["chunks"]
    assert over > 0
    assert f"{over} of its {chunks} chunks deliver a parent longer than the budget of 60 words" in (
        line
    )
    assert "2 L = 900 characters" in line
    code, out, err = run_cli(capsys, "run", "--chunker", "parent-child", "--budget", "400")
    assert "parent-child:" not in err
