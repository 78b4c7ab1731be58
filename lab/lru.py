"""A size-bounded least-recently-used store, for the process-wide model caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

OVERHEAD = 100  # bytes a cached entry costs beyond its text and arrays, roughly


def entry_bytes(key: str | tuple[str, ...], value: Any) -> int:
    """What one model-cache entry costs: its key's characters, its arrays' bytes (8 for a
    number), and some overhead."""
    chars = len(key) if isinstance(key, str) else sum(map(len, key))
    parts = value if isinstance(value, tuple) else (value,)
    return OVERHEAD + chars + sum(getattr(p, "nbytes", 8) for p in parts)


class LRU:
    """Values by key, at most ``max_bytes`` of them as ``size(key, value)`` counts; past that,
    the least recently used go first. A value larger than the whole bound is not kept. Not
    thread-safe on its own: its owners hold a lock."""

    def __init__(self, max_bytes: int, size: Callable[[Any, Any], int]):
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._size = size
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value of ``key`` (now the most recently used), or ``default``."""
        item = self._items.get(key)
        if item is None:
            return default
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used values past the bound."""
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        cost = self._size(key, value)
        if cost > self.max_bytes:
            return
        self._items[key] = (value, cost)
        self.bytes += cost
        while self.bytes > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped


def bounded_get_many(
    lock: threading.Lock, table: OrderedDict, keys: Sequence, make: Callable, limit: int
) -> list:
    """``[table[key] for key in keys]``, those missing made by one ``make(missing keys)`` (outside
    ``lock``, so other threads are not held up), kept as the most recently used; past ``limit``
    entries the least recently used are dropped."""
    found = {}
    with lock:
        for key in keys:
            if key in table:
                table.move_to_end(key)
                found[key] = table[key]
    missing = [key for key in dict.fromkeys(keys) if key not in found]
    if missing:
        made = make(missing)
        found.update(zip(missing, made, strict=True))
        with lock:
            table.update(zip(missing, made, strict=True))
            while len(table) > limit:
                table.popitem(last=False)
    return [found[key] for key in keys]


def bounded_get(lock: threading.Lock, table: OrderedDict, key, make: Callable, limit: int):
    """``table[key]``, made by ``make()`` when missing (see ``bounded_get_many``)."""
    return bounded_get_many(lock, table, [key], lambda _: [make()], limit)[0]
