"""A small least-recently-used cache for values built once per immutable key (a version, a content hash).

Not thread-safe: each worker process and each API event loop has its own instances, and a lookup never
awaits between reading and writing.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most `size` entries: a hit makes an entry the newest; inserting past `size` evicts the oldest."""

    def __init__(self, size: int, on_evict: Callable[[V], None] | None = None) -> None:
        """`on_evict` is handed each value pushed out by a newer one (to release what it holds)."""
        if size < 1:
            raise ValueError("an LRU cache holds at least one entry")
        self.size = size
        self._on_evict = on_evict
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: K) -> V | None:
        """The cached value (now the most recent), or None."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        """Store `value` as the most recent entry, evicting the least recent one past the size."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.size:
            _, evicted = self._entries.popitem(last=False)
            if self._on_evict is not None:
                self._on_evict(evicted)
        return value

    def pop(self, key: K) -> V | None:
        """Remove and answer the entry of `key` (None when absent); `on_evict` is not called."""
        return self._entries.pop(key, None)

    def values(self) -> list[V]:
        """Every value, least recent first."""
        return list(self._entries.values())

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value, or `build()`'s, stored for next time. A failing build stores nothing."""
        value = self.get(key)
        return value if value is not None else self.put(key, build())

    def clear(self) -> None:
        self._entries.clear()
