"""The indexer: extract an upload's text, cut it into chunks, embed them where vectors are on, announce.

Three short steps so no transaction stays open while a parser or an embedding call works: read the
document, do the work outside any transaction, then write the chunks under the document's row lock,
unless the document changed meanwhile (its revision moved: the newer revision's own job indexes it).
Indexing ends with `document.added` (the first time) or `document.updated`, published in the same
transaction as the chunks, so event-triggered automations fire only on committed, searchable text.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.integrations.llm.embeddings import Embedding
from app.persistence.base import utcnow
from app.persistence.repositories.knowledge import ChunkRow, DocumentRepository
from app.persistence.transaction import UnitOfWork
from app.services.knowledge.chunking import chunk_text
from app.services.knowledge.documents import event_payload
from app.services.knowledge.extract import ExtractionFailed, extract_text
from app.services.knowledge.limits import KnowledgeLimits
from app.services.triggers.events import event_service

logger = logging.getLogger(__name__)
# Chunks sent to the embedding model in one call.
EMBED_BATCH = 64


class Embedder(Protocol):
    """Embeddings of texts through the operator's model (one vector per text, in order)."""

    @property
    def model(self) -> str: ...

    async def embed(self, texts: Sequence[str]) -> Embedding: ...


@dataclass(frozen=True)
class IndexOutcome:
    status: str
    chunks: int = 0
    reason: str | None = None


class IndexingService:
    async def index(
        self,
        uow: UnitOfWork,
        document_id: uuid.UUID,
        limits: KnowledgeLimits,
        embedder: Embedder | None = None,
    ) -> IndexOutcome | None:
        """Index the document's current revision; None when it is gone or already indexed."""
        async with uow() as session:
            document = await DocumentRepository(session).get_one_or_none(
                DocumentRepository(session).base_statement().where(DocumentRepository.model.id == document_id)
            )
            if document is None or document.status != "pending":
                return None
            revision, format, content, text = (
                document.revision,
                document.format,
                document.content,
                document.text,
            )
            # Embeddings are paid for: none are asked for where there is no table to keep them.
            if embedder is not None and not await DocumentRepository(session).vectors_available():
                embedder = None
        reason: str | None = None
        if content is not None:
            try:
                text = await asyncio.to_thread(extract_text, format, content, max_chars=limits.max_text_chars)
            except ExtractionFailed as exc:
                reason = exc.reason
        chunks = chunk_text(text) if reason is None else []
        if reason is None and not chunks:
            reason = "the document has no text to index"
        vectors: list[list[float]] = []
        if reason is None and embedder is not None and chunks:
            vectors = await self._embed(embedder, [chunk.text for chunk in chunks])
        async with uow() as session:
            repository = DocumentRepository(session)
            document = await repository.lock_for_indexing(document_id)
            if document is None or document.revision != revision or document.status != "pending":
                return None
            if reason is not None:
                await repository.update(
                    document,
                    {"status": "failed", "status_reason": reason[:1000], "content": None, "chunk_count": 0},
                )
                return IndexOutcome("failed", reason=reason)
            ids = await repository.replace_chunks(
                document,
                [ChunkRow(chunk.index, chunk.start, chunk.text) for chunk in chunks],
                limits.language,
            )
            if vectors and embedder is not None:
                await repository.store_embeddings(
                    document.space_id, embedder.model, list(zip(ids, vectors, strict=True))
                )
            event_type = "document.updated" if document.announced else "document.added"
            await repository.update(
                document,
                {
                    "status": "indexed",
                    "status_reason": None,
                    "text": text,
                    "content": None,
                    "chunk_count": len(chunks),
                    "indexed_at": utcnow(),
                    "announced": True,
                },
            )
            await event_service.publish(
                session, document.space_id, event_type, event_payload(document), str(document.id)
            )
        return IndexOutcome("indexed", chunks=len(chunks))

    async def _embed(self, embedder: Embedder, texts: list[str]) -> list[list[float]]:
        """Every text's vector, or none when the model fails (the document stays searchable by words)."""
        vectors: list[list[float]] = []
        try:
            for start in range(0, len(texts), EMBED_BATCH):
                vectors.extend((await embedder.embed(texts[start : start + EMBED_BATCH])).vectors)
        except Exception:  # any failure of the model leaves full-text search, never a lost document
            logger.warning(
                "embedding failed; the document is indexed for full-text search only", exc_info=True
            )
            return []
        return vectors if len(vectors) == len(texts) else []


indexing_service = IndexingService()
