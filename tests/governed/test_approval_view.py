"""What an approval tells the person asked: its automation's name and who may decide, in the inbox,
on the approval's own route and in the answer to a decision. A member sees the same approval and is
refused the decision the answer says belongs to owners and admins.

Real API, PostgreSQL, Redis and Celery worker; the outside world is the loopback server.
"""

from __future__ import annotations

import uuid

from tests.governed.helpers import name, waiting_run
from tests.support.approvals import decide, the_approval
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.runs import wait_for


async def test_an_approval_names_its_automation_and_who_is_asked(
    factory: Factory, loopback: Loopback, stack
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    title = name("Pay the invoice")
    automation_id, run = await waiting_run(owner, loopback, name("named"), name=title)

    listed = await the_approval(owner, run["id"])
    assert (listed["automation_id"], listed["automation_name"]) == (automation_id, title)
    assert listed["approvers"] == ["owner", "admin"]

    one = await owner.request("GET", owner.space_path(f"/approvals/{listed['id']}"))
    assert one.status_code == 200, one.text
    assert (one.json()["automation_name"], one.json()["approvers"]) == (title, ["owner", "admin"])

    member = await factory.member(owner)
    seen = await member.request("GET", member.space_path(f"/approvals/{listed['id']}"))
    assert seen.status_code == 200, seen.text
    assert seen.json()["automation_name"] == title
    refused = await decide(member, listed["id"], "approve")
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "role_insufficient")

    answer = await decide(owner, listed["id"], "approve", {"scope": "once"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["automation_name"] == title
    assert answer.json()["approvers"] == ["owner", "admin"]
    assert (await wait_for(owner, run["id"]))["status"] == "succeeded"


async def test_an_unknown_approval_is_not_found_and_another_spaces_is_hidden(
    factory: Factory, loopback: Loopback, stack
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    _, run = await waiting_run(owner, loopback, name("hidden"))
    approval = await the_approval(owner, run["id"])

    missing = await owner.request("GET", owner.space_path(f"/approvals/{uuid.uuid4()}"))
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "approval_not_found")
    malformed = await owner.request("GET", owner.space_path("/approvals/not-an-id"))
    assert malformed.status_code == 422

    stranger = await factory.owner(space="Elsewhere")
    hidden = await stranger.request("GET", stranger.space_path(f"/approvals/{approval['id']}"))
    assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "approval_not_found")
