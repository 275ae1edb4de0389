"""Uploads: every supported format extracted on the indexer, bad files refused with a clear 4xx or marked
failed with the reason, and nothing else lost."""

from __future__ import annotations

from typing import Any

from app.services.knowledge.extract import DOCX_MAX_UNCOMPRESSED
from tests.knowledge import files
from tests.knowledge.conftest import Indexer
from tests.support.factories import Caller, Factory


async def _upload(caller: Caller, name: str, data: bytes, content_type: str, **fields: Any):
    return await caller.request(
        "POST",
        caller.space_path("/documents/upload"),
        files={"file": (name, data, content_type)},
        data=fields,
    )


async def _search(caller: Caller, query: str) -> list[str]:
    response = await caller.request("POST", caller.space_path("/documents/search"), json={"query": query})
    assert response.status_code == 200, response.text
    return [hit["title"] for hit in response.json()["items"]]


async def test_each_format_is_extracted_and_searchable(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    uploads = [
        ("notes.txt", b"plain words about turbines", "text/plain", "turbines"),
        ("readme.md", b"# Heading\n\nmarkdown mentions gearboxes", "text/markdown", "gearboxes"),
        (
            "page.html",
            b"<html><head><title>x</title><script>var stolen='propellers';</script></head>"
            b"<body><p>html talks about rotors</p></body></html>",
            "text/html",
            "rotors",
        ),
        ("report.pdf", files.pdf("the pdf describes flywheels"), "application/pdf", "flywheels"),
        ("memo.docx", files.docx("the memo covers dynamos"), "application/octet-stream", "dynamos"),
    ]
    for name, data, content_type, word in uploads:
        response = await _upload(owner, name, data, content_type, tags="competitor, files")
        assert response.status_code == 201, (name, response.text)
        document = response.json()
        assert document["tags"] == ["competitor", "files"]
        assert document["source"] == "upload"
        assert await indexer.index(document["id"]) == "indexed", name
        assert await _search(owner, word) == [name.rsplit(".", 1)[0]], name
    # A script's text is never indexed as the page's words.
    assert await _search(owner, "propellers") == []


async def test_wrong_type_is_415_and_stores_nothing(factory: Factory) -> None:
    owner = await factory.owner()
    for name, data, content_type in [
        ("image.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 32, "image/png"),
        ("fake.pdf", b"not really a pdf", "application/pdf"),
        ("fake.docx", b"plain text pretending", "application/octet-stream"),
        ("archive.txt", b"PK\x03\x04zip inside a txt", "text/plain"),
    ]:
        response = await _upload(owner, name, data, content_type)
        assert response.status_code == 415, (name, response.text)
        assert response.json()["error"]["code"] == "unsupported_document_type"
    assert (await owner.request("GET", owner.space_path("/documents"))).json()["items"] == []


async def test_too_large_upload_is_413(factory: Factory, app) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    limit = app.state.runtime.knowledge.max_upload_bytes
    response = await _upload(owner, "big.txt", b"a" * (limit + 1), "text/plain")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "document_too_large"


async def test_bad_bodies_are_4xx(factory: Factory) -> None:
    owner = await factory.owner()
    no_file = await owner.request("POST", owner.space_path("/documents/upload"), data={"title": "x"})
    assert no_file.status_code == 400
    assert no_file.json()["error"]["code"] in ("file_missing", "multipart_expected")
    as_json = await owner.request("POST", owner.space_path("/documents/upload"), json={"file": "x"})
    assert as_json.status_code == 400
    empty = await _upload(owner, "empty.txt", b"", "text/plain")
    assert empty.status_code == 422
    latin1 = await _upload(owner, "latin.txt", "café".encode("latin-1"), "text/plain")
    assert latin1.status_code == 422
    assert latin1.json()["error"]["code"] == "unreadable_document"


async def test_docx_that_expands_too_far_is_refused_before_parsing(factory: Factory) -> None:
    owner = await factory.owner()
    bomb = files.zip_bomb(DOCX_MAX_UNCOMPRESSED + 1)
    assert len(bomb) < 1024 * 1024
    response = await _upload(owner, "bomb.docx", bomb, "application/octet-stream")
    assert response.status_code == 422
    assert "expands" in response.json()["error"]["message"]


async def test_encrypted_pdf_fails_with_a_reason(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    response = await _upload(owner, "locked.pdf", files.encrypted_pdf("hidden words"), "application/pdf")
    assert response.status_code == 201
    document_id = response.json()["id"]
    assert await indexer.index(document_id) == "failed"
    document = (await owner.request("GET", owner.space_path(f"/documents/{document_id}"))).json()
    assert document["status"] == "failed"
    assert "encrypted" in document["status_reason"]
    assert document["chunk_count"] == 0
    # The failure loses nothing else: other documents still index and search.
    ok = await _upload(owner, "open.txt", b"open words", "text/plain")
    assert await indexer.index(ok.json()["id"]) == "indexed"
    assert await _search(owner, "open") == ["open"]


async def test_title_and_repeated_tags_from_the_form(factory: Factory) -> None:
    owner = await factory.owner()
    response = await owner.request(
        "POST",
        owner.space_path("/documents/upload"),
        files={"file": ("a.txt", b"words", "text/plain")},
        data={"title": "Given title", "tags": ["one", "two,three"], "source_url": "https://example.com/a"},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["title"] == "Given title"
    assert body["tags"] == ["one", "two", "three"]
    assert body["source_url"] == "https://example.com/a"


async def test_a_source_url_that_does_not_parse_is_422(factory: Factory) -> None:
    owner = await factory.owner()
    response = await _upload(owner, "a.txt", b"words", "text/plain", source_url="http://[")
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_source_url"
