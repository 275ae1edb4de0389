"""Knowledge search: retrieval quality on the labelled set shipped with the tests, and search latency at
two chunk-table sizes.

Quality: the set's documents (tests/knowledge/retrieval_set.json) are added and indexed through the
service (`document_service.add`, `indexing_service.index`, full text: the suite's servers have no
pgvector), then each query is searched with `top_k=5`; recall@5 and MRR are averaged over the queries.
The floor is a raw baseline in the same database: documents containing any query word (`ILIKE`),
ranked by how many of the words they contain.

Latency: chunks are bulk-inserted with one `INSERT … SELECT … FROM generate_series` (made-up words
with a few real ones, so the generated `tsvector` and the GIN index look like a real collection's),
ANALYZEd, then a mix of one- and two-word queries is searched through `search_service.search`
(filters none, top_k 10, snippets).
The floor is the same full-text query's ranking alone (any of the words, as the service reads a plain
query), sent with asyncpg: no headline, no join, no ORM.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from app.jobs import Job
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.repositories.knowledge import DocumentFilters
from app.persistence.transaction import transaction
from app.services.knowledge.documents import NewDocument, document_service
from app.services.knowledge.indexing import indexing_service
from app.services.knowledge.limits import KnowledgeLimits
from app.services.knowledge.search import search_service
from bench.data import new_space
from bench.report import Row, median, ms, ratio
from bench.stack import BenchStack, log

LABELLED = Path(__file__).resolve().parents[1] / "tests" / "knowledge" / "retrieval_set.json"
TOP_K = 5
CHUNKS_PER_DOCUMENT = 10
WORDS_PER_CHUNK = 120
# Most words of a generated chunk are drawn, skewed toward the first, from RARE_WORDS made-up words
# (`w123`); VOCABULARY_SHARE of them are real words the queries use, so a query word is in about
# one chunk in ten, as a topic's words are in a real collection, not in nearly every chunk.
RARE_WORDS = 20_000
VOCABULARY_SHARE = 0.05
VOCABULARY = (  # noqa: SIM905 (a readable block of words)
    "pricing seat enterprise outage incident office launch market revenue customer contract renewal "
    "security audit encryption assistant workflow schedule acquisition startup platform database "
    "migration webhook invoice region expansion partner integration release roadmap quarter budget "
    "analyst forecast support ticket latency uptime compliance privacy model agent search document"
).split()
QUERIES = ("pricing", "security audit", "outage", "enterprise contract", "webhook latency", "roadmap")
RAW_SEARCH = (
    "WITH q AS (SELECT replace(plainto_tsquery('english', $2)::text, ' & ', ' | ')::tsquery AS q)"
    " SELECT id FROM document_chunks, q WHERE space_id = $1 AND tsv @@ q.q"
    " ORDER BY ts_rank_cd(tsv, q.q, 32) DESC, id LIMIT 10"
)


def _drop(_: Job) -> None:
    """The add enqueues the indexer's task: the bench indexes in process instead."""


def _scores(ranked: list[list[str]], relevant: list[set[str]]) -> tuple[float, float]:
    """(recall@5, MRR) averaged over the queries."""
    recalls, reciprocal = [], []
    for found, wanted in zip(ranked, relevant, strict=True):
        top = found[:TOP_K]
        recalls.append(len(wanted & set(top)) / len(wanted))
        reciprocal.append(next((1 / rank for rank, doc in enumerate(top, 1) if doc in wanted), 0.0))
    return sum(recalls) / len(recalls), sum(reciprocal) / len(reciprocal)


