"""The corpus store behind links to a user's corpus: content digests, bounds with least recently
used eviction, and digests from a link that must never become other paths."""

import os
import threading

import pytest

from ui.store import CorpusStore, DamagedEntry, Inputs, valid_digest

HARBOUR = Inputs({"harbour": "# Harbour\n\nBoats tie up at the quay.\n"}, '[{"id": "h1"}]')


def inputs(n: int, size: int = 10) -> Inputs:
    return Inputs({f"doc{n}": f"{n} " * size}, None)


def aged(store: CorpusStore, digest: str, seconds: int) -> None:
    """Set a stored file's last use to ``seconds`` after the epoch (far in the past)."""
    os.utime(store.folder / f"{digest}.json", (seconds, seconds))


def test_inputs_round_trip_under_their_digest(tmp_path):
    store = CorpusStore(tmp_path, max_bytes=10_000)
    digest = store.put(HARBOUR)
    assert valid_digest(digest) and len(digest) == 32
    assert store.get(digest) == HARBOUR
    assert store.put(Inputs(dict(HARBOUR.documents), HARBOUR.qe)) == digest  # same content
    assert store.put(Inputs(HARBOUR.documents, None)) != digest
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{digest}.json", f"{Inputs(HARBOUR.documents, None).digest()}.json"]
    )


def test_a_digest_the_store_does_not_hold_is_none(tmp_path):
    assert CorpusStore(tmp_path, max_bytes=10_000).get("0" * 32) is None
    assert CorpusStore(tmp_path / "never-made", max_bytes=10_000).get("0" * 32) is None


def test_the_least_recently_used_corpus_goes_first(tmp_path):
    store = CorpusStore(tmp_path, max_bytes=10_000, max_entries=2)
    first, second = store.put(inputs(1)), store.put(inputs(2))
    aged(store, first, 1_000)
    aged(store, second, 2_000)
    assert store.get(first) == inputs(1)  # reading renews the first: the second is older now
    third = store.put(inputs(3))
    assert store.get(second) is None
    assert store.get(first) == inputs(1) and store.get(third) == inputs(3)


def test_the_store_stays_within_its_bytes(tmp_path):
    size = len(inputs(1, 100).encoded())
    store = CorpusStore(tmp_path, max_bytes=3 * size + size // 2)
    digests = []
    for n in range(6):
        digests.append(store.put(inputs(n, 100)))
        aged(store, digests[-1], 1_000 + n)
    assert sum(p.stat().st_size for p in tmp_path.glob("*.json")) <= store.max_bytes
    assert [store.get(d) is not None for d in digests] == [False, False, False, True, True, True]


def test_inputs_larger_than_the_store_are_refused(tmp_path):
    store = CorpusStore(tmp_path, max_bytes=100)
    with pytest.raises(ValueError, match="the store keeps at most"):
        store.put(inputs(1, 200))
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "digest",
    [
        "../../etc/passwd",
        "/etc/passwd",
        "..",
        "",
        "0" * 31,
        "0" * 33,
        "A" * 32,  # hex, but not the lowercase a digest is written in
        "0" * 31 + "/",
        "%2e%2e%2f" + "0" * 23,
        "0" * 32 + "\x00",
        "0" * 16 + "/../" + "0" * 12,
    ],
)
def test_a_digest_from_a_link_never_becomes_another_path(tmp_path, digest):
    store = CorpusStore(tmp_path / "store", max_bytes=10_000)
    (tmp_path / "secret.json").write_text('{"documents": {"x": "secret"}, "qe": null}')
    assert not valid_digest(digest)
    with pytest.raises(ValueError, match="not a store digest"):
        store.get(digest)


def test_a_file_that_no_longer_matches_its_digest_is_dropped(tmp_path):
    store = CorpusStore(tmp_path, max_bytes=10_000)
    digest = store.put(HARBOUR)
    path = tmp_path / f"{digest}.json"
    path.write_text(path.read_text().replace("quay", "pier"))
    with pytest.raises(DamagedEntry):
        store.get(digest)
    assert not path.exists()
    assert store.get(digest) is None  # removed: now simply not kept
    broken = store.put(inputs(1))
    (tmp_path / f"{broken}.json").write_text("{not json")
    with pytest.raises(DamagedEntry):
        store.get(broken)


def test_concurrent_writers_leave_whole_files_within_bounds(tmp_path):
    store = CorpusStore(tmp_path, max_bytes=1_000_000, max_entries=5)
    errors = []

    def write(start: int) -> None:
        try:
            for n in range(start, start + 10):
                store.put(inputs(n % 12, 50))
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(k * 3,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    kept = list(tmp_path.glob("*.json"))
    assert 1 <= len(kept) <= 5
    assert not list(tmp_path.glob("*.part"))
    for path in kept:
        assert store.get(path.stem) is not None  # every file whole and matching its digest
