"""Queries over documents, their revisions and chunks: always within one space."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    cast,
    delete,
    func,
    literal,
    literal_column,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import REGCONFIG, insert

from app.persistence.models import Document, DocumentChunk, DocumentRevision
from app.persistence.repositories.base import RepositoryBase

# New documents of one space are counted and added by one writer at a time under this lock (with the
# space's id), so two uploads cannot both take the last place of the space's caps.
_DOCUMENTS_LOCK_NAMESPACE = 0x646F63
# Characters of context ts_headline keeps around the matched words.
_HEADLINE_OPTIONS = "MaxWords=35, MinWords=12, MaxFragments=2, FragmentDelimiter=' … '"


_NEAREST_HEAD = (
    "SELECT e.chunk_id, 1 - (e.embedding <=> CAST(:vector AS vector)) AS similarity"
    " FROM document_embeddings e JOIN document_chunks c ON c.id = e.chunk_id"
    " JOIN documents d ON d.id = c.document_id WHERE e.space_id = :space_id AND e.model = :model"
)
_NEAREST_TAIL = "ORDER BY e.embedding <=> CAST(:vector AS vector), e.chunk_id LIMIT :limit"


@dataclass(frozen=True)
class DocumentFilters:
    """What a search or a listing keeps: all of `tags`, indexed within [since, until), a source, ids."""

    tags: Sequence[str] = ()
    since: datetime | None = None
    until: datetime | None = None
    source: str | None = None
    document_ids: Sequence[uuid.UUID] | None = None
    status: str | None = None


@dataclass(frozen=True)
class ChunkHit:
    """One ranked chunk with its document's title and tags."""

    document_id: uuid.UUID
    title: str
    tags: list[str]
    chunk_index: int
    chunk_id: int
    score: float
    snippet: str


@dataclass(frozen=True)
class ChunkRow:
    chunk_index: int
    start_offset: int
    text: str


def filter_clauses(filters: DocumentFilters) -> list[ColumnElement[bool]]:
    """The WHERE clauses of `filters` over `documents` (listings filter on indexed_at like searches)."""
    clauses: list[ColumnElement[bool]] = []
    if filters.tags:
        clauses.append(Document.tags.contains(list(filters.tags)))
    if filters.since is not None:
        clauses.append(Document.indexed_at >= filters.since)
    if filters.until is not None:
        clauses.append(Document.indexed_at < filters.until)
    if filters.source:
        clauses.append(Document.source == filters.source)
    if filters.document_ids is not None:
        clauses.append(Document.id.in_(list(filters.document_ids)))
    if filters.status:
        clauses.append(Document.status == filters.status)
    return clauses


