"""The API composition root: settings, runtime, broker client and routers wired together."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from redis.asyncio import Redis

from app import metrics
from app.api.errors import install_error_handlers
from app.api.mcp_endpoint import McpServerEndpoint
from app.api.openapi import complete_openapi, operation_id
from app.api.routes import API_PREFIX, API_ROUTERS
from app.api.routes.artifacts import download_router as artifact_downloads
from app.api.routes.fire_path import FireRoute
from app.api.routes.health import router as health_router
from app.api.routes.metrics import router as metrics_router
from app.api.throttle import AuthFailureThrottle
from app.api.ui import SecurityHeaders, ui_fallback
from app.composition import build_runtime
from app.config import Settings, get_settings
from app.integrations.broker import BrokerPublisher
from app.integrations.lockout import SignInLockout
from app.integrations.rate_limit import RateLimiter
from app.integrations.user_databases import ConnectionProbe
from app.nl.runtime import build_draft_service
from app.persistence.db import IDLE_PING_SECONDS, create_engine, create_sessionmaker
from app.persistence.run_events import RunEventHub
from app.services.health import ReadinessProbe
from app.services.runs.limits import RUN_QUEUES
from app.worker.celery_app import create_celery


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the ASGI application; backing connections open in the lifespan, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(
            settings.resolved_database_url(),
            # Sized to keep the connections of a steady load (16 concurrent fires): an overflow
            # connection is closed on return and reopened by the next burst.
            pool_size=settings.database_pool_size,
            max_overflow=settings.database_max_overflow,
            application_name="automations-api",
            # A ping per request would be three of a webhook fire's round trips.
            ping_after_idle=IDLE_PING_SECONDS,
            transaction_pooler=settings.behind_transaction_pooler,
        )
        # LISTEN needs a session of its own on the server: behind a transaction pooler, the live run
        # stream listens on one connection straight to PostgreSQL (and replays gaps over it).
        listen_engine = (
            create_engine(
                settings.resolved_direct_database_url(),
                pool_size=1,
                max_overflow=1,
                application_name="automations-api-listen",
            )
            if settings.behind_transaction_pooler
            else engine
        )
        redis_url = settings.resolved_redis_url()
        sessionmaker = create_sessionmaker(engine)
        celery = create_celery(settings)
        runtime = build_runtime(settings, celery.send_task, sessionmaker)
        redis = Redis.from_url(redis_url)

        app.state.runtime = runtime
        app.state.engine = engine
        app.state.sessionmaker = sessionmaker
        app.state.redis = redis
        app.state.readiness = ReadinessProbe(engine, redis, key_prefix=settings.redis_key_prefix)
        # Connection tests of registered databases; the API runs no queries on them otherwise.
        app.state.database_probe = ConnectionProbe(
            runtime.egress_allow, settings.database_statement_timeout_seconds
        )
        app.state.run_events = RunEventHub(listen_engine)
        # Its own client with short socket timeouts: a dead Redis must not hold up a webhook fire.
        limiter_redis = Redis.from_url(redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
        app.state.rate_limiter = RateLimiter(limiter_redis, key_prefix=settings.redis_key_prefix)
        app.state.lockout = SignInLockout(
            limiter_redis,
            prefix=settings.redis_key_prefix,
            limit=settings.signin_failure_limit,
            window_seconds=settings.signin_lockout_seconds,
            slots=settings.signin_verification_slots,
        )
        app.state.send_job = runtime.send_job
        # Requests' wake-ups go out on the event loop over pooled broker connections, as the messages
        # Celery's `send_task` would write (`send_job` stays for code outside a request).
        # Workers that claim runs directly drain their queue, so a run wake-up adds nothing while
        # another waits there (`BrokerPublisher`'s coalescing).
        publisher = BrokerPublisher.from_url(
            redis_url,
            key_prefix=settings.redis_key_prefix,
            reply_to=celery.thread_oid,
            coalesce=RUN_QUEUES if settings.direct_claim_batch else (),
        )
        app.state.publisher = publisher
        app.state.limits = runtime.limits
        app.state.drafts, drafts_redis = build_draft_service(
            settings,
            llm=runtime.llm,
            vocabulary_of=runtime.space_vocabulary,
            sessionmaker=sessionmaker,
            send_job=runtime.send_job,
        )
        app.state.mcp_endpoint = McpServerEndpoint()
        try:
            yield
        finally:
            await app.state.mcp_endpoint.close()
            await runtime.mcp_sessions.aclose()
            await app.state.run_events.close()
            await drafts_redis.aclose()
            await redis.aclose()
            await publisher.aclose()
            await limiter_redis.aclose()
            await engine.dispose()
            if listen_engine is not engine:
                await listen_engine.dispose()

    app = FastAPI(
        title="Automations",
        version="0.1.0",
        description="Self-hosted automation service. Authenticate with `Authorization: Bearer <API token>`.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
    )
    app.state.settings = settings
    install_error_handlers(app)
    app.add_middleware(AuthFailureThrottle)
    app.add_middleware(SecurityHeaders)
    app.include_router(health_router)
    metrics.configure(enabled=settings.metrics_enabled)
    if settings.metrics_enabled:
        app.include_router(metrics_router)
    for router in API_ROUTERS:
        app.include_router(router, prefix=API_PREFIX)
    app.include_router(artifact_downloads)
    # Ahead of every other route: a plain webhook fire skips the walk through the included routers.
    app.router.routes.insert(0, FireRoute())
    # Last resort of the router: the web UI's files and page URLs (never shadows an API route).
    app.router.default = ui_fallback()
    app.openapi = lambda: complete_openapi(app)  # type: ignore[method-assign]
    return app
