"""Typed dependencies, so routes read like their permissions (`SessionDep`, `CallerDep`, `SpaceDep`)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.validation import Vocabulary
from app.errors import BadRequest, ErrorDetail, PreconditionRequired
from app.persistence.transaction import transaction
from app.security.crypto import Keyring
from app.services.access import Caller, SpaceAccess
from app.services.auth import auth_service
from app.services.vault import keyring_for

_bearer = HTTPBearer(
    auto_error=False, description="API token from `automations create-admin` or POST /api/v1/tokens"
)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction: committed (then jobs sent) before the response leaves."""
    state = request.app.state
    async with transaction(state.sessionmaker, state.send_job) as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


async def get_caller(
    session: SessionDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Caller:
    return await auth_service.authenticate(session, credentials.credentials if credentials else None)


CallerDep = Annotated[Caller, Depends(get_caller)]


async def get_space_access(
    session: SessionDep, caller: CallerDep, space_id: Annotated[uuid.UUID, Path()]
) -> SpaceAccess:
    return await auth_service.space_access(session, caller, space_id)


SpaceDep = Annotated[SpaceAccess, Depends(get_space_access)]


@dataclass(frozen=True)
class PageParams:
    limit: int
    cursor: str | None


def get_page_params(
    request: Request,
    limit: Annotated[int | None, Query(ge=1, description="Items per page.")] = None,
    cursor: Annotated[
        str | None, Query(max_length=512, description="next_cursor of the previous page.")
    ] = None,
) -> PageParams:
    settings = request.app.state.settings
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
    if not tag.isdigit():
        raise BadRequest(
            'If-Match must carry the automation\'s version as its ETag, e.g. If-Match: "3".',
            code="invalid_if_match",
            details=[ErrorDetail(path="/header/if-match", message="expected a version number")],
        )
    return int(tag)


IfMatchDep = Annotated[str | None, Header(alias="If-Match")]


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


def get_vocabulary(request: Request) -> Vocabulary:
    """The registries plus this deployment's allowed LLM models, for validating definitions."""
    return request.app.state.vocabulary  # type: ignore[no-any-return]


VocabularyDep = Annotated[Vocabulary, Depends(get_vocabulary)]


def get_keyring(request: Request) -> Keyring:
    """The keys that seal and open encrypted columns (built once per secret key)."""
    return keyring_for(request.app.state.settings)


KeyringDep = Annotated[Keyring, Depends(get_keyring)]
