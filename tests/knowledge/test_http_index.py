"""An http_request step with `index_as_document` indexes what it downloaded into the run's space."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.factories import Factory
from tests.support.runs import definition, start, wait_for

PAGES = {
    "/news.html": (
        "text/html",
        b"<html><body><h1>Initech</h1><p>Initech opened a Lagos office.</p></body></html>",
    ),
    "/logo.png": ("image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64),
}


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            content_type, body = PAGES.get(self.path, ("text/plain", b""))
            self.send_response(200 if self.path in PAGES else 404)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _fetch(url: str) -> dict[str, Any]:
    return {
        "step_id": "fetch",
        "action": "http_request",
        "config": {"method": "GET", "url": url, "index_as_document": {"tags": ["competitor", "web"]}},
        "output_as": "page",
    }


async def test_downloaded_page_becomes_a_searchable_document(factory: Factory, pages: str, stack) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    _, run = await start(owner, definition(_fetch(f"{pages}/news.html")))
    done = await wait_for(owner, run["id"])
    assert done["status"] == "succeeded", done
    document_id = done["output"]["page"]["document_id"]
    path = owner.space_path(f"/documents/{document_id}")
    for _ in range(150):
        document = (await owner.request("GET", path)).json()
        if document["status"] != "pending":
            break
        await asyncio.sleep(0.1)
    assert document["status"] == "indexed", document
    assert document["source"] == "http_request"
    assert document["source_url"] == f"{pages}/news.html"
    assert document["tags"] == ["competitor", "web"]
    assert document["metadata"]["run_id"] == done["id"]
    listed = (await owner.request("GET", owner.space_path("/documents"))).json()["items"]
    assert [d["id"] for d in listed] == [document_id], (listed, done)
    hits = await owner.request("POST", owner.space_path("/documents/search"), json={"query": "Lagos office"})
    assert [hit["document_id"] for hit in hits.json()["items"]] == [document_id]


async def test_a_download_of_another_type_fails_the_step_and_stores_nothing(
    factory: Factory, pages: str, stack
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    _, run = await start(owner, definition(_fetch(f"{pages}/logo.png")))
    done = await wait_for(owner, run["id"])
    assert done["status"] == "failed"
    assert done["steps"][-1]["error"]["code"] == "unsupported_document_type"
    assert (await owner.request("GET", owner.space_path("/documents"))).json()["items"] == []
