"""The fifteen filters and the safe tests templates may use, and the JSON rendering of values.

Each filter works on JSON data only (strings, numbers, booleans, null, lists, objects), never calls
back into a template, never reaches into Python objects, and bounds what it builds: anything that
could grow past the output limit is measured before it is built. Filters are wrapped with
`pass_context` only so that Jinja never runs them while compiling (it folds constant expressions
through filters that do not need the context); the context itself is ignored.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, ItemsView, Iterable, KeysView, ValuesView
from datetime import date, datetime, time
from typing import Any

from jinja2 import StrictUndefined, Undefined, pass_context
from jinja2 import tests as jinja_tests
from jinja2.runtime import Context

from app.engine.templating.errors import OUTPUT_TOO_LARGE, TemplateLimitError, TemplateRuntimeError
from app.engine.templating.limits import MAX_OUTPUT_BYTES

DEFAULT_DATE_FORMAT = "%Y-%m-%d %H:%M"
_MAX_DATE_FORMAT_CHARS = 200
_MAX_DATE_INPUT_CHARS = 64
# glibc strftime accepts field widths (`%999999999Y`); only plain directives (and the `-` flag
# that drops padding) are allowed so a format cannot ask for huge padding.
_DATE_DIRECTIVE = re.compile(r"%(-?)(.|$)", re.DOTALL)
_DATE_LETTERS = frozenset("aAbBcdefGHIjmMpSuUVwWxXyYzZ%")
_MAX_SORT_PATH_PARTS = 8
_MAX_JSON_INDENT = 8
_SLUG_SEPARATORS = re.compile(r"[^a-z0-9]+")


def _limit(what: str) -> TemplateLimitError:
    return TemplateLimitError(f"{what} would exceed {MAX_OUTPUT_BYTES} bytes", code=OUTPUT_TOO_LARGE)


def _json_default(value: Any) -> Any:
    if isinstance(value, Undefined):
        return str(value)  # StrictUndefined raises its "is undefined" error here
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, KeysView | ValuesView | ItemsView):
        return list(value)
    raise TemplateRuntimeError(f"a value of type {type(value).__name__!r} cannot be rendered as JSON")


def to_json(value: Any, *, indent: int | None = None, limit: int = MAX_OUTPUT_BYTES) -> str:
    """Encode JSON data, refusing non-finite numbers and results longer than `limit` characters."""
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=indent, default=_json_default)
    parts: list[str] = []
    size = 0
    try:
        for chunk in encoder.iterencode(value):
            size += len(chunk)
            if size > limit:
                raise _limit("the JSON text")
            parts.append(chunk)
    except ValueError as exc:  # NaN / Infinity, circular references
        raise TemplateRuntimeError(f"value cannot be rendered as JSON: {exc}") from None
    return "".join(parts)


def to_text(value: Any) -> str:
    """How a value renders inside text: strings as themselves, null as nothing, the rest as JSON."""
    if isinstance(value, str):
        return str(value)
    if value is None:
        return ""
    # Scalars directly: this runs once per item in `join` and per output in every render.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Undefined):
        return str(value)  # raises for StrictUndefined
    return to_json(value)


def _runtime_only(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(_context: Context, *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return pass_context(wrapper)


def _int_arg(filter_name: str, name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TemplateRuntimeError(f"{filter_name}: {name} must be an integer from {low} to {high}")
    return value


def _str_arg(filter_name: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TemplateRuntimeError(f"{filter_name}: {name} must be a string")
    return value


def _collection(filter_name: str, value: Any) -> Iterable[Any]:
    """The items a filter iterates: list and string items, object keys (in order)."""
    if isinstance(value, str | list | tuple | dict | KeysView | ValuesView | ItemsView):
        return value
    if isinstance(value, Undefined):
        str(value)  # raises for StrictUndefined
    raise TemplateRuntimeError(f"{filter_name}: expected a list, an object or a string, got {_kind(value)}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def join(value: Any, separator: Any = "") -> str:
    """Concatenate the items of a list, each rendered as text, with `separator` between them."""
    sep = _str_arg("join", "separator", separator)
    pieces: list[str] = []
    size = 0
    for item in _collection("join", value):
        piece = to_text(item)
        size += len(piece) + (len(sep) if pieces else 0)
        if size > MAX_OUTPUT_BYTES:
            raise _limit("join")
        pieces.append(piece)
    return sep.join(pieces)


def length(value: Any) -> int:
    """Number of items in a list or object, or characters in a string."""
    collection = _collection("length", value)
    return len(collection)  # type: ignore[arg-type]


def default(value: Any, default_value: Any = "", boolean: Any = False) -> Any:
    """`default_value` when `value` is undefined (or, with `boolean` true, when it is falsy)."""
    if isinstance(value, Undefined) or (boolean is True and not value):
        return default_value
    return value


def upper(value: Any) -> str:
    """The text in upper case."""
    return to_text(value).upper()


def lower(value: Any) -> str:
    """The text in lower case."""
    return to_text(value).lower()


def truncate(value: Any, length: Any = 255, killwords: Any = False, end: Any = "...") -> str:
    """Shorten text to at most `length` characters, ending with `end`; cut at a space unless `killwords`."""
    text = to_text(value)
    limit = _int_arg("truncate", "length", length, 0, MAX_OUTPUT_BYTES)
    suffix = _str_arg("truncate", "end", end)
    if len(text) <= limit:
        return text
    head = text[: max(limit - len(suffix), 0)]
    if killwords is not True and " " in head:
        head = head.rsplit(" ", 1)[0]
    return (head + suffix)[:limit]


def tojson(value: Any, indent: Any = None) -> str:
    """The value as JSON text, optionally indented by 0 to 8 spaces."""
    if indent is not None:
        indent = _int_arg("tojson", "indent", indent, 0, _MAX_JSON_INDENT)
    return to_json(value, indent=indent)


def _as_datetime(value: Any) -> datetime | date:
    if isinstance(value, datetime | date):
        return value
    if isinstance(value, str) and len(value) <= _MAX_DATE_INPUT_CHARS:
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            pass
    shown = repr(value)[:_MAX_DATE_INPUT_CHARS] if isinstance(value, str) else _kind(value)
    raise TemplateRuntimeError(f"date: expected an ISO-8601 date or date-time, got {shown}")


def date_filter(value: Any, format: Any = DEFAULT_DATE_FORMAT) -> str:
    """Format an ISO-8601 date or date-time with strftime directives (no field widths)."""
    moment = _as_datetime(value)
    pattern = _str_arg("date", "format", format)
    if len(pattern) > _MAX_DATE_FORMAT_CHARS:
        raise TemplateRuntimeError(f"date: format is longer than {_MAX_DATE_FORMAT_CHARS} characters")
    for match in _DATE_DIRECTIVE.finditer(pattern):
        if match.group(2) not in _DATE_LETTERS:
            raise TemplateRuntimeError(f"date: unsupported directive {match.group(0)!r} in format")
    return moment.strftime(pattern)


def replace(value: Any, old: Any, new: Any, count: Any = None) -> str:
    """Replace occurrences of `old` by `new` (the first `count` ones when given)."""
    text = to_text(value)
    old_text = _str_arg("replace", "old", old)
    new_text = _str_arg("replace", "new", new)
    occurrences = text.count(old_text) if old_text else len(text) + 1
    if count is not None:
        occurrences = min(occurrences, _int_arg("replace", "count", count, 0, MAX_OUTPUT_BYTES))
    if len(text) + occurrences * (len(new_text) - len(old_text)) > MAX_OUTPUT_BYTES:
        raise _limit("replace")
    return text.replace(old_text, new_text, -1 if count is None else occurrences)


def trim(value: Any, chars: Any = None) -> str:
    """The text without leading and trailing whitespace (or the given characters)."""
    return to_text(value).strip(None if chars is None else _str_arg("trim", "chars", chars))


def slugify(value: Any) -> str:
    """Lower-case ASCII words joined by hyphens, e.g. "Hello, World!" -> "hello-world"."""
    text = to_text(value)
    if len(text) > MAX_OUTPUT_BYTES:
        raise _limit("slugify")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _SLUG_SEPARATORS.sub("-", ascii_text.lower()).strip("-")


def first(value: Any) -> Any:
    """The first item of a list, character of a string or key of an object (undefined when empty)."""
    for item in _collection("first", value):
        return item
    return StrictUndefined(hint="first: the value is empty")


def last(value: Any) -> Any:
    """The last item of a list, character of a string or key of an object (undefined when empty)."""
    for item in reversed(_collection("last", value)):  # type: ignore[call-overload]
        return item
    return StrictUndefined(hint="last: the value is empty")


def _sort_path(attribute: Any) -> list[str | int]:
    if attribute is None:
        return []
    if isinstance(attribute, int) and not isinstance(attribute, bool):
        return [attribute]
    parts = _str_arg("sort", "attribute", attribute).split(".")
    if len(parts) > _MAX_SORT_PATH_PARTS or any(not part or part.startswith("_") for part in parts):
        raise TemplateRuntimeError("sort: attribute must be a dotted path of public keys")
    return [int(part) if part.isdigit() else part for part in parts]


def _lookup(item: Any, path: list[str | int]) -> Any:
    for part in path:
        in_object = isinstance(item, dict) and part in item
        in_list = isinstance(item, list | tuple) and isinstance(part, int) and -len(item) <= part < len(item)
        if in_object or in_list:
            item = item[part]
        else:
            raise TemplateRuntimeError(f"sort: an item has no {part!r}")
    return item


def sort(value: Any, reverse: Any = False, case_sensitive: Any = False, attribute: Any = None) -> list[Any]:
    """The items sorted; `attribute` sorts objects by a key path such as "user.name" or "0"."""
    items = list(_collection("sort", value))
    path = _sort_path(attribute)
    fold = case_sensitive is not True

    def key(item: Any) -> Any:
        item = _lookup(item, path)
        return item.casefold() if fold and isinstance(item, str) else item

    try:
        return sorted(items, key=key, reverse=reverse is True)
    except TypeError:
        raise TemplateRuntimeError("sort: the items are of types that cannot be compared") from None


def reverse(value: Any) -> Any:
    """A string reversed, or the items of a list (the keys of an object) in reverse order."""
    if isinstance(value, str):
        return value[::-1]
    return list(reversed(_collection("reverse", value)))  # type: ignore[call-overload]


def _is_number(value: Any) -> bool:
    # JSON semantics: true/false are booleans, not numbers.
    return isinstance(value, int | float) and not isinstance(value, bool)


_FILTER_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "join": join,
    "length": length,
    "default": default,
    "upper": upper,
    "lower": lower,
    "truncate": truncate,
    "tojson": tojson,
    "date": date_filter,
    "replace": replace,
    "trim": trim,
    "slugify": slugify,
    "first": first,
    "last": last,
    "sort": sort,
    "reverse": reverse,
}
FILTERS: dict[str, Callable[..., Any]] = {
    name: _runtime_only(func) for name, func in _FILTER_FUNCTIONS.items()
}

TESTS: dict[str, Callable[..., bool]] = {
    "defined": jinja_tests.test_defined,
    "undefined": jinja_tests.test_undefined,
    "none": jinja_tests.test_none,
    "number": _is_number,
    "string": jinja_tests.test_string,
    "mapping": jinja_tests.test_mapping,
    "sequence": jinja_tests.test_sequence,
    "boolean": jinja_tests.test_boolean,
    "true": jinja_tests.test_true,
    "false": jinja_tests.test_false,
}

ALLOWED_FILTERS: frozenset[str] = frozenset(FILTERS)
ALLOWED_TESTS: frozenset[str] = frozenset(TESTS)
