"""Secrets a capability call is sending, handed to the egress transport for the length of the call.

The capability pipeline substitutes secret values into a call's arguments; whatever HTTP the call then
makes (an http action, MCP over HTTP, Slack, a plugin's request) goes through the egress transport. The
pipeline puts the values it substituted, with the hosts each may reach, into a context variable
(`carrying`); the transport reads it on every request, first hop and redirect hops alike, before any
socket opens: a request that holds a value bound to other hosts is refused, and a cross-origin redirect
of a request that holds any value is never followed. A call without secrets sets nothing, so its
requests pay one context-variable read.

Host patterns: a host name (`api.example.com`), a leading wildcard for its subdomains
(`*.example.com`, which does not match `example.com` itself), or an IP address. An empty list means
"any host the egress guard lets through".
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address
from urllib.parse import quote, quote_plus

from app.security.egress.addresses import IPAddress
from app.security.egress.hosts import normalise_host

MAX_HOSTS = 20
WILDCARD = "*."


@dataclass(frozen=True)
class CarriedSecret:
    """One secret value a call may send, and the hosts it may go to (empty: any host egress allows)."""

    name: str
    value: str = field(repr=False)
    hosts: tuple[str, ...] = ()

    def allows(self, host: str) -> bool:
        """Whether a request to `host` (as the URL spells it) may carry this value."""
        return not self.hosts or host_allowed(host, self.hosts)

    @functools.cached_property
    def spellings(self) -> tuple[bytes, ...]:
        """The forms the value takes on the wire: raw, JSON-escaped, percent-encoded."""
        forms = {
            self.value,
            json.dumps(self.value)[1:-1],
            json.dumps(self.value, ensure_ascii=False)[1:-1],
            quote(self.value, safe=""),
            quote_plus(self.value, safe=""),
        }
        return tuple(form.encode("utf-8") for form in forms if form)


_CARRIED: ContextVar[tuple[CarriedSecret, ...]] = ContextVar("egress_carried_secrets", default=())


@contextmanager
def carrying(secrets: Iterable[CarriedSecret]) -> Iterator[None]:
    """Every request made inside the block (and in tasks it starts) is checked against `secrets`."""
    token = _CARRIED.set((*_CARRIED.get(), *secrets))
    try:
        yield
    finally:
        _CARRIED.reset(token)


def carried() -> tuple[CarriedSecret, ...]:
    """The secrets of the call in progress (empty outside one)."""
    return _CARRIED.get()


def found_in(parts: Sequence[bytes], secrets: Iterable[CarriedSecret]) -> list[CarriedSecret]:
    """The secrets whose value appears, in any of its spellings, in any of `parts` of a request."""
    return [
        secret
        for secret in secrets
        if any(spelling in part for spelling in secret.spellings for part in parts)
    ]


def host_pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is no host pattern (see the module docstring), or None when it is one, normalised."""
    if not isinstance(pattern, str) or not pattern:
        return "must be a non-empty host name"
    body = pattern[len(WILDCARD) :] if pattern.startswith(WILDCARD) else pattern
    if any(char in body for char in "/:@?#*") and not _is_ipv6(body):
        return "must be a bare host name (no scheme, port, path or other wildcard), e.g. api.example.com"
    try:
        host = normalise_host(body)
    except ValueError as exc:
        return str(exc)
    if isinstance(host, IPv4Address | IPv6Address) and pattern.startswith(WILDCARD):
        return "a wildcard applies to host names, not to addresses"
    if isinstance(host, str) and "." not in host and pattern.startswith(WILDCARD):
        return "a wildcard needs a domain with at least two labels, e.g. *.example.com"
    return None


def normalised_pattern(pattern: str) -> str:
    """The canonical spelling of a valid host pattern (lower case, IDNA, canonical address)."""
    wildcard = pattern.startswith(WILDCARD)
    host = _spelled(normalise_host(pattern[len(WILDCARD) :] if wildcard else pattern))
    return WILDCARD + host if wildcard else host


def host_allowed(host: str, patterns: Iterable[str]) -> bool:
    """Whether `host` (a URL host, any spelling) matches one of `patterns` (normalised host patterns)."""
    try:
        name = _spelled(normalise_host(host))
    except ValueError:
        return False
    for pattern in patterns:
        if pattern.startswith(WILDCARD):
            if name.endswith(pattern[1:]):
                return True
        elif name == pattern:
            return True
    return False


def _spelled(host: IPAddress | str) -> str:
    return host if isinstance(host, str) else str(host)


def _is_ipv6(text: str) -> bool:
    try:
        IPv6Address(text.strip("[]"))
    except ValueError:
        return False
    return True
