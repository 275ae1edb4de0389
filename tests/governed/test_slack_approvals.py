"""Slack approvals end to end: the message with buttons, Slack's signed interaction, the message update.

Real API, PostgreSQL, Redis, Celery worker and beat; Slack's Web API is the loopback fake, and each
interaction is signed the way Slack signs it (v0 HMAC-SHA256 of `v0:{timestamp}:{body}`).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from httpx import Response
from sqlalchemy import update

from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, User
from app.persistence.transaction import transaction
from app.services.governance.slack_interactions import signature_for
from tests.governed.helpers import eventually, name, waiting_run
from tests.support.approvals import decide, the_approval
from tests.support.factories import Caller, Factory
from tests.support.fake_slack import FakeSlack
from tests.support.loopback import Loopback
from tests.support.runs import get_run, wait_for

SIGNING = "8f742231b10e8888abcd99yyyzzz85a5"
SETTINGS = {"channel": "C0APPROVE", "bot_token_secret": "slack_bot", "signing_secret_secret": "slack_signing"}


async def configure(owner: Caller) -> None:
    for secret, value in (("slack_bot", "xoxb-good"), ("slack_signing", SIGNING)):
        put = await owner.request("PUT", owner.space_path(f"/secrets/{secret}"), json={"value": value})
        assert put.status_code in (200, 201), put.text
    answer = await owner.request("PUT", owner.space_path("/slack-approvals"), json=SETTINGS)
    assert answer.status_code == 200, answer.text


async def email_of(app: Any, caller: Caller) -> str:
    async with app.state.sessionmaker() as session:
        user = await session.get(User, uuid.UUID(caller.user_id))
    assert user is not None
    return user.email


def interaction(approval_id: str, decision: str, slack_user: str) -> bytes:
    payload = {
        "type": "block_actions",
        "user": {"id": slack_user},
        "actions": [{"action_id": decision, "value": f"{decision}:{approval_id}"}],
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


async def click(
    owner: Caller,
    body: bytes,
    *,
    secret: str = SIGNING,
    sent: int | None = None,
    signature: str | None = None,
) -> Response:
    timestamp = str(sent if sent is not None else int(time.time()))
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature or signature_for(secret, timestamp, body),
    }
    # Slack presents no API token: only its signature.
    return await owner.client.post(
        f"/api/v1/integrations/slack/interactions/{owner.space_id}", content=body, headers=headers
    )


def posted_for(fake_slack: FakeSlack, approval_id: str) -> list[dict[str, Any]]:
    return [post for post in fake_slack.posts if approval_id in json.dumps(post)]


class TestSlackApprovals:
    async def test_a_pending_call_is_posted_and_a_signed_click_decides_it(
        self, app, factory: Factory, loopback: Loopback, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        member = await factory.member(owner, "member")
        await configure(owner)
        fake_slack.users["UADMIN"] = (await email_of(app, admin)).upper()  # Slack keeps the case it was given
        fake_slack.users["UMEMBER"] = await email_of(app, member)
        fake_slack.users["USTRANGER"] = "stranger@example.test"
        hits = name("slack")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])

        [post] = await eventually(lambda: _async(posted_for(fake_slack, approval["id"])))
        assert post["channel"] == "C0APPROVE"
        [actions] = [block for block in post["blocks"] if block["type"] == "actions"]
        assert [(b["action_id"], b["value"]) for b in actions["elements"]] == [
            ("approve", f"approve:{approval['id']}"),
            ("deny", f"deny:{approval['id']}"),
        ]
        assert f"/count/{hits}" in json.dumps(post["blocks"])

        body = interaction(approval["id"], "approve", "UADMIN")
        forged = await click(owner, body, secret="not-the-signing-secret")
        assert (forged.status_code, forged.json()["error"]["code"]) == (401, "slack_signature_invalid")
        tampered = await click(owner, body, signature=signature_for(SIGNING, "1", body))
        assert tampered.status_code == 401
        stale = await click(owner, body, sent=int(time.time()) - 6 * 60)
        assert (stale.status_code, stale.json()["error"]["code"]) == (401, "slack_request_stale")
        unsigned = await owner.client.post(
            f"/api/v1/integrations/slack/interactions/{owner.space_id}", content=body
        )
        assert (unsigned.status_code, unsigned.json()["error"]["code"]) == (401, "slack_signature_missing")
        garbage = await click(owner, b"payload=%7Bnot-json")
        assert (garbage.status_code, garbage.json()["error"]["code"]) == (400, "slack_payload_invalid")
        as_member = await click(owner, interaction(approval["id"], "approve", "UMEMBER"))
        assert (as_member.status_code, as_member.json()["error"]["code"]) == (403, "role_insufficient")
        as_stranger = await click(owner, interaction(approval["id"], "approve", "USTRANGER"))
        assert (as_stranger.status_code, as_stranger.json()["error"]["code"]) == (
            403,
            "slack_user_not_member",
        )
        unknown = await click(owner, interaction(approval["id"], "approve", "UNOBODY"))
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (403, "slack_user_not_member")
        assert (await get_run(owner, run["id"]))["status"] == "awaiting_approval"
        assert loopback.hits[hits] == 0

        approved = await click(owner, body)
        assert approved.status_code == 200, approved.text
        assert approved.json() == {"approval_id": approval["id"], "status": "approved"}
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[hits] == 1
        decided = (await owner.request("GET", owner.space_path(f"/approvals/{approval['id']}"))).json()
        assert [(d["user_id"], d["via"]) for d in decided["decisions"]] == [(admin.user_id, "slack")]

        replayed = await click(owner, body)
        assert (replayed.status_code, replayed.json()["error"]["code"]) == (409, "approval_not_pending")

        # The message may first say the call is executing; wait for its final word.
        [update] = await eventually(
            lambda: _async(
                [
                    u
                    for u in fake_slack.updates
                    if u["ts"] == _ts_of(fake_slack, post) and "Approved by" in u["text"]
                ][-1:]
            )
        )
        assert update["channel"] == "C0APPROVE"
        assert "Approved by" in update["text"]
        assert not [block for block in update["blocks"] if block["type"] == "actions"]

    async def test_a_failing_slack_never_blocks_the_approval_and_is_retried(
        self, app, factory: Factory, loopback: Loopback, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await configure(owner)
        fake_slack.fail_posts = 1
        hits = name("slack-down")
        _, run = await waiting_run(owner, loopback, hits)
        approval = await the_approval(owner, run["id"])
        assert (await decide(owner, approval["id"], "approve")).status_code == 200
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"

        [post] = await eventually(lambda: _async(posted_for(fake_slack, approval["id"])), timeout=60)
        # Posted after the decision: the message shows the outcome and no buttons.
        assert not [block for block in post["blocks"] if block["type"] == "actions"]
        assert fake_slack.fail_posts == 0

    async def test_the_setting_is_admin_only_and_validated(
        self, factory: Factory, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        put = await owner.request("PUT", owner.space_path("/secrets/slack_bot"), json={"value": "xoxb-good"})
        assert put.status_code == 201
        bad = {"channel": "general", "bot_token_secret": "slack_bot", "signing_secret_secret": "missing"}
        refused = await owner.request("PUT", owner.space_path("/slack-approvals"), json=bad)
        assert refused.status_code == 422, refused.text
        assert {d["path"] for d in refused.json()["error"]["details"]} == {
            "/channel",
            "/signing_secret_secret",
        }
        as_member = await member.request("PUT", member.space_path("/slack-approvals"), json=SETTINGS)
        assert as_member.status_code == 403
        shown = (await member.request("GET", member.space_path("/slack-approvals"))).json()
        assert shown["enabled"] is False
        assert shown["interactivity_url"] == f"/api/v1/integrations/slack/interactions/{owner.space_id}"
        # Not configured: an interaction is refused before anything is read.
        body = interaction(str(uuid.uuid4()), "approve", "U1")
        answer = await click(owner, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "slack_not_configured")
        # A signing secret deleted since: refused the same way, naming no secret to an unsigned caller.
        await configure(owner)
        assert (await owner.request("DELETE", owner.space_path("/secrets/slack_signing"))).status_code == 204
        gone = await click(owner, body, secret=SIGNING)
        assert (gone.status_code, gone.json()["error"]["code"]) == (404, "slack_not_configured")
        assert "slack_signing" not in gone.text


async def _async(value: Any) -> Any:
    return value


def _ts_of(fake_slack: FakeSlack, post: dict[str, Any]) -> str:
    return fake_slack.timestamps[fake_slack.posts.index(post)]


class TestSlackExpiry:
    async def test_an_expired_call_loses_its_buttons(
        self, app, factory: Factory, loopback: Loopback, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await configure(owner)
        _, run = await waiting_run(owner, loopback, name("slack-expiry"))
        approval = await the_approval(owner, run["id"])
        [post] = await eventually(lambda: _async(posted_for(fake_slack, approval["id"])))
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await session.execute(
                update(ActionInvocation)
                .where(ActionInvocation.id == uuid.UUID(approval["id"]))
                .values(expires_at=utcnow())
            )
        assert (await wait_for(owner, run["id"]))["status"] == "failed"
        [update_] = await eventually(
            lambda: _async([u for u in fake_slack.updates if u["ts"] == _ts_of(fake_slack, post)])
        )
        assert "Expired" in update_["text"]
        assert not [block for block in update_["blocks"] if block["type"] == "actions"]
        late = await click(owner, interaction(approval["id"], "approve", "UNOBODY"))
        assert late.status_code in (403, 409)
