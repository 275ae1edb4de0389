"""The HTTP port of a run's action context: every request goes through the egress guard."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from app.engine.context import HttpAnswer
from app.engine.steps import StepError
from app.security.egress import EgressAllowList, EgressDenied, EgressError, display_url, egress_client


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
        except EgressDenied as exc:
            raise StepError("egress_denied", str(exc), retryable=False) from None
        except EgressError as exc:
            raise StepError(getattr(exc, "code", "egress_error"), str(exc), retryable=False) from None
        except httpx.InvalidURL as exc:
            raise StepError("invalid_url", f"not a usable URL: {exc}", retryable=False) from None
        except httpx.TimeoutException:
            # display_url: a URL's userinfo, path and query often hold credentials; run records keep errors.
            raise StepError(
                "http_timeout", f"{method} {display_url(url)} did not answer within {timeout_seconds:g} s"
            ) from None
        except httpx.HTTPError as exc:
            message = f"{method} {display_url(url)} failed: {type(exc).__name__}"
            raise StepError("http_error", message) from None
        return HttpAnswer(
            status_code=answer.status_code,
            headers=dict(answer.headers.items()),
            content=answer.content,
            url=answer.url,
        )
