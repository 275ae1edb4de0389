"""Request and response bodies of the MCP connection routes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from app.api.fields import HTTP_URL_PATTERN, ToolPrefix, stated
from app.api.schemas import Body, Out

MAX_URL_LENGTH = 2048


class AuthNone(Body):
    type: Literal["none"]


class AuthBearer(Body):
    type: Literal["bearer"]
    secret: str = Field(description="Name of the space secret holding the token.", max_length=64)


class AuthHeader(Body):
    type: Literal["header"]
    header: str = Field(description="The header that carries the secret, e.g. X-Api-Key.", max_length=100)
    secret: str = Field(description="Name of the space secret holding the value.", max_length=64)


class AuthOAuth(Body):
    type: Literal["oauth"]


Auth = Annotated[AuthNone | AuthBearer | AuthHeader | AuthOAuth, Field(discriminator="type")]


class ConnectionCreate(Body):
    name: str = Field(min_length=1, max_length=100)
    transport: Literal["http", "stdio"] = "http"
    url: str | None = Field(
        default=None,
        max_length=MAX_URL_LENGTH,
        description="Streamable HTTP endpoint.",
        json_schema_extra=stated(pattern=HTTP_URL_PATTERN),
    )
    server: str | None = Field(
        default=None, max_length=100, description="A stdio server the operator declared (transport stdio)."
    )
    tool_prefix: ToolPrefix = Field(min_length=1, max_length=40)
    auth: Auth = Field(default_factory=lambda: AuthNone(type="none"))


class ConnectionPatch(Body):
    name: str | None = Field(default=None, min_length=1, max_length=100)
    url: str | None = Field(
        default=None, max_length=MAX_URL_LENGTH, json_schema_extra=stated(pattern=HTTP_URL_PATTERN)
    )
    server: str | None = Field(default=None, max_length=100)
    tool_prefix: ToolPrefix | None = Field(default=None, min_length=1, max_length=40)
    auth: Auth | None = None


class ConnectionOut(Out):
    id: uuid.UUID
    name: str
    transport: str
    url: str | None
    server: str | None = Field(validation_alias="stdio_server")
    tool_prefix: str
    auth: dict[str, Any] = Field(default_factory=dict)
    harvest_status: str
    harvest_error: str | None
    harvest_notice: str | None
    last_harvested_at: datetime | None
    tool_count: int
    tools_truncated: bool
    needs_authorization: bool
    created_at: datetime
    updated_at: datetime


class ToolOut(Out):
    name: str
    capability_id: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any]
    risk: str
    risk_hint: str
    risk_override: str | None
    destructive: bool
    schema_hash: str
    confirmed_hash: str
    previous_hash: str | None
    drifted: bool
    drifted_at: datetime | None
    removed: bool
    removed_at: datetime | None
    unusable_reason: str | None


class ToolPatch(Body):
    risk: Literal["read", "write"] | None = Field(description="The risk in force; null returns to the hint.")


class AuthorizeOut(Out):
    authorization_url: str = Field(description="Send the user here; they come back to the callback route.")


class CompletionBody(Body):
    """What the authorization server sent back to the callback, handed on by the web UI."""

    state: str = Field(min_length=1, max_length=512)
    code: str | None = Field(default=None, max_length=4096)
    iss: str | None = Field(default=None, max_length=2048)
    error: str | None = Field(default=None, max_length=200)


class CallbackOut(Out):
    connection_id: uuid.UUID
    space_id: uuid.UUID
    authorized: bool
