"""Linear-time regular expressions (RE2) for every pattern a user, a model or an outside server supplies.

Python's `re` backtracks: `^(a+)+$` against thirty `a`s and a `!` takes minutes. RE2 answers in time
linear in the input, at the price of backreferences and lookaround, which it refuses when compiling.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

MAX_PATTERN_LENGTH = 4096
PATTERN_MAX_MEM = 1 << 20
_CACHE_SIZE = 4096

RegexError = re2.error


class PatternRefused(ValueError):
    """RE2 cannot compile the pattern; the message says why in words a user can act on."""


def match_only_options(max_mem: int = PATTERN_MAX_MEM) -> Any:
    """RE2 options for patterns that are only asked "does it match", within `max_mem` bytes."""
    options = re2.Options()
    options.max_mem = max_mem
    options.never_capture = True  # groups cost time and only "does it match" is asked
    options.log_errors = False  # a refused pattern is reported to the user, not on stderr
    return options


_MATCH_ONLY = match_only_options()


@functools.lru_cache(maxsize=_CACHE_SIZE)
def compile_pattern(pattern: str) -> Any:
    """The compiled pattern (cached), or `PatternRefused` when RE2 cannot run it in linear time."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternRefused(f"patterns have at most {MAX_PATTERN_LENGTH} characters")
    try:
        return re2.compile(pattern, _MATCH_ONLY)
    except re2.error as exc:
        raise PatternRefused(_reason(exc)) from None
    except UnicodeEncodeError:
        raise PatternRefused("it is not valid Unicode text") from None


def _reason(exc: re2.error) -> str:
    detail = exc.args[0] if exc.args else ""
    text = detail.decode(errors="replace") if isinstance(detail, bytes) else str(detail)
    if "perl operator" in text or ("escape sequence: \\" in text and text[-1:].isdigit()):
        text += " (lookaround and backreferences are not supported: patterns run in linear time)"
    return text or "not a valid pattern"


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text`, in time linear in the text."""
    return compile_pattern(pattern).search(text) is not None
