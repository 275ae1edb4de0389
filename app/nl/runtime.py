"""Building the draft service from settings: one call for each composition root that serves drafts."""

from __future__ import annotations

from collections.abc import Callable

from redis.asyncio import Redis

from app.config import Settings
from app.jobs import Job
from app.nl.metering import CallLimits, DatabaseLedger
from app.nl.service import DraftService
from app.nl.service_types import AuthoringConfig, VocabularyOf
from app.nl.store import DraftStore
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry.llm_ports import LlmPort
from app.security.egress import EgressAllowList

# Short socket timeouts: a dead Redis answers 503 quickly instead of holding the request.
REDIS_TIMEOUT_SECONDS = 2.0


def authoring_config(settings: Settings) -> AuthoringConfig:
    return AuthoringConfig(
        model=settings.authoring_model,
        review_model=settings.review_model,
        ttl_seconds=settings.draft_ttl_seconds,
        max_attempts=settings.draft_max_attempts,
        limits=CallLimits(
            max_tokens=settings.authoring_max_tokens,
            timeout_seconds=settings.authoring_timeout_seconds,
            daily_cap_usd=settings.authoring_daily_cap_usd,
        ),
        default_max_tokens=settings.llm_default_max_tokens,
        egress_allow=EgressAllowList.parse(settings.egress_allow),
    )


def build_draft_service(
    settings: Settings,
    *,
    llm: LlmPort,
    vocabulary_of: VocabularyOf,
    sessionmaker: async_sessionmaker[AsyncSession],
    send_job: Callable[[Job], None],
) -> tuple[DraftService, Redis]:
    """The service and the Redis client it owns (the caller closes it)."""
    redis = Redis.from_url(
        settings.resolved_redis_url(),
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
    )
    service = DraftService(
        authoring_config(settings),
        DraftStore(redis, settings.redis_key_prefix),
        llm,
        DatabaseLedger(sessionmaker, send_job),
        vocabulary_of,
    )
    return service, redis
