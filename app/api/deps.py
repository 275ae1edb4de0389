"""Typed dependencies, so routes read like their permissions (`SessionDep`, `CallerDep`, `SpaceDep`).

Routes never read `request.app.state`: what the composition root put there reaches them through the
typed aliases below (`SettingsDep`, `LimitsDep`, `RateLimiterDep`, ...), each checked for its type once
per request, so a wiring mistake is a clear error and not an `AttributeError` deep inside a service.

Every dependency is an `async def`: FastAPI runs a plain `def` dependency on a worker thread, a thread
hop per dependency per request for what is an attribute read. The plain `get_*` readers stay for code
outside a route (middleware, the body check).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app import jobs
from app.api.schemas import MAX_VERSION
from app.composition import Runtime
from app.config import ConfigurationError, Settings
from app.engine.validation import Vocabulary
from app.errors import BadRequest, ErrorDetail, PreconditionRequired
from app.integrations.broker import BrokerPublisher
from app.integrations.lockout import SignInLockout
from app.integrations.rate_limit import RateLimiter
from app.jobs import Sender
from app.nl.service import DraftService
from app.persistence.transaction import transaction
from app.persistence.types import AsyncSession, async_sessionmaker
from app.security.crypto import Keyring
from app.security.passwords import HashCost
from app.services.automations.vocabulary import space_vocabulary
from app.services.health import ReadinessProbe
from app.services.identity.access import Caller, SpaceAccess
from app.services.identity.auth import auth_service, member
from app.services.identity.token_scopes import require_as_code_space
from app.services.resources.databases import ConnectionProbe
from app.services.resources.vault import keyring_for
from app.services.runs.limits import DispatchLimits

_bearer = HTTPBearer(
    auto_error=False, description="API token from `automations create-admin` or POST /api/v1/tokens"
)

StateT = TypeVar("StateT")
MAX_VERSION_DIGITS = len(str(MAX_VERSION))

VersionPath = Annotated[int, Path(ge=1, le=MAX_VERSION, description="A version number of the automation.")]


def app_state(request: Request, name: str, kind: type[StateT]) -> StateT:
    """One object the composition root stored on the application, checked to be a `kind`."""
    value: Any = getattr(request.app.state, name, None)
    if not isinstance(value, kind):
        raise ConfigurationError(f"the application state has no {kind.__name__} named {name!r}")
    return value


def on_loop(getter: Callable[[Request], StateT]) -> Callable[[Request], Awaitable[StateT]]:
    """`getter` as a route dependency that runs on the event loop: FastAPI runs a plain `def`
    dependency on a worker thread, a hop per request; middleware keeps calling the plain getter."""

    async def dependency(request: Request) -> StateT:
        return getter(request)

    return dependency


def get_settings(request: Request) -> Settings:
    return app_state(request, "settings", Settings)


SettingsDep = Annotated[Settings, Depends(on_loop(get_settings))]


def get_limits(request: Request) -> DispatchLimits:
    """The dispatcher's operator limits (global cap, LLM pricing)."""
    return app_state(request, "limits", DispatchLimits)


LimitsDep = Annotated[DispatchLimits, Depends(on_loop(get_limits))]


def get_rate_limiter(request: Request) -> RateLimiter:
    return app_state(request, "rate_limiter", RateLimiter)


RateLimiterDep = Annotated[RateLimiter, Depends(on_loop(get_rate_limiter))]


@dataclass(frozen=True)
class FireSetup:
    """What a webhook fire reads of the application, in one dependency: each dependency FastAPI solves
    per request costs more than the attribute reads it wraps."""

    settings: Settings
    limits: DispatchLimits
    limiter: RateLimiter


async def get_fire_setup(request: Request) -> FireSetup:
    return FireSetup(get_settings(request), get_limits(request), get_rate_limiter(request))


FireSetupDep = Annotated[FireSetup, Depends(get_fire_setup)]


def get_draft_service(request: Request) -> DraftService:
    """Natural-language drafting with its ports (draft store, model, ledger)."""
    return app_state(request, "drafts", DraftService)


DraftServiceDep = Annotated[DraftService, Depends(on_loop(get_draft_service))]


def get_lockout(request: Request) -> SignInLockout:
    """Failed password sign-ins per email."""
    return app_state(request, "lockout", SignInLockout)


