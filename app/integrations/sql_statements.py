"""Which command a query is, read from its first keyword, to refuse clearly what is no read.

This is the clear answer, not the wall: a read-only query runs as the body of a cursor
(`DECLARE … CURSOR FOR <sql>`), so the server's own grammar accepts only one SELECT, VALUES or TABLE
(with WITH), with no data-modifying WITH and no SELECT INTO, whatever the text hides. A first word
that names no command (a typo) is left to the server, whose syntax error says more.
"""

from __future__ import annotations

import re

# PostgreSQL's commands other than the reads (SELECT, WITH, VALUES, TABLE), by their first word.
OTHER_COMMANDS = frozenset(
    {
        "abort",
        "alter",
        "analyze",
        "begin",
        "call",
        "checkpoint",
        "close",
        "cluster",
        "comment",
        "commit",
        "copy",
        "create",
        "deallocate",
        "declare",
        "delete",
        "discard",
        "do",
        "drop",
        "end",
        "execute",
        "explain",
        "fetch",
        "grant",
        "import",
        "insert",
        "listen",
        "load",
        "lock",
        "merge",
        "move",
        "notify",
        "prepare",
        "reassign",
        "refresh",
        "reindex",
        "release",
        "reset",
        "revoke",
        "rollback",
        "savepoint",
        "security",
        "set",
        "show",
        "start",
        "truncate",
        "unlisten",
        "update",
        "vacuum",
    }
)

_WORD = re.compile(r"[A-Za-z_]+")


def first_keyword(sql: str) -> str:
    """The statement's first word, lower-cased, after blanks, comments and opening parentheses ("" when
    there is none)."""
    position = 0
    while position < len(sql):
        char = sql[position]
        if char.isspace() or char == "(":
            position += 1
        elif sql.startswith("--", position):
            end = sql.find("\n", position)
            position = len(sql) if end < 0 else end + 1
        elif sql.startswith("/*", position):
            position = _after_block_comment(sql, position)
        else:
            found = _WORD.match(sql, position)
            return found.group(0).lower() if found else ""
    return ""


def _after_block_comment(sql: str, position: int) -> int:
    """Where a block comment starting at `position` ends; PostgreSQL's block comments nest."""
    depth = 0
    while position < len(sql):
        if sql.startswith("/*", position):
            depth += 1
            position += 2
        elif sql.startswith("*/", position):
            depth -= 1
            position += 2
            if depth == 0:
                return position
        else:
            position += 1
    return position


def other_command(sql: str) -> str | None:
    """The command the statement starts with when it is one that is no read (`INSERT`, `NOTIFY`…)."""
    keyword = first_keyword(sql)
    return keyword.upper() if keyword in OTHER_COMMANDS else None
