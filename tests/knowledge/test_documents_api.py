"""Documents through the API: add, index, list, read, edit, delete, and the space boundary."""

from __future__ import annotations

from tests.knowledge.conftest import Indexer
from tests.support.factories import Factory

LONG_TEXT = "\n\n".join(
    f"Paragraph {n}. Acme shipped release {n} of its widget platform with faster sync and a new pricing tier."
    for n in range(60)
)


async def test_added_document_is_pending_then_indexed_with_chunks(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    document = await indexer.add(owner, "Acme launch notes", LONG_TEXT, ["competitor", "acme"])
    response = await owner.request("GET", owner.space_path(f"/documents/{document['id']}"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "indexed"
    assert body["chunk_count"] > 3
    assert body["indexed_at"] is not None
    assert body["tags"] == ["competitor", "acme"]
    assert body["text"] == LONG_TEXT[:20_000]
    assert body["total_chars"] == len(LONG_TEXT)


async def test_text_is_read_in_bounded_parts_with_a_continuation(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    document = await indexer.add(owner, "Long", LONG_TEXT)
    path = owner.space_path(f"/documents/{document['id']}")
    first = (await owner.request("GET", path, params={"max_chars": 100})).json()
    assert first["text"] == LONG_TEXT[:100]
    assert first["next_offset"] == 100
    rest = (await owner.request("GET", path, params={"offset": 100, "max_chars": 100_000})).json()
    assert first["text"] + rest["text"] == LONG_TEXT
    assert rest["next_offset"] is None
    too_much = await owner.request("GET", path, params={"max_chars": 100_001})
    assert too_much.status_code == 422


async def test_list_filters_by_tag_status_and_pages(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    for n in range(3):
        await indexer.add(owner, f"Rival {n}", f"rival news {n}", ["competitor"])
    await indexer.add(owner, "Internal", "our own roadmap", ["internal"])
    blank = await owner.request("POST", owner.space_path("/documents"), json={"title": "Blank", "text": " "})
    assert blank.status_code == 201
    assert await indexer.index(blank.json()["id"]) == "failed"
    listed = await owner.request(
        "GET", owner.space_path("/documents"), params={"tag": "competitor", "limit": 2}
    )
    body = listed.json()
    assert [d["title"] for d in body["items"]] == ["Rival 2", "Rival 1"]
    more = await owner.request(
        "GET", owner.space_path("/documents"), params={"tag": "competitor", "cursor": body["next_cursor"]}
    )
    assert [d["title"] for d in more.json()["items"]] == ["Rival 0"]
    failed = await owner.request("GET", owner.space_path("/documents"), params={"status": "failed"})
    assert [d["title"] for d in failed.json()["items"]] == ["Blank"]
    bad = await owner.request("GET", owner.space_path("/documents"), params={"status": "lost"})
    assert bad.status_code == 422


async def test_patch_keeps_a_revision_and_reindexes_new_text(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    document = await indexer.add(owner, "Pricing", "Acme charges ten dollars", ["competitor"])
    path = owner.space_path(f"/documents/{document['id']}")
    retitled = await owner.request("PATCH", path, json={"title": "Acme pricing"})
    assert retitled.status_code == 200
    assert retitled.json()["revision"] == 2
    assert retitled.json()["status"] == "indexed"
    changed = await owner.request("PATCH", path, json={"text": "Acme now charges twelve dollars"})
    assert changed.json()["status"] == "pending"
    assert changed.json()["revision"] == 3
    assert await indexer.index(document["id"]) == "indexed"
    search = await owner.request("POST", owner.space_path("/documents/search"), json={"query": "twelve"})
    assert [hit["title"] for hit in search.json()["items"]] == ["Acme pricing"]
    old = await owner.request("POST", owner.space_path("/documents/search"), json={"query": "ten"})
    assert old.json()["items"] == []


async def test_delete_removes_document_and_its_chunks(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    document = await indexer.add(owner, "Gone soon", "ephemeral widget facts")
    path = owner.space_path(f"/documents/{document['id']}")
    assert (await owner.request("DELETE", path)).status_code == 204
    assert (await owner.request("GET", path)).status_code == 404
    search = await owner.request("POST", owner.space_path("/documents/search"), json={"query": "widget"})
    assert search.json()["items"] == []
    assert (await owner.request("DELETE", path)).status_code == 404


async def test_another_space_sees_nothing(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    stranger = await factory.owner("Other")
    document = await indexer.add(owner, "Secret plan", "the quarterly secret plan")
    foreign = stranger.space_path(f"/documents/{document['id']}")
    assert (await stranger.request("GET", foreign)).status_code == 404
    assert (await stranger.request("PATCH", foreign, json={"title": "mine"})).status_code == 404
    assert (await stranger.request("DELETE", foreign)).status_code == 404
    search = await stranger.request(
        "POST", stranger.space_path("/documents/search"), json={"query": "secret"}
    )
    assert search.json()["items"] == []
    other_space = await stranger.request("GET", stranger.space_path("/documents", space_id=owner.space_id))
    assert other_space.status_code in (403, 404)


async def test_members_read_and_write_documents(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    member = await factory.member(owner)
    document = await indexer.add(member, "Member note", "written by a member")
    got = await owner.request("GET", owner.space_path(f"/documents/{document['id']}"))
    assert got.status_code == 200


async def test_bad_fields_are_422_with_a_pointer(factory: Factory) -> None:
    owner = await factory.owner()
    cases = [
        ({"title": "t", "text": "x", "tags": [""]}, "invalid_tags"),
        ({"title": "t", "text": "x", "source_url": "ftp://example.com/a"}, "invalid_source_url"),
        # Not even a URL: the parser's own refusal is a 422 too, never a 500.
        ({"title": "t", "text": "x", "source_url": "http://["}, "invalid_source_url"),
        ({"title": "t", "text": "x", "source_url": "https://[::1"}, "invalid_source_url"),
        ({"title": "t", "text": "x", "format": "pdf"}, None),
        ({"title": " ", "text": "x"}, "invalid_title"),
    ]
    for body, code in cases:
        response = await owner.request("POST", owner.space_path("/documents"), json=body)
        assert response.status_code == 422, (body, response.text)
        if code is not None:
            assert response.json()["error"]["code"] == code
    listed = await owner.request("GET", owner.space_path("/documents"))
    assert listed.json()["items"] == []


async def test_query_parameters_postgresql_cannot_store_are_422(factory: Factory) -> None:
    owner = await factory.owner()
    for params in ({"source": "\x00"}, {"tag": "a\x00b"}, {"cursor": "not-a-cursor"}):
        response = await owner.request("GET", owner.space_path("/documents"), params=params)
        assert response.status_code in (400, 422), (params, response.text)
