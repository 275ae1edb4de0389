"""The API composition root: settings, engine, broker client and routers wired together."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from redis.asyncio import Redis

from app.api.errors import install_error_handlers
from app.api.routes import api_router
from app.api.routes.health import router as health_router
from app.api.throttle import AuthFailureThrottle
from app.config import Settings, get_settings
from app.engine.validation import Vocabulary
from app.integrations.llm import LiteLlm
from app.integrations.rate_limit import RateLimiter
from app.jobs import Job
from app.nl.runtime import build_draft_service, static_vocabulary
from app.persistence.db import create_engine, create_sessionmaker
from app.security.egress import EgressAllowList
from app.services.dispatch import DispatchLimits, pricer
from app.services.health import ReadinessProbe
from app.worker.celery_app import create_celery


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the ASGI application; backing connections open in the lifespan, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(
            settings.resolved_database_url(),
            pool_size=settings.database_pool_size,
            application_name="automations-api",
        )
        redis_url = settings.resolved_redis_url()
        celery = create_celery(settings)
        redis = Redis.from_url(redis_url)

        def send_job(job: Job) -> None:
            celery.send_task(
                job.name, args=job.args, kwargs=job.kwargs, queue=job.queue, countdown=job.countdown
            )

        app.state.engine = engine
        app.state.sessionmaker = create_sessionmaker(engine)
        app.state.redis = redis
        app.state.readiness = ReadinessProbe(engine, redis)
        # Its own client with short socket timeouts: a dead Redis must not hold up a webhook fire.
        limiter_redis = Redis.from_url(redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
        app.state.rate_limiter = RateLimiter(limiter_redis)
        app.state.send_job = send_job
        allow = EgressAllowList.parse(settings.egress_allow)
        llm = LiteLlm(settings.llm_allowed_models, settings.llm_models, allow)
        app.state.limits = DispatchLimits(
            max_concurrent_runs=settings.max_concurrent_runs, pricer=pricer(llm)
        )
        app.state.drafts, drafts_redis = build_draft_service(
            settings,
            llm=llm,
            vocabulary_of=static_vocabulary(app.state.vocabulary),
            sessionmaker=app.state.sessionmaker,
            send_job=send_job,
        )
        try:
            yield
        finally:
            await drafts_redis.aclose()
            await redis.aclose()
            await limiter_redis.aclose()
            await engine.dispose()

    app = FastAPI(
        title="Automations",
        version="0.1.0",
        description="Self-hosted automation service. Authenticate with `Authorization: Bearer <API token>`.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.vocabulary = Vocabulary(allowed_models=frozenset(settings.llm_allowed_models))
    install_error_handlers(app)
    app.add_middleware(AuthFailureThrottle)
    app.include_router(health_router)
    app.include_router(api_router)
    return app
