"""The review pass: a plain-language summary and extra flags from a second model call.

A helper, not a gate: when the call fails or answers nonsense, the draft keeps its rule-based flags and
says that the summary is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from app.definitions.signals import StepError
from app.nl.drafts import CostEstimate, Flag
from app.nl.metering import AuthoringBudgetExceeded, MeteredLlm
from app.nl.prompts import REVIEW_SCHEMA, review_messages
from app.security.credentials import scrub

MAX_SUMMARY_CHARS = 4000
MAX_FLAG_CHARS = 500
MAX_REVIEW_FLAGS = 20
MISSING = "The summary is missing: {reason}. The flags listed were computed without the review model."


@dataclass(frozen=True)
class Review:
    summary: str | None
    flags: list[Flag] = field(default_factory=list)
    note: str | None = None


async def review(
    metered: MeteredLlm,
    *,
    model: str,
    definition: dict[str, Any],
    rule_flags: list[Flag],
    estimate: CostEstimate | None,
) -> Review:
    """Summary and flags from the review model; never raises for the model's failures."""
    try:
        reply = await metered.complete_json(
            model=model,
            purpose="review",
            messages=review_messages(definition, rule_flags, estimate),
            schema=REVIEW_SCHEMA,
        )
    except AuthoringBudgetExceeded as exc:
        return Review(None, note=MISSING.format(reason=exc.message.rstrip(".")))
    except StepError as exc:
        reason = f"the review model failed ({exc.code}: {scrub(exc.message)[0]})"
        return Review(None, note=MISSING.format(reason=reason))
    parsed = _parse(reply.content)
    if parsed is None:
        return Review(None, note=MISSING.format(reason="the review model's answer was not usable"))
    return parsed


def _parse(content: str | None) -> Review | None:
    try:
        value = json.loads(content or "")
    except (ValueError, RecursionError):
        return None
    summary = value.get("summary") if isinstance(value, dict) else None
    if not isinstance(summary, str) or not summary.strip():
        return None
    flags = []
    raw_flags = value.get("flags")
    for item in raw_flags[:MAX_REVIEW_FLAGS] if isinstance(raw_flags, list) else []:
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, str) or not message.strip():
            continue
        path = item.get("path")
        flags.append(
            Flag(
                path=path if isinstance(path, str) and path.startswith("/") else "",
                code="review",
                message=scrub(message.strip())[0][:MAX_FLAG_CHARS],
                source="review",
            )
        )
    return Review(scrub(summary.strip())[0][:MAX_SUMMARY_CHARS], flags)
