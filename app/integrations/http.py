"""The HTTP port of a run's action context: every request goes through the egress guard."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx

from app.definitions.signals import StepError
from app.registry.ports import HttpAnswer, HttpStream
from app.security.egress import (
    EgressAllowList,
    EgressDenied,
    EgressError,
    RedirectLimitExceeded,
    ResponseTooLarge,
    display_url,
    egress_client,
)


class GuardedHttp:
    """`HttpPort` over `egress_client`: checked, pinned, redirect-checked, size-capped, time-limited."""

    def __init__(self, allow: EgressAllowList) -> None:
        self.allow = allow

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any],
        json_body: Any,
        content: str | None,
        timeout_seconds: float,
    ) -> HttpAnswer:
        body: dict[str, Any] = {"json": json_body} if json_body is not None else {}
        if content is not None:
            body = {"content": content}
        try:
            # httpx's `params` would replace the URL's own query string; merge them instead.
            target = str(httpx.URL(url).copy_merge_params(dict(params))) if params else url
            async with egress_client(allow=self.allow, timeout=timeout_seconds) as client:
                answer = await client.fetch(method, target, headers=dict(headers), **body)
        except (EgressDenied, EgressError, httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _step_error(exc, method, url, timeout_seconds) from None
        return HttpAnswer(
            status_code=answer.status_code,
            headers=dict(answer.headers.items()),
            content=answer.content,
            url=answer.url,
        )

    @asynccontextmanager
    async def open(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any],
        json_body: Any,
        content: str | None,
        timeout_seconds: float,
        max_bytes: int,
    ) -> AsyncIterator[HttpStream]:
        """Stream the answer (redirects followed hop by hop through the guard); the body is capped at
        `max_bytes`: past it, reading fails with `artifact_too_large`."""
        body: dict[str, Any] = {"json": json_body} if json_body is not None else {}
        if content is not None:
            body = {"content": content}
        try:
            target = str(httpx.URL(url).copy_merge_params(dict(params))) if params else url
            async with egress_client(
                allow=self.allow, timeout=timeout_seconds, max_response_bytes=max_bytes
            ) as client:
                request = client.build_request(method, target, headers=dict(headers), **body)
                for _ in range(client.max_redirects + 1):
                    response = await client.send(request, stream=True)
                    following = response.next_request
                    if following is None:
                        break
                    await response.aclose()
                    request = following
                else:
                    raise RedirectLimitExceeded(str(request.url), client.max_redirects)
                try:
                    yield HttpStream(
                        status_code=response.status_code,
                        headers=dict(response.headers.items()),
                        url=str(request.url),
                        chunks=response.aiter_raw(),
                    )
                finally:
                    await response.aclose()
        except ResponseTooLarge:
            raise StepError(
                "artifact_too_large", f"the answer is larger than {max_bytes} bytes", retryable=False
            ) from None
        except (EgressDenied, EgressError, httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _step_error(exc, method, url, timeout_seconds) from None


def _step_error(exc: Exception, method: str, url: str, timeout_seconds: float) -> StepError:
    """An outbound failure as a step error. display_url: a URL's userinfo, path and query often hold
    credentials, and run records keep errors."""
    if isinstance(exc, EgressDenied):
        return StepError("egress_denied", str(exc), retryable=False)
    if isinstance(exc, EgressError):
        return StepError(getattr(exc, "code", "egress_error"), str(exc), retryable=False)
    if isinstance(exc, httpx.InvalidURL):
        return StepError("invalid_url", f"not a usable URL: {exc}", retryable=False)
    if isinstance(exc, httpx.TimeoutException):
        return StepError(
            "http_timeout", f"{method} {display_url(url)} did not answer within {timeout_seconds:g} s"
        )
    return StepError("http_error", f"{method} {display_url(url)} failed: {type(exc).__name__}")
