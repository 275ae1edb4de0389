"""JSON pointers (RFC 6901) for locating problems inside a submitted document."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def child(parent: str, token: str | int) -> str:
    """The pointer of `token` below `parent`: child("/plan", 0) == "/plan/0"."""
    return parent + "/" + escape(token)


def join(*parts: str | int) -> str:
    """Build a pointer from path segments: join("plan", 0, "config") == "/plan/0/config"."""
    return "".join("/" + escape(part) for part in parts)


def locate(loc: Iterable[str | int], document: Any) -> str:
    """Turn a pydantic error location into a pointer into the document that was validated.

    Pydantic inserts segments that are not keys of the input (the tag of a discriminated union,
    validator names); walking the document alongside the location drops exactly those.
    """
    parts: list[str | int] = []
    node = document
    for segment in loc:
        if isinstance(node, dict) and isinstance(segment, str) and segment in node:
            parts.append(segment)
            node = node[segment]
        elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
            parts.append(segment)
            node = node[segment]
        elif isinstance(node, dict) and isinstance(segment, str) and not _is_synthetic(segment, node):
            # A missing required field or an unknown one: point at where it belongs.
            parts.append(segment)
            node = None
        # anything else is a union tag or validator name that has no place in the document
    return join(*parts)


def _is_synthetic(segment: str, node: dict[str, Any]) -> bool:
    """A discriminated union's tag (the node's own `type`) or a validator's name."""
    return "[" in segment or node.get("type") == segment
