"""Client addresses that keep failing authentication are refused for a while, before they cost work.

Without a token an outsider still makes the API read and parse a body of up to `max_body_bytes` and look
a token digest up in the database, once per request. This middleware counts every 401 per client
address in Redis (the GCRA limiter that also limits webhook fires, so all API processes share the count)
and, once an address is over `auth_failure_limit` per `auth_failure_window_seconds`, answers its requests
429 for the time the limiter names: in memory, before the body is read and before any query, so a
refused request costs neither Redis nor PostgreSQL. Requests that authenticate are never counted, so
legitimate traffic pays nothing. If Redis cannot be asked, the count fails open (the limiter warns).

IPv6 clients are counted per /64, the block one subscriber usually holds: counting single addresses
would let one host rotate through 2^64 of them. Behind a reverse proxy the client address is the one
uvicorn derives from `X-Forwarded-For` (trusted only from `FORWARDED_ALLOW_IPS`). Outside production,
loopback and unix-socket callers are not counted (local tools and tests). In production they are: an
attacker who reaches the API through a local proxy that forwards no client address would otherwise
guess without any limit. The price is that such a proxy shares one count among all its clients, so an
operator behind one sets `FORWARDED_ALLOW_IPS` and has the proxy send `X-Forwarded-For`.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import OrderedDict

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.deps import get_rate_limiter, get_settings

logger = logging.getLogger(__name__)
UNAUTHORIZED = 401
MAX_REMEMBERED = 10_000
"""Refused addresses held in memory; the oldest is forgotten first (it is counted again in Redis)."""
IPV6_PREFIX = 64


LOCAL_KEY = "local"
"""The count shared by callers without an address (a unix socket) when they are counted."""


def client_key(scope: Scope, *, exempt_local: bool = True) -> str | None:
    """The address a request is counted under (IPv4 as is, IPv6 as its /64); None when not counted.

    `exempt_local` leaves loopback and unix-socket callers uncounted (everywhere but production)."""
    client = scope.get("client")
    if not client or not client[0]:
        # A unix socket: like loopback, a local proxy that forwards no address stands behind it.
        return None if exempt_local else LOCAL_KEY
    host = client[0]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return str(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback and exempt_local:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class RefusedAddresses:
    """Addresses refused until a monotonic deadline; bounded, so a flood of addresses cannot grow it."""

    def __init__(self, size: int = MAX_REMEMBERED) -> None:
        self.size = size
        self._until: OrderedDict[str, float] = OrderedDict()

    def retry_after(self, key: str, now: float) -> float:
        """Seconds `key` is still refused (0 when it is not)."""
        until = self._until.get(key)
        if until is None:
            return 0.0
        if until <= now:
            del self._until[key]
            return 0.0
        return until - now

    def refuse(self, key: str, until: float) -> None:
        self._until[key] = until
        self._until.move_to_end(key)
        while len(self._until) > self.size:
            self._until.popitem(last=False)


class AuthFailureThrottle:
    """ASGI middleware: counts 401 answers per client address and refuses addresses over the limit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.refused = RefusedAddresses()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = get_settings(Request(scope))
        key = client_key(scope, exempt_local=settings.environment != "production")
        if settings.auth_failure_limit == 0 or key is None:
            await self.app(scope, receive, send)
            return
        wait = self.refused.retry_after(key, time.monotonic())
        if wait > 0:
            await _too_many(wait)(scope, receive, send)
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, watch)
        if status == UNAUTHORIZED:
            await self._count_failure(scope, key)

    async def _count_failure(self, scope: Scope, key: str) -> None:
        request = Request(scope)
        settings = get_settings(request)
        decision = await get_rate_limiter(request).allow(
            f"{settings.redis_key_prefix}auth-failures:{key}",
            limit=settings.auth_failure_limit,
            window_seconds=settings.auth_failure_window_seconds,
        )
        if not decision.allowed:
            logger.warning(
                "client %s failed authentication more than %d times in %g s; refused for %.0f s",
                key,
                settings.auth_failure_limit,
                settings.auth_failure_window_seconds,
                decision.retry_after_seconds,
            )
            self.refused.refuse(key, time.monotonic() + decision.retry_after_seconds)


def _too_many(wait: float) -> JSONResponse:
    seconds = max(1, round(wait))
    return JSONResponse(
        status_code=429,
        content={
            "error": {
                "code": "too_many_failed_authentications",
                "message": f"Too many failed authentications from your address; try again in {seconds} s.",
                "details": [],
            }
        },
        headers={"Retry-After": str(seconds)},
    )
