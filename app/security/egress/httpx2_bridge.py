"""The egress guard for clients built on `httpx2` (the MCP SDK's HTTP client).

The MCP SDK sends every request (the MCP messages, OAuth discovery, registration and token calls)
through an `httpx2.AsyncClient`, not an `httpx` one. `egress_client_httpx2()` builds such a client whose
transport hands each request to the same `GuardedTransport` that `egress_client()` uses: the host is
resolved and every address checked at connection time, the socket is pinned to the checked address,
the body is capped, the request has a deadline, and redirects are never followed by the transport
(the SDK follows same-origin ones itself, and each hop comes back here to be checked).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
import httpx2

from app.security.egress.allowlist import EgressAllowList
from app.security.egress.client import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT
from app.security.egress.targets import Resolver, system_resolver
from app.security.egress.transport import GuardedTransport

# httpx errors as the httpx2 errors the SDK catches; an error's nearest listed ancestor decides.
_HTTPX2_ERRORS: dict[type[Exception], type[httpx2.TransportError]] = {
    httpx.ConnectTimeout: httpx2.ConnectTimeout,
    httpx.ReadTimeout: httpx2.ReadTimeout,
    httpx.WriteTimeout: httpx2.WriteTimeout,
    httpx.PoolTimeout: httpx2.PoolTimeout,
    httpx.TimeoutException: httpx2.TimeoutException,
    httpx.ConnectError: httpx2.ConnectError,
    httpx.ReadError: httpx2.ReadError,
    httpx.WriteError: httpx2.WriteError,
    httpx.NetworkError: httpx2.NetworkError,
    httpx.RemoteProtocolError: httpx2.RemoteProtocolError,
    httpx.LocalProtocolError: httpx2.LocalProtocolError,
    httpx.ProtocolError: httpx2.ProtocolError,
    httpx.UnsupportedProtocol: httpx2.UnsupportedProtocol,
    httpx.TransportError: httpx2.TransportError,
}


def _translated(exc: Exception) -> Exception:
    for cls in type(exc).__mro__:
        if cls in _HTTPX2_ERRORS:
            return _HTTPX2_ERRORS[cls](str(exc))
    return exc


class _BridgedBody(httpx2.AsyncByteStream):
    """The guarded response body (already capped and decoded), read chunk by chunk as httpx2 asks."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_raw():
                yield chunk
        except httpx.TransportError as exc:
            raise _translated(exc) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


class GuardedHttpx2Transport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that sends through the egress guard's `GuardedTransport`."""

    def __init__(
        self,
        *,
        allow: EgressAllowList,
        resolver: Resolver,
        max_response_bytes: int,
        total_timeout: float,
        pin_hosts: bool = False,
    ) -> None:
        self._inner = GuardedTransport(
            allow=allow,
            resolver=resolver,
            max_response_bytes=max_response_bytes,
            total_timeout=total_timeout,
            pin_hosts=pin_hosts,
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        # MCP requests are small JSON messages or forms: reading the body first keeps the bridge simple.
        body = await request.aread()
        outgoing = httpx.Request(
            request.method,
            str(request.url),
            headers=[(name, value) for name, value in request.headers.raw],
            content=body,
        )
        try:
            response = await self._inner.handle_async_request(outgoing)
        except httpx.TransportError as exc:
            raise _translated(exc) from exc
        return httpx2.Response(
            response.status_code,
            headers=response.headers.raw,
            stream=_BridgedBody(response),
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def egress_client_httpx2(
    *,
    allow: EgressAllowList | None,
    timeout: float = DEFAULT_TIMEOUT,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    resolver: Resolver | None = None,
    headers: Mapping[str, str] | None = None,
    auth: httpx2.Auth | None = None,
    event_hooks: Mapping[str, list[Callable[..., Any]]] | None = None,
    pin_hosts: bool = False,
) -> httpx2.AsyncClient:
    """An `httpx2.AsyncClient` with the egress guard as its transport (use it as `async with`).

    `timeout` bounds each request from sending to its last body byte (a streamed MCP answer included);
    the arguments mean what they mean for `egress_client()`. With `pin_hosts`, the client resolves and
    checks each host once and keeps every later connection on those addresses (a client that outlives
    one call must not follow a DNS change).
    """
    transport = GuardedHttpx2Transport(
        allow=allow or EgressAllowList(),
        resolver=resolver or system_resolver,
        max_response_bytes=max_response_bytes,
        total_timeout=timeout,
        pin_hosts=pin_hosts,
    )
    return httpx2.AsyncClient(
        transport=transport,
        timeout=httpx2.Timeout(timeout),
        follow_redirects=False,
        headers=dict(headers or {}),
        auth=auth,
        event_hooks=dict(event_hooks or {}),
        trust_env=False,
    )
