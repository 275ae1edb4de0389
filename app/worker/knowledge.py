"""The knowledge port a run's handlers get: its space's documents, searched and read in short
transactions of their own; a query's embedding is priced onto the run's ledger like any model call."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from app.definitions.signals import StepError
from app.errors import AppError
from app.persistence.models import Run
from app.registry.llm_ports import LlmReply
from app.services.governance.ledger import ledger_service
from app.services.knowledge.documents import NewDocument, document_service
from app.services.knowledge.search import filters_from, search_service
from app.services.knowledge.sources import checked_file, title_from
from app.worker.runtime import WorkerRuntime

logger = logging.getLogger(__name__)


class RunKnowledge:
    """`search_space.*` for one run: bound to the run's space. A refused argument fails the call for
    good (`StepError`, not retried)."""

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.run = run

    async def search(
        self, *, query: str, top_k: int, filters: Mapping[str, Any], step_id: str
    ) -> dict[str, Any]:
        embedder = self.worker.core.embedder
        embed_query = None
        if embedder is not None:

            async def embed_query(text: str) -> list[float] | None:
                try:
                    embedding = await embedder.embed([text])
                except StepError:
                    logger.warning("query embedding failed; answering by full text", exc_info=True)
                    return None
                await self._record(step_id, embedder.model, embedding.input_tokens, embedding.cost_usd)
                return embedding.vectors[0]

        try:
            async with self.worker.unit_of_work() as session:
                answer = await search_service.search(
                    session,
                    self.run.space_id,
                    query,
                    top_k,
                    filters_from(filters),
                    self.worker.core.knowledge,
                    embed_query=embed_query,
                )
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None
        return {
            "items": [
                {
                    "document_id": str(hit.document_id),
                    "title": hit.title,
                    "tags": hit.tags,
                    "chunk_index": hit.chunk_index,
                    "score": hit.score,
                    "snippet": hit.snippet,
                }
                for hit in answer.items
            ],
            "mode": answer.mode,
        }

    async def fetch(self, *, document_id: str, offset: int, max_chars: int) -> dict[str, Any]:
        try:
            wanted = uuid.UUID(document_id)
        except ValueError:
            raise StepError("document_not_found", "no document has that id", retryable=False) from None
        try:
            async with self.worker.unit_of_work() as session:
                document, part = await document_service.read(
                    session, self.run.space_id, wanted, offset=offset, max_chars=max_chars
                )
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None
        return {
            "document_id": str(document.id),
            "title": document.title,
            "tags": list(document.tags),
            "source_url": document.source_url,
            "indexed_at": document.indexed_at.isoformat() if document.indexed_at else None,
            "text": part.text,
            "offset": part.offset,
            "next_offset": part.next_offset,
            "total_chars": part.total_chars,
        }

    async def add(
        self,
        *,
        data: bytes,
        content_type: str,
        source_url: str,
        title: str | None,
        tags: Sequence[str],
        step_id: str,
    ) -> dict[str, Any]:
        limits = self.worker.core.knowledge
        name = urlsplit(source_url).path.rsplit("/", 1)[-1] or None
        try:
            format = checked_file(name, content_type, data, limits)
            new = NewDocument(
                title=title or title_from(name, fallback=source_url[:500]),
                format=format,
                source="http_request",
                content=data,
                tags=list(tags),
                source_url=source_url,
            )
            key = {"run_id": str(self.run.id), "step_id": step_id}
            async with self.worker.unit_of_work() as session:
                document = await document_service.add_once(session, self.run.space_id, new, limits, key=key)
        except AppError as exc:
            raise StepError(exc.code, exc.message, retryable=False) from None
        return {"document_id": str(document.id), "status": document.status}

    async def _record(self, step_id: str, model: str, tokens: int, cost: float) -> None:
        reply = LlmReply(
            content=None, tool_calls=(), input_tokens=tokens, output_tokens=0, cost_usd=cost, model=model
        )
        async with self.worker.unit_of_work() as session:
            await ledger_service.record(session, self.run, step_id, reply)