LockoutDep = Annotated[SignInLockout, Depends(on_loop(get_lockout))]


def get_readiness(request: Request) -> ReadinessProbe:
    return app_state(request, "readiness", ReadinessProbe)


ReadinessDep = Annotated[ReadinessProbe, Depends(on_loop(get_readiness))]


def _send_job(request: Request) -> Sender:
    send: Any = getattr(request.app.state, "send_job", None)
    if not callable(send):
        raise ConfigurationError("the application state has no send_job")
    sender: Sender = send
    return sender


def request_transaction(request: Request) -> AbstractAsyncContextManager[AsyncSession]:
    """The request's transaction: committed (then jobs sent) on leaving the block.

    The webhook fire opens it in its endpoint: solving a generator dependency (an exit stack and a
    shielded exit per request) costs a fire more than the rest of its framework work together.
    """
    sessionmaker: async_sessionmaker[AsyncSession] = app_state(request, "sessionmaker", async_sessionmaker)
    # The wake-ups go out on the event loop through the process's pooled broker client: no thread
    # hand-off, and other requests of this process go on while the publish waits.
    publisher = app_state(request, "publisher", BrokerPublisher)
    return transaction(sessionmaker, _send_job(request), send_async=publisher.publish)


async def commit_now(request: Request, session: AsyncSession) -> None:
    """Commit the request's transaction before the answer and send its jobs: a route that then waits
    (for a run to finish) holds no connection meanwhile. Whatever it does later is a new transaction."""
    await session.commit()
    await jobs.flush_async(app_state(request, "publisher", BrokerPublisher).publish)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction: committed (then jobs sent) before the response leaves."""
    async with request_transaction(request) as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


async def get_caller(
    session: SessionDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Caller:
    return await auth_service.authenticate(session, credentials.credentials if credentials else None)


CallerDep = Annotated[Caller, Depends(get_caller)]


async def get_space_access(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    space_id: Annotated[uuid.UUID, Path()],
) -> SpaceAccess:
    """The caller's access to the path's space: the token and the membership in one round trip."""
    token = credentials.credentials if credentials else None
    caller, role = await auth_service.authenticate_in_space(session, token, space_id)
    return member(caller, space_id, role)


SpaceDep = Annotated[SpaceAccess, Depends(get_space_access)]


async def get_code_space_access(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    space_id: Annotated[uuid.UUID, Path()],
) -> SpaceAccess:
    """`SpaceDep` for the routes `automations export` and `apply` call: a token with full access, or
    one whose `as_code` scope names this space (every other route refuses scoped tokens)."""
    token = credentials.credentials if credentials else None
    caller, role = await auth_service.authenticate_in_space(session, token, space_id, scoped=True)
    require_as_code_space(caller.scopes, space_id)
    return member(caller, space_id, role)


CodeSpaceDep = Annotated[SpaceAccess, Depends(get_code_space_access)]


@dataclass(frozen=True)
class PageParams:
    limit: int
    cursor: str | None


# A cursor is unpadded base64url (`app.persistence.pagination`); only one a listing issued is valid.
CURSOR_PATTERN = r"^[A-Za-z0-9_-]*$"
# The document states the operator's AUTOMATIONS_PAGE_SIZE_MAX as this parameter's maximum.
PAGE_SIZE_MARK = "x-page-size-max"


async def get_page_params(
    settings: SettingsDep,
    limit: Annotated[
        int | None, Query(ge=1, description="Items per page.", json_schema_extra={PAGE_SIZE_MARK: True})
    ] = None,
    cursor: Annotated[
        str | None,
        Query(
            max_length=512,
            description="next_cursor of the previous page (only a cursor this listing issued is valid).",
            # Stated, not enforced here: the listing refuses a bad cursor with its own code.
            json_schema_extra={"pattern": CURSOR_PATTERN},
        ),
    ] = None,
) -> PageParams:
    if limit is not None and limit > settings.page_size_max:
        raise BadRequest(
            f"limit may be at most {settings.page_size_max}.",
            code="limit_too_large",
            details=[ErrorDetail(path="/query/limit", message=f"at most {settings.page_size_max}")],
        )
    return PageParams(limit=limit or settings.page_size_default, cursor=cursor)


PageDep = Annotated[PageParams, Depends(get_page_params)]


def parse_if_match(value: str | None) -> int | None:
    """`If-Match: "3"` (or W/"3", or 3) names the expected version; `*` means any version."""
    if value is None or value.strip() == "*":
        return None
    tag = value.strip().removeprefix("W/").strip('"')
    # ASCII digits only, and few of them: `int()` refuses other digits and over 4300 of them.
    if not (tag.isascii() and tag.isdigit() and len(tag) <= MAX_VERSION_DIGITS):
        raise BadRequest(
            'If-Match must carry the automation\'s version as its ETag, e.g. If-Match: "3".',
            code="invalid_if_match",
            details=[ErrorDetail(path="/header/if-match", message="expected a version number")],
        )
    return int(tag)


# What `parse_if_match` reads: `*`, or a version as an ETag, quoted or not, weak or not.
IF_MATCH_PATTERN = rf'^[ \t]*(\*|(W/)?"*[0-9]{{1,{MAX_VERSION_DIGITS}}}"*)[ \t]*$'
IfMatchDep = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description='The expected version as an ETag (e.g. "3"), or * for any version.',
        # Stated, not enforced here: `parse_if_match` refuses anything else with its own code.
        json_schema_extra={"pattern": IF_MATCH_PATTERN},
    ),
]


def expected_version(if_match: str | None, body_version: int | None, *, required: bool) -> int | None:
    """The expected version from If-Match or the body; both given must agree."""
    header_version = parse_if_match(if_match)
    if header_version is not None and body_version is not None and header_version != body_version:
        raise BadRequest(
            "If-Match and the body's version disagree.",
            code="version_mismatch",
            details=[ErrorDetail(path="/version", message=f"If-Match says {header_version}")],
        )
    version = header_version if header_version is not None else body_version
    if version is None and required and (if_match is None or if_match.strip() != "*"):
        raise PreconditionRequired()
    return version


def get_runtime(request: Request) -> Runtime:
    """The process's composed runtime (built in the app's lifespan)."""
    return app_state(request, "runtime", Runtime)


RuntimeDep = Annotated[Runtime, Depends(on_loop(get_runtime))]


VocabularyLoader = Callable[[], Awaitable[Vocabulary]]
"""Reads the space's vocabulary when called: a route calls it once FastAPI has validated its body, so a
request refused for its shape reads none of it (the space's MCP tools, databases, plugins, secrets)."""


def _vocabulary_loader(runtime: Runtime, session: AsyncSession, access: SpaceAccess) -> VocabularyLoader:
    async def load() -> Vocabulary:
        return await space_vocabulary(session, access, runtime.vocabulary_for)

    return load


async def get_vocabulary(runtime: RuntimeDep, session: SessionDep, access: SpaceDep) -> VocabularyLoader:
    """What the space's definitions are validated against: the registries, the allowed LLM models,
    the capabilities this space can call (from the capability resolver) and its secrets' names and hosts."""
    return _vocabulary_loader(runtime, session, access)


VocabularyDep = Annotated[VocabularyLoader, Depends(get_vocabulary)]


async def get_code_vocabulary(
    runtime: RuntimeDep, session: SessionDep, access: CodeSpaceDep
) -> VocabularyLoader:
    """`get_vocabulary` for the routes open to an `as_code` token."""
    return _vocabulary_loader(runtime, session, access)


CodeVocabularyDep = Annotated[VocabularyLoader, Depends(get_code_vocabulary)]


def get_password_cost(request: Request) -> HashCost:
    """What a password hash costs on this installation (its settings)."""
    return HashCost.from_settings(get_settings(request))


PasswordCostDep = Annotated[HashCost, Depends(on_loop(get_password_cost))]


def get_keyring(request: Request) -> Keyring:
    """The keys that seal and open encrypted columns (built once per secret key)."""
    return keyring_for(get_settings(request))


KeyringDep = Annotated[Keyring, Depends(on_loop(get_keyring))]


async def get_database_probe(request: Request) -> ConnectionProbe:
    # A runtime-checkable protocol: mypy wants a concrete class here, isinstance accepts it.
    return app_state(request, "database_probe", ConnectionProbe)  # type: ignore[type-abstract]


DatabaseProbeDep = Annotated[ConnectionProbe, Depends(get_database_probe)]
