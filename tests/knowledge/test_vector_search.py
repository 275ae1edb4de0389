"""Vector and hybrid search on the embedded PostgreSQL (which ships pgvector): the migration creates the
embeddings table there, the indexer embeds chunks through the fake provider's embeddings endpoint, and
searches fuse full-text and nearest-vector rankings. The suite's own server has no pgvector: there the
same code answers by full text (tests/knowledge/test_search.py)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.cli import run_migrations
from app.devstack import start_postgres
from app.persistence.db import create_engine
from app.persistence.repositories.knowledge import DocumentFilters
from app.persistence.transaction import transaction
from app.services.identity.spaces import space_service
from app.services.knowledge.documents import NewDocument, document_service
from app.services.knowledge.indexing import indexing_service
from app.services.knowledge.limits import KnowledgeLimits
from app.services.knowledge.search import search_service
from tests.knowledge.conftest import EMBEDDING_MODEL, fake_embedder
from tests.support.fake_llm import FakeLlm

DOCUMENTS = [
    ("Paint catalogue", "The new catalogue lists every colour of exterior paint we stock."),
    ("Shipping rules", "Parcels ship on weekdays; freight needs a pallet booking."),
    ("Pricing sheet", "Enterprise pricing starts at forty dollars a seat per month."),
]


@pytest.fixture(scope="module")
def embedded_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database on the wheel's PostgreSQL (with pgvector), migrated like any other."""
    home: Path = tmp_path_factory.mktemp("embedded-pg")
    server, url = start_postgres(home, database=f"knowledge_{uuid.uuid4().hex[:8]}")
    run_migrations(url)
    yield url
    cleanup = getattr(server, "_cleanup", None)
    if cleanup is not None:
        cleanup()


@asynccontextmanager
async def _sessions(url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(url, pool_size=2)
    try:
        yield async_sessionmaker(engine, expire_on_commit=False)
    finally:
        await engine.dispose()


async def test_hybrid_search_finds_by_meaning_and_by_words(embedded_url: str, fake_llm: FakeLlm) -> None:
    limits = KnowledgeLimits(embedding_model=EMBEDDING_MODEL)
    embedder = fake_embedder(fake_llm)
    sent: list[Any] = []
    async with _sessions(embedded_url) as sessions:
        async with sessions() as session:
            assert await session.scalar(text("SELECT to_regclass('document_embeddings') IS NOT NULL"))

        def uow():  # type: ignore[no-untyped-def]
            return transaction(sessions, sent.append)

        async with uow() as session:
            made = await space_service.bootstrap(session, space_name="Vectors", email="v@example.test")
        space_id = made.space.id
        ids = []
        for title, body in DOCUMENTS:
            async with uow() as session:
                document = await document_service.add(
                    session,
                    space_id,
                    NewDocument(title=title, format="text", source="api", text=body),
                    limits,
                )
                ids.append(document.id)
        before = len(fake_llm.embedding_requests)
        for document_id in ids:
            outcome = await indexing_service.index(uow, document_id, limits, embedder)
            assert outcome is not None
            assert outcome.status == "indexed"
        assert len(fake_llm.embedding_requests) == before + len(ids)
        async with sessions() as session:
            stored = await session.scalar(text("SELECT count(*) FROM document_embeddings"))
        assert stored == len(ids)

        async def embed_query(query: str) -> list[float] | None:
            return (await embedder.embed([query])).vectors[0]

        async with sessions() as session:
            # English stemming keeps `color` and `colour` apart: full text alone finds nothing.
            words = await search_service.search(
                session, space_id, "color", 5, DocumentFilters(), limits, embed_query=None
            )
            assert (words.mode, words.items) == ("fulltext", [])
            meaning = await search_service.search(
                session, space_id, "color", 3, DocumentFilters(), limits, embed_query=embed_query
            )
            assert meaning.mode == "vector"
            assert meaning.items[0].title == "Paint catalogue"
            both = await search_service.search(
                session, space_id, "enterprise pricing", 3, DocumentFilters(), limits, embed_query=embed_query
            )
            assert both.mode == "hybrid"
            assert both.items[0].title == "Pricing sheet"
            assert both.items[0].score > both.items[-1].score
            only = await search_service.search(
                session,
                space_id,
                "color",
                3,
                DocumentFilters(document_ids=[ids[1]]),
                limits,
                embed_query=embed_query,
            )
            assert [hit.title for hit in only.items] == ["Shipping rules"]
