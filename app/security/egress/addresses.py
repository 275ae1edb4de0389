"""Which IP addresses outbound requests may reach, and how every spelling of an address is read.

The table below is explicit on purpose: `ipaddress.is_global` / `is_private` changed their answers between
CPython patch releases, so a security decision must not depend on which interpreter happens to run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

IPAddress = IPv4Address | IPv6Address

# First match wins, so narrow entries come before the wider ranges that contain them.
_IPV4_BLOCKED: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(network), label)
    for network, label in (
        ("0.0.0.0/32", "the unspecified address"),
        ("0.0.0.0/8", "a 'this network' address"),
        ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
        ("127.0.0.0/8", "a loopback address"),
        # Cloud metadata services (169.254.169.254) live here.
        ("169.254.0.0/16", "a link-local address"),
        ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "an IETF protocol assignment address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a 6to4 relay anycast address"),
        ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("255.255.255.255/32", "the broadcast address"),
        ("240.0.0.0/4", "a reserved address"),
    )
)

_IPV6_BLOCKED: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(network), label)
    for network, label in (
        ("::/128", "the unspecified address"),
        ("::1/128", "a loopback address"),
        # Local-use NAT64 (RFC 8215): the operator picks where the IPv4 part sits, so it cannot be
        # checked and the whole prefix is refused.
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001:2::/48", "a benchmarking address"),
        ("2001:10::/28", "an ORCHID address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("5f00::/16", "a segment-routing (SRv6) address"),
        ("fc00::/7", "a unique-local address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"),
        ("ff00::/8", "a multicast address"),
    )
)


def _low_32_bits(address: IPv6Address) -> tuple[IPv4Address, ...]:
    return (IPv4Address(int(address) & 0xFFFFFFFF),)


def _sixtofour(address: IPv6Address) -> tuple[IPv4Address, ...]:
    return (IPv4Address((int(address) >> 80) & 0xFFFFFFFF),)


def _teredo(address: IPv6Address) -> tuple[IPv4Address, ...]:
    # The server address is stored plainly, the client address bit-inverted (RFC 4380).
    server = IPv4Address((int(address) >> 64) & 0xFFFFFFFF)
    client = IPv4Address(~int(address) & 0xFFFFFFFF)
    return server, client


# IPv6 ranges that carry an IPv4 address inside them: the embedded address is checked as well.
_IPV6_EMBEDDING: tuple[tuple[IPv6Network, str, Callable[[IPv6Address], tuple[IPv4Address, ...]]], ...] = (
    (IPv6Network("::ffff:0:0:0/96"), "an IPv4-translated address", _low_32_bits),
    (IPv6Network("64:ff9b::/96"), "a NAT64 address", _low_32_bits),
    (IPv6Network("::/96"), "an IPv4-compatible address", _low_32_bits),
    (IPv6Network("2002::/16"), "a 6to4 address", _sixtofour),
    (IPv6Network("2001::/32"), "a Teredo address", _teredo),
)
# Outside the ranges above, only this block is allocated for global unicast; the rest is IETF-reserved.
_IPV6_GLOBAL_UNICAST = IPv6Network("2000::/3")


def canonical(address: IPAddress) -> IPAddress:
    """IPv4-mapped IPv6 (`::ffff:a.b.c.d`) as the IPv4 address it reaches; other addresses unchanged."""
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _ipv4_problem(address: IPv4Address) -> str | None:
    for network, label in _IPV4_BLOCKED:
        if address in network:
            return f"{label} {address}"
    return None


def address_problem(address: IPAddress) -> str | None:
    """Why `address` must not be contacted (e.g. "a private address 10.0.0.5"), or None if it is public."""
    address = canonical(address)
    if isinstance(address, IPv4Address):
        return _ipv4_problem(address)
    for network, label in _IPV6_BLOCKED:
        if address in network:
            return f"{label} {address}"
    for network, label, embedded in _IPV6_EMBEDDING:
        if address in network:
            for inner in embedded(address):
                problem = _ipv4_problem(inner)
                if problem is not None:
                    return f"{label} embedding {problem}"
            return None
    if address not in _IPV6_GLOBAL_UNICAST:
        return f"a reserved IPv6 address {address}"
    return None


_NUMBER = re.compile(r"0x[0-9a-f]*|[0-9]+")


def _ipv4_part(text: str) -> int:
    if text.startswith("0x"):
        return int(text[2:] or "0", 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8)  # raises ValueError on 8 or 9, like inet_aton
    return int(text)


def parse_ipv4_number(host: str) -> IPv4Address | None:
    """Read a lower-case host the way `inet_aton` does: `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`.

    Returns None when the host is a name (its last label is not a number). Raises ValueError when the last
    label is a number but the whole is no valid address (`1.2.3.256`, `08.1.1.1`): such hosts are ambiguous
    between parsers and resolvers, so callers refuse them.
    """
    parts = host.split(".")
    if _NUMBER.fullmatch(parts[-1]) is None:
        return None
    if len(parts) > 4 or any(_NUMBER.fullmatch(part) is None for part in parts):
        raise ValueError(f"{host} is neither a host name nor an IPv4 address")
    *leading, last = (_ipv4_part(part) for part in parts)
    if any(value > 0xFF for value in leading) or last >= 1 << (8 * (4 - len(leading))):
        raise ValueError(f"{host} is out of range for an IPv4 address")
    value = last
    for index, part in enumerate(leading):
        value |= part << (8 * (3 - index))
    return IPv4Address(value)


def parse_resolved(text: str) -> IPAddress:
    """An address as a resolver returns it; a scope suffix (`fe80::1%eth0`) is dropped before parsing."""
    return ip_address(text.partition("%")[0])
