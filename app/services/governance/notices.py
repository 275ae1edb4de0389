"""Approval notices: the Slack message a pending call posts, its update once decided, and the email with
a single-use link each approver gets (when the space turned email approvals on), sent after commit.

A notice is a row written in the transaction that causes it (the call asking, a decision); a
`system`-queue task sends it after the commit and beat's tick sends what is still due, so a lost wake-up
only delays it. A failing Slack is retried on a schedule and then marked `failed`: it never blocks or
changes the approval, which the inbox and the API still decide.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from app import jobs
from app.definitions.signals import StepError
from app.errors import AppError
from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, ApprovalNotice, Space, User
from app.persistence.repositories.approvals import ApprovalDecisionRepository, ApprovalNoticeRepository
from app.persistence.repositories.tenancy import UserRepository
from app.persistence.types import AsyncSession
from app.services.governance.email_links import email_links, mail_for
from app.services.governance.email_links import enabled as email_enabled
from app.services.governance.slack_settings import SlackApprovalSettings
from app.services.resources.vault import SecretVault

if TYPE_CHECKING:  # the API process imports this module; the HTTP client loads only in the worker that sends
    from app.integrations.slack import SlackApi
    from app.integrations.smtp import RelayMail

SEND_NOTICE_TASK = "system.send_approval_notice"
SYSTEM_QUEUE = "system"
# Seconds after the first attempt; past the last one the notice is `failed`.
RETRY_SCHEDULE = (0, 5, 30, 120, 600, 1800)
SLACK_TIMEOUT_SECONDS = 10.0
PARAMS_CHARS = 2500  # a Slack section's text holds at most 3,000 characters
APPROVE, DENY = "approve", "deny"


@dataclass(frozen=True)
class SendOutcome:
    status: str
    """sent, retry, failed or skipped (another sender holds it, or it is no longer owed)."""


def action_value(decision: str, approval_id: uuid.UUID) -> str:
    """A button's value: the decision and the approval it decides."""
    return f"{decision}:{approval_id}"


def _params_text(params: Any) -> str:
    text = json.dumps(params, indent=1, sort_keys=True, default=str)
    return text if len(text) <= PARAMS_CHARS else text[:PARAMS_CHARS] + "\n…"


_AFTER_APPROVAL = {
    "approved": "",
    "executing": " (running)",
    "executed": " (done)",
    "failed": " (the call failed)",
}


def _status_line(approval: ActionInvocation, approvers: list[str]) -> str:
    names = ", ".join(approvers)
    # The update may be sent after the approved call already ran: it still says who approved it.
    if approval.status in _AFTER_APPROVAL:
        return f":white_check_mark: Approved by {names}{_AFTER_APPROVAL[approval.status]}"
    if approval.status == "denied":
        return f":no_entry: Denied by {names}"
    if approval.status == "expired":
        return ":hourglass: Expired: nobody decided in time"
    if approval.status == "pending" and approvers:
        return f"{len(approvers)} of {approval.required_approvals} approvals: {names}"
    if approval.status == "pending":
        return f"Waiting for {approval.required_approvals} approval(s)"
    return f"Decided ({approval.status})"


