"""Checking a URL and its host before anything is sent: syntax, scheme, host name, resolved addresses."""

from __future__ import annotations

import socket
import unicodedata
from collections.abc import Callable, Sequence
from ipaddress import IPv4Address, IPv6Address
from urllib.parse import urlsplit

from app.security.egress.addresses import IPAddress, address_problem, canonical, parse_resolved
from app.security.egress.allowlist import EgressAllowList
from app.security.egress.errors import EgressDenied
from app.security.egress.hosts import normalise_host

Resolver = Callable[[str, int], Sequence[str]]
"""Turns (host name, port) into address strings; raises OSError when the name does not resolve."""

ALLOWED_SCHEMES = {"http": 80, "https": 443}
MAX_URL_LENGTH = 8192
_NOTHING_OPEN = EgressAllowList()


def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's answer for `host` (every address family), as `getaddrinfo` gives it."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def check_url(url: str, *, allow: EgressAllowList | None = None, resolver: Resolver | None = None) -> None:
    """Raise EgressDenied unless `url` is an http(s) URL whose host and every resolved address may be reached.

    Blocking: the host is resolved here (`resolver`, default `getaddrinfo`); call it from a thread in async
    code. A name that does not resolve is refused. Passing this check says nothing about a later request:
    the egress client checks again, at connection time, the addresses it actually connects to.
    """
    allow = allow or _NOTHING_OPEN
    _check_characters(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise EgressDenied(f"the URL is malformed ({exc})", url) from None
    host = parts.netloc.rpartition("@")[2]
    if host.startswith("["):
        literal, bracket, rest = host.partition("]")
        if rest and not rest.startswith(":"):
            raise EgressDenied(f"the URL is malformed (text after the IPv6 address: {rest!r})", url)
        host = literal + bracket
    else:
        host = host.partition(":")[0]
    port = vet_origin(parts.scheme.lower(), has_userinfo="@" in parts.netloc, port=port, url=url)
    try:
        resolve_checked(host, port, allow=allow, resolver=resolver or system_resolver, url=url)
    except OSError as exc:
        raise EgressDenied(f"host {host} does not resolve ({exc})", url) from None


def _check_characters(url: str) -> None:
    if len(url) > MAX_URL_LENGTH:
        raise EgressDenied(f"the URL is longer than {MAX_URL_LENGTH} characters", url)
    for position, char in enumerate(url):
        # URL parsers disagree on all of these (some strip them, some stop at them, some treat "\" as "/"),
        # and a check that reads the URL differently from the client is no check.
        if char == "\\":
            raise EgressDenied(f"the URL contains a backslash at position {position}", url)
        if char.isspace() or unicodedata.category(char) in ("Cc", "Cf"):
            kind = "whitespace" if char.isspace() else "a control character"
            raise EgressDenied(f"the URL contains {kind} (U+{ord(char):04X}) at position {position}", url)


def vet_origin(scheme: str, *, has_userinfo: bool, port: int | None, url: str) -> int:
    """Check the scheme, credentials and port of a URL; return the port with the scheme default filled in."""
    if scheme not in ALLOWED_SCHEMES:
        raise EgressDenied(f"scheme {scheme or '(none)'} is not allowed; use http or https", url)
    if has_userinfo:
        reason = "credentials in the URL (user:password@) are not allowed; send them in a header"
        raise EgressDenied(reason, url)
    if port == 0:
        raise EgressDenied("port 0 is not a valid destination", url)
    return port or ALLOWED_SCHEMES[scheme]


def vet_host(raw_host: str, *, allow: EgressAllowList, url: str) -> IPAddress | str:
    """Normalise a URL host and refuse it if it is unsafe without looking it up: bad syntax, a loopback
    name, or an address literal outside the allow list. Returns the address or the name to resolve."""
    try:
        host = normalise_host(raw_host)
    except ValueError as exc:
        raise EgressDenied(str(exc), url) from None
    if isinstance(host, str):
        if not allow.allows_host(host) and (host == "localhost" or host.endswith(".localhost")):
            raise EgressDenied(f"host name {host} always means this machine (loopback)", url)
        return host
    problem = None if allow.allows_address(host) else address_problem(host)
    if problem is not None:
        raise EgressDenied(f"host {raw_host} is {problem}", url)
    return host


def resolve_checked(
    raw_host: str, port: int, *, allow: EgressAllowList, resolver: Resolver, url: str
) -> tuple[IPAddress, ...]:
    """The addresses of a host, each one checked; raise EgressDenied if any single one is refused.

    Raises OSError when a name has no addresses, so callers can tell "does not resolve" from "refused".
    """
    host = vet_host(raw_host, allow=allow, url=url)
    if isinstance(host, IPv4Address | IPv6Address):
        return (host,)
    opened_by_name = allow.allows_host(host)
    addresses: list[IPAddress] = []
    for answer in resolver(host, port):
        try:
            address = canonical(parse_resolved(answer))
        except ValueError:
            reason = f"host {host} resolved to something that is no address ({answer!r})"
            raise EgressDenied(reason, url) from None
        problem = None if opened_by_name or allow.allows_address(address) else address_problem(address)
        if problem is not None:
            raise EgressDenied(f"host {host} resolves to {problem}", url)
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise OSError(f"no addresses for {host}")
    return tuple(addresses)
