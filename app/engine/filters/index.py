"""An index over many compiled filters: an event visits only the filters that can match it.

Each filter document is read once for an *anchor*: one condition every matching payload must meet,
taken from the filter's top level (its own keys and the children of a top-level `$and`):

- `equals` (or the scalar shorthand) and `in` on a path: the payload's value there, looked up in a
  hash table of the path;
- `starts_with` on a path: the value's prefixes of the lengths the path's anchors use, looked up;
- `exists: true` on a path: the path is present.

A filter with no such condition (empty, or only `$or`, `$not`, ranges, regexes...) is kept apart and
evaluated for every event. The index only narrows: each candidate's full predicate still decides, so
`FilterIndex.match` answers exactly what evaluating every filter would (a property test holds it to
that). The cost of an event grows with the number of anchored paths and of candidates, not with the
number of filters.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from app.engine.filters.compiler import _MISSING, Predicate, _getter, _list_index, compile_filter

KeyT = TypeVar("KeyT")

# Anchor kinds, best first: an equality narrows to one bucket; a prefix to a few; existence barely.
_EQUALS, _PREFIX, _EXISTS = 0, 1, 2


@dataclass(frozen=True)
class Anchor:
    """A condition every payload the filter matches meets: `kind` on `path` with `values`."""

    kind: int
    path: str
    values: tuple[Any, ...] = ()


def value_key(value: Any) -> Hashable | None:
    """The hash key of a JSON scalar under the filters' equality (1 == 1.0; true is not 1); None for
    values no scalar operand equals (arrays, objects)."""
    if isinstance(value, bool):
        return ("bool", value)
    if value is None:
        return ("null",)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, int | float):
        return ("num", value)
    return None


def _condition_anchors(path: str, condition: Any) -> list[Anchor]:
    if not isinstance(condition, dict):  # the scalar shorthand for equals
        return [Anchor(_EQUALS, path, (condition,))]
    anchors = []
    if "equals" in condition:
        anchors.append(Anchor(_EQUALS, path, (condition["equals"],)))
    if "in" in condition:
        anchors.append(Anchor(_EQUALS, path, tuple(condition["in"])))
    if "starts_with" in condition:
        anchors.append(Anchor(_PREFIX, path, (condition["starts_with"],)))
    if condition.get("exists") is True:
        anchors.append(Anchor(_EXISTS, path))
    return anchors


def _anchors(document: dict[str, Any]) -> list[Anchor]:
    """Every anchor the document's top level offers (its conjunction: keys and `$and` children)."""
    found: list[Anchor] = []
    for key, value in document.items():
        if key == "$and":
            for child in value:
                found.extend(_anchors(child))
        elif not key.startswith("$"):
            found.extend(_condition_anchors(key, value))
    return found


def choose_anchor(document: dict[str, Any]) -> Anchor | None:
    """The most selective anchor of a valid filter document, or None when it has none."""
    anchors = _anchors(document)
    if not anchors:
        return None
    return min(anchors, key=_selectivity)


def _selectivity(anchor: Anchor) -> tuple[int, int]:
    """Lower is narrower: equality before prefix before existence; fewer values; longer prefixes."""
    if anchor.kind == _EQUALS:
        return (anchor.kind, len(anchor.values))
    if anchor.kind == _PREFIX:
        return (anchor.kind, -len(anchor.values[0]))
    return (anchor.kind, 0)


@dataclass
class _PathIndex(Generic[KeyT]):
    """The anchors on one path: equality buckets, prefix buckets by length, existence."""

    get: Callable[[Any], Any]
    equals: dict[Hashable, list[int]] = field(default_factory=dict)
    prefixes: dict[str, list[int]] = field(default_factory=dict)
    prefix_lengths: set[int] = field(default_factory=set)
    exists: list[int] = field(default_factory=list)

    def add(self, anchor: Anchor, position: int) -> None:
        if anchor.kind == _EQUALS:
            keys = {value_key(value) for value in anchor.values}
            for key in keys:
                self.equals.setdefault(key, []).append(position)
        elif anchor.kind == _PREFIX:
            prefix: str = anchor.values[0]
            self.prefixes.setdefault(prefix, []).append(position)
            self.prefix_lengths.add(len(prefix))
        else:
            self.exists.append(position)

    def candidates(self, payload: Any, into: list[list[int]]) -> None:
        """Append the buckets (ascending positions each) of the filters this payload may match."""
        value = self.get(payload)
        if value is _MISSING:
            return
        if self.exists:
            into.append(self.exists)
        if self.equals:
            key = value_key(value)
            if key is not None:
                bucket = self.equals.get(key)
                if bucket:
                    into.append(bucket)
        if self.prefixes and isinstance(value, str):
            size = len(value)
            for length in self.prefix_lengths:
                if length <= size:
                    bucket = self.prefixes.get(value[:length])
                    if bucket:
                        into.append(bucket)


class FilterIndex(Generic[KeyT]):
    """Filters by key, indexed by anchor; `match(payload)` lists the keys whose filter matches, in the
    order they were given."""

    def __init__(self, entries: Iterable[tuple[KeyT, dict[str, Any] | None]]) -> None:
        self._keys: list[KeyT] = []
        self._predicates: list[Predicate] = []
        self._paths: dict[str, _PathIndex[KeyT]] = {}
        self._unanchored: list[int] = []
        for key, document in entries:
            position = len(self._keys)
            self._keys.append(key)
            # compile_filter raises FilterError for an invalid document, before any anchor is read.
            self._predicates.append(compile_filter(document) if document else _always)
            anchor = choose_anchor(document) if document else None
            if anchor is None:
                self._unanchored.append(position)
                continue
            path = self._paths.get(anchor.path)
            if path is None:
                steps = tuple((segment, _list_index(segment)) for segment in anchor.path.split("."))
                path = self._paths[anchor.path] = _PathIndex(_getter(steps))
            path.add(anchor, position)

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def unanchored(self) -> int:
        """How many filters every event evaluates (no anchor to narrow them)."""
        return len(self._unanchored)

    def candidates(self, payload: Any) -> list[int]:
        """Positions of the filters that may match `payload` (a superset of those that do)."""
        buckets: list[list[int]] = [self._unanchored] if self._unanchored else []
        for path in self._paths.values():
            path.candidates(payload, buckets)
        if not buckets:
            return []
        if len(buckets) == 1:  # the common case: one equality bucket, already in order
            return buckets[0]
        return sorted({position for bucket in buckets for position in bucket})

    def match(self, payload: Any) -> list[KeyT]:
        """The keys whose filter matches `payload`, in the order the filters were given."""
        predicates = self._predicates
        return [self._keys[i] for i in self.candidates(payload) if predicates[i](payload)]

    def keys(self) -> Sequence[KeyT]:
        return self._keys


def _always(_: Any) -> bool:
    return True
