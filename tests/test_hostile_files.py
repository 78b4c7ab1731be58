"""Issue 22, item 3: hostile JSON and HTML. A file nested 100,000 deep or holding a 5,000-digit
integer becomes one clear message (lab.jsonread); the valid questions and files still load."""

from __future__ import annotations

import json

import pytest

from lab import build_collection, build_corpus, jsonread, parse_qe
from lab.cli import main
from lab.problems import CorpusError

DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000
DOC = "# Guide\n\n## Pairing\n\nCharge it fully before use. Hold the power key for five seconds.\n"
GOOD = {"id": "q1", "question": "How long do I hold it?", "evidence": ["Hold the power key"]}


def test_json_nested_100000_deep_is_one_clear_refusal():
    with pytest.raises(jsonread.JsonError) as caught:
        jsonread.loads(DEEP, "collection.json")
    assert str(caught.value) == "collection.json nests deeper than 32 levels at line 1, column 33."


def test_json_within_the_nesting_limit_reads_as_json_does():
    text = "[" * 32 + "]" * 32
    assert jsonread.loads(text, "x") == (json.loads(text), [])


def test_a_5000_digit_integer_is_read_as_null_with_one_note():
    value, notes = jsonread.loads(f'{{"a": {HUGE}, "b": -{HUGE}, "c": 7}}', "The file")
    assert value == {"a": None, "b": None, "c": 7}
    assert notes == [
        "The file holds 2 numbers of up to 5,000 digits; a number longer than 100 digits is "
        "read as null."
    ]


def test_qe_json_with_a_5000_digit_integer_still_loads_its_valid_questions():
    bad = {**GOOD, "id": "q2", "evidence": [{"text": "Charge it fully", "start": 0}]}
    text = json.dumps({"questions": [GOOD, bad]}).replace('"start": 0', f'"start": {HUGE}')
    items, notes = parse_qe(text)
    assert [i["id"] for i in items] == ["q1", "q2"]
    assert notes[0].message.startswith("The QE JSON holds a number of 5,000 digits")
    corpus = build_corpus({"guide": DOC}, text)
    assert [q.id for q in corpus.questions] == ["q1", "q2"]  # q2's start is read as absent
    assert any("5,000 digits" in e.message for e in corpus.errors)


def test_qe_json_nested_100000_deep_is_one_message_and_no_recursion():
    text = json.dumps([GOOD])[:-1] + ", " + DEEP + "]"
    items, notes = parse_qe(text)
    assert items[0]["id"] == "q1" and len(items) == 2  # below level 32, the rest read as null
    assert len(notes) == 1 and "nests deeper than 32 levels" in notes[0].message
    assert [q.id for q in build_corpus({"guide": DOC}, text).questions] == ["q1"]


def test_a_manifest_nested_100000_deep_is_refused_in_one_sentence():
    deep = '{"documents": [' + DEEP + "]}"
    with pytest.raises(CorpusError, match="collection.json nests deeper than 32 levels"):
        build_collection(deep, lambda path: None)