class DocumentRepository(RepositoryBase[Document]):
    model = Document

    def space_statement(self, space_id: uuid.UUID) -> Select[Document]:
        """The space's documents: the one place a document query is scoped."""
        return select(Document).where(Document.space_id == space_id)

    async def get_in_space(self, space_id: uuid.UUID, document_id: uuid.UUID) -> Document | None:
        return await self.get_one_or_none(self.space_statement(space_id).where(Document.id == document_id))

    async def find_by_metadata(self, space_id: uuid.UUID, keys: dict[str, Any]) -> Document | None:
        """The space's first document whose metadata holds all of `keys`."""
        statement = self.space_statement(space_id).where(Document.doc_metadata.contains(keys))
        return (await self.session.scalars(statement.order_by(Document.created_at).limit(1))).first()

    async def lock_space(self, space_id: uuid.UUID) -> None:
        """Until the transaction ends, this writer alone adds documents to the space."""
        await self.session.execute(
            select(func.pg_advisory_xact_lock(_DOCUMENTS_LOCK_NAMESPACE, func.hashtext(str(space_id))))
        )

    async def usage(self, space_id: uuid.UUID) -> tuple[int, int]:
        """(documents, bytes) the space keeps."""
        row = (
            await self.session.execute(
                select(func.count(), func.coalesce(func.sum(Document.size_bytes), 0)).where(
                    Document.space_id == space_id
                )
            )
        ).one()
        return int(row[0]), int(row[1])

    async def lock_for_indexing(self, document_id: uuid.UUID) -> Document | None:
        """The document, locked until the transaction ends (an edit waits for the indexer)."""
        return await self.get_one_or_none(
            select(Document).where(Document.id == document_id).with_for_update()
        )

    async def add_revision(self, document: Document) -> None:
        """Keep the document as it is now (before a change) as a revision."""
        await self.session.execute(
            insert(DocumentRevision).values(
                id=uuid.uuid4(),
                document_id=document.id,
                space_id=document.space_id,
                revision=document.revision,
                title=document.title,
                tags=list(document.tags),
                metadata=dict(document.doc_metadata),
                text=document.text,
            )
        )

    async def revisions(self, document_id: uuid.UUID) -> list[DocumentRevision]:
        statement = (
            select(DocumentRevision)
            .where(DocumentRevision.document_id == document_id)
            .order_by(DocumentRevision.revision.desc())
        )
        return list((await self.session.scalars(statement)).all())

    async def replace_chunks(
        self, document: Document, chunks: Sequence[ChunkRow], language: str
    ) -> list[int]:
        """Drop the document's chunks and write `chunks` in their place; answer the new chunk ids."""
        await self.session.execute(delete(DocumentChunk).where(DocumentChunk.document_id == document.id))
        if not chunks:
            return []
        rows = [
            {
                "document_id": document.id,
                "space_id": document.space_id,
                "chunk_index": chunk.chunk_index,
                "start_offset": chunk.start_offset,
                "language": language,
                "text": chunk.text,
            }
            for chunk in chunks
        ]
        result = await self.session.execute(insert(DocumentChunk).returning(DocumentChunk.id), rows)
        return [int(row[0]) for row in result.all()]

    async def chunk_texts(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        rows = await self.session.execute(
            select(DocumentChunk.id, DocumentChunk.text).where(DocumentChunk.id.in_(list(chunk_ids)))
        )
        return {int(row[0]): str(row[1]) for row in rows}

    async def fulltext(
        self,
        space_id: uuid.UUID,
        query: str,
        language: str,
        filters: DocumentFilters,
        limit: int,
    ) -> list[ChunkHit]:
        """The best `limit` chunks for a web-search style query, ranked by cover density."""
        tsquery = func.websearch_to_tsquery(cast(literal(language, String), REGCONFIG), query)
        ranked = (
            select(
                DocumentChunk.id.label("chunk_id"),
                DocumentChunk.document_id,
                DocumentChunk.chunk_index,
                DocumentChunk.text,
                DocumentChunk.language,
                func.ts_rank_cd(DocumentChunk.tsv, tsquery, 32).label("score"),
            )
            .join(Document, Document.id == DocumentChunk.document_id)
            .where(DocumentChunk.space_id == space_id, DocumentChunk.tsv.op("@@")(tsquery))
            .where(*filter_clauses(filters))
            .order_by(literal_column("score").desc(), DocumentChunk.id)
            .limit(limit)
            .subquery()
        )
        # Headlines only for the chunks answered: ts_headline re-parses the text, the costly part.
        statement = (
            select(
                ranked.c.chunk_id,
                ranked.c.document_id,
                ranked.c.chunk_index,
                ranked.c.score,
                Document.title,
                Document.tags,
                func.ts_headline(ranked.c.language, ranked.c.text, tsquery, _HEADLINE_OPTIONS).label(
                    "snippet"
                ),
            )
            .join(Document, Document.id == ranked.c.document_id)
            .order_by(ranked.c.score.desc(), ranked.c.chunk_id)
        )
        rows = await self.session.execute(statement)
        return [_hit(row) for row in rows]

    async def chunks_by_id(self, space_id: uuid.UUID, chunk_ids: Sequence[int]) -> dict[int, ChunkHit]:
        """Chunks (with their document's title and tags) by id, scoped to the space; score 0."""
        rows = await self.session.execute(
            select(
                DocumentChunk.id.label("chunk_id"),
                DocumentChunk.document_id,
                DocumentChunk.chunk_index,
                literal_column("0.0").label("score"),
                Document.title,
                Document.tags,
                func.left(DocumentChunk.text, 300).label("snippet"),
            )
            .join(Document, Document.id == DocumentChunk.document_id)
            .where(DocumentChunk.space_id == space_id, DocumentChunk.id.in_(list(chunk_ids)))
        )
        return {int(row.chunk_id): _hit(row) for row in rows}

    async def vectors_available(self) -> bool:
        """Whether this database has the embeddings table (created where pgvector is)."""
        return bool(await self.session.scalar(text("SELECT to_regclass('document_embeddings') IS NOT NULL")))

    async def store_embeddings(
        self, space_id: uuid.UUID, model: str, vectors: Sequence[tuple[int, Sequence[float]]]
    ) -> None:
        if not vectors:
            return
        await self.session.execute(
            text(
                "INSERT INTO document_embeddings (chunk_id, space_id, model, embedding)"
                " VALUES (:chunk_id, :space_id, :model, CAST(:embedding AS vector))"
                " ON CONFLICT (chunk_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding"
            ),
            [
                {"chunk_id": chunk_id, "space_id": space_id, "model": model, "embedding": _vector(vector)}
                for chunk_id, vector in vectors
            ],
        )

    async def nearest(
        self,
        space_id: uuid.UUID,
        model: str,
        vector: Sequence[float],
        filters: DocumentFilters,
        limit: int,
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) of the `limit` chunks nearest to `vector`, best first."""
        where, params = _filter_sql(filters)
        # `where` is built from fixed fragments; every value in it is a bound parameter.
        statement = text(" ".join((_NEAREST_HEAD, where, _NEAREST_TAIL)))
        rows = await self.session.execute(
            statement,
            {"space_id": space_id, "model": model, "vector": _vector(vector), "limit": limit, **params},
        )
        return [(int(row[0]), float(row[1])) for row in rows]


def _filter_sql(filters: DocumentFilters) -> tuple[str, dict[str, Any]]:
    """The same filters as `filter_clauses`, as SQL text over `documents d` with bound parameters."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    if filters.tags:
        parts.append("d.tags @> CAST(:tags AS varchar[])")
        params["tags"] = list(filters.tags)
    if filters.since is not None:
        parts.append("d.indexed_at >= :since")
        params["since"] = filters.since
    if filters.until is not None:
        parts.append("d.indexed_at < :until")
        params["until"] = filters.until
    if filters.source:
        parts.append("d.source = :source")
        params["source"] = filters.source
    if filters.document_ids is not None:
        parts.append("d.id = ANY(CAST(:document_ids AS uuid[]))")
        params["document_ids"] = list(filters.document_ids)
    return "".join(f" AND {part}" for part in parts), params


def _vector(values: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(value)) for value in values) + "]"


def _hit(row: Any) -> ChunkHit:
    return ChunkHit(
        document_id=row.document_id,
        title=row.title,
        tags=list(row.tags),
        chunk_index=int(row.chunk_index),
        chunk_id=int(row.chunk_id),
        score=float(row.score),
        snippet=str(row.snippet),
    )
