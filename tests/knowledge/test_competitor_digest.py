"""The weekday competitor digest (examples/competitor_digest.json) end to end: a real worker indexes the
documents, the agent searches and reads them through the governed capabilities (the fake model decides
its calls from what the tools answered), and the digest reaches the fake Slack."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from app.persistence.models import ActionInvocation
from tests.knowledge.conftest import indexed_by_worker
from tests.support.factories import Factory, example
from tests.support.fake_llm import TEST_MODEL, FakeLlm, Reply, json_reply, tool_call, tool_calls
from tests.support.fake_slack import FakeSlack
from tests.support.runs import start, wait_for


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def _agent(since: str):  # type: ignore[no-untyped-def]
    """The model's side: search with the digest's filters, read the best hit, then answer from it."""

    def answer(body: dict[str, Any]) -> Reply:
        results = _tool_results(body)
        if not results:
            filters = {"tags": ["competitor"], "since": since}
            return tool_calls(tool_call("search_space__query", {"query": "pricing", "filters": filters}))
        if len(results) == 1:
            best = results[0]["result"]["items"][0]
            return tool_calls(
                tool_call(
                    "search_space__fetch_document", {"document_id": best["document_id"], "max_chars": 500}
                )
            )
        found = results[0]["result"]["items"]
        read = results[1]["result"]
        bullets = [f"{read['title']}: {read['text'][:60]}"]
        return json_reply(
            {"bullets": bullets, "source_doc_ids": sorted({hit["document_id"] for hit in found})}
        )

    return answer


async def test_digest_summarises_new_competitor_documents_and_posts_to_slack(
    app, factory: Factory, fake_llm: FakeLlm, fake_slack: FakeSlack, stack
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    old = await indexed_by_worker(owner, "Old rival pricing", "Rival pricing from last year.", ["competitor"])
    since = datetime.now(UTC).isoformat()
    new = await indexed_by_worker(
        owner,
        "Globex pricing change",
        "Globex raised its pricing for the enterprise tier to 40 dollars a seat.",
        ["competitor"],
    )
    await indexed_by_worker(owner, "Our pricing memo", "Internal pricing discussion.", ["internal"])
    stored = await owner.request(
        "PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"}
    )
    assert stored.status_code == 201, stored.text

    digest = example("competitor_digest.json")
    digest["plan"][0]["config"]["model"] = TEST_MODEL
    fake_llm.reset()
    fake_llm.answer_by(_agent(since))
    posts_before = len(fake_slack.posts)
    try:
        _, run = await start(owner, digest, {"since": since})
        done = await wait_for(owner, run["id"], timeout=90)
    finally:
        fake_llm.reset()
    assert done["status"] == "succeeded", done
    assert done["output"]["summary"]["source_doc_ids"] == [new["id"]]
    assert old["id"] not in json.dumps(done["output"])
    (post,) = fake_slack.posts[posts_before:]
    assert post["channel"] == "#competitors"
    assert post["text"].startswith("*Competitor digest*\n• Globex pricing change: Globex raised its pricing")

    async with app.state.sessionmaker() as session:
        calls = (
            await session.scalars(
                select(ActionInvocation)
                .where(ActionInvocation.run_id == done["id"])
                .order_by(ActionInvocation.created_at)
            )
        ).all()
    assert [(c.capability, c.chosen_by, c.mode) for c in calls][:2] == [
        ("search_space.query", "agent", "allow"),
        ("search_space.fetch_document", "agent", "allow"),
    ]
