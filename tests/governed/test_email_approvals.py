"""Email approvals end to end: single-use links bound to each approver, through the real SMTP server.

Real API, PostgreSQL, Redis, Celery worker and beat; mail goes to an aiosmtpd server on loopback.
"""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any

from sqlalchemy import update

from app.persistence.base import utcnow
from app.persistence.models import ApprovalLink, User
from app.persistence.transaction import transaction
from tests.governed.helpers import eventually, name
from tests.governed.test_mode_rules import active, put_modes
from tests.support.approvals import the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import fire, get_run, http_step, wait_for
from tests.support.smtp_server import SmtpServer

LINK = re.compile(r"/approval-email#(aapr_[A-Za-z0-9_-]+)")


async def email_of(app: Any, caller: Caller) -> str:
    """The caller's address, moved to a domain mail may go to (the factory's `.test` ones are reserved
    names, which the mail builder refuses like any undeliverable address)."""
    address = f"{caller.user_id}@example.com"
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        await session.execute(update(User).where(User.id == uuid.UUID(caller.user_id)).values(email=address))
    return address


async def waiting(owner: Caller, loopback: Loopback, hits: str, approvals: int) -> dict[str, Any]:
    automation_id = await active(owner, http_step("call", f"{loopback.url}/count/{hits}"))
    rules = [{"capability": "http.request", "mode": "require_approval", "approvals": approvals}]
    assert (await put_modes(owner, {"modes": {}, "rules": rules}, automation_id)).status_code == 200
    run = await fire(owner, automation_id)
    return await wait_for(owner, run["id"], {"awaiting_approval"}, timeout=60)


async def links_for(smtp_server: SmtpServer, approval_id: str, count: int) -> dict[str, str]:
    """Recipient → link token of the emails about this call, once `count` of them arrived."""

    async def arrived() -> dict[str, str]:
        found: dict[str, str] = {}
        for mail in smtp_server.accepted:
            body = mail.message.get_body(("plain",))
            text = body.get_content() if body is not None else ""
            if approval_id[:8] in str(mail.message["Subject"]) + text or approval_id in text:
                match = LINK.search(text)
                if match:
                    found[mail.recipients[0]] = match.group(1)
        return found if len(found) >= count else {}

    result: dict[str, str] = await eventually(arrived, timeout=60)
    return result


async def view(client: Any, token: str) -> Any:
    return await client.post("/api/v1/approval-links/view", json={"token": token})


async def decide(client: Any, token: str, decision: str = "approve") -> Any:
    return await client.post("/api/v1/approval-links/decide", json={"token": token, "decision": decision})


async def enable(owner: Caller) -> None:
    answer = await owner.request("PUT", owner.space_path("/email-approvals"), json={"enabled": True})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"enabled": True, "mail_configured": True}


class TestEmailLinks:
    async def test_each_approver_gets_a_link_that_decides_once_as_them(
        self, app, factory: Factory, loopback: Loopback, smtp_server: SmtpServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        member = await factory.member(owner, "member")
        as_member = await member.request("PUT", member.space_path("/email-approvals"), json={"enabled": True})
        assert as_member.status_code == 403
        await enable(owner)
        owner_email, admin_email = await email_of(app, owner), await email_of(app, admin)
        member_email = await email_of(app, member)
        hits = name("email")
        run = await waiting(owner, loopback, hits, approvals=2)
        approval = await the_approval(owner, run["id"])
        links = await links_for(smtp_server, approval["run_id"], 2)
        assert set(links) == {owner_email, admin_email}, "admins and owners only, one link each"
        assert member_email not in links

        # Opening the page or reading the call decides nothing (mail scanners fetch links).
        page = await owner.client.get("/approval-email")
        assert page.status_code == 200
        shown = await view(owner.client, links[admin_email])
        assert shown.status_code == 200, shown.text
        assert shown.json()["approver_email"] == admin_email
        assert (shown.json()["capability"], shown.json()["approvals_so_far"]) == ("http.request", 0)
        assert f"/count/{hits}" in str(shown.json()["params"])

        forged = await decide(owner.client, "aapr_" + secrets.token_urlsafe(32))
        assert (forged.status_code, forged.json()["error"]["code"]) == (404, "approval_link_invalid")
        malformed = await decide(owner.client, "not-a-link")
        assert (malformed.status_code, malformed.json()["error"]["code"]) == (404, "approval_link_invalid")

        first = await decide(owner.client, links[admin_email])
        assert first.status_code == 200, first.text
        assert first.json()["status"] == "pending"
        reused = await decide(owner.client, links[admin_email])
        assert (reused.status_code, reused.json()["error"]["code"]) == (410, "approval_link_used")
        reused_view = await view(owner.client, links[admin_email])
        assert reused_view.status_code == 410
        fetched = (await owner.request("GET", owner.space_path(f"/approvals/{approval['id']}"))).json()
        assert [(d["user_id"], d["via"]) for d in fetched["decisions"]] == [(admin.user_id, "email")]
        assert loopback.hits[hits] == 0

        second = await decide(owner.client, links[owner_email])
        assert second.status_code == 200, second.text
        assert second.json()["status"] == "approved"
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert loopback.hits[hits] == 1

    async def test_expired_and_demoted_links_are_refused_and_change_nothing(
        self, app, factory: Factory, loopback: Loopback, smtp_server: SmtpServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        await enable(owner)
        owner_email, admin_email = await email_of(app, owner), await email_of(app, admin)
        run = await waiting(owner, loopback, name("email-refused"), approvals=1)
        approval = await the_approval(owner, run["id"])
        links = await links_for(smtp_server, approval["run_id"], 2)

        demoted = await owner.request(
            "PATCH", owner.space_path(f"/members/{admin.user_id}"), json={"role": "member"}
        )
        assert demoted.status_code == 200, demoted.text
        as_member = await decide(owner.client, links[admin_email])
        assert (as_member.status_code, as_member.json()["error"]["code"]) == (403, "role_insufficient")

        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await session.execute(
                update(ApprovalLink)
                .where(ApprovalLink.invocation_id == uuid.UUID(approval["id"]))
                .values(expires_at=utcnow())
            )
        expired = await decide(owner.client, links[owner_email], "deny")
        assert (expired.status_code, expired.json()["error"]["code"]) == (410, "approval_link_expired")

        assert (await get_run(owner, run["id"]))["status"] == "awaiting_approval"
        kept = (await owner.request("GET", owner.space_path(f"/approvals/{approval['id']}"))).json()
        assert (kept["status"], kept["decisions"]) == ("pending", [])

    async def test_turning_it_on_needs_mail_and_is_recorded(self, factory: Factory, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await enable(owner)
        shown = await owner.request("GET", owner.space_path("/email-approvals"))
        assert shown.json() == {"enabled": True, "mail_configured": True}
        changes = (await owner.request("GET", owner.space_path("/policy-changes"))).json()["items"]
        assert [(c["kind"], c["after"]) for c in changes] == [("email_approvals", {"enabled": True})]
        bad = await owner.request("PUT", owner.space_path("/email-approvals"), json={"enabled": "yes"})
        assert bad.status_code == 422
