"""Importers on real question sets from other tools (tests/data/real/question_sets/): Chroma's
chunking_evaluation (all 472 questions at Chroma's own offsets), SQuAD v2.0 and v1.1, a ragas
test set with its documents, and the lists and BEIR layouts (the SQuAD sample reshaped)."""

import csv
import io
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from lab import CorpusError, load_collection
from lab.importers import (
    checked,
    collection_files,
    import_dataset,
    open_files,
    read_files,
    recognise,
    train_share,
    write_collection,
)
from lab.importers.archive import unpack
from lab.importers.base import Imported
from lab.importers.writer import document_path

ROOT = Path(__file__).resolve().parent.parent
SETS = Path(__file__).resolve().parent / "data" / "real" / "question_sets"
SQUAD_V2 = SETS / "squad_v2_dev_normans.json"
RAGAS = SETS / "ragas_lets_talk"


def lab_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lab", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def chroma_data(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("chroma")
    with tarfile.open(SETS / "chroma_general_evaluation.tar.xz") as archive:
        archive.extractall(folder, filter="data")
    return folder


@pytest.fixture(scope="module")
def chroma_import(chroma_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("chroma-out") / "collection"
    done = lab_cli("import", "chroma", str(chroma_data), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "imported 472 question(s) over 5 document(s)" in done.stderr
    return out


def test_chroma_import_has_its_five_corpora_and_all_472_questions(chroma_import):
    corpus = load_collection(chroma_import / "collection.json")
    assert sorted(d.name for d in corpus.documents) == [
        "chatlogs",
        "finance",
        "pubmed",
        "state_of_the_union",
        "wikitexts",
    ]
    assert len(corpus.questions) == 472
    assert [e for e in corpus.errors if e.question] == []


def test_chroma_imports_straight_from_its_archive_as_from_its_folder(chroma_import, tmp_path):
    done = lab_cli(
        "import", "chroma", str(SETS / "chroma_general_evaluation.tar.xz"), "--out",
        str(tmp_path / "from-archive"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "imported 472 question(s) over 5 document(s)" in done.stderr
    for name in ("collection.json", "questions.json", "finance.md", "chatlogs.md"):
        assert (tmp_path / "from-archive" / name).read_bytes() == (
            chroma_import / name
        ).read_bytes()


def test_an_archive_reads_as_the_folder_it_packs_and_says_what_is_wrong(tmp_path):
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("set/questions_df.csv", "question,references,corpus_id\n")
        archive.writestr("set/corpora/notes.md", "# Notes\n")
        archive.writestr("set/.git/config", "[core]")
        archive.writestr("__MACOSX/set/._notes.md", "x")
        archive.writestr("../outside.md", "never")
        archive.writestr("set/empty/", "")
    files = open_files({"set.zip": packed.getvalue(), "extra.md": b"# Extra\n"})
    assert sorted(files) == ["extra.md", "set/corpora/notes.md", "set/questions_df.csv"]
    assert recognise(files) == "chroma"
    assert not (tmp_path.parent / "outside.md").exists()  # nothing is written anywhere

    with pytest.raises(CorpusError, match="broken.tar.xz cannot be read as an archive"):
        open_files({"broken.tar.xz": b"not an archive at all"})
    with pytest.raises(CorpusError, match="holds more than 1 files"):
        unpack("set.zip", packed.getvalue(), 1, 10**6)
    with pytest.raises(CorpusError, match="unpacks to more than"):
        unpack("set.zip", packed.getvalue(), 10, 12)
    empty = io.BytesIO()
    zipfile.ZipFile(empty, "w").close()
    with pytest.raises(CorpusError, match="holds no file"):
        open_files({"empty.zip": empty.getvalue()})


def test_every_chroma_span_lands_at_chromas_own_offsets(chroma_data, chroma_import):
    """Chroma counts offsets in the corpus file read in text mode; 217 of its references (in 135
    questions) begin or end with a space, which the lab's evidence leaves out: the span is
    Chroma's, trimmed."""
    corpus = load_collection(chroma_import / "collection.json")
    with open(chroma_data / "questions_df.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 472
    trimmed = 0
    for row, question in zip(rows, corpus.questions, strict=True):
        assert question.question == row["question"]
        references = json.loads(row["references"])
        assert len(question.evidence) == len(references)
        text = (chroma_data / "corpora" / f"{row['corpus_id']}.md").read_text(encoding="utf-8")
        for ref, evidence in zip(references, question.evidence, strict=True):
            content = ref["content"]
            assert text[ref["start_index"] : ref["end_index"]] == content
            lead = len(content) - len(content.lstrip())
            trail = len(content) - len(content.rstrip())
            assert corpus.documents[evidence.doc].name == row["corpus_id"]
            assert (evidence.start, evidence.end) == (
                ref["start_index"] + lead,
                ref["end_index"] - trail,
            )
            trimmed += lead + trail > 0
    assert trimmed == 217


def test_the_lab_runs_on_the_chroma_import(chroma_import):
    done = lab_cli(
        "run",
        "--collection",
        str(chroma_import / "collection.json"),
        "--chunker",
        "fixed,structure",
        "--mode",
        "flat",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["chunker"] for r in runs] == ["fixed", "structure"]
    assert all(r["metrics"]["questions"] == 472 for r in runs)


def test_squad_v2_answers_are_pinned_and_unanswerable_ones_reported():
    files = read_files(SQUAD_V2)
    assert recognise(files) == "squad"
    imported = import_dataset("squad", files)
    assert len(imported.documents) == 12
    assert len(imported.questions) == 28
    warning = [e for e in imported.problems if "unanswerable" in e.message]
    assert len(warning) == 1 and warning[0].message.startswith("42 unanswerable")
    data = json.loads(SQUAD_V2.read_text(encoding="utf-8"))
    paragraphs = data["data"][0]["paragraphs"]
    first = paragraphs[0]["qas"][0]
    q = next(q for q in imported.questions if q["id"] == first["id"])
    assert q["evidence"] == [{"text": "France", "doc": "Normans-01", "start": 159}]


def test_squad_by_article_joins_paragraphs_and_shifts_the_answers(tmp_path):
    files = read_files(SQUAD_V2)
    imported = import_dataset("squad", files, by="article")
    assert list(imported.documents) == ["Normans"]
    text = imported.documents["Normans"]
    out = write_collection(imported, tmp_path / "normans")
    corpus = load_collection(out)
    assert len(corpus.questions) == 28
    answers = {
        qa["id"]: qa["answers"][0]["text"]
        for p in json.loads(SQUAD_V2.read_text(encoding="utf-8"))["data"][0]["paragraphs"]
        for qa in p["qas"]
        if qa["answers"]
    }
    for question in corpus.questions:
        (evidence,) = question.evidence
        assert text[evidence.start : evidence.end] == answers[question.id]
    second = json.loads(SQUAD_V2.read_text(encoding="utf-8"))["data"][0]["paragraphs"][1]
    q = next(q for q in imported.questions if q["id"] == second["qas"][0]["id"])
    assert q["evidence"][0]["start"] == len(paragraphs_text(0)) + 2 + 1022


def paragraphs_text(k: int) -> str:
    return json.loads(SQUAD_V2.read_text(encoding="utf-8"))["data"][0]["paragraphs"][k]["context"]


def test_squad_v1_question_imports_at_its_answer_start():
    imported = import_dataset("squad", read_files(SETS / "squad_v1_train_notre_dame.json"))
    (q,) = imported.questions
    assert q["id"] == "5733be284776f41900661182"
    assert q["evidence"][0]["start"] == 515
    assert not imported.problems


def test_flat_hugging_face_squad_records_read_like_the_official_file(tmp_path):
    data = json.loads(SQUAD_V2.read_text(encoding="utf-8"))
    records = [
        {
            "id": qa["id"],
            "title": data["data"][0]["title"],
            "context": p["context"],
            "question": qa["question"],
            "answers": {
                "text": [a["text"] for a in qa["answers"]],
                "answer_start": [a["answer_start"] for a in qa["answers"]],
            },
        }
        for p in data["data"][0]["paragraphs"]
        for qa in p["qas"]
    ]
    path = tmp_path / "squad_v2.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    flat = import_dataset("squad", read_files(path))
    official = import_dataset("squad", read_files(SQUAD_V2))
    assert flat.questions == official.questions
    assert flat.documents == official.documents


def ragas_documents() -> dict[str, bytes]:
    return {p.stem: p.read_bytes() for p in sorted(RAGAS.glob("*.md"))}


def test_ragas_test_set_finds_every_context_in_the_blog_posts():
    files = {"testset.csv": (RAGAS / "testset.csv").read_bytes()}
    assert recognise(files) == "ragas"
    imported = import_dataset("ragas", files, ragas_documents())
    assert len(imported.questions) == 10
    assert not [e for e in imported.problems if e.severity == "error"]
    multi = [q for q in imported.questions if q["case"].startswith("multi_hop")]
    assert len(multi) == 5
    assert not any(e.startswith("<") for q in multi for e in q["evidence"])
    out = collection_files(imported)
    corpus = load_collection_from(out)
    spread = [q for q in corpus.questions if q.multi_doc]
    assert len(spread) == 4


def load_collection_from(files: dict[str, bytes]):
    from lab import build_collection

    return build_collection(files["collection.json"], files.get)


def test_ragas_contexts_a_loader_rewrote_are_reported_with_their_question(tmp_path):
    done = lab_cli(
        "import",
        "ragas",
        str(RAGAS / "testset_unstructured.csv"),
        "--out",
        str(tmp_path / "out"),
        *[arg for p in sorted(RAGAS.glob("*.md")) for arg in ("--doc", str(p))],
    )
    assert done.returncode == 2
    assert "warning: q1: evidence not found in any of the 8 documents: 'title:" in done.stderr
    assert "warning: q3:" in done.stderr
    assert "error: no question of" in done.stderr
    assert not (tmp_path / "out").exists()


def test_ragas_without_documents_says_how_to_give_them():
    files = {"testset.csv": (RAGAS / "testset.csv").read_bytes()}
    with pytest.raises(ValueError, match="--doc PATH or --collection MANIFEST"):
        import_dataset("ragas", files)


def squad_paragraphs() -> list[dict]:
    return json.loads(SQUAD_V2.read_text(encoding="utf-8"))["data"][0]["paragraphs"]


def test_simple_evaluator_lists_locate_each_passage_in_the_corpus(tmp_path):
    paragraphs = squad_paragraphs()
    asked = [
        (qa["question"], qa["answers"][0]["text"])
        for p in paragraphs
        for qa in p["qas"]
        if qa["answers"]
    ]
    lists = {
        "corpus": [p["context"] for p in paragraphs],
        "questions": [q for q, _ in asked],
        "relevant_passages": [a for _, a in asked],
    }
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps(lists), encoding="utf-8")
    files = read_files(path)
    assert recognise(files) == "lists"
    imported = import_dataset("lists", files)
    assert len(imported.documents) == 12
    assert len(imported.questions) == 28
    corpus = load_collection(write_collection(imported, tmp_path / "out"))
    for question, (_, answer) in zip(corpus.questions, asked, strict=True):
        (evidence,) = question.evidence
        assert corpus.documents[evidence.doc].text[evidence.start : evidence.end] == answer


def test_mtcb_dataset_layout_reads_chunk_must_contain(tmp_path):
    paragraphs = squad_paragraphs()
    (tmp_path / "corpus.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"p{k}", "text": p["context"]}) for k, p in enumerate(paragraphs)
        ),
        encoding="utf-8",
    )
    rows = [
        {"question": qa["question"], "chunk-must-contain": qa["answers"][0]["text"]}
        for p in paragraphs
        for qa in p["qas"]
        if qa["answers"]
    ]
    (tmp_path / "questions.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows), encoding="utf-8"
    )
    files = read_files(tmp_path)
    assert recognise(files) == "lists"
    imported = import_dataset("lists", files)
    assert sorted(imported.documents) == sorted(f"p{k}" for k in range(12))
    assert len(imported.questions) == 28


def test_beir_relevant_documents_are_the_evidence(tmp_path):
    paragraphs = squad_paragraphs()
    corpus_rows = [
        {"_id": f"p{k}", "title": "Normans", "text": p["context"]} for k, p in enumerate(paragraphs)
    ]
    queries, qrels = [], ["query-id\tcorpus-id\tscore"]
    for k, p in enumerate(paragraphs):
        for qa in p["qas"][:2]:
            queries.append({"_id": qa["id"], "text": qa["question"]})
            qrels.append(f"{qa['id']}\tp{k}\t1")
    qrels.append("missing-query\tp0\t1")
    (tmp_path / "corpus.jsonl").write_text(
        "\n".join(map(json.dumps, corpus_rows)), encoding="utf-8"
    )
    (tmp_path / "queries.jsonl").write_text("\n".join(map(json.dumps, queries)), encoding="utf-8")
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("\n".join(qrels), encoding="utf-8")
    files = read_files(tmp_path)
    assert recognise(files) == "lists"
    imported = import_dataset("lists", files)
    assert len(imported.questions) == 24
    assert [e.question for e in imported.problems] == ["missing-query"]
    corpus = load_collection(write_collection(imported, tmp_path / "out"))
    for question in corpus.questions:
        (evidence,) = question.evidence
        document = corpus.documents[evidence.doc]
        assert (
            document.text[evidence.start : evidence.end]
            == paragraphs[int(document.name[1:])]["context"]
        )


def test_train_share_is_reproducible_whatever_the_order():
    questions = [{"id": f"q{k}", "question": f"Question number {k}?"} for k in range(200)]
    forward = {q["id"]: q["split"] for q in train_share(questions, 0.3)}
    backward = {q["id"]: q["split"] for q in train_share(questions[::-1], 0.3)}
    assert forward == backward
    assert 40 <= sum(s == "train" for s in forward.values()) <= 80
    assert {q["split"] for q in train_share(questions, 0)} == {"test"}
    assert {q["split"] for q in train_share(questions, 1)} == {"train"}
    with pytest.raises(ValueError, match="between 0 and 1"):
        train_share(questions, 1.5)


def test_a_question_whose_evidence_is_missing_is_left_out_and_named():
    imported = checked(
        Imported(
            "lists",
            {"a": "The first document says one thing.", "b": "The second says another."},
            (
                {"id": "ok", "question": "What?", "evidence": ["says one thing"]},
                {"id": "gone", "question": "Where?", "evidence": ["not in either document"]},
            ),
        )
    )
    assert [q["id"] for q in imported.questions] == ["ok"]
    assert [(e.question, e.message) for e in imported.problems] == [
        ("gone", "evidence not found in any of the 2 documents: 'not in either document'")
    ]


def test_written_collection_never_overwrites_and_names_files_safely(tmp_path):
    imported = Imported("lists", {"../etc/passwd": "Text here.", "a/b.md": "More."}, ())
    out = write_collection(imported, tmp_path / "c")
    manifest = json.loads(out.read_text(encoding="utf-8"))
    assert [d["path"] for d in manifest["documents"]] == ["passwd.md", "b.md"]
    assert [d["name"] for d in manifest["documents"]] == ["../etc/passwd", "a/b.md"]
    with pytest.raises(ValueError, match="exists already"):
        write_collection(imported, tmp_path / "c")
    assert document_path("collection.json", set()) == "collection.json.md"
    assert document_path("a.md", {"a.md"}) == "a-2.md"


def test_import_cli_errors_are_one_line_and_status_2(tmp_path):
    done = lab_cli("import", "chroma", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: No such file or folder: {tmp_path / 'nowhere'}"
    (tmp_path / "notes.txt").write_text("nothing to import", encoding="utf-8")
    done = lab_cli("import", "auto", str(tmp_path / "notes.txt"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "is in none of the formats chroma, squad, ragas, lists" in done.stderr
