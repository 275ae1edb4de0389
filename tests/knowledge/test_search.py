"""Full-text search on the suite's PostgreSQL (no pgvector here): language-aware matching, web-search
syntax, ranking, snippets, filters and bad input."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

from app.persistence.repositories.knowledge import DocumentFilters
from app.services.knowledge.indexing import indexing_service
from app.services.knowledge.search import search_service
from tests.knowledge.conftest import EMBEDDING_MODEL, Indexer, fake_embedder
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import FakeLlm
from tests.support.in_process import in_process_runtime


async def _search(caller: Caller, query: str, **body: object) -> dict:  # type: ignore[type-arg]
    response = await caller.request(
        "POST", caller.space_path("/documents/search"), json={"query": query, **body}
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def test_stemming_syntax_ranking_and_snippets(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    await indexer.add(owner, "Shipping", "Globex ships parcels overnight to every region.")
    await indexer.add(owner, "Dense", "Shipping costs: shipping rates and shipping zones for shipping.")
    await indexer.add(owner, "Unrelated", "A note about gardening tools.")
    found = await _search(owner, "shipping")
    assert found["mode"] == "fulltext"
    assert [hit["title"] for hit in found["items"]] == ["Dense", "Shipping"]
    assert found["items"][0]["score"] >= found["items"][1]["score"]
    assert "<b>" in found["items"][1]["snippet"]
    assert [h["title"] for h in (await _search(owner, "shipping -globex"))["items"]] == ["Dense"]
    assert [h["title"] for h in (await _search(owner, '"parcels overnight"'))["items"]] == ["Shipping"]
    assert (await _search(owner, "the and of"))["items"] == []
    either = await _search(owner, "gardening or parcels")
    assert {h["title"] for h in either["items"]} == {"Shipping", "Unrelated"}


async def test_filters_by_tags_time_source_and_ids(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    old = await indexer.add(owner, "Old", "widget news", ["competitor"])
    cut = datetime.now(UTC).isoformat()
    new = await indexer.add(owner, "New", "widget news", ["competitor", "pricing"])
    other = await indexer.add(owner, "Other", "widget news", ["internal"])

    def titles(answer: dict) -> set[str]:  # type: ignore[type-arg]
        return {hit["title"] for hit in answer["items"]}

    assert titles(await _search(owner, "widget", filters={"tags": ["competitor"]})) == {"Old", "New"}
    assert titles(await _search(owner, "widget", filters={"tags": ["competitor", "pricing"]})) == {"New"}
    assert titles(await _search(owner, "widget", filters={"since": cut})) == {"New", "Other"}
    assert titles(await _search(owner, "widget", filters={"until": cut})) == {"Old"}
    assert titles(await _search(owner, "widget", filters={"source": "upload"})) == set()
    assert titles(await _search(owner, "widget", filters={"document_ids": [old["id"], other["id"]]})) == {
        "Old",
        "Other",
    }
    assert len((await _search(owner, "widget", top_k=1))["items"]) == 1
    assert new["id"]


async def test_bad_search_bodies_are_422(factory: Factory) -> None:
    owner = await factory.owner()
    for body in (
        {"query": ""},
        {"query": "x", "top_k": 51},
        {"query": "x", "top_k": 0},
        {"query": "x" * 1001},
        {"query": "x", "filters": {"since": "yesterday"}},
        {"query": "x", "filters": {"document_ids": ["not-a-uuid"]}},
        {"query": "x", "filters": {"unknown": 1}},
    ):
        response = await owner.request("POST", owner.space_path("/documents/search"), json=body)
        assert response.status_code == 422, (body, response.text)


async def test_an_embedding_model_without_pgvector_costs_nothing_and_answers_by_words(
    app, factory: Factory, fake_llm: FakeLlm
) -> None:  # type: ignore[no-untyped-def]
    runtime = in_process_runtime(app)
    limits = replace(runtime.core.knowledge, embedding_model=EMBEDDING_MODEL)
    embedder = fake_embedder(fake_llm)
    owner = await factory.owner()
    response = await owner.request(
        "POST", owner.space_path("/documents"), json={"title": "Words", "text": "turbine maintenance"}
    )
    before = len(fake_llm.embedding_requests)
    await indexing_service.index(runtime.unit_of_work, uuid.UUID(response.json()["id"]), limits, embedder)

    async def embed_query(query: str) -> list[float] | None:
        return (await embedder.embed([query])).vectors[0]

    async with app.state.sessionmaker() as session:
        answer = await search_service.search(
            session,
            uuid.UUID(owner.space_id),
            "turbine",
            5,
            DocumentFilters(),
            limits,
            embed_query=embed_query,
        )
    assert answer.mode == "fulltext"
    assert len(fake_llm.embedding_requests) == before
