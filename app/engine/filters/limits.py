"""Limits of the filter grammar, and the error that reports a broken filter document.

The limits keep a compiled filter small and its evaluation cheap whatever a user saves: a filter runs
for every matching event, so its cost must be bounded at save time, not discovered on the hot path.
"""

from __future__ import annotations

MAX_DEPTH = 10
"""Filter documents nest at most this many levels (the top document is level 1)."""
MAX_NODES = 200
"""Every filter document and every operator counts one node."""
MAX_LIST_ITEMS = 1000
"""Items in an `in` / `not_in` operand."""
MAX_TEXT_LENGTH = 1024
"""Characters in a string operand."""
MAX_PATTERN_LENGTH = 512
"""Characters in a `regex` pattern."""
MAX_REGEXES = 20
"""`regex` operators per filter: each compiled pattern may hold up to `REGEX_MAX_MEM` bytes."""
REGEX_MAX_MEM = 1 << 20
"""Memory budget of one compiled RE2 pattern (RE2's default is 8 MiB)."""
MAX_PATH_SEGMENTS = 16
MAX_PATH_LENGTH = 256
MAX_PROBLEMS = 100
"""`check_filter` stops collecting after this many problems, so its answer stays small."""


class FilterError(ValueError):
    """A filter document that does not follow the grammar.

    `path` is a JSON pointer (RFC 6901) into the filter document, `message` says what is wrong there,
    and `problems` lists every (pointer, message) found, the first of which is `path`/`message`.
    """

    def __init__(self, path: str, message: str, problems: tuple[tuple[str, str], ...] = ()) -> None:
        self.path = path
        self.message = message
        self.problems = problems or ((path, message),)
        super().__init__(f"{message} (at {path!r})" if path else message)
