"""Documents from files: an upload's bytes, or an artifact a run kept. The format is checked here, on the
first bytes, so a wrong type or an oversized file is a 4xx before anything is stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from app.errors import ErrorDetail, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from app.integrations.artifact_store import ArtifactStore
from app.persistence.models import Document
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess
from app.services.knowledge.documents import NewDocument, document_service
from app.services.knowledge.extract import ExtractionFailed, archive_problem, decode_text, detect_format
from app.services.knowledge.limits import KnowledgeLimits
from app.services.resources.artifacts import artifact_service

SUPPORTED = "text (.txt), Markdown (.md), HTML (.html), PDF (.pdf) or DOCX (.docx)"


def too_large(limits: KnowledgeLimits) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"A document is at most {limits.max_upload_bytes} bytes.", code="document_too_large"
    )


def checked_file(filename: str | None, content_type: str | None, data: bytes, limits: KnowledgeLimits) -> str:
    """The format of a file to index; a 413, 415 or 422 (with the reason) when it cannot be one."""
    if len(data) > limits.max_upload_bytes:
        raise too_large(limits)
    if not data:
        raise ValidationFailed(
            "The file is empty.",
            code="empty_document",
            details=[ErrorDetail(path="/file", message="the file has no bytes")],
        )
    format = detect_format(filename, content_type, data[:8])
    if format is None:
        raise UnsupportedMediaType(
            f"Unsupported document type; upload {SUPPORTED}.", code="unsupported_document_type"
        )
    problem: str | None = None
    if format == "docx":
        problem = archive_problem(data)
    elif format in ("text", "markdown", "html"):
        try:
            decode_text(data)
        except ExtractionFailed as exc:
            problem = exc.reason
    if problem is not None:
        raise ValidationFailed(
            f"The file cannot be indexed: {problem}.",
            code="unreadable_document",
            details=[ErrorDetail(path="/file", message=problem)],
        )
    return format


def title_from(filename: str | None, fallback: str = "Untitled document") -> str:
    if not filename:
        return fallback
    stem = filename.rsplit("/", 1)[-1]
    return (stem.rsplit(".", 1)[0] if "." in stem else stem).strip()[:500] or fallback


def split_tags(values: Sequence[str]) -> list[str]:
    """Tags given repeated or comma-separated (`tags=a,b` or `tags=a&tags=b`)."""
    return [tag for value in values for tag in value.split(",") if tag.strip()]


async def upload(
    session: AsyncSession,
    access: SpaceAccess,
    *,
    filename: str | None,
    content_type: str | None,
    data: bytes,
    title: str | None,
    tags: list[str],
    source_url: str | None,
    limits: KnowledgeLimits,
) -> Document:
    """A document from an uploaded file, indexed after the commit."""
    access.require(Permissions.write_documents)
    format = checked_file(filename, content_type, data, limits)
    new = NewDocument(
        title=title or title_from(filename),
        format=format,
        source="upload",
        content=data,
        tags=tags,
        source_url=source_url,
        metadata={"filename": filename} if filename else {},
    )
    return await document_service.add(session, access.space_id, new, limits)


async def from_artifact(
    session: AsyncSession,
    access: SpaceAccess,
    artifact_id: uuid.UUID,
    store: ArtifactStore,
    limits: KnowledgeLimits,
    *,
    title: str | None = None,
    tags: list[str] | None = None,
) -> Document:
    """A document from an artifact the caller may see (404 otherwise), read from the store."""
    access.require(Permissions.write_documents)
    artifact = await artifact_service.get(session, access, artifact_id)
    if artifact.size > limits.max_upload_bytes:
        raise too_large(limits)
    data = await read_artifact(store, artifact.sha256, limits.max_upload_bytes)
    format = checked_file(artifact.name, artifact.content_type, data, limits)
    metadata: dict[str, Any] = {"artifact_id": str(artifact.id), "filename": artifact.name}
    if artifact.run_id is not None:
        metadata["run_id"] = str(artifact.run_id)
    new = NewDocument(
        title=title or title_from(artifact.name),
        format=format,
        source="artifact",
        content=data,
        tags=tags or [],
        metadata=metadata,
    )
    return await document_service.add(session, access.space_id, new, limits)


async def read_artifact(store: ArtifactStore, sha256: str, max_bytes: int) -> bytes:
    """An artifact's bytes, at most `max_bytes` (a larger one is refused, not cut)."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in store.read(sha256):
            size += len(chunk)
            if size > max_bytes:
                raise PayloadTooLarge(f"A document is at most {max_bytes} bytes.", code="document_too_large")
            parts.append(chunk)
    except FileNotFoundError:
        raise NotFound("Artifact not found.", code="artifact_not_found") from None
    return b"".join(parts)
