"""What the draft service is built with (`AuthoringConfig`, its ports' shapes) and its refusals that
are not about one draft's content."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.engine.validation import Vocabulary
from app.errors import NotFound, ServiceUnavailable
from app.nl.context import AuthoringContextSource
from app.nl.metering import CallLimits
from app.persistence.types import AsyncSession
from app.security.egress import EgressAllowList

VocabularyOf = Callable[[uuid.UUID], Awaitable[Vocabulary]]
ContextSourceFor = Callable[[AsyncSession], AuthoringContextSource]


@dataclass(frozen=True)
class AuthoringConfig:
    """The operator's settings for authoring (see the AUTOMATIONS_AUTHORING_* variables)."""

    model: str | None
    review_model: str | None
    ttl_seconds: int
    max_attempts: int
    limits: CallLimits
    default_max_tokens: int
    egress_allow: EgressAllowList = field(default_factory=EgressAllowList)


class AuthoringUnavailable(ServiceUnavailable):
    code = "authoring_unavailable"
    message = (
        "Natural-language authoring is not configured: set AUTOMATIONS_AUTHORING_MODEL to one of the"
        " models in AUTOMATIONS_LLM_ALLOWED_MODELS (and optionally AUTOMATIONS_REVIEW_MODEL)."
    )


def draft_not_found() -> NotFound:
    return NotFound("Draft not found: it may have expired or been saved already.", code="draft_not_found")
