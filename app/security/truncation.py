"""JSON-aware truncation: make a value fit a byte budget by pruning its structure, never by slicing text.

Size is that of compact JSON (`json.dumps(value, ensure_ascii=False, separators=(",", ":"))` in UTF-8).
A value within the budget comes back as it is. Otherwise the result is a new value that fits:

* long strings keep a prefix and end with a marker such as `…[+1234 chars]`;
* arrays keep a prefix of their items plus a marker item `"…[+12 items]"`;
* objects keep a prefix of their keys plus a marker entry `"…": "[+3 keys]"`;
* containers nested deeper than `MAX_DEPTH` become the string `"…[nested too deep]"`;
* the top level says so: an object gets `"_truncated": true` added, anything else is wrapped as
  `{"_truncated": true, "value": <pruned value>}`.

Strings are shortened first, all to the same largest length that lets the whole structure fit, so one huge
field does not push its small siblings out; only when that is not enough are items and keys dropped from
the end. Work is bounded by the budget (times a logarithmic factor), not by the size of the input.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MAX_BYTES = 10_240
MIN_MAX_BYTES = 64
MAX_DEPTH = 100
TRUNCATED_KEY = "_truncated"
OMITTED_KEY = "…"
TOO_DEEP = "…[nested too deep]"
_TRUNCATED_ENTRY = len(f',"{TRUNCATED_KEY}":true')
_SHORTEST_STRING_CAP = 16
_FALLBACK_CAP_SHARE = 16  # when items must go anyway, no string may take more than 1/16 of the budget


def truncate_json(value: Any, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """`value` if its compact JSON fits in `max_bytes` (UTF-8), else a structurally pruned copy that does.

    See the module docstring for the markers and the `_truncated` rule. Raises ValueError when `max_bytes`
    is below `MIN_MAX_BYTES` and TypeError for values JSON cannot represent.
    """
    if max_bytes < MIN_MAX_BYTES:
        raise ValueError(f"max_bytes must be at least {MIN_MAX_BYTES}")
    if _surely_fits(value, max_bytes) or _fits(value, max_bytes):
        return value
    low, high = _SHORTEST_STRING_CAP, max_bytes
    best = _Pruner(max_bytes, low).run(value)
    if best.stopped:
        return _Pruner(max_bytes, max(low, max_bytes // _FALLBACK_CAP_SHARE)).run(value).result
    # The largest string length that still lets everything else stay.
    while low < high:
        middle = (low + high + 1) // 2
        attempt = _Pruner(max_bytes, middle).run(value)
        if attempt.stopped:
            high = middle - 1
        else:
            low, best = middle, attempt
    return best.result


def _text_size(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _scalar_size(value: Any) -> int:
    if value is None or isinstance(value, bool | int | float):
        return len(json.dumps(value))
    raise TypeError(f"a value of type {type(value).__name__} cannot be represented in JSON")


def _key_text(key: Any) -> str:
    """The object key JSON writes for a Python dict key (json.dumps converts the same way)."""
    if isinstance(key, str):
        return key
    _scalar_size(key)  # refuses the types json.dumps refuses
    return json.dumps(key)


# A character's compact JSON in UTF-8 takes at most 6 bytes (`\u001f`); a surrogate pair, 4 per half.
_MAX_CHAR_BYTES = 6
# Ints up to this size have a bound below; larger ones (and their str() limit) are left to `_fits`.
_BOUNDED_INT_BITS = 4096


def _surely_fits(value: Any, budget: int) -> bool:
    """True when an upper bound of the compact JSON size of `value` is within `budget`, found without
    encoding anything (a record is usually far below its budget); False means only "not surely"."""
    bound = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            bound += _MAX_CHAR_BYTES * len(item) + 2
        elif isinstance(item, dict | list | tuple):
            if depth >= MAX_DEPTH:
                return False
            bound += 1 + max(len(item), 1)
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return False
                    bound += _MAX_CHAR_BYTES * len(key) + 3
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        elif item is None or isinstance(item, bool):
            bound += 5
        elif isinstance(item, int):
            if item.bit_length() > _BOUNDED_INT_BITS:
                return False
            bound += item.bit_length() // 3 + 3  # decimal digits ≤ bits / 3.32, and a sign
        elif isinstance(item, float):
            bound += 24  # repr of any float, "NaN" and "-Infinity" included
        else:
            return False  # `_fits` refuses what JSON cannot represent
        if bound > budget:
            return False
    return True


def _fits(value: Any, budget: int) -> bool:
    """Whether the compact JSON of `value` is at most `budget` bytes; stops counting once it is not."""
    total = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth >= MAX_DEPTH:
                return False
            total += 1 + max(len(item), 1)  # brackets and the commas between items
            entries = item.items() if isinstance(item, dict) else ((None, child) for child in item)
            for key, child in entries:
                if key is not None:
                    total += _text_size(_key_text(key)) + 1
                if total > budget:
                    return False
                stack.append((child, depth + 1))
        elif isinstance(item, str):
            # Every character takes at least one byte: no need to encode a string that cannot fit.
            total += len(item) + 2 if len(item) + 2 > budget - total else _text_size(item)
        else:
            total += _scalar_size(item)
        if total > budget:
            return False
    return True


@dataclass
class _Frame:
    """An open container in the output, in serialisation order."""

    entries: Iterator[tuple[str | None, Any]]
    total: int
    output: dict[str, Any] | list[Any]
    outer: int  # bytes kept free for the enclosing containers: their closing brackets and markers
    depth: int
    emitted: int = 0

    @property
    def is_object(self) -> bool:
        return isinstance(self.output, dict)


@dataclass
class _Outcome:
    result: Any
    stopped: bool  # items or keys had to be dropped (not only strings shortened)


@dataclass
class _Pruner:
    """One pass that writes the value in JSON order while keeping enough room to close it properly."""

    budget: int
    string_cap: int
    used: int = 0
    stack: list[_Frame] = field(default_factory=list)

    def run(self, value: Any) -> _Outcome:
        is_object = isinstance(value, dict)
        # A non-object top level is pruned as the member "value" of the wrapper object.
        entries = _entries(value) if is_object else iter([("value", value)])
        root: dict[str, Any] = {}
        self.used = 1
        self.stack = [_Frame(entries, len(value) if is_object else 1, root, _TRUNCATED_ENTRY, 0)]
        stopped = False
        while self.stack and not stopped:
            stopped = self._step(self.stack[-1])
        if stopped:
            self._close_all()
        if is_object:
            root[TRUNCATED_KEY] = True
            return _Outcome(root, stopped)
        return _Outcome({TRUNCATED_KEY: True, **root}, stopped)

    def _step(self, frame: _Frame) -> bool:
        """Place the next entry of `frame`; True when the pass has to stop here."""
        if frame.emitted == frame.total:
            self.used += 1
            self.stack.pop()
            return False
        key, item = next(frame.entries)
        separator = 1 if frame.emitted else 0
        key_cost = _text_size(key) + 1 if key is not None else 0
        # Room left for this entry if everything after it in this frame then has to be summarised.
        reserve = frame.outer + 1 + _marker_size(frame.is_object, frame.total - frame.emitted - 1, True)
        room = self.budget - self.used - separator - key_cost - reserve
        if isinstance(item, dict | list | tuple) and frame.depth + 1 >= MAX_DEPTH:
            item = TOO_DEEP
        if isinstance(item, dict | list | tuple):
            is_object = isinstance(item, dict)
            if 2 + _marker_size(is_object, len(item), False) > room:
                return True
            child: dict[str, Any] | list[Any] = {} if is_object else []
            self._emit(frame, key, child, separator + key_cost + 1)
            self.stack.append(_Frame(_entries(item), len(item), child, reserve, frame.depth + 1))
            return False
        if not isinstance(item, str):
            size = _scalar_size(item)
            if size > room:
                return True
            self._emit(frame, key, item, separator + key_cost + size)
            return False
        text = self._capped(item)
        size = _text_size(text) if len(text) + 2 <= room else room + 1
        if size <= room:
            self._emit(frame, key, text, separator + key_cost + size)
            return False
        partial = _shorten(item, room)
        if partial is not None:
            self._emit(frame, key, partial, separator + key_cost + _text_size(partial))
        return True

    def _emit(self, frame: _Frame, key: str | None, item: Any, cost: int) -> None:
        if isinstance(frame.output, dict):
            frame.output[key if key is not None else ""] = item
        else:
            frame.output.append(item)
        frame.emitted += 1
        self.used += cost

    def _capped(self, text: str) -> str:
        if len(text) <= self.string_cap:
            return text
        shortened = text[: self.string_cap] + _chars_marker(len(text) - self.string_cap)
        # A string just over the cap can get longer with its marker; then it stays whole.
        return shortened if _text_size(shortened) < _text_size(text) else text

    def _close_all(self) -> None:
        """Close every open container, each with a marker counting the entries it did not get to."""
        while self.stack:
            frame = self.stack.pop()
            left = frame.total - frame.emitted
            if left and isinstance(frame.output, dict) and OMITTED_KEY not in frame.output:
                frame.output[OMITTED_KEY] = f"[+{left} keys]"
            elif left and isinstance(frame.output, list):
                frame.output.append(f"…[+{left} items]")


def _entries(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> Iterator[tuple[str | None, Any]]:
    if isinstance(container, dict):
        return ((_key_text(key), item) for key, item in container.items())
    return ((None, item) for item in container)


def _chars_marker(dropped: int) -> str:
    return f"…[+{dropped} chars]"


def _marker_size(is_object: bool, left: int, after_other_entries: bool) -> int:
    """Bytes of the marker that summarises `left` dropped entries (nothing when none are dropped)."""
    if not left:
        return 0
    separator = 1 if after_other_entries else 0
    if is_object:
        return separator + _text_size(OMITTED_KEY) + 1 + _text_size(f"[+{left} keys]")
    return separator + _text_size(f"…[+{left} items]")


def _shorten(text: str, room: int) -> str | None:
    """The longest prefix of `text` that, with its marker, takes at most `room` bytes; None if none does."""

    def candidate(length: int) -> str:
        return text[:length] + _chars_marker(len(text) - length)

    if _text_size(candidate(0)) > room:
        return None
    # Size grows with the prefix (the marker shrinks by at most one digit per character), so bisect.
    low, high = 0, min(len(text) - 1, room)
    while low < high:
        middle = (low + high + 1) // 2
        if _text_size(candidate(middle)) <= room:
            low = middle
        else:
            high = middle - 1
    return candidate(low)
