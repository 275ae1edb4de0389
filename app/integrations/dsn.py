"""PostgreSQL DSNs of registered databases: parsed strictly, and their host checked by the egress guard.

Kept apart from the query runner so that services can check a DSN without loading a database driver.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from app.security.egress import EgressAllowList
from app.security.egress.targets import resolve_checked, system_resolver

_SSL_MODES = {"disable", "prefer", "require"}


class DsnProblem(ValueError):
    """A DSN that cannot be used; the message never quotes the DSN."""


@dataclass(frozen=True, repr=False)
class Dsn:
    """A parsed PostgreSQL DSN. Its repr names no credential."""

    host: str
    port: int
    database: str
    user: str | None
    password: str | None
    sslmode: str

    def __repr__(self) -> str:
        return f"Dsn(database={self.database!r})"


def parse_dsn(text: str) -> Dsn:
    """Read `postgresql://user:password@host:port/database?sslmode=…`; raise `DsnProblem` otherwise."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port or 5432
    except ValueError:
        raise DsnProblem("the DSN is not a valid URL") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise DsnProblem("the DSN must start with postgresql://")
    if not parts.hostname:
        raise DsnProblem("the DSN must name a host (Unix sockets are not allowed)")
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise DsnProblem("the DSN must name a database")
    options = dict(parse_qsl(parts.query))
    unknown = set(options) - {"sslmode"}
    if unknown:
        raise DsnProblem(f"the DSN may only carry sslmode ({len(unknown)} other option(s) given)")
    sslmode = options.get("sslmode", "prefer")
    if sslmode not in _SSL_MODES:
        raise DsnProblem(f"sslmode must be one of {', '.join(sorted(_SSL_MODES))}")
    return Dsn(
        host=parts.hostname,
        port=port,
        database=database,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        sslmode=sslmode,
    )


async def checked_address(dsn: Dsn, allow: EgressAllowList) -> str:
    """The address to connect to, after the egress guard's check; `EgressDenied` or `OSError` if none."""
    addresses = await asyncio.to_thread(
        resolve_checked,
        dsn.host,
        dsn.port,
        allow=allow,
        resolver=system_resolver,
        url=f"postgresql://{dsn.host}:{dsn.port}",
    )
    return str(addresses[0])
