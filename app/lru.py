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

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("an LRU cache holds at least one entry")
        self.size = size
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
            self._entries.popitem(last=False)
        return value

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value, or `build()`'s, stored for next time. A failing build stores nothing."""
        value = self.get(key)
        return value if value is not None else self.put(key, build())

    def clear(self) -> None:
        self._entries.clear()
