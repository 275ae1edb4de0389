"""Knowledge: a space's documents, their earlier revisions, and the chunks search reads.

A chunk's `tsv` is a generated column over its text in the chunk's own text-search configuration
(`language`, a `regconfig`, so the expression stays immutable and indexable). Embeddings live in a
table of their own (`document_embeddings`) that exists only where pgvector does; see docs/knowledge.md.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Computed,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, REGCONFIG, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base, IdMixin, TimestampMixin, utcnow

DOCUMENT_STATUSES = ("pending", "indexed", "failed")
DOCUMENT_FORMATS = ("text", "markdown", "html", "pdf", "docx")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Document(IdMixin, TimestampMixin, Base):
    """One document of a space: its current text and what indexing made of it.

    `content` holds an upload's bytes only until extraction has read them (then it is emptied).
    """

    __tablename__ = "documents"
    __table_args__ = (
        CheckConstraint(_one_of("status", DOCUMENT_STATUSES), name="status"),
        CheckConstraint(_one_of("format", DOCUMENT_FORMATS), name="format"),
        Index("ix_documents_space_id_created_at", "space_id", "created_at", "id"),
        Index("ix_documents_space_id_indexed_at", "space_id", "indexed_at"),
        Index("ix_documents_tags", "tags", postgresql_using="gin"),
    )

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(500))
    tags: Mapped[list[str]] = mapped_column(ARRAY(String(100)), server_default="{}")
    source: Mapped[str] = mapped_column(String(32))
    source_url: Mapped[str | None] = mapped_column(String(2048))
    doc_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", JSONB, server_default="{}")
    format: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), server_default="pending")
    status_reason: Mapped[str | None] = mapped_column(String(1000))
    revision: Mapped[int] = mapped_column(Integer, server_default="1")
    size_bytes: Mapped[int] = mapped_column(BigInteger, server_default="0")
    chunk_count: Mapped[int] = mapped_column(Integer, server_default="0")
    text: Mapped[str] = mapped_column(Text, server_default="")
    content: Mapped[bytes | None] = mapped_column(LargeBinary)
    indexed_at: Mapped[datetime | None]
    # Whether the last indexing emitted `document.added` already (later ones emit `document.updated`).
    announced: Mapped[bool] = mapped_column(server_default="false")


class DocumentRevision(IdMixin, Base):
    """A document as it was before a change: its text, title, tags and metadata at that revision."""

    __tablename__ = "document_revisions"
    __table_args__ = (
        Index("uq_document_revisions_document_id_revision", "document_id", "revision", unique=True),
    )

    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    revision: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(500))
    tags: Mapped[list[str]] = mapped_column(ARRAY(String(100)))
    doc_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", JSONB)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow)


class DocumentChunk(Base):
    """A passage of a document's text, the unit search ranks and answers."""

    __tablename__ = "document_chunks"
    __table_args__ = (
        Index("uq_document_chunks_document_id_chunk_index", "document_id", "chunk_index", unique=True),
        Index("ix_document_chunks_space_id", "space_id"),
        Index("ix_document_chunks_tsv", "tsv", postgresql_using="gin"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"))
    chunk_index: Mapped[int] = mapped_column(Integer)
    start_offset: Mapped[int] = mapped_column(Integer)
    language: Mapped[str] = mapped_column(REGCONFIG)
    text: Mapped[str] = mapped_column(Text)
    tsv: Mapped[Any] = mapped_column(
        TSVECTOR, Computed("to_tsvector(language, text)", persisted=True), deferred=True
    )
