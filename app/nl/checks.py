"""Deterministic checks a proposal must pass besides the validator: references to this space's secrets,
credentials pasted as literals, and outbound URLs aimed at addresses the egress guard would refuse.

Messages never quote a suspected credential: they go back to the generator and into the draft.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from app.definitions.pointers import join
from app.engine.validation import Problem
from app.engine.validation.credentials import LITERAL_SECRET, literal_message
from app.engine.validation.templates import is_template
from app.nl.context import SpaceNames
from app.nl.usage import steps, walk
from app.security.credentials import REMOVED, credential_literals, without_credentials
from app.security.egress import EgressAllowList, EgressDenied
from app.security.egress.targets import vet_host, vet_origin

SECRET_REF = "$secret"  # noqa: S105 (the reference key, not a secret)
# A model only ever saw the marker where a credential was cut: saving the marker would break the step.
CREDENTIAL_REMOVED = "credential_removed"
CUT_MESSAGE = (
    "a credential was cut here before the model saw it; reference a stored secret here instead "
    '({"$secret": "<name>"})'
)
# Host names that reach cloud metadata services without being address literals.
_METADATA_HOSTS = frozenset(
    {"metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"}
)


def proposal_problems(document: Any, names: SpaceNames, egress_allow: EgressAllowList) -> list[Problem]:
    """Problems the validator does not look for, and credential literals, which the validator only warns
    about and a proposal may not hold (errors here); `document` may be any JSON value."""
    if not isinstance(document, dict):
        return []
    problems: list[Problem] = []
    for path, node in walk(document):
        if isinstance(node, dict) and SECRET_REF in node:
            problems += _secret_reference(path, node, names)
        elif isinstance(node, str) and REMOVED in node:
            problems.append(Problem(join(*path), CREDENTIAL_REMOVED, CUT_MESSAGE))
    problems += [
        Problem(join(*path), LITERAL_SECRET, literal_message(parameter))
        for path, parameter in credential_literals(document)
    ]
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


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def without_literal_credentials(document: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """A copy of a generated proposal with its credential literals cut out, so a credential a model wrote
    is neither kept in the draft nor shown again."""
    if not any(problem.code == LITERAL_SECRET for problem in problems):
        return document
    cleaned: dict[str, Any] = without_credentials(document)[0]
    return cleaned
