"""Request and response bodies of identity: spaces, members, invitations, tokens, sign-in."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

from app.api.fields import stated
from app.api.schemas import Body, Out
from app.persistence.models import Role
from app.security.passwords import MIN_PASSWORD_LENGTH
from app.services.identity.token_scopes import TokenScopes

# A new password's length, stated for clients; the account service refuses a shorter one with its code.
NEW_PASSWORD = stated(min_length=MIN_PASSWORD_LENGTH)


class SpaceCreate(Body):
    name: str = Field(min_length=1, max_length=200)


class SpaceOut(Out):
    id: uuid.UUID
    name: str
    created_at: datetime
    updated_at: datetime


class SpaceWithRoleOut(SpaceOut):
    role: Role


MAX_EMAIL_LENGTH = 320


def _lower_email(value: str) -> str:
    """Emails are stored lower-cased, and lower-casing can lengthen text ("İ" becomes two characters)."""
    lowered = value.lower()
    if len(lowered) > MAX_EMAIL_LENGTH:
        raise ValueError(f"must have at most {MAX_EMAIL_LENGTH} characters once lower-cased")
    return lowered


# Self-hosted teams use internal domains (.internal, .test, .lan), so only the shape is checked.
Email = Annotated[
    str,
    Field(min_length=3, max_length=MAX_EMAIL_LENGTH, pattern=r"^[^@\s]+@[^@\s]+$"),
    AfterValidator(_lower_email),
]


class MemberCreate(Body):
    email: Email
    role: Role = Role.member


class MemberUpdate(Body):
    role: Role


class MemberOut(Out):
    space_id: uuid.UUID
    user_id: uuid.UUID
    email: str
    role: Role
    created_at: datetime


class InvitationOut(BaseModel):
    token: str = Field(description="The invitation's secret; shown once. It can only set a password.")
    url: str = Field(
        description="The UI page that accepts it (the secret rides in the fragment); hand it to the user."
    )
    expires_at: datetime


class NewMemberOut(MemberOut):
    invitation: InvitationOut | None = Field(
        default=None,
        description="For a user created by this call: a single-use link to set their password.",
    )


class InvitationAccept(Body):
    token: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=1024, json_schema_extra=NEW_PASSWORD)


class TokenCreate(Body):
    name: str = Field(min_length=1, max_length=200)
    expires_in_days: Annotated[int, Field(strict=True, ge=1, le=3650)] | Literal["never"] | None = Field(
        default=None,
        description="Days until it expires (default AUTOMATIONS_TOKEN_TTL_DAYS, at most "
        "AUTOMATIONS_TOKEN_MAX_TTL_DAYS), or `never` for a service token (owners and admins only).",
    )
    scopes: TokenScopes | None = Field(
        default=None,
        description="Limit the token to these purposes (it can do nothing else); absent: full access. "
        'E.g. {"mcp": {"automations": [id, ...]}} for an agent that calls those automations as MCP tools.',
    )


class TokenOut(Out):
    id: uuid.UUID
    name: str
    kind: Literal["personal", "session", "service"] = Field(
        description="`session` for a sign-in, `service` for a token that never expires."
    )
    display_prefix: str = Field(description="The first characters of the token, to tell tokens apart.")
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None
    scopes: TokenScopes | None = Field(
        default=None, description="What the token is limited to; null for a token with full access."
    )


class NewTokenOut(TokenOut):
    token: str = Field(description="The token itself; shown once, store it now.")


class SignInBody(Body):
    email: Email
    password: str = Field(min_length=1, max_length=1024)


class UserOut(Out):
    id: uuid.UUID
    email: str
    name: str | None
    has_password: bool = Field(description="Whether the user can sign in with a password.")


class SessionOut(BaseModel):
    token: str = Field(description="An API token for this sign-in; send it as `Authorization: Bearer`.")
    token_id: uuid.UUID = Field(description="Listed with your tokens; revoke it to sign out.")
    expires_at: datetime
    user: UserOut


class PasswordChange(Body):
    current_password: str | None = Field(
        default=None, max_length=1024, description="Required once a password is set."
    )
    password: str = Field(min_length=1, max_length=1024, json_schema_extra=NEW_PASSWORD)