def test_the_cli_refuses_a_deep_manifest_without_a_traceback(capsys, tmp_path):
    manifest = tmp_path / "collection.json"
    manifest.write_text('{"documents": [' + DEEP + "]}", encoding="utf-8")
    code = main(["run", "--collection", str(manifest)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("error: collection.json nests deeper than 32 levels")
    assert "Traceback" not in err and "RecursionError" not in err


def test_a_collection_with_html_nested_too_deep_leaves_that_file_out():
    files = {"guide.md": DOC, "deep.html": "<html><body>" + "<div>" * 5000 + "x" + "</body></html>"}
    manifest = json.dumps({"documents": [{"path": "guide.md"}, {"path": "deep.html"}]})
    corpus = build_collection(manifest, files.get, json.dumps([GOOD]))  # no RecursionError
    names = [d.name for d in corpus.documents]
    assert names[0] == "guide.md" and [q.id for q in corpus.questions] == ["q1"]
    if "deep.html" not in names:  # the reader recursed: that file alone is left out, in words
        (left_out,) = [e.message for e in corpus.errors if e.document == "deep.html"]
        assert (
            left_out
            == "Document 'deep.html' nests its markup too deeply to be read. It was left out."
        )


def _your_corpus_with_pasted_text():
    from app_support import open_app

    at = open_app("app_pages/your_corpus.py")
    at.text_area(key="yc_document__widget").set_value(DOC)
    return at.run()


@pytest.mark.app
@pytest.mark.parametrize(
    "upload",
    [DEEP, '{"documents": [' + DEEP + "]}", json.dumps([GOOD]).replace("]", f", {HUGE}]", 1)],
    ids=["deep list", "deep manifest", "huge integer"],
)
def test_a_hostile_json_upload_on_your_corpus_keeps_the_pasted_text_and_says_why(upload):
    at = _your_corpus_with_pasted_text()
    at.file_uploader(key="yc_files_upload").upload("hostile.json", upload.encode()).run()
    assert not at.exception, at.exception
    assert at.text_area(key="yc_document__widget").value == DOC
    next(b for b in at.button if b.label == "Check and load").click().run()
    assert not at.exception, at.exception
    assert at.text_area(key="yc_document__widget").value == DOC
    report = at.session_state["yc_report"]
    said = " ".join([*report.rows.get("why", []), report.refused or ""]) + " ".join(
        e.value for e in [*at.error, *at.warning]
    )
    assert "nests deeper than 32 levels" in said or "5,000 digits" in said, said


# Item 4: --output is written whole or not at all, and never over an input --------------------


def _limited_run(argv: list[str], max_bytes: int):
    """``python -m lab`` under a file-size limit (``ulimit -f``): a write past it fails with
    EFBIG instead of killing the process."""
    import resource
    import signal
    import subprocess
    import sys

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return subprocess.run(
        [sys.executable, "-m", "lab", *argv], capture_output=True, text=True, preexec_fn=limit
    )


def test_a_write_cut_short_by_a_file_size_limit_keeps_the_earlier_output(tmp_path):
    out = tmp_path / "out.json"
    argv = ["run", "--format", "json", "--chunker", "fixed", "--mode", "flat", "--output"]
    assert main([*argv, str(out)]) == 0
    earlier = out.read_bytes()
    assert len(earlier) > 4000
    done = _limited_run([*argv, str(out), "--budget", "100"], 2000)
    assert done.returncode == 2 and "File too large" in done.stderr
    assert "Traceback" not in done.stderr
    assert out.read_bytes() == earlier  # not truncated to the limit
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary left
    assert main([*argv, str(out), "--budget", "100"]) == 0
    assert out.read_bytes() != earlier and json.loads(out.read_bytes())


@pytest.mark.parametrize("option", ["doc", "qe", "manifest", "listed"])
def test_output_naming_an_input_file_is_refused(capsys, tmp_path, option):
    doc, qe = tmp_path / "guide.md", tmp_path / "qe.json"
    doc.write_text(DOC, encoding="utf-8")
    qe.write_text(json.dumps([GOOD]), encoding="utf-8")
    manifest = tmp_path / "collection.json"
    manifest.write_text(json.dumps({"documents": ["guide.md"]}), encoding="utf-8")
    if option in ("doc", "qe"):
        target = doc if option == "doc" else qe
        argv = ["run", "--doc", str(doc), "--qe", str(qe), "--output", str(target)]
    else:
        target = manifest if option == "manifest" else doc
        argv = ["run", "--collection", str(manifest), "--qe", str(qe)]
        argv += ["--output", str(tmp_path / ".." / tmp_path.name / target.name)]
    before = target.read_bytes()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("error: --output ") and "names an input file" in err
    assert target.read_bytes() == before


# Item 5: CSV cells a spreadsheet would run, and terminal escapes in warnings ---------------------

FORMULA_QE = [
    {**GOOD, "id": "=2+5", "question": "@SUM(A1:A9) how long do I hold it?"},
    {**GOOD, "id": "-1+2", "question": "+cmd|' /C calc'!A0"},
    {**GOOD, "id": "plain", "question": "A plain question?"},
]


def test_csv_text_prefixes_formula_cells_and_keeps_numbers():
    import pandas as pd

    from lab import csv_text

    frame = pd.DataFrame({"id": ["=2+5", "@SUM(A1)", "+1", "-x", "\tt", "ok"], "v": range(-3, 3)})
    frame["=col"] = -0.5
    assert csv_text(frame).splitlines() == [
        "id,v,'=col",
        "'=2+5,-3,-0.5",
        "'@SUM(A1),-2,-0.5",
        "'+1,-1,-0.5",
        "'-x,0,-0.5",
        "'\tt,1,-0.5",
        "ok,2,-0.5",
    ]


def test_cli_csv_export_defuses_formulas_in_ids(capsys, tmp_path):
    import csv
    import io

    doc, qe = tmp_path / "guide.md", tmp_path / "qe.json"
    doc.write_text(DOC, encoding="utf-8")
    qe.write_text(json.dumps(FORMULA_QE), encoding="utf-8")
    command = ["compare", "--a", "chunker=structure,mode=flat", "--b", "mode=graph"]
    code = main([*command, "--doc", str(doc), "--qe", str(qe), "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0, out
    cells = [c for row in csv.reader(io.StringIO(out)) for c in row]
    assert "'=2+5" in cells and "=2+5" not in cells
    assert "'-1+2" in cells and not [c for c in cells if c[:1] in ("=", "+", "@")]


def test_terminal_escapes_in_an_id_print_escaped_in_cli_warnings(capsys, tmp_path):
    doc, qe = tmp_path / "guide.md", tmp_path / "qe.json"
    doc.write_text(DOC, encoding="utf-8")
    forged = "\x1b[31mred\x1b[0m\nerror: forged"
    bad = {"id": forged, "question": "Missing?", "evidence": ["not in the guide"]}
    qe.write_text(json.dumps([GOOD, bad]), encoding="utf-8")
    assert main(["run", "--doc", str(doc), "--qe", str(qe)]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\nerror: forged" not in err
    assert "warning: \\x1b[31mred\\x1b[0m\\nerror: forged:" in err
    assert all(line.startswith(("warning: ", "note: ")) for line in err.splitlines())


@pytest.mark.app
@pytest.mark.parametrize(
    ("page", "file"),
    [("app_pages/recall_tables.py", "questions"), ("app_pages/compare.py", "compare")],
)
def test_the_apps_csv_downloads_defuse_formulas_in_ids_and_questions(page, file):
    import csv
    import io
    from unittest.mock import patch

    from app_support import open_app
    from streamlit.delta_generator import DeltaGenerator

    from ui import cache, store

    digest = store.default_store().put(store.Inputs({"guide": DOC}, json.dumps(FORMULA_QE)))
    made: dict[str, str] = {}
    original = DeltaGenerator.download_button

    def recording(self, label, data, file_name=None, *args, **kwargs):
        made[file_name] = data() if callable(data) else data
        return original(self, label, data, file_name, *args, **kwargs)

    with patch.object(DeltaGenerator, "download_button", recording):
        app = open_app(page, corpus=cache.USER, corpus_id=digest)
    assert not app.exception, app.exception
    text = made[f"{file}.csv"]
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'=2+5" in cells and "'-1+2" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]
