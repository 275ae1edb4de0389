"""Request and answer bodies of the knowledge routes (documents and search)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from app.api.fields import HTTP_URL_PATTERN, Tag, Title, stated
from app.api.schemas import Body, PageOut
from app.persistence.models import Document
from app.services.knowledge.limits import MAX_QUERY_CHARS, MAX_TOP_K

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _iso_only(value: object) -> object:
    # Pydantic would read a bare number as a Unix time; the API documents and speaks ISO 8601 only.
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value.strip())):
        raise ValueError("expected an ISO 8601 date-time such as 2026-11-27T09:00:00Z")
    return value


IsoMoment = Annotated[datetime, BeforeValidator(_iso_only)]


class DocumentCreate(Body):
    title: Title
    text: str
    format: Literal["text", "markdown"] = "text"
    tags: list[Tag] = Field(default_factory=list, max_length=50)
    source_url: str | None = Field(
        default=None, max_length=2048, json_schema_extra=stated(pattern=HTTP_URL_PATTERN)
    )
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentPatch(Body):
    """Fields to change; each change makes a new revision (new text is indexed again)."""

    title: Title | None = None
    tags: list[Tag] | None = Field(default=None, max_length=50)
    metadata: dict[str, Any] | None = None
    text: str | None = None


class DocumentOut(BaseModel):
    id: uuid.UUID
    title: str
    tags: list[str]
    source: str = Field(description="Where it came from: api, upload, artifact or http_request.")
    source_url: str | None
    metadata: dict[str, Any]
    format: str
    status: Literal["pending", "indexed", "failed"]
    status_reason: str | None
    revision: int
    size_bytes: int
    chunk_count: int
    created_at: datetime
    updated_at: datetime
    indexed_at: datetime | None

    @classmethod
    def of(cls, document: Document) -> DocumentOut:
        return cls(
            id=document.id,
            title=document.title,
            tags=list(document.tags),
            source=document.source,
            source_url=document.source_url,
            metadata=dict(document.doc_metadata),
            format=document.format,
            status=document.status,
            status_reason=document.status_reason,
            revision=document.revision,
            size_bytes=document.size_bytes,
            chunk_count=document.chunk_count,
            created_at=document.created_at,
            updated_at=document.updated_at,
            indexed_at=document.indexed_at,
        )


class DocumentTextOut(DocumentOut):
    text: str = Field(description="A bounded part of the text, from text_offset.")
    text_offset: int
    next_offset: int | None = Field(description="Pass as offset to read on; null at the end.")
    total_chars: int


class DocumentPage(PageOut[DocumentOut]):
    pass


class SearchFilters(Body):
    tags: list[str] = Field(default_factory=list, max_length=50, description="Documents with all of these.")
    since: IsoMoment | None = Field(default=None, description="Indexed at or after.")
    until: IsoMoment | None = Field(default=None, description="Indexed before.")
    source: str | None = Field(default=None, max_length=32)
    document_ids: list[uuid.UUID] | None = Field(default=None, max_length=200)


class SearchRequest(Body):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    filters: SearchFilters = Field(default_factory=SearchFilters)


class SearchHitOut(BaseModel):
    document_id: uuid.UUID
    title: str
    tags: list[str]
    chunk_index: int
    score: float
    snippet: str


class SearchOut(BaseModel):
    items: list[SearchHitOut]
    mode: Literal["fulltext", "vector", "hybrid"]


class ArtifactIndex(Body):
    title: str | None = Field(default=None, min_length=1, max_length=500)
    tags: list[str] = Field(default_factory=list, max_length=50)