def approval_message(approval: ActionInvocation, approvers: list[str]) -> dict[str, Any]:
    """The message for a call in its current state: buttons only while it is pending."""
    title = f"Approval needed: {approval.capability}"
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "block_id": f"approval:{approval.id}",
            "text": {"type": "plain_text", "text": title[:150]},
        },
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": f"*Capability*\n`{approval.capability}`"},
                {"type": "mrkdwn", "text": f"*Step*\n`{approval.step_id}`"},
                {"type": "mrkdwn", "text": f"*Run*\n`{approval.run_id}`"},
                {"type": "mrkdwn", "text": f"*Expires*\n{approval.expires_at:%Y-%m-%d %H:%M} UTC"}
                if approval.expires_at is not None
                else {"type": "mrkdwn", "text": "*Expires*\nnever"},
            ],
        },
        {"type": "section", "text": {"type": "mrkdwn", "text": f"```{_params_text(approval.params)}```"}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": _status_line(approval, approvers)}]},
    ]
    if approval.status == "pending":
        blocks.append(
            {
                "type": "actions",
                "block_id": f"actions:{approval.id}",
                "elements": [
                    {
                        "type": "button",
                        "action_id": APPROVE,
                        "style": "primary",
                        "text": {"type": "plain_text", "text": "Approve"},
                        "value": action_value(APPROVE, approval.id),
                    },
                    {
                        "type": "button",
                        "action_id": DENY,
                        "style": "danger",
                        "text": {"type": "plain_text", "text": "Deny"},
                        "value": action_value(DENY, approval.id),
                    },
                ],
            }
        )
    return {"text": f"{title} ({_status_line(approval, approvers)})", "blocks": blocks}


