"""What a document's fields may hold: each refusal is a 422 naming the field."""

from __future__ import annotations

import json
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from app.errors import ErrorDetail, ValidationFailed
from app.services.knowledge.limits import MAX_METADATA_BYTES, MAX_TAG_CHARS, MAX_TAGS, MAX_TITLE_CHARS


def refuse(code: str, path: str, problem: str) -> ValidationFailed:
    return ValidationFailed(problem, code=code, details=[ErrorDetail(path=path, message=problem)])


def _printable(value: str) -> bool:
    return not any(unicodedata.category(char) in ("Cc", "Cs") for char in value)


def clean_title(title: Any) -> str:
    if not isinstance(title, str) or not title.strip():
        raise refuse("invalid_title", "/title", "a title is a non-empty string")
    cleaned: str = title.strip()
    if len(cleaned) > MAX_TITLE_CHARS or not _printable(cleaned):
        raise refuse(
            "invalid_title", "/title", f"a title has 1 to {MAX_TITLE_CHARS} characters, none of them control"
        )
    return cleaned


def clean_tags(tags: Any) -> list[str]:
    """Tags trimmed, de-duplicated in order; each 1 to 100 printable characters, at most 50."""
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise refuse("invalid_tags", "/tags", "tags are a list of strings")
    cleaned: list[str] = []
    for tag in (tag.strip() for tag in tags):
        if not tag or len(tag) > MAX_TAG_CHARS or not _printable(tag):
            raise refuse("invalid_tags", "/tags", f"a tag has 1 to {MAX_TAG_CHARS} printable characters")
        if tag not in cleaned:
            cleaned.append(tag)
    if len(cleaned) > MAX_TAGS:
        raise refuse("invalid_tags", "/tags", f"a document has at most {MAX_TAGS} tags")
    return cleaned


def clean_metadata(metadata: Any) -> dict[str, Any]:
    if not isinstance(metadata, dict):
        raise refuse("invalid_metadata", "/metadata", "metadata is a JSON object")
    try:
        size = len(json.dumps(metadata, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError):
        raise refuse("invalid_metadata", "/metadata", "metadata is JSON data (no NaN or infinity)") from None
    if size > MAX_METADATA_BYTES or "\\u0000" in json.dumps(metadata):
        raise refuse(
            "invalid_metadata", "/metadata", f"metadata is at most {MAX_METADATA_BYTES} bytes, no NUL"
        )
    return metadata


def clean_source_url(url: Any) -> str | None:
    """An http(s) URL the document came from: kept as a label, never fetched by the service."""
    if url is None:
        return None
    if not isinstance(url, str) or len(url) > 2048 or not _printable(url):
        raise refuse(
            "invalid_source_url", "/source_url", "source_url is an http(s) URL of at most 2048 chars"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket: not a URL at all
        raise refuse("invalid_source_url", "/source_url", "source_url is an http(s) URL") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise refuse("invalid_source_url", "/source_url", "source_url is an http(s) URL")
    return url


def clean_text(text: Any, max_chars: int) -> str:
    if not isinstance(text, str):
        raise refuse("invalid_text", "/text", "text is a string")
    if "\x00" in text:
        raise refuse("invalid_text", "/text", "text may not contain NUL characters")
    if len(text) > max_chars:
        raise refuse("document_too_large", "/text", f"text has at most {max_chars} characters")
    return text


def clean_source(source: str | None) -> str | None:
    """A `source` filter: printable text (a query parameter may carry anything, NUL included)."""
    if source is None or source == "":
        return None
    if not _printable(source):
        raise refuse("invalid_source", "/query/source", "source is printable text")
    return source
