"""document.added / document.updated / document.deleted: published when indexing finishes (or at delete),
through the event bus, so event-triggered automations fire."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import select

from app.persistence.models import DomainEvent, Run
from tests.knowledge.conftest import Indexer, indexed_by_worker
from tests.support.factories import Factory
from tests.support.runs import wait_for


async def _events(app: Any, space_id: str) -> list[tuple[str, dict[str, Any]]]:
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(
            select(DomainEvent)
            .where(DomainEvent.space_id == uuid.UUID(space_id))
            .order_by(DomainEvent.created_at)
        )
        return [(row.event_type, row.payload) for row in rows]


async def test_lifecycle_publishes_added_updated_deleted(app, factory: Factory, indexer: Indexer) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/documents"),
        json={
            "title": "Rival",
            "text": "rival text",
            "tags": ["competitor"],
            "source_url": "https://r.example/a",
        },
    )
    document_id = response.json()["id"]
    assert await _events(app, owner.space_id) == [], "nothing is announced before the text is searchable"
    assert await indexer.index(document_id) == "indexed"
    path = owner.space_path(f"/documents/{document_id}")
    await owner.request("PATCH", path, json={"tags": ["competitor", "pricing"]})
    await owner.request("PATCH", path, json={"text": "new rival text"})
    assert await indexer.index(document_id) == "indexed"
    await owner.request("DELETE", path)
    events = await _events(app, owner.space_id)
    assert [kind for kind, _ in events] == [
        "document.added",
        "document.updated",
        "document.updated",
        "document.deleted",
    ]
    assert events[0][1] == {
        "id": document_id,
        "title": "Rival",
        "tags": ["competitor"],
        "source": "api",
        "source_url": "https://r.example/a",
        "space_id": owner.space_id,
        "revision": 1,
    }
    assert events[1][1]["tags"] == ["competitor", "pricing"]
    assert events[2][1]["revision"] == 3
    assert "text" not in events[2][1]


async def test_failed_or_never_indexed_documents_announce_nothing(
    app, factory: Factory, indexer: Indexer
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    response = await owner.request(
        "POST", owner.space_path("/documents"), json={"title": "Blank", "text": "   \n  "}
    )
    document_id = response.json()["id"]
    assert await indexer.index(document_id) == "failed"
    await owner.request("DELETE", owner.space_path(f"/documents/{document_id}"))
    assert await _events(app, owner.space_id) == []


async def test_catalog_lists_document_event_schemas(factory: Factory) -> None:
    owner = await factory.owner()
    catalog = (await owner.request("GET", owner.space_path("/catalog"))).json()
    events = {entry["type"]: entry for entry in catalog["events"]}
    for kind in ("document.added", "document.updated", "document.deleted"):
        assert events[kind]["tier"] == "native"
        assert set(events[kind]["payload_schema"]["required"]) >= {
            "id",
            "title",
            "tags",
            "source",
            "space_id",
        }
    capabilities = {entry["id"]: entry for entry in catalog["capabilities"]}
    assert capabilities["search_space.query"]["risk"] == "read"
    assert capabilities["search_space.fetch_document"]["risk"] == "read"


async def test_an_event_triggered_automation_fires_on_document_added(app, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    listener = {
        "schema_version": "1.0",
        "name": "On new documents",
        "triggers": [{"type": "event", "config": {"event_type": "document.added"}}],
        "plan": [
            {
                "step_id": "seen",
                "action": "transform_data",
                "config": {"output": {"title": "{{ trigger.payload.title }}"}},
                "output_as": "seen",
            }
        ],
    }
    automation = await owner.create_automation(listener)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    await indexed_by_worker(owner, "Fresh news", "fresh competitor news", ["competitor"])
    for _ in range(150):
        async with app.state.sessionmaker() as session:
            run = await session.scalar(select(Run).where(Run.automation_id == uuid.UUID(automation["id"])))
        if run is not None:
            break
        await asyncio.sleep(0.2)
    assert run is not None, "the document.added event fired no run"
    done = await wait_for(owner, str(run.id))
    assert done["status"] == "succeeded", done
    assert done["output"]["seen"] == {"title": "Fresh news"}
