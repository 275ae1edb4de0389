"""A space's documents: add (text or upload), list, read, edit (a new revision), delete.

Adding or editing text only records the document as `pending` and wakes the indexer on the `system`
queue after the commit: extraction, chunking and embedding never run on the API's event loop.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from app import jobs
from app.errors import Conflict, NotFound, PayloadTooLarge
from app.persistence.models import Document
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.knowledge import DocumentFilters, DocumentRepository, filter_clauses
from app.persistence.types import AsyncSession
from app.services.identity.access import Permissions, SpaceAccess
from app.services.knowledge.limits import (
    DEFAULT_READ_CHARS,
    INDEX_TASK,
    MAX_READ_CHARS,
    SYSTEM_QUEUE,
    KnowledgeLimits,
)
from app.services.knowledge.validation import (
    clean_metadata,
    clean_source_url,
    clean_tags,
    clean_text,
    clean_title,
    refuse,
)
from app.services.triggers.events import event_service

_UNSET: Any = object()


@dataclass(frozen=True)
class NewDocument:
    """A document to add: text already in hand (`content` None), or an upload's bytes to extract."""

    title: str
    format: str
    source: str
    text: str = ""
    content: bytes | None = None
    tags: list[str] = field(default_factory=list)
    source_url: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TextSlice:
    """A bounded part of a document's text and where the next part starts (None at the end)."""

    text: str
    offset: int
    next_offset: int | None
    total_chars: int


def event_payload(document: Document) -> dict[str, Any]:
    """What `document.*` events carry: never the text (subscribers read it through the capability)."""
    return {
        "id": str(document.id),
        "title": document.title,
        "tags": list(document.tags),
        "source": document.source,
        "source_url": document.source_url,
        "space_id": str(document.space_id),
        "revision": document.revision,
    }


def slice_text(text: str, offset: int, max_chars: int) -> TextSlice:
    """`max_chars` characters of `text` from `offset`, with the continuation offset."""
    if offset < 0:
        raise refuse("invalid_offset", "/offset", "offset is 0 or more")
    if not 1 <= max_chars <= MAX_READ_CHARS:
        raise refuse("invalid_max_chars", "/max_chars", f"max_chars is between 1 and {MAX_READ_CHARS}")
    end = offset + max_chars
    return TextSlice(
        text=text[offset:end],
        offset=min(offset, len(text)),
        next_offset=end if end < len(text) else None,
        total_chars=len(text),
    )


def _not_found() -> NotFound:
    return NotFound("Document not found.", code="document_not_found")


