"""The artifact port of a run: stream to a staging file while hashing, check the caps, keep, record.

Bytes never sit whole in memory: a stream is written chunk by chunk, and a stream that passes the
size cap is stopped and its partial file removed. The row is written in a short transaction of its
own once the bytes are safely in the store, so an artifact that has a row always has its bytes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import tempfile
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from app.definitions.signals import StepError
from app.integrations.artifact_store import ArtifactStore
from app.persistence.base import utcnow
from app.persistence.models import Artifact, Run
from app.persistence.models.artifacts import ARTIFACT_KINDS, RETENTIONS, VISIBILITIES
from app.persistence.repositories.artifacts import ArtifactRepository
from app.persistence.transaction import UnitOfWork
from app.registry.ports import ArtifactData, ArtifactRef
from app.security.links import sign_link

MAX_NAME_LENGTH = 255
SHARED_LINK_SECONDS = 7 * 24 * 3600
TRANSIENT_LIFE = timedelta(hours=24)
_CONTENT_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?")


@dataclass(frozen=True)
class ArtifactLimits:
    """The operator's caps: one artifact's size, a space's total, and how long `default` ones live."""

    max_bytes: int = 100 * 1024 * 1024
    quota_bytes: int = 5 * 1024**3
    retention_days: int = 30


def name_problem(name: object) -> str | None:
    """Why `name` cannot name an artifact (it becomes a download's file name), or None."""
    if not isinstance(name, str) or not name.strip():
        return "an artifact name must be a non-empty string"
    if len(name) > MAX_NAME_LENGTH:
        return f"an artifact name has at most {MAX_NAME_LENGTH} characters"
    if "/" in name or "\\" in name or ".." in name:
        return "an artifact name must not contain '/', '\\' or '..'"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "an artifact name must not contain control characters"
    return None


def expiry(retention: str, now: datetime, limits: ArtifactLimits) -> datetime | None:
    """When an artifact of this retention expires (None: never)."""
    if retention == "transient":
        return now + TRANSIENT_LIFE
    if retention == "default":
        return now + timedelta(days=limits.retention_days)
    return None


def artifact_ref(row: Artifact) -> ArtifactRef:
    return ArtifactRef(
        id=str(row.id),
        name=row.name,
        kind=row.kind,
        size=row.size,
        content_type=row.content_type,
        sha256=row.sha256,
        retention=row.retention,
        visibility=row.visibility,
        expires_at=row.expires_at.isoformat() if row.expires_at else None,
    )


async def _single(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _invalid(message: str) -> StepError:
    return StepError("invalid_artifact", message, retryable=False)


def _quota_exceeded(used: int, limits: ArtifactLimits) -> StepError:
    return StepError(
        "artifact_quota_exceeded",
        f"the space stores {used} bytes of artifacts; its quota is {limits.quota_bytes}",
        retryable=False,
    )


class RunArtifacts:
    """`ArtifactPort` for one run, writing through the process's store and its own transactions."""

    def __init__(
        self,
        uow: UnitOfWork,
        store: ArtifactStore,
        run: Run,
        limits: ArtifactLimits,
        link_secret: str | None = None,
    ) -> None:
        self.uow = uow
        self.store = store
        self.run = run
        self.limits = limits
        self.link_secret = link_secret

    async def put(
        self,
        name: str,
        data: ArtifactData,
        content_type: str,
        *,
        step_id: str,
        step_path: str | None = None,
        kind: str,
        retention: str,
        visibility: str,
    ) -> ArtifactRef:
        """Keep `data` as an artifact of this run's step; see `ArtifactPort`."""
        problem = name_problem(name)
        if problem is not None:
            raise StepError("invalid_artifact_name", problem, retryable=False)
        for label, value, allowed in (
            ("kind", kind, ARTIFACT_KINDS),
            ("retention", retention, RETENTIONS),
            ("visibility", visibility, VISIBILITIES),
        ):
            if value not in allowed:
                raise _invalid(f"artifact {label} must be one of {', '.join(allowed)}")
        content_type = content_type.strip() or "application/octet-stream"
        if len(content_type) > 255 or not _CONTENT_TYPE.fullmatch(content_type):
            content_type = "application/octet-stream"
        async with self.uow() as session:
            used = await ArtifactRepository(session).bytes_used(self.run.space_id)
        if used >= self.limits.quota_bytes:
            raise _quota_exceeded(used, self.limits)
        staged, sha256, size = await self._stage(
            data, min(self.limits.max_bytes, self.limits.quota_bytes - used)
        )
        try:
            if used + size > self.limits.quota_bytes:
                raise _quota_exceeded(used + size, self.limits)
            await self.store.save(sha256, staged)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged)
        now = utcnow()
        row = Artifact(
            id=uuid.uuid4(),
            space_id=self.run.space_id,
            run_id=self.run.id,
            automation_id=self.run.automation_id,
            step_id=step_id,
            step_path=step_path or step_id,
            name=name,
            kind=kind,
            retention=retention,
            visibility=visibility,
            size=size,
            content_type=content_type,
            sha256=sha256,
            expires_at=expiry(retention, now, self.limits),
            created_at=now,
            updated_at=now,
        )
        try:
            async with self.uow() as session:
                repository = ArtifactRepository(session)
                # Writers of one space take turns here, so two at once cannot both fit the last bytes.
                await repository.lock_space(self.run.space_id)
                used = await repository.bytes_used(self.run.space_id)
                if used + size > self.limits.quota_bytes:
                    raise _quota_exceeded(used + size, self.limits)
                await repository.create(row)
        except StepError:
            async with self.uow() as session:
                named = await ArtifactRepository(session).referenced({sha256})
            if not named:
                await self.store.delete(sha256)
            raise
        ref = artifact_ref(row)
        if visibility == "shared" and self.link_secret:
            # A shared artifact is meant to be passed on: later steps get a link to post.
            until = now + timedelta(seconds=SHARED_LINK_SECONDS)
            if row.expires_at is not None:
                until = min(until, row.expires_at)
            token = sign_link(self.link_secret, row.id, row.space_id, until)
            ref = dataclasses.replace(ref, link=f"/artifacts/{token}")
        return ref

    async def _stage(self, data: ArtifactData, cap: int) -> tuple[Path, str, int]:
        """Write `data` to a staging file, hashing it; stop past `cap` bytes and remove what was written."""
        digest = hashlib.sha256()
        size = 0
        descriptor, raw_path = tempfile.mkstemp(dir=self.store.staging_dir, prefix="put-")
        path = Path(raw_path)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                stream = _single(bytes(data)) if isinstance(data, bytes | bytearray | memoryview) else data
                async for chunk in stream:
                    size += len(chunk)
                    if size > cap:
                        raise self._too_large(cap)
                    digest.update(chunk)
                    handle.write(chunk)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            raise
        return path, digest.hexdigest(), size

    def _too_large(self, cap: int) -> StepError:
        if cap < self.limits.max_bytes:
            return StepError(
                "artifact_quota_exceeded",
                f"the artifact would pass the space's quota of {self.limits.quota_bytes} bytes",
                retryable=False,
            )
        return StepError(
            "artifact_too_large",
            f"the artifact is larger than {self.limits.max_bytes} bytes; the partial file was removed",
            retryable=False,
        )
