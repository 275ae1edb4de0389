"""Knowledge tests: documents indexed in the test's process by the indexer the worker task runs."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from app.services.knowledge.indexing import indexing_service
from app.worker.runtime import WorkerRuntime
from tests.support.factories import Caller
from tests.support.in_process import in_process_runtime


class Indexer:
    """Adds documents through the API and indexes them as the `system.index_document` task does."""

    def __init__(self, runtime: WorkerRuntime) -> None:
        self.runtime = runtime

    async def index(self, document_id: str) -> str | None:
        outcome = await indexing_service.index(
            self.runtime.unit_of_work,
            uuid.UUID(document_id),
            self.runtime.core.knowledge,
            self.runtime.core.embedder,
        )
        return outcome.status if outcome is not None else None

    async def add(self, caller: Caller, title: str, text: str, tags: list[str] | None = None, **extra: Any):
        response = await caller.request(
            "POST",
            caller.space_path("/documents"),
            json={"title": title, "text": text, "tags": tags or [], **extra},
        )
        assert response.status_code == 201, response.text
        document: dict[str, Any] = response.json()
        assert document["status"] == "pending"
        assert await self.index(document["id"]) == "indexed"
        return document


async def indexed_by_worker(caller: Caller, title: str, text: str, tags: list[str], timeout: float = 30):
    """Add a document through the API and wait (polling the API) until the worker indexed it."""
    response = await caller.request(
        "POST", caller.space_path("/documents"), json={"title": title, "text": text, "tags": tags}
    )
    assert response.status_code == 201, response.text
    path = caller.space_path(f"/documents/{response.json()['id']}")
    deadline = time.monotonic() + timeout
    while True:
        document: dict[str, Any] = (await caller.request("GET", path)).json()
        if document["status"] != "pending":
            assert document["status"] == "indexed", document
            return document
        assert time.monotonic() < deadline, f"the worker did not index {title!r} in {timeout} s"
        await asyncio.sleep(0.1)


@pytest.fixture
async def indexer(app) -> Indexer:  # type: ignore[no-untyped-def]
    return Indexer(in_process_runtime(app))
