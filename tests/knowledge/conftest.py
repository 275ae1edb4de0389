"""Knowledge tests: documents indexed in the test's process by the indexer the worker task runs."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.integrations.llm import ModelSettings
from app.integrations.llm.embeddings import LiteLlmEmbedder
from app.persistence.models import Document
from app.services.knowledge.indexing import indexing_service
from app.worker.runtime import WorkerRuntime
from tests.support.factories import Caller
from tests.support.fake_llm import TEST_MODEL_KEY_ENV, FakeLlm
from tests.support.in_process import in_process_runtime

EMBEDDING_MODEL = "openai/test-embedding"


def fake_embedder(fake_llm: FakeLlm) -> LiteLlmEmbedder:
    """The service's embedder, pointed at the fake provider's embeddings endpoint (priced per token)."""
    os.environ.setdefault(TEST_MODEL_KEY_ENV, "sk-test-not-a-real-key")
    settings = ModelSettings.parse(
        EMBEDDING_MODEL,
        {
            "api_base": fake_llm.base_url,
            "api_key_env": TEST_MODEL_KEY_ENV,
            "input_cost_per_token": 0.0000001,
            "output_cost_per_token": 0,
        },
    )
    return LiteLlmEmbedder(EMBEDDING_MODEL, settings)


class Indexer:
    """Adds documents through the API and indexes them as the `system.index_document` task does."""

    def __init__(self, runtime: WorkerRuntime) -> None:
        self.runtime = runtime

    async def index(self, document_id: str, timeout: float = 30) -> str | None:
        """Index the document here and answer its status; when a worker of the session's stack took
        the job first, wait for the status that worker leaves (None: the document is gone)."""
        outcome = await indexing_service.index(
            self.runtime.unit_of_work,
            uuid.UUID(document_id),
            self.runtime.core.knowledge,
            self.runtime.core.embedder,
        )
        if outcome is not None:
            return outcome.status
        deadline = time.monotonic() + timeout
        while True:
            async with self.runtime.sessionmaker() as session:
                status = await session.scalar(
                    select(Document.status).where(Document.id == uuid.UUID(document_id))
                )
            if status != "pending":
                return status
            assert time.monotonic() < deadline, f"document {document_id} stayed pending"
            await asyncio.sleep(0.1)

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
