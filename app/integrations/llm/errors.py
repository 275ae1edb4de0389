"""litellm's exceptions as StepErrors: a stable code, retryable or not, and a message safe to store."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping

from app.definitions.signals import StepError
from app.integrations.llm import _litellm
from app.security.egress import EgressError

_MAX_DETAIL = 300
# Things that look like credentials, whatever provider echoed them: sk-…, Bearer …, key=… in URLs.
_SECRET_LIKE = re.compile(
    r"(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+\S+|(?:api[_-]?key|key|token)=[^&\s\"']+)", re.IGNORECASE
)
# litellm's own prefixes ("litellm.BadRequestError: OpenAIException - "): they name classes, not the cause.
_LITELLM_PREFIX = re.compile(r"^\s*(litellm\.\w+:\s*)?(\w+Error:\s*)?(\w+Exception\s*(APIError\s*)?-\s*)?")
_UNAVAILABLE = (
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)


def _is_litellm(exc: BaseException, *names: str) -> bool:
    """Whether `exc` is one of litellm's exception classes `names` (never imports litellm to find out:
    if it is not loaded yet, no litellm call raised `exc`)."""
    if not _litellm.loaded():
        return False
    return isinstance(exc, tuple(getattr(_litellm.exceptions, name) for name in names))


# Environment variables that hold credentials by litellm's and common naming (OPENAI_API_KEY, ...).
_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_MIN_SECRET_LENGTH = 6


def environment_secrets(extra_names: Iterable[str | None] = ()) -> list[str]:
    """Values of credential-like environment variables (and of `extra_names`), to cut from messages."""
    names = {name for name in os.environ if _SECRET_VARIABLE.search(name)}
    names.update(name for name in extra_names if name)
    values = (os.environ.get(name, "") for name in names)
    # Longest first, so a key that contains another is cut whole; short values would cut ordinary words.
    return sorted((v for v in values if len(v) >= _MIN_SECRET_LENGTH), key=len, reverse=True)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def sanitise(text: str, secrets: Iterable[str]) -> str:
    """A provider's error text fit for a run record: no traceback, no key, one line, at most 300 chars."""
    text = text.split("Traceback (most recent call last)", 1)[0]
    detail = _provider_message(text) or _LITELLM_PREFIX.sub("", text, count=1)
    for secret in secrets:
        if secret:
            detail = detail.replace(secret, "[redacted]")
    detail = _SECRET_LIKE.sub("[redacted]", detail)
    detail = " ".join(detail.split())
    return detail if len(detail) <= _MAX_DETAIL else detail[: _MAX_DETAIL - 1] + "…"


def _provider_message(text: str) -> str | None:
    """The `error.message` of an OpenAI-style JSON error body quoted in `text`, if there is one."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        body, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if isinstance(headers, Mapping) else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date; the executor's backoff applies instead


def to_step_error(exc: BaseException, *, model: str, key_env: str | None = None) -> StepError:
    """Map a failed completion: egress refusals, 429, 5xx/connection/timeout, other 4xx, anything else.

    Messages never carry a key: every credential-like environment value (and `key_env`'s) is cut out.
    """
    for link in _chain(exc):
        if isinstance(link, EgressError):
            return StepError(link.code, f"model {model}: {link}", retryable=False)
    status = getattr(exc, "status_code", None)
    detail = sanitise(str(getattr(exc, "message", None) or exc), environment_secrets([key_env]))
    if _is_litellm(exc, "RateLimitError") or status == 429:
        wait = _retry_after(exc)
        return StepError(
            "llm_rate_limited",
            f"model {model} is rate limited: {detail}",
            details={"retry_after_seconds": wait} if wait is not None else None,
        )
    if _is_litellm(exc, *_UNAVAILABLE) or (isinstance(status, int) and status >= 500):
        return StepError("llm_unavailable", f"model {model} is unavailable: {detail}")
    if isinstance(status, int) and 400 <= status < 500:
        message = f"model {model} refused the request (HTTP {status}): {detail}"
        return StepError("llm_refused", message, retryable=False)
    return StepError("llm_error", f"model {model}: call failed ({type(exc).__name__})", retryable=False)
