"""Full-text search on the suite's PostgreSQL (no pgvector here): language-aware matching, web-search
syntax, ranking, snippets, filters and bad input."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.knowledge.conftest import Indexer
from tests.support.factories import Caller, Factory


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
