"""A space's Slack approvals: the channel pending calls are posted to, and the secrets that reach Slack.

The bot token and the signing secret stay space secrets; the setting names them (`bot_token_secret`,
`signing_secret_secret`) and never holds a value. Admins and owners set it; every change is recorded in
the policy history.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from app.errors import ErrorDetail, ValidationFailed
from app.persistence.models import Space
from app.persistence.types import AsyncSession
from app.services.governance.audit import policy_audit
from app.services.identity.access import Permissions, SpaceAccess
from app.services.resources.secrets import secret_service

SETTINGS_KEY = "slack_approvals"
# A channel id (C…, G… for a private one) or a channel name such as #approvals.
CHANNEL_PATTERN = re.compile(r"^(?:[CG][A-Z0-9]{2,20}|#[a-z0-9][a-z0-9_-]{0,79})$")


@dataclass(frozen=True)
class SlackApprovalSettings:
    channel: str
    bot_token_secret: str
    signing_secret_secret: str

    @classmethod
    def of(cls, space: Space) -> SlackApprovalSettings | None:
        """The space's setting, or None when it posts no approvals to Slack."""
        stored = (space.settings or {}).get(SETTINGS_KEY)
        if not isinstance(stored, dict):
            return None
        try:
            return cls(
                channel=str(stored["channel"]),
                bot_token_secret=str(stored["bot_token_secret"]),
                signing_secret_secret=str(stored["signing_secret_secret"]),
            )
        except KeyError:
            return None


class SlackSettingsService:
    async def set(
        self, session: AsyncSession, access: SpaceAccess, settings: SlackApprovalSettings | None
    ) -> Space:
        """Name the channel and the secrets (None turns Slack approvals off); 422 with pointers when a
        channel is malformed or a secret does not exist in the space."""
        access.require(Permissions.manage_space)
        if settings is not None:
            await self._check(session, access, settings)
        space = await session.get(Space, access.space_id, with_for_update=True)
        assert space is not None  # the access was resolved against it
        before = SlackApprovalSettings.of(space)
        stored = dict(space.settings or {})
        if settings is None:
            stored.pop(SETTINGS_KEY, None)
        else:
            stored[SETTINGS_KEY] = asdict(settings)
        space.settings = stored
        if before != settings:
            await policy_audit.record(
                session,
                space_id=space.id,
                actor_id=access.user_id,
                kind="slack_approvals",
                before=asdict(before) if before is not None else {},
                after=asdict(settings) if settings is not None else {},
            )
        await session.flush()
        return space

    async def _check(
        self, session: AsyncSession, access: SpaceAccess, settings: SlackApprovalSettings
    ) -> None:
        problems: list[ErrorDetail] = []
        if not CHANNEL_PATTERN.fullmatch(settings.channel):
            problems.append(
                ErrorDetail("/channel", "must be a channel id such as C0123ABCD or a name such as #approvals")
            )
        names = await secret_service.names(session, access)
        fields: dict[str, Any] = {
            "bot_token_secret": settings.bot_token_secret,
            "signing_secret_secret": settings.signing_secret_secret,
        }
        for field, name in fields.items():
            if name not in names:
                problems.append(ErrorDetail(f"/{field}", f"this space has no secret named {name!r}"))
        if problems:
            raise ValidationFailed(
                "The Slack approval settings are invalid.", code="invalid_slack_settings", details=problems
            )


slack_settings_service = SlackSettingsService()