class ApprovalNotices:
    async def requested(self, session: AsyncSession, approval: ActionInvocation, space: Space) -> None:
        """A call now waits for a decision: owe its Slack message when the space names a channel."""
        settings = SlackApprovalSettings.of(space)
        if settings is not None:
            await self._owe(session, approval, "slack_post", {"channel": settings.channel})
        if email_enabled(space):
            for user_id in await email_links.approvers(session, approval, space):
                await self._owe(session, approval, "email", {}, user_id=user_id)

    async def decision_recorded(self, session: AsyncSession, approval: ActionInvocation) -> None:
        """Someone decided (or one of several approvers approved): owe an update of the Slack message."""
        if await ApprovalNoticeRepository(session).slack_post_of(approval.id) is not None:
            await self._owe(session, approval, "slack_update", {})

    async def expired(self, session: AsyncSession, approval: ActionInvocation) -> None:
        """The call expired: the Slack message loses its buttons."""
        await self.decision_recorded(session, approval)

    async def _owe(
        self,
        session: AsyncSession,
        approval: ActionInvocation,
        kind: str,
        payload: dict[str, Any],
        *,
        user_id: uuid.UUID | None = None,
    ) -> None:
        notice = ApprovalNotice(
            id=uuid.uuid4(),
            invocation_id=approval.id,
            space_id=approval.space_id,
            kind=kind,
            user_id=user_id,
            payload=payload,
            status="pending",
            attempts=0,
            next_attempt_at=utcnow(),
            created_at=utcnow(),
        )
        await ApprovalNoticeRepository(session).create(notice)
        jobs.enqueue(SEND_NOTICE_TASK, str(notice.id), queue=SYSTEM_QUEUE)

    async def sweep(self, session: AsyncSession, now: datetime) -> int:
        """Beat: wake a sender for every notice still due (its wake-up may have been lost)."""
        due = await ApprovalNoticeRepository(session).due(now)
        for notice in due:
            jobs.enqueue(SEND_NOTICE_TASK, str(notice.id), queue=SYSTEM_QUEUE)
        return len(due)

    async def send(
        self,
        session: AsyncSession,
        notice_id: uuid.UUID,
        channels: NoticeChannels,
    ) -> SendOutcome:
        """Send one owed notice; a failure schedules the next attempt, past the last one it fails."""
        repository = ApprovalNoticeRepository(session)
        notice = await repository.claim(notice_id)
        if notice is None or notice.next_attempt_at > utcnow():
            return SendOutcome("skipped")
        approval = await session.get(ActionInvocation, notice.invocation_id)
        space = await session.get(Space, notice.space_id)
        if approval is None or space is None:
            return self._give_up(notice, "the call is gone")
        try:
            if notice.kind == "email":
                await self._email(session, notice, approval, channels)
            else:
                settings = SlackApprovalSettings.of(space)
                if settings is None:
                    return self._give_up(notice, "Slack approvals are no longer configured for this space")
                await self._send(session, notice, approval, settings, channels.slack, channels.vault)
        except (StepError, AppError) as exc:
            retryable = getattr(exc, "retryable", True) and exc.code != "secret_missing"
            return self._retry(notice, f"{exc.code}: {exc}"[:500], retryable=retryable)
        except _NotYet:
            return self._retry(notice, "the Slack message is not posted yet", retryable=True)
        except _Moot as exc:
            return self._give_up(notice, str(exc))
        notice.status, notice.sent_at = "sent", utcnow()
        notice.attempts += 1
        await session.flush()
        return SendOutcome("sent")

    async def _email(
        self,
        session: AsyncSession,
        notice: ApprovalNotice,
        approval: ActionInvocation,
        channels: NoticeChannels,
    ) -> None:
        """A fresh single-use link for the approver, in an email through the SMTP relay."""
        if channels.mail is None:
            raise _Moot("this deployment has no SMTP relay")
        if approval.status != "pending":
            raise _Moot(f"the call no longer waits for a decision ({approval.status})")
        user = await session.get(User, notice.user_id) if notice.user_id is not None else None
        if user is None:
            raise _Moot("the approver is gone")
        link = await email_links.issue(session, approval, user, channels.public_url)
        await channels.mail.send(mail_for(approval, user, link), timeout_seconds=SLACK_TIMEOUT_SECONDS)

    async def _send(
        self,
        session: AsyncSession,
        notice: ApprovalNotice,
        approval: ActionInvocation,
        settings: SlackApprovalSettings,
        slack: SlackApi,
        vault: SecretVault,
    ) -> None:
        token = (await vault.resolve(session, notice.space_id, [settings.bot_token_secret]))[
            settings.bot_token_secret
        ]
        message = approval_message(approval, await self._approvers(session, approval))
        if notice.kind == "slack_post":
            posted = await slack.post_message(
                token,
                {"channel": notice.payload.get("channel"), **message},
                timeout_seconds=SLACK_TIMEOUT_SECONDS,
            )
            notice.external_ref = posted
            return
        post = await ApprovalNoticeRepository(session).slack_post_of(approval.id)
        if post is None or post.status == "failed":
            raise StepError("slack_message_missing", "the Slack message was never posted", retryable=False)
        if post.external_ref is None:
            raise _NotYet()
        ref = post.external_ref
        await slack.update_message(
            token,
            {"channel": ref.get("channel"), "ts": ref.get("ts"), **message},
            timeout_seconds=SLACK_TIMEOUT_SECONDS,
        )

    async def _approvers(self, session: AsyncSession, approval: ActionInvocation) -> list[str]:
        decisions = await ApprovalDecisionRepository(session).for_invocations([approval.id])
        users = {
            user.id: user for user in await UserRepository(session).get_many([d.user_id for d in decisions])
        }
        return [
            (users[d.user_id].name or users[d.user_id].email) if d.user_id in users else "a former member"
            for d in decisions
            if d.decision == (APPROVE if approval.status != "denied" else DENY)
        ]

    def _retry(self, notice: ApprovalNotice, error: str, *, retryable: bool) -> SendOutcome:
        notice.attempts += 1
        notice.last_error = error
        if not retryable or notice.attempts >= len(RETRY_SCHEDULE):
            notice.status = "failed"
            return SendOutcome("failed")
        notice.next_attempt_at = notice.created_at + timedelta(seconds=RETRY_SCHEDULE[notice.attempts])
        return SendOutcome("retry")

    def _give_up(self, notice: ApprovalNotice, error: str) -> SendOutcome:
        notice.status, notice.last_error = "failed", error
        return SendOutcome("failed")


class _NotYet(Exception):
    """An update whose message is still being posted: try again shortly."""


class _Moot(Exception):
    """Nothing is owed any more (the call was decided, the approver left, mail is not configured)."""


@dataclass(frozen=True)
class NoticeChannels:
    """What sending a notice may use: Slack's Web API, the vault for its token, the SMTP relay (None when
    not configured) and the public URL email links start with."""

    slack: SlackApi
    vault: SecretVault
    mail: RelayMail | None
    public_url: str | None


approval_notices = ApprovalNotices()
