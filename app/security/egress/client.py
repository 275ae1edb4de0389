"""The one client factory for outbound HTTP, and `fetch`, which follows redirects hop by hop."""

from __future__ import annotations

import json
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from app.security.egress.allowlist import EgressAllowList
from app.security.egress.errors import EgressDenied, RedirectLimitExceeded, display_url
from app.security.egress.outgoing import redirect_checked
from app.security.egress.targets import Resolver, system_resolver
from app.security.egress.transport import GuardedTransport

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5


@dataclass(frozen=True)
class EgressResponse:
    """A complete response read by `EgressClient.fetch`: the body is in memory and within the size cap."""

    status_code: int
    headers: httpx.Headers
    content: bytes
    url: str
    encoding: str
    redirects: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The body decoded with the response's charset (UTF-8 when it names none)."""
        return self.content.decode(self.encoding, errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON (raises ValueError when it is not JSON)."""
        return json.loads(self.content)


class EgressClient(httpx.AsyncClient):
    """An `httpx.AsyncClient` whose every connection is egress-checked; build it with `egress_client()`.

    The checks live in its transport, not in the calling code: `get`, `post`, `stream`, `send` and any
    library handed this client (OpenAI SDK, MCP) are all checked, pinned, size-capped and time-limited.
    It never follows redirects by itself; `fetch` follows them and checks every hop.
    """

    def __init__(
        self,
        *,
        allow: EgressAllowList | None,
        timeout: float,
        max_response_bytes: int,
        max_redirects: int,
        resolver: Resolver | None,
        headers: Mapping[str, str] | None,
        ssl_context: ssl.SSLContext | None,
    ) -> None:
        transport = GuardedTransport(
            allow=allow or EgressAllowList(),
            resolver=resolver or system_resolver,
            max_response_bytes=max_response_bytes,
            total_timeout=timeout,
            ssl_context=ssl_context,
        )
        # trust_env=False: no proxy or .netrc credentials from the environment sneak around the transport.
        super().__init__(
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            max_redirects=max_redirects,
            headers=headers,
            trust_env=False,
        )

    def _build_redirect_request(self, request: httpx.Request, response: httpx.Response) -> httpx.Request:
        # httpx builds every redirect's next request here (`next_request` included): the one place
        # where credentials and secrets are kept from another origin.
        return redirect_checked(request, super()._build_redirect_request(request, response))

    async def fetch(self, method: str, url: str, **kwargs: Any) -> EgressResponse:
        """Send a request, follow up to `max_redirects` redirects (each hop checked), read the whole body.

        `kwargs` are those of `httpx.AsyncClient.build_request` (headers, params, json, content, …).
        Raises EgressDenied (naming the refused hop), RedirectLimitExceeded, ResponseTooLarge, or the
        usual httpx transport errors (timeouts are `httpx.TimeoutException`). Non-2xx answers are returned.
        """
        request = self.build_request(method, url, **kwargs)
        hops: list[str] = []
        while True:
            try:
                response = await self.send(request, stream=True)
            except EgressDenied as exc:
                if not hops:
                    raise
                reason = f"redirect {len(hops)} from {display_url(hops[-1])}: {exc.reason}"
                raise EgressDenied(reason, exc.url) from None
            try:
                next_request = response.next_request
                if next_request is None:
                    content = await response.aread()
                    return EgressResponse(
                        status_code=response.status_code,
                        headers=response.headers,
                        content=content,
                        url=str(request.url),
                        encoding=response.encoding or "utf-8",
                        redirects=tuple(hops),
                    )
            finally:
                await response.aclose()
            if len(hops) >= self.max_redirects:
                raise RedirectLimitExceeded(str(next_request.url), self.max_redirects)
            hops.append(str(request.url))
            request = next_request


def egress_client(
    *,
    allow: EgressAllowList | None,
    timeout: float = DEFAULT_TIMEOUT,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    max_redirects: int = DEFAULT_MAX_REDIRECTS,
    resolver: Resolver | None = None,
    headers: Mapping[str, str] | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> EgressClient:
    """The client every outbound HTTP call of the service uses (use it as `async with`).

    `allow` is the parsed AUTOMATIONS_EGRESS_ALLOW setting (None opens nothing). `timeout` bounds each
    request from sending to the last body byte, and each phase (connect, read, write, pool) on its own.
    `resolver` replaces `getaddrinfo` (tests); `ssl_context` replaces the default CA bundle (private CAs).
    """
    return EgressClient(
        allow=allow,
        timeout=timeout,
        max_response_bytes=max_response_bytes,
        max_redirects=max_redirects,
        resolver=resolver,
        headers=headers,
        ssl_context=ssl_context,
    )