def _dedup(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


async def _quality(stack: BenchStack) -> list[Row]:
    labelled: dict[str, Any] = json.loads(LABELLED.read_text())
    engine = create_engine(stack.database_url, pool_size=2, application_name="automations-bench")
    sessions = create_sessionmaker(engine)
    connection = await asyncpg.connect(stack.dsn)
    limits = KnowledgeLimits()
    try:
        space = await new_space(connection)
        names: dict[uuid.UUID, str] = {}
        for item in labelled["documents"]:
            async with transaction(sessions, _drop) as session:
                new = NewDocument(item["title"], "text", "api", text=item["text"], tags=item["tags"])
                document = await document_service.add(session, space, new, limits)
            names[document.id] = item["id"]
            await indexing_service.index(lambda: transaction(sessions, _drop), document.id, limits)
        queries = labelled["queries"]
        ours: list[list[str]] = []
        for query in queries:
            async with sessions() as session:
                answer = await search_service.search(
                    session, space, query["query"], TOP_K * 3, DocumentFilters(), limits
                )
            ours.append(_dedup([names[hit.document_id] for hit in answer.items]))
        floor: list[list[str]] = []
        for query in queries:
            words = [w.strip('"').lower() for w in query["query"].split() if len(w.strip('"')) > 2]
            rows = await connection.fetch(
                "SELECT id, (SELECT count(*) FROM unnest($2::text[]) w"
                " WHERE d.text ILIKE '%' || w || '%') AS n"
                " FROM documents d WHERE d.space_id = $1 ORDER BY n DESC, created_at",
                space,
                words,
            )
            floor.append([names[row["id"]] for row in rows if row["n"] > 0])
        # Indexing announced each document; no worker dispatches those events here, and the run
        # benchmarks after this one wait for every event of the database to be dispatched.
        await connection.execute("DELETE FROM domain_events WHERE space_id = $1", space)
    finally:
        await connection.close()
        await engine.dispose()
    relevant = [set(query["relevant"]) for query in queries]
    recall, mrr = _scores(ours, relevant)
    floor_recall, floor_mrr = _scores(floor, relevant)
    detail = f"{len(labelled['documents'])} documents, {len(queries)} queries, full text"
    return [
        Row(
            "knowledge recall@5",
            f"{recall:.2f}",
            f"{floor_recall:.2f} (ILIKE words)",
            _gain(recall, floor_recall),
            detail,
        ),
        Row("knowledge MRR", f"{mrr:.2f}", f"{floor_mrr:.2f} (ILIKE words)", _gain(mrr, floor_mrr), detail),
    ]


def _gain(ours: float, floor: float) -> str:
    """Quality is better when higher: the ratio is ours over the floor's."""
    return f"{ours / floor:.2f}x" if floor > 0 else "—"


async def _fill(connection: asyncpg.Connection, space: uuid.UUID, chunks: int) -> None:
    documents = max(1, chunks // CHUNKS_PER_DOCUMENT)
    await connection.execute(
        "INSERT INTO documents (id, space_id, title, tags, source, format, status, size_bytes, chunk_count,"
        " indexed_at, announced, created_at, updated_at)"
        " SELECT gen_random_uuid(), $1, 'Bench document ' || i, ARRAY['bench'], 'api', 'text', 'indexed',"
        " 0, $3, now(), true, now(), now() FROM generate_series(1, $2::int) AS i",
        space,
        documents,
        CHUNKS_PER_DOCUMENT,
    )
    # One statement: each document gets its chunks, each chunk WORDS_PER_CHUNK words of the vocabulary.
    await connection.execute(
        "INSERT INTO document_chunks (document_id, space_id, chunk_index, start_offset, language, text)"
        " SELECT d.id, d.space_id, c, c * 1000, 'english',"
        " (SELECT string_agg(CASE WHEN random() < $6 THEN"
        "   ($3::text[])[1 + floor(random() * array_length($3::text[], 1))::int]"
        "   ELSE 'w' || floor(power(random(), 2) * $7)::int END, ' ')"
        "  FROM generate_series(1, $4::int) AS w WHERE c >= 0)"
        " FROM documents d CROSS JOIN generate_series(0, $5::int - 1) AS c WHERE d.space_id = $1"
        " LIMIT $2",
        space,
        chunks,
        list(VOCABULARY),
        WORDS_PER_CHUNK,
        CHUNKS_PER_DOCUMENT,
        VOCABULARY_SHARE,
        RARE_WORDS,
    )
    await connection.execute("ANALYZE documents; ANALYZE document_chunks")


async def _latency(stack: BenchStack, sizes: tuple[int, ...], repeats: int) -> list[Row]:
    engine = create_engine(stack.database_url, pool_size=2, application_name="automations-bench")
    sessions = create_sessionmaker(engine)
    connection = await asyncpg.connect(stack.dsn)
    limits = KnowledgeLimits()
    rows: list[Row] = []
    chooser = random.Random(7)
    try:
        for size in sizes:
            space = await new_space(connection)
            started = time.perf_counter()
            await _fill(connection, space, size)
            log(f"knowledge: {size:,} chunks inserted in {time.perf_counter() - started:.1f} s")
            ours: list[float] = []
            floor: list[float] = []
            for index in range(repeats + 1):
                query = QUERIES[chooser.randrange(len(QUERIES))]
                # Alternate which goes first, so drift in the machine hits both.
                for which in (0, 1) if index % 2 else (1, 0):
                    began = time.perf_counter()
                    if which == 0:
                        async with sessions() as session:
                            await search_service.search(session, space, query, 10, DocumentFilters(), limits)
                        elapsed, target = time.perf_counter() - began, ours
                    else:
                        await connection.fetch(RAW_SEARCH, space, query)
                        elapsed, target = time.perf_counter() - began, floor
                    if index > 0:  # the first round warms caches and plans
                        target.append(elapsed)
            rows.append(
                Row(
                    f"knowledge search, {size:,} chunks",
                    ms(median(ours)),
                    ms(median(floor)),
                    ratio(median(ours), median(floor)),
                    f"{repeats} queries, top_k 10 with snippets; floor: ranking alone (asyncpg)",
                )
            )
    finally:
        await connection.close()
        await engine.dispose()
    return rows


def run(stack: BenchStack, sizes: tuple[int, ...], repeats: int) -> list[Row]:
    """Retrieval quality on the labelled set, then search latency at each chunk-table size."""
    return asyncio.run(_quality(stack)) + asyncio.run(_latency(stack, sizes, repeats))
