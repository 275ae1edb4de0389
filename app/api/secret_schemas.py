"""Request and answer bodies of the secrets routes: metadata and hosts, never a value in an answer."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, SecretStr, field_validator

from app.api.fields import stated
from app.api.schemas import Body, Out
from app.services.resources.secrets import MAX_DESCRIPTION_LENGTH, MAX_VALUE_BYTES, value_size_problem


class SecretPut(Body):
    value: SecretStr = Field(
        description=f"The value, 1 to {MAX_VALUE_BYTES} bytes of UTF-8. Never shown again by any answer.",
        json_schema_extra=stated(min_length=1, max_length=MAX_VALUE_BYTES),
    )
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_LENGTH)
    hosts: list[str] | None = Field(
        default=None,
        description="The hosts the value may be sent to: names (api.example.com), *.domain wildcards or "
        "addresses. Empty: any public host. Omitted: a replaced secret keeps its hosts.",
    )

    @field_validator("value")
    @classmethod
    def _storable_size(cls, value: SecretStr) -> SecretStr:
        problem = value_size_problem(value.get_secret_value())
        if problem is not None:
            raise ValueError(problem)
        return value


class SecretHostsPut(Body):
    hosts: list[str] = Field(
        description="The hosts the value may be sent to (names, *.domain wildcards, addresses); "
        "empty: any public host."
    )


class SecretOut(Out):
    """A secret's metadata; its value is never part of an answer."""

    name: str
    description: str | None
    hosts: list[str] = Field(
        description="The hosts the value may be sent to; empty: any public host the egress guard allows."
    )
    suggested_hosts: list[str] = Field(
        default_factory=list,
        description="For a secret bound to no host: the host the space's first automation that uses it "
        "sends it to, for an admin to confirm with PUT …/hosts. Never applied by itself.",
    )
    created_at: datetime
    updated_at: datetime
    created_by: uuid.UUID | None = Field(description="The user who first set it.")
    updated_by: uuid.UUID | None = Field(description="The user who set the current value.")
