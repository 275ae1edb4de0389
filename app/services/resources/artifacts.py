"""Artifacts of a space: list a run's, read one's metadata, make a link, serve a link, sweep expired ones.

Who may link or download (DESIGN: signed URLs scoped to the run's permissions):
- `shared`: anyone holding an unexpired link, no API token needed;
- `space`: a member of the artifact's space, presenting their API token with the link;
- `private`: of the members, the automation's author, whoever started the run, and admins and owners.
A link that is forged, expired, for another space or for an artifact the caller may not see is a 404
without saying which.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.errors import AppError, ErrorDetail, Forbidden, NotFound, ValidationFailed
from app.integrations.artifact_store import ArtifactStore
from app.persistence.base import utcnow
from app.persistence.models import Artifact, Automation, Role, Run
from app.persistence.repositories.artifacts import ArtifactRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import UnitOfWork
from app.persistence.types import AsyncSession
from app.security.links import sign_link, verify_link
from app.services.identity.access import Permissions, SpaceAccess
from app.services.identity.auth import auth_service, member

DEFAULT_LINK_SECONDS = 15 * 60
MAX_LINK_SECONDS = 7 * 24 * 3600
SWEEP_BATCH = 500
SWEEP_MAX_BATCHES = 20


@dataclass(frozen=True)
class ArtifactLink:
    """A link to one artifact: served by the API (`path`) or by the store itself (`url`)."""

    url: str
    expires_at: datetime
    served_by: str  # "api" | "store"


@dataclass(frozen=True)
class Download:
    """An artifact a link resolved to, with its bytes as a stream."""

    artifact: Artifact
    chunks: AsyncIterator[bytes]


def _not_found() -> NotFound:
    return NotFound("Artifact not found.", code="artifact_not_found")


class ArtifactService:
    async def list_for_run(
        self, session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID
    ) -> list[Artifact]:
        """The artifacts a run kept, oldest first (404 for a run of another space)."""
        access.require(Permissions.read)
        if await RunRepository(session).get_in_space(access.space_id, run_id) is None:
            raise NotFound("Run not found.", code="run_not_found")
        return [a for a in await ArtifactRepository(session).for_run(access.space_id, run_id) if _live(a)]

    async def get(self, session: AsyncSession, access: SpaceAccess, artifact_id: uuid.UUID) -> Artifact:
        """One artifact's metadata (an expired one is gone, even before the sweep removes it)."""
        access.require(Permissions.read)
        artifact = await ArtifactRepository(session).get_in_space(access.space_id, artifact_id)
        if artifact is None or not _live(artifact):
            raise _not_found()
        return artifact

    async def link(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        artifact_id: uuid.UUID,
        *,
        seconds: int | None,
        secret: str,
        store: ArtifactStore,
    ) -> ArtifactLink:
        """A signed, expiring link (default 15 minutes, at most 7 days, never past the artifact's own end)."""
        artifact = await self.get(session, access, artifact_id)
        if artifact.visibility == "private" and not await _may_see_private(session, access, artifact):
            raise Forbidden(
                "This artifact is private to its automation's author, the run's starter and admins.",
                code="artifact_private",
            )
        seconds = DEFAULT_LINK_SECONDS if seconds is None else seconds
        if not 1 <= seconds <= MAX_LINK_SECONDS:
            raise ValidationFailed(
                f"A link lives 1 second to {MAX_LINK_SECONDS} seconds (7 days).",
                code="invalid_link_lifetime",
                details=[ErrorDetail(path="/expires_in", message=f"between 1 and {MAX_LINK_SECONDS}")],
            )
        expires_at = (utcnow() + timedelta(seconds=seconds)).replace(microsecond=0)
        if artifact.expires_at is not None and artifact.expires_at < expires_at:
            expires_at = artifact.expires_at.replace(microsecond=0)
        if artifact.visibility == "shared":
            lifetime = max(1, int((expires_at - utcnow()).total_seconds()))
            presigned = await store.presigned_url(
                artifact.sha256, filename=artifact.name, content_type=artifact.content_type, seconds=lifetime
            )
            if presigned is not None:
                return ArtifactLink(url=presigned, expires_at=expires_at, served_by="store")
        token = sign_link(secret, artifact.id, artifact.space_id, expires_at)
        return ArtifactLink(url=f"/artifacts/{token}", expires_at=expires_at, served_by="api")

    async def open_link(
        self,
        session: AsyncSession,
        token: str,
        bearer: str | None,
        *,
        secret: str,
        store: ArtifactStore,
    ) -> Download:
        """The artifact behind a link, if the link is valid and the caller may see it; else 404."""
        now = utcnow()
        claims = verify_link(secret, token, now)
        if claims is None:
            raise _not_found()
        artifact = await ArtifactRepository(session).get_in_space(claims.space_id, claims.artifact_id)
        if artifact is None or not _live(artifact, now):
            raise _not_found()
        if artifact.visibility != "shared":
            access = await _member_or_none(session, bearer, artifact.space_id)
            if access is None:
                raise _not_found()
            if artifact.visibility == "private" and not await _may_see_private(session, access, artifact):
                raise _not_found()
        chunks = store.read(artifact.sha256)
        return Download(artifact=artifact, chunks=chunks)

    async def sweep(self, uow: UnitOfWork, store: ArtifactStore, now: datetime) -> int:
        """Delete expired artifacts in batches: rows first (committed), then bytes no row names any more."""
        removed = 0
        for _ in range(SWEEP_MAX_BATCHES):
            async with uow() as session:
                hashes = await ArtifactRepository(session).delete_expired(now, SWEEP_BATCH)
            removed += len(hashes)
            if hashes:
                async with uow() as session:
                    still_named = await ArtifactRepository(session).referenced(set(hashes))
                for sha256 in set(hashes) - still_named:
                    await store.delete(sha256)
            if len(hashes) < SWEEP_BATCH:
                break
        return removed


def _live(artifact: Artifact, now: datetime | None = None) -> bool:
    return artifact.expires_at is None or artifact.expires_at > (now or utcnow())


async def _member_or_none(
    session: AsyncSession, bearer: str | None, space_id: uuid.UUID
) -> SpaceAccess | None:
    if not bearer:
        return None
    try:
        caller, role = await auth_service.authenticate_in_space(session, bearer, space_id)
        return member(caller, space_id, role)
    except AppError:  # an unknown token and a stranger look the same: no hint
        return None


async def _may_see_private(session: AsyncSession, access: SpaceAccess, artifact: Artifact) -> bool:
    if access.role in (Role.admin, Role.owner):
        return True
    if artifact.automation_id is not None:
        automation = await session.get(Automation, artifact.automation_id)
        if automation is not None and automation.created_by == access.user_id:
            return True
    if artifact.run_id is not None:
        run = await session.get(Run, artifact.run_id)
        if run is not None and run.created_by == access.user_id:
            return True
    return False


artifact_service = ArtifactService()
