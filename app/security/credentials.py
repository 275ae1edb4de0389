"""The one detector of credentials written as plain text: in a definition, a request, a problem message.

Used where a definition is checked (the validator's `literal_secret` warning, the authoring checks) and
wherever text or a definition is about to leave for a model (requests, NL changes, reviews): finding and
cutting agree because both ask this module.

A literal counts as a credential when it carries a provider's key prefix (`sk-live-…`, `ghp_…`, `AKIA…`,
a JWT) anywhere, or when it is an opaque token (12+ characters mixing letters and digits, no spaces)
under a credential-like name: a header or query parameter such as `Authorization` or `X-Api-Key`, or a
query parameter of a URL. Template strings are never credentials: they are filled at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import re2

Path = tuple[str | int, ...]

REMOVED = "[credential removed]"
# Both patterns below run on every string of a saved definition (up to the body cap) and on model
# answers: RE2 keeps them linear in the text, where Python's `re` backtracks quadratically on input such
# as "eyJ" repeated (the JWT branch) or "token" followed by a long run of spaces.
# Prefixes providers give their keys: a value carrying one is a credential wherever it appears.
_KNOWN_KEY = re2.compile(
    r"(sk-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{12,}|sk_(?:live|test)_[A-Za-z0-9]{12,}|"
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}|"
    r"AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}|glpat-[A-Za-z0-9_\-]{20,}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})"
)
# Header or parameter names that carry credentials.
_CREDENTIAL_NAME = re.compile(
    r"(auth|api[-_]?key|token|secret|passw|cookie|signature|session)", re.IGNORECASE
)
_SCHEME_WORD = re.compile(r"^(bearer|basic|token|apikey|key)\s+", re.IGNORECASE)
_MIN_OPAQUE = 12
# Spelled-out credentials in free text: "token: abc…", "password=…", "Bearer abc…".
_LABELLED = re2.compile(
    r"(?i)((?:api[-_ ]?key|token|secret|password|passwd|bearer)\s*[:=]?\s*)([^\s\"',;]{8,})"
)
# The same markers as the template engine's: a template string is filled at run time, not a literal.
_TEMPLATE_MARKERS = ("{{", "{%", "{#")
# Objects whose keys are header or parameter names, so the key says what the value is.
_NAMED_VALUES = frozenset({"headers", "query", "params"})
_SECRET_REF = "$secret"  # noqa: S105 (the reference key, not a secret)


def looks_like_credential(name: str | None, value: str) -> bool:
    """A literal that is a known key format, or an opaque token under a credential-like name."""
    if _KNOWN_KEY.search(value):
        return True
    if name is None or not _CREDENTIAL_NAME.search(name) or _is_template(value):
        return False
    token = _SCHEME_WORD.sub("", value.strip())
    return (
        len(token) >= _MIN_OPAQUE
        and " " not in token
        and any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
    )


def scrub(text: str) -> tuple[str, bool]:
    """The text with anything credential-like replaced, and whether something was replaced."""
    cleaned = _KNOWN_KEY.sub(REMOVED, text)
    cleaned = _LABELLED.sub(
        lambda m: m.group(1) + (REMOVED if looks_like_credential("token", m.group(2)) else m.group(2)),
        cleaned,
    )
    return cleaned, cleaned != text


def credential_literals(document: Any) -> Iterator[tuple[Path, str | None]]:
    """Where a JSON value holds a credential as plain text: each string's path, and the name of the
    query parameter when the credential sits in a URL's query string (None otherwise)."""
    # Children are pushed in reverse so that they come off the stack in document order.
    stack: list[tuple[Any, Path]] = [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if _SECRET_REF in node:
                continue  # a reference names a credential without holding it
            items = [(value, (*path, key)) for key, value in node.items() if isinstance(key, str)]
            stack.extend(reversed(items))
        elif isinstance(node, list):
            stack.extend(reversed([(value, (*path, index)) for index, value in enumerate(node)]))
        elif isinstance(node, str):
            for name in _string_credentials(path, node):
                yield path, name


def _string_credentials(path: Path, value: str) -> list[str | None]:
    key = path[-1] if path and isinstance(path[-1], str) else None
    named = key is not None and len(path) >= 2 and path[-2] in _NAMED_VALUES
    if looks_like_credential(key if named else None, value):
        return [None]
    if key != "url" or _is_template(value) or "?" not in value:
        return []
    try:
        query = urlsplit(value).query
    except ValueError:
        return []
    return [name for name, item in parse_qsl(query) if looks_like_credential(name, item)]


def without_credentials(document: Any) -> tuple[Any, list[Path]]:
    """A copy of a JSON value fit to show a model: every credential literal cut out of its string
    (the whole string replaced when nothing narrower can be cut), and the paths that were changed."""
    changed = list(dict.fromkeys(path for path, _ in credential_literals(document)))
    if not changed:
        return document, []
    if isinstance(document, str):
        cleaned, cut = scrub(document)
        return (cleaned if cut and not _string_credentials((), cleaned) else REMOVED), changed
    # Copy on write along the changed paths only: no recursion, and untouched parts are shared.
    result = _shallow(document)
    copied = {id(result)}
    for path in changed:
        parent = result
        for part in path[:-1]:
            child = parent[part]
            if id(child) not in copied:
                child = parent[part] = _shallow(child)
                copied.add(id(child))
            parent = child
        cleaned, cut = scrub(parent[path[-1]])
        parent[path[-1]] = cleaned if cut and not _string_credentials(path, cleaned) else REMOVED
    return result, changed


def _shallow(node: Any) -> Any:
    return dict(node) if isinstance(node, dict) else list(node)


def _is_template(value: str) -> bool:
    return any(marker in value for marker in _TEMPLATE_MARKERS)
