"""The LRU cache: least recently used out first, hits refresh, failed builds store nothing."""

from __future__ import annotations

import pytest

from app.lru import LruCache


def test_evicts_the_least_recently_used_not_the_first_inserted() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert "a" in cache
    assert "b" not in cache
    assert len(cache) == 2


def test_get_or_build_builds_once() -> None:
    cache: LruCache[str, list[int]] = LruCache(4)
    built: list[str] = []

    def build() -> list[int]:
        built.append("x")
        return [1]

    first = cache.get_or_build("x", build)
    assert cache.get_or_build("x", build) is first
    assert built == ["x"]


def test_a_failing_build_stores_nothing() -> None:
    cache: LruCache[str, int] = LruCache(4)

    def broken() -> int:
        raise ValueError("bad document")

    with pytest.raises(ValueError):
        cache.get_or_build("x", broken)
    assert "x" not in cache
    assert cache.get_or_build("x", lambda: 7) == 7


def test_overwriting_a_key_refreshes_it() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert cache.get("a") == 10
    assert cache.get("b") is None


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError):
        LruCache(0)


def test_an_evicted_value_is_handed_to_on_evict() -> None:
    evicted: list[str] = []
    cache: LruCache[str, str] = LruCache(2, on_evict=evicted.append)
    cache.put("a", "A")
    cache.put("b", "B")
    assert cache.get("a") == "A"
    cache.put("c", "C")
    assert evicted == ["B"]
    assert cache.values() == ["A", "C"]


def test_pop_removes_without_on_evict() -> None:
    evicted: list[str] = []
    cache: LruCache[str, str] = LruCache(2, on_evict=evicted.append)
    cache.put("a", "A")
    assert cache.pop("a") == "A"
    assert cache.pop("a") is None
    assert "a" not in cache
    assert evicted == []
