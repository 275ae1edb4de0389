"""The labelled retrieval set (also the bench's): well formed, and full-text search keeps finding what
each query is labelled with (a quality floor, not a timing)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.knowledge.conftest import Indexer
from tests.support.factories import Factory

SET = json.loads((Path(__file__).parent / "retrieval_set.json").read_text())


def test_every_label_names_a_document() -> None:
    ids = {document["id"] for document in SET["documents"]}
    assert len(ids) == len(SET["documents"])
    for query in SET["queries"]:
        assert query["relevant"], query
        assert set(query["relevant"]) <= ids, query


async def test_full_text_search_finds_the_labelled_documents(factory: Factory, indexer: Indexer) -> None:
    owner = await factory.owner()
    names = {}
    for document in SET["documents"]:
        added = await indexer.add(owner, document["title"], document["text"], document["tags"])
        names[added["id"]] = document["id"]
    recalls = []
    for query in SET["queries"]:
        response = await owner.request(
            "POST", owner.space_path("/documents/search"), json={"query": query["query"], "top_k": 15}
        )
        found = list(dict.fromkeys(names[hit["document_id"]] for hit in response.json()["items"]))[:5]
        recalls.append(len(set(query["relevant"]) & set(found)) / len(query["relevant"]))
    assert sum(recalls) / len(recalls) >= 0.8, recalls
