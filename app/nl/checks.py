"""Deterministic checks a proposal must pass besides the validator: references to this space's secrets,
credentials pasted as literals, and outbound URLs aimed at addresses the egress guard would refuse.

Messages never quote a suspected credential: they go back to the generator and into the draft.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app.definitions.pointers import join
from app.engine.validation import Problem
from app.engine.validation.templates import is_template
from app.nl.context import SpaceNames
from app.nl.usage import steps, walk
from app.security.egress import EgressAllowList, EgressDenied
from app.security.egress.targets import vet_host, vet_origin

SECRET_REF = "$secret"  # noqa: S105 (the reference key, not a secret)
# Prefixes providers give their keys: a value carrying one is a credential wherever it appears.
_KNOWN_KEY = re.compile(
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
# Spelled-out credentials in a request: "token: abc…", "password=…", "Bearer abc…".
_LABELLED = re.compile(
    r"((?:api[-_ ]?key|token|secret|password|passwd|bearer)\s*[:=]?\s*)([^\s\"',;]{8,})", re.IGNORECASE
)
REMOVED = "[credential removed]"
# Host names that reach cloud metadata services without being address literals.
_METADATA_HOSTS = frozenset(
    {"metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"}
)


def looks_like_credential(name: str | None, value: str) -> bool:
    """A literal that is a known key format, or an opaque token under a credential-like name."""
    if _KNOWN_KEY.search(value):
        return True
    if name is None or not _CREDENTIAL_NAME.search(name) or is_template(value):
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


def proposal_problems(document: Any, names: SpaceNames, egress_allow: EgressAllowList) -> list[Problem]:
    """Problems the validator does not look for; `document` may be any JSON value."""
    if not isinstance(document, dict):
        return []
    problems: list[Problem] = []
    for path, node in walk(document):
        if isinstance(node, dict) and SECRET_REF in node:
            problems += _secret_reference(path, node, names)
        elif isinstance(node, str):
            problems += _literal_credential(path, node)
    for path, step in steps(document):
        config = step.get("config")
        if isinstance(config, dict) and isinstance(config.get("url"), str):
            problems += _url((*path, "config", "url"), config["url"], egress_allow)
    return problems


def _secret_reference(path: tuple[str | int, ...], node: dict[str, Any], names: SpaceNames) -> list[Problem]:
    name = node[SECRET_REF]
    if not isinstance(name, str) or len(node) != 1:
        return [
            Problem(join(*path), "invalid_secret_reference", 'a secret reference is {"$secret": "<name>"}')
        ]
    if name not in names.secrets:
        known = ", ".join(names.secrets) or "none yet"
        return [
            Problem(
                join(*path, SECRET_REF),
                "unknown_secret",
                f"this space has no secret {name!r} (it has: {known})",
            )
        ]
    return []


def _literal_credential(path: tuple[str | int, ...], value: str) -> list[Problem]:
    key = path[-1] if path and isinstance(path[-1], str) else None
    in_query = key is not None and len(path) >= 2 and path[-2] in ("headers", "query")
    if not looks_like_credential(key if in_query else None, value):
        return []
    return [
        Problem(
            join(*path),
            "literal_secret",
            "this value looks like a credential written into the definition; store it as a secret and "
            'reference it as {"$secret": "<name>"} instead',
        )
    ]


def _url(path: tuple[str | int, ...], url: str, allow: EgressAllowList) -> list[Problem]:
    """Refuse literal targets the egress guard would refuse; a templated origin is checked when sent."""
    scheme, _, rest = url.partition("://")
    if is_template(scheme) or is_template(rest.split("/", 1)[0]):
        return []
    problems: list[Problem] = []
    try:
        parts = urlsplit(url)
        vet_origin(parts.scheme.lower(), has_userinfo="@" in parts.netloc, port=parts.port, url=url)
        host = parts.hostname or ""
        if host.lower().rstrip(".") in _METADATA_HOSTS:
            raise EgressDenied(f"host {host} is a cloud metadata service", url)
        vet_host(_bracketed(host), allow=allow, url=url)
    except EgressDenied as exc:
        problems.append(Problem(join(*path), "unsafe_url", f"requests cannot go there: {exc.reason}"))
    except ValueError as exc:
        problems.append(Problem(join(*path), "unsafe_url", f"the URL is malformed ({exc})"))
        return problems
    for name, value in parse_qsl(parts.query):
        if looks_like_credential(name, value):
            problems.append(
                Problem(
                    join(*path),
                    "literal_secret",
                    f"the query parameter {name!r} looks like a credential; send it from a secret instead",
                )
            )
    return problems


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def without_literal_credentials(document: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """A copy of a generated proposal with every string a `literal_secret` problem points at replaced, so
    a credential a model wrote is neither kept in the draft nor shown again."""
    flagged = {problem.path for problem in problems if problem.code == "literal_secret"}
    if not flagged:
        return document
    return {key: _replace_strings(value, (key,), flagged) for key, value in document.items()}


def _replace_strings(node: Any, path: tuple[str | int, ...], flagged: set[str]) -> Any:
    if isinstance(node, dict):
        return {key: _replace_strings(value, (*path, key), flagged) for key, value in node.items()}
    if isinstance(node, list):
        return [_replace_strings(value, (*path, index), flagged) for index, value in enumerate(node)]
    if isinstance(node, str) and join(*path) in flagged:
        cleaned, changed = scrub(node)
        return cleaned if changed else REMOVED
    return node
