"""One reading of a URL host, shared by the URL check, the allow list and the connection backend."""

from __future__ import annotations

import re
import unicodedata
from ipaddress import IPv6Address

from app.security.egress.addresses import IPAddress, canonical, parse_ipv4_number

_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_MAX_NAME = 253
# Dots that IDNA treats as label separators; NFKC already folds the full-width and half-width ones.
_IDEOGRAPHIC_FULL_STOP = "\u3002"


def normalise_host(raw: str) -> IPAddress | str:
    """The address or lower-case ASCII name a raw URL host stands for.

    Full-width and other compatibility characters are folded (NFKC), one trailing dot is dropped, numeric
    IPv4 spellings are read as `inet_aton` would, IPv4-mapped IPv6 becomes IPv4, and international names
    are IDNA-encoded. Raises ValueError with a readable reason for anything that is neither.
    """
    text = unicodedata.normalize("NFKC", raw).replace(_IDEOGRAPHIC_FULL_STOP, ".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        return _ipv6_literal(text)
    text = text.lower()
    if text.endswith("."):
        text = text[:-1]
    if not text:
        raise ValueError("the URL has no host")
    try:
        number = parse_ipv4_number(text)
    except ValueError as exc:
        raise ValueError(f"host {raw} looks numeric but is no valid IPv4 address") from exc
    if number is not None:
        return number
    if not text.isascii():
        try:
            text = text.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise ValueError(f"host {raw} is not a valid international domain name") from exc
    if len(text) > _MAX_NAME or not all(_LABEL.fullmatch(label) for label in text.split(".")):
        raise ValueError(f"host {raw} is not a valid host name")
    return text


def _ipv6_literal(text: str) -> IPAddress:
    if "%" in text:
        # Zone ids only make sense for link-local targets, and `%25` decoding differs between parsers.
        raise ValueError(f"IPv6 zone identifiers are not allowed ({text})")
    try:
        return canonical(IPv6Address(text))
    except ValueError as exc:
        raise ValueError(f"host {text} is not a valid IPv6 address") from exc