class DocumentService:
    async def add(
        self, session: AsyncSession, space_id: uuid.UUID, new: NewDocument, limits: KnowledgeLimits
    ) -> Document:
        """Record a pending document under the space's caps and wake the indexer after the commit."""
        title = clean_title(new.title)
        tags = clean_tags(new.tags)
        metadata = clean_metadata(new.metadata)
        source_url = clean_source_url(new.source_url)
        text = clean_text(new.text, limits.max_text_chars) if new.content is None else ""
        size = len(new.content) if new.content is not None else len(text.encode())
        if size > limits.max_upload_bytes:
            raise PayloadTooLarge(
                f"A document is at most {limits.max_upload_bytes} bytes (this one is {size}).",
                code="document_too_large",
            )
        repository = DocumentRepository(session)
        await repository.lock_space(space_id)
        count, used = await repository.usage(space_id)
        if count >= limits.max_documents:
            raise Conflict(
                f"The space already keeps {limits.max_documents} documents; delete some first.",
                code="document_quota_exceeded",
            )
        if used + size > limits.max_space_bytes:
            raise Conflict(
                f"The space's documents would pass {limits.max_space_bytes} bytes; delete some first.",
                code="document_quota_exceeded",
            )
        document = Document(
            id=uuid.uuid4(),
            space_id=space_id,
            title=title,
            tags=tags,
            source=new.source,
            source_url=source_url,
            doc_metadata=metadata,
            format=new.format,
            status="pending",
            revision=1,
            size_bytes=size,
            chunk_count=0,
            text=text,
            content=new.content,
            announced=False,
        )
        await repository.create(document)
        jobs.enqueue(INDEX_TASK, str(document.id), queue=SYSTEM_QUEUE)
        return document

    async def add_once(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        new: NewDocument,
        limits: KnowledgeLimits,
        *,
        key: dict[str, str],
    ) -> Document:
        """`add`, unless a document with metadata `key` exists (then that one): a step made again after
        a lost lease adds its document once."""
        repository = DocumentRepository(session)
        await repository.lock_space(space_id)
        existing = await repository.find_by_metadata(space_id, key)
        if existing is not None:
            return existing
        return await self.add(session, space_id, replace(new, metadata={**new.metadata, **key}), limits)

    async def create(
        self, session: AsyncSession, access: SpaceAccess, new: NewDocument, limits: KnowledgeLimits
    ) -> Document:
        access.require(Permissions.write_documents)
        return await self.add(session, access.space_id, new, limits)

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        filters: DocumentFilters,
        *,
        limit: int,
        cursor: str | None,
    ) -> Page[Document]:
        """The space's documents, newest first; `since`/`until` bound when they were indexed."""
        access.require(Permissions.read)
        statement = (
            DocumentRepository(session).space_statement(access.space_id).where(*filter_clauses(filters))
        )
        return await paginate(
            session, statement, order_by=[Document.created_at, Document.id], limit=limit, cursor=cursor
        )

    async def list_permission(self, access: SpaceAccess) -> None:
        """Reading (and searching) documents needs membership of the space."""
        access.require(Permissions.read)

    async def get(self, session: AsyncSession, access: SpaceAccess, document_id: uuid.UUID) -> Document:
        access.require(Permissions.read)
        document = await DocumentRepository(session).get_in_space(access.space_id, document_id)
        if document is None:
            raise _not_found()
        return document

    async def read(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        document_id: uuid.UUID,
        *,
        offset: int = 0,
        max_chars: int = DEFAULT_READ_CHARS,
    ) -> tuple[Document, TextSlice]:
        """A document of the space and a bounded slice of its text (a run's fetch, the API's read)."""
        document = await DocumentRepository(session).get_in_space(space_id, document_id)
        if document is None:
            raise _not_found()
        return document, slice_text(document.text, offset, max_chars)

    async def update(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        document_id: uuid.UUID,
        limits: KnowledgeLimits,
        *,
        title: Any = _UNSET,
        tags: Any = _UNSET,
        metadata: Any = _UNSET,
        text: Any = _UNSET,
    ) -> Document:
        """A new revision (the old one kept): new text is indexed again; other changes announce at once."""
        access.require(Permissions.write_documents)
        repository = DocumentRepository(session)
        document = await repository.get_in_space(access.space_id, document_id)
        if document is None:
            raise _not_found()
        changes: dict[str, Any] = {}
        if title is not _UNSET:
            changes["title"] = clean_title(title)
        if tags is not _UNSET:
            changes["tags"] = clean_tags(tags)
        if metadata is not _UNSET:
            changes["doc_metadata"] = clean_metadata(metadata)
        if text is not _UNSET:
            changes["text"] = clean_text(text, limits.max_text_chars)
            changes["size_bytes"] = len(changes["text"].encode())
            _, used = await repository.usage(access.space_id)
            if used - document.size_bytes + changes["size_bytes"] > limits.max_space_bytes:
                raise Conflict(
                    f"The space's documents would pass {limits.max_space_bytes} bytes.",
                    code="document_quota_exceeded",
                )
        if not changes:
            return document
        if document.status == "pending" and document.content is not None:
            raise Conflict(
                "The document is still being extracted; edit it once indexed.", code="document_busy"
            )
        await repository.add_revision(document)
        changes["revision"] = document.revision + 1
        if "text" in changes:
            changes["status"] = "pending"
            changes["status_reason"] = None
            changes["content"] = None
            jobs.enqueue(INDEX_TASK, str(document.id), queue=SYSTEM_QUEUE)
        await repository.update(document, changes)
        if "text" not in changes and document.announced:
            await event_service.publish(
                session, document.space_id, "document.updated", event_payload(document), str(document.id)
            )
        return document

    async def delete(self, session: AsyncSession, access: SpaceAccess, document_id: uuid.UUID) -> None:
        access.require(Permissions.write_documents)
        repository = DocumentRepository(session)
        document = await repository.get_in_space(access.space_id, document_id)
        if document is None:
            raise _not_found()
        payload = event_payload(document)
        announced = document.announced
        await session.delete(document)
        await session.flush()
        if announced:
            await event_service.publish(
                session, access.space_id, "document.deleted", payload, str(document_id)
            )


document_service = DocumentService()
