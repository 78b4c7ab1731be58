"""The size-bounded LRU store behind the process-wide embedding and reranker caches."""

import numpy as np
import pytest

from lab.lru import LRU, entry_bytes


def by_length(key, value):
    return len(value)


def test_least_recently_used_values_go_first_past_the_bound():
    cache = LRU(10, by_length)
    cache.put("a", "xxxx")
    cache.put("b", "xxxx")
    assert cache.get("a") == "xxxx"  # "a" is now the most recently used
    cache.put("c", "xxxx")  # 12 > 10: "b" goes
    assert "b" not in cache and "a" in cache and "c" in cache
    assert cache.bytes == 8 and len(cache) == 2


def test_replacing_a_key_counts_its_new_size_only():
    cache = LRU(10, by_length)
    cache.put("a", "xxxxxx")
    cache.put("a", "xx")
    assert cache.bytes == 2 and cache.get("a") == "xx"


def test_a_value_larger_than_the_bound_is_not_kept():
    cache = LRU(5, by_length)
    cache.put("a", "xxx")
    cache.put("big", "x" * 6)
    assert "big" not in cache and cache.get("a") == "xxx" and cache.bytes == 3


def test_a_miss_returns_the_default():
    assert LRU(5, by_length).get("nothing", "default") == "default"


def test_negative_bound_is_refused():
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        LRU(-1, by_length)


def test_entry_bytes_counts_key_characters_and_array_bytes():
    vector = np.zeros(384, dtype=np.float32)
    assert entry_bytes("abc", vector) == 100 + 3 + 1536
    offsets, vectors = np.zeros((5, 2), dtype=np.int64), np.zeros((5, 384), dtype=np.float32)
    assert entry_bytes("abc", (offsets, vectors)) == 100 + 3 + 80 + 7680
    assert entry_bytes(("query", "text"), 0.5) == 100 + 9 + 8
