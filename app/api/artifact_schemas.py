"""Request and response shapes of artifacts and registered databases."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from app.api.fields import ToolPrefix, stated
from app.api.schemas import Body, ListOut, Out
from app.services.resources.artifacts import MAX_LINK_SECONDS
from app.services.resources.databases import NAME_PATTERN as DATABASE_NAME_PATTERN
from app.services.resources.secrets import NAME_PATTERN as SECRET_NAME_PATTERN


class ArtifactOut(Out):
    id: uuid.UUID
    run_id: uuid.UUID | None
    automation_id: uuid.UUID | None
    step_id: str | None
    step_path: str | None = Field(
        description="Which execution of the step kept it: `<loop>/<iteration>/<step_id>` inside a for_each."
    )
    name: str
    kind: str
    retention: str
    visibility: str
    size: int
    content_type: str
    sha256: str
    expires_at: datetime | None
    created_at: datetime


class ArtifactListOut(ListOut[ArtifactOut]):
    """Every artifact of the run in one answer: artifacts are not paged."""


class LinkCreate(Body):
    expires_in: int | None = Field(
        default=None,
        ge=1,
        le=MAX_LINK_SECONDS,
        description="Seconds the link lives: default 900 (15 minutes), at most 604800 (7 days).",
    )


class LinkOut(Out):
    url: str = Field(description="The link; an API link works for as long as `expires_at` says.")
    expires_at: datetime
    served_by: Literal["api", "store"]


class DatabaseCreate(Body):
    name: str = Field(
        min_length=1,
        max_length=64,
        description="1 to 64 characters of a-z, 0-9, _.",
        json_schema_extra=stated(pattern=DATABASE_NAME_PATTERN),
    )
    dsn_secret: str = Field(
        min_length=1,
        max_length=64,
        description="Name of the secret holding the DSN.",
        json_schema_extra=stated(pattern=SECRET_NAME_PATTERN),
    )
    tool_prefix: ToolPrefix = Field(
        min_length=1, max_length=40, description="Capabilities become <prefix>.query and <prefix>.tables."
    )
    access: Literal["read", "write"] = Field(
        default="read",
        description="read: the role must change nothing and queries run read-only. write: the admin "
        "accepts a role that writes; <prefix>.query is then a write capability.",
    )


class DatabasePatch(Body):
    name: str | None = Field(
        default=None, min_length=1, max_length=64, json_schema_extra=stated(pattern=DATABASE_NAME_PATTERN)
    )
    dsn_secret: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Another secret holding the DSN; checked again.",
        json_schema_extra=stated(pattern=SECRET_NAME_PATTERN),
    )
    tool_prefix: ToolPrefix | None = Field(
        default=None,
        min_length=1,
        max_length=40,
        description="Renames the capabilities; steps naming the old ones fail.",
    )
    access: Literal["read", "write"] | None = Field(
        default=None, description="read or write; the role is checked again for it."
    )


class DatabaseCheckOut(Out):
    reachable: bool = Field(description="The DSN connected and answered a read-only query.")
    tables: int | None = Field(description="Tables outside the system schemas that the DSN's role sees.")
    code: str | None = Field(
        description="Why not: secret_missing, invalid_dsn, egress_denied, database_auth_failed, "
        "database_unavailable, database_role_unsafe or query_error."
    )
    message: str | None = Field(description="What went wrong, never quoting the DSN.")


class DatabaseOut(Out):
    id: uuid.UUID
    name: str
    dsn_secret: str
    tool_prefix: str
    access: str = Field(description="read or write (then <prefix>.query is a write capability).")
    capabilities: list[str]
    created_at: datetime
