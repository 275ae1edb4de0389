"""Slack's Web API (`chat.postMessage`, `chat.update`, `users.info`) through the egress guard.

Slack answers HTTP 200 with `{"ok": false, "error": "<code>"}` for most failures; those codes become
the step's error. Rate limits (HTTP 429 with Retry-After, or `ratelimited`) are waited out inside the
call when the wait fits in the step's time, and otherwise fail the attempt as retryable.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from app.definitions.signals import StepError
from app.security.egress import EgressAllowList, EgressError, SecretHostRefused, egress_client

# Codes that another attempt cannot fix: the token, the channel or the message itself is wrong.
PERMANENT_ERRORS = frozenset(
    {
        "invalid_auth",
        "not_authed",
        "account_inactive",
        "token_revoked",
        "token_expired",
        "no_permission",
        "missing_scope",
        "channel_not_found",
        "is_archived",
        "not_in_channel",
        "msg_too_long",
        "no_text",
        "invalid_blocks",
        "invalid_blocks_format",
        "too_many_attachments",
        "restricted_action",
        "invalid_arguments",
        "user_not_found",
        "message_not_found",
        "cant_update_message",
    }
)
MAX_ANSWER_BYTES = 1024 * 1024
DEFAULT_RETRY_AFTER = 1.0


class SlackApi:
    """A client of one Slack Web API base URL; the bot token comes with each call, never stored."""

    def __init__(self, base_url: str, allow: EgressAllowList) -> None:
        self.base_url = base_url.rstrip("/")
        self.allow = allow

    async def post_message(
        self, token: str, message: dict[str, Any], *, timeout_seconds: float
    ) -> dict[str, Any]:
        """Post `message` (channel, text, blocks, thread_ts) and answer `{channel, ts}`."""
        body = await self.call("chat.postMessage", token, timeout_seconds=timeout_seconds, json=message)
        return {"channel": str(body.get("channel", "")), "ts": str(body.get("ts", ""))}

    async def update_message(
        self, token: str, message: dict[str, Any], *, timeout_seconds: float
    ) -> dict[str, Any]:
        """Replace a posted message (`channel`, `ts`, text, blocks) and answer `{channel, ts}`."""
        body = await self.call("chat.update", token, timeout_seconds=timeout_seconds, json=message)
        return {"channel": str(body.get("channel", "")), "ts": str(body.get("ts", ""))}

    async def user_email(self, token: str, user_id: str, *, timeout_seconds: float) -> str | None:
        """The email of a Slack user's profile (`users.info`; needs the `users:read.email` scope)."""
        body = await self.call("users.info", token, timeout_seconds=timeout_seconds, data={"user": user_id})
        user = body.get("user")
        profile = user.get("profile") if isinstance(user, dict) else None
        email = profile.get("email") if isinstance(profile, dict) else None
        return email if isinstance(email, str) and email else None

    async def call(
        self,
        method: str,
        token: str,
        *,
        timeout_seconds: float,
        json: dict[str, Any] | None = None,
        data: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """One Web API method (a JSON body, or a form for read methods); answers Slack's `ok` body."""
        deadline = time.monotonic() + timeout_seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StepError("slack_timeout", "Slack did not accept the message in time")
            answer, retry_after = await self._call(method, token, remaining, json, data)
            if answer is not None:
                return answer
            if retry_after >= deadline - time.monotonic():
                raise StepError(
                    "ratelimited",
                    "Slack is rate limiting this token; retry later",
                    details={"retry_after_seconds": retry_after},
                )
            await asyncio.sleep(retry_after)

    async def _call(
        self,
        method: str,
        token: str,
        timeout_seconds: float,
        json: dict[str, Any] | None,
        data: dict[str, str] | None,
    ) -> tuple[dict[str, Any] | None, float]:
        """Slack's answer, or (None, seconds to wait) when it is rate limiting."""
        headers = {"Authorization": f"Bearer {token}"}
        if json is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        try:
            async with egress_client(
                allow=self.allow, timeout=timeout_seconds, max_response_bytes=MAX_ANSWER_BYTES
            ) as client:
                response = await client.fetch(
                    "POST", f"{self.base_url}/{method}", headers=headers, json=json, data=data
                )
        except SecretHostRefused as exc:
            # The token is bound to other hosts than this deployment's Slack API URL.
            raise StepError(exc.code, str(exc), retryable=False) from None
        except EgressError as exc:
            raise StepError(
                "egress_denied", f"the Slack API URL is refused: {exc}", retryable=False
            ) from None
        except httpx.TimeoutException:
            raise StepError("slack_timeout", "Slack did not answer in time") from None
        except httpx.HTTPError as exc:
            raise StepError(
                "slack_unreachable", f"Slack could not be reached: {type(exc).__name__}"
            ) from None
        if response.status_code == 429:
            return None, _seconds(response.headers.get("retry-after"))
        if response.status_code >= 500:
            raise StepError("slack_unavailable", f"Slack answered {response.status_code}")
        try:
            body = response.json()
        except ValueError:
            raise StepError(
                "slack_bad_answer", f"Slack answered {response.status_code} without JSON"
            ) from None
        if not isinstance(body, dict):
            raise StepError("slack_bad_answer", "Slack answered something other than an object")
        if body.get("ok") is True:
            return body, 0.0
        code = str(body.get("error") or "unknown_error")
        if code == "ratelimited":
            return None, _seconds(response.headers.get("retry-after"))
        raise StepError(code, f"Slack refused the message: {code}", retryable=code not in PERMANENT_ERRORS)


def _seconds(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value is not None else DEFAULT_RETRY_AFTER
    except ValueError:
        return DEFAULT_RETRY_AFTER
