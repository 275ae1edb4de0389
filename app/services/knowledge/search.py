"""Search over a space's chunks: full text always; vectors too where pgvector and an embedding model are.

Full text: `websearch_to_tsquery` (quotes, `or`, `-word`, as people type into search boxes) in the
configured language, ranked by `ts_rank_cd` (cover density: matched words close together rank higher).
Hybrid: the full-text and the nearest-vector candidate lists are fused by reciprocal rank
(score = Σ 1 / (60 + rank)), which needs no tuning between two scores on different scales.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.persistence.repositories.knowledge import ChunkHit, DocumentFilters, DocumentRepository
from app.persistence.types import AsyncSession
from app.services.knowledge.limits import MAX_QUERY_CHARS, MAX_TOP_K, KnowledgeLimits
from app.services.knowledge.validation import refuse

# Reciprocal rank fusion's constant (the value of the method's paper; damps the top ranks' weight).
RRF_K = 60
# Candidates each method proposes for fusion, per answer wanted.
CANDIDATES_PER_RESULT = 3

_SYNTAX = re.compile(r'"|(?:^|\s)-\w|\bor\b', re.IGNORECASE)

QueryEmbedder = Callable[[str], Awaitable[list[float] | None]]
"""The query's vector through the operator's model; None when the model could not answer."""


@dataclass(frozen=True)
class SearchAnswer:
    items: list[ChunkHit]
    mode: str


def check_query(query: object, top_k: object) -> tuple[str, int]:
    if not isinstance(query, str) or not query.strip():
        raise refuse("invalid_query", "/query", "query is a non-empty string")
    if len(query) > MAX_QUERY_CHARS or "\x00" in query:
        raise refuse("invalid_query", "/query", f"query has at most {MAX_QUERY_CHARS} characters, no NUL")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise refuse("invalid_top_k", "/top_k", f"top_k is between 1 and {MAX_TOP_K}")
    return query.strip(), top_k


def uses_syntax(query: str) -> bool:
    """Whether a query uses web-search syntax (a quoted phrase, `or`, a `-word`): then it is read as
    typed; a plain list of words matches chunks with any of them, ranked by how many and how close."""
    return bool(_SYNTAX.search(query))


def fuse(rankings: list[list[int]], top_k: int) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of ranked id lists: (id, fused score), best first, ties by id."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top_k]


class SearchService:
    async def search(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        query: object,
        top_k: object,
        filters: DocumentFilters,
        limits: KnowledgeLimits,
        *,
        embed_query: QueryEmbedder | None = None,
    ) -> SearchAnswer:
        """The best chunks of the space's documents for `query` (at most `top_k`, 1 to 50)."""
        text, k = check_query(query, top_k)
        repository = DocumentRepository(session)
        any_word = not uses_syntax(text)
        use_vectors = (
            embed_query is not None
            and limits.embedding_model is not None
            and await repository.vectors_available()
        )
        if not use_vectors or embed_query is None or limits.embedding_model is None:
            hits = await repository.fulltext(space_id, text, limits.language, filters, k, match_any=any_word)
            return SearchAnswer(hits, "fulltext")
        pool = max(k * CANDIDATES_PER_RESULT, 20)
        words = await repository.fulltext(space_id, text, limits.language, filters, pool, match_any=any_word)
        vector = await embed_query(text)
        if vector is None:
            return SearchAnswer(words[:k], "fulltext")
        nearest = await repository.nearest(space_id, limits.embedding_model, vector, filters, pool)
        fused = fuse([[hit.chunk_id for hit in words], [chunk_id for chunk_id, _ in nearest]], k)
        known = {hit.chunk_id: hit for hit in words}
        missing = [chunk_id for chunk_id, _ in fused if chunk_id not in known]
        if missing:
            known.update(await repository.chunks_by_id(space_id, missing))
        items = [
            ChunkHit(**{**known[chunk_id].__dict__, "score": round(score, 6)})
            for chunk_id, score in fused
            if chunk_id in known
        ]
        return SearchAnswer(items, "hybrid" if words else "vector")


search_service = SearchService()


def _moment(value: object, path: str) -> datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise refuse("invalid_filters", path, "a time is an ISO 8601 string")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise refuse("invalid_filters", path, f"{value[:40]!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def filters_from(raw: Mapping[str, Any]) -> DocumentFilters:
    """Filters as a capability's arguments give them (times as ISO 8601 strings, ids as strings)."""
    ids = raw.get("document_ids")
    document_ids: list[uuid.UUID] | None = None
    if ids is not None:
        try:
            document_ids = [uuid.UUID(str(value)) for value in ids]
        except ValueError:
            raise refuse("invalid_filters", "/filters/document_ids", "document ids are UUIDs") from None
    return DocumentFilters(
        tags=[str(tag) for tag in raw.get("tags") or []],
        since=_moment(raw.get("since"), "/filters/since"),
        until=_moment(raw.get("until"), "/filters/until"),
        source=raw.get("source") or None,
        document_ids=document_ids,
    )
