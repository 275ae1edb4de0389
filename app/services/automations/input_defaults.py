"""Space input defaults: a value per input name that `"default": "$space_default"` takes at fire time.

Every member reads them (a definition's inputs show them); only admins and owners change them. They
are plain data shown to everyone in the space and copied into runs' inputs, so a secret reference or a
credential-like literal is refused: credentials stay in the secret store, referenced from the
definition's configs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.engine.secret_refs import REFERENCE_KEY
from app.errors import ErrorDetail, NotFound, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import SpaceInputDefault
from app.persistence.repositories.input_defaults import InputDefaultRepository
from app.persistence.types import AsyncSession
from app.security.credentials import credential_literals
from app.services.identity.access import Permissions, SpaceAccess

MAX_DEFAULTS_PER_SPACE = 200
MAX_VALUE_BYTES = 16 * 1024
# An input's property name as definitions usually spell it; a default is looked up by exactly that name.
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,63}$")


def _refusal(pointer: str, message: str, code: str) -> ValidationFailed:
    return ValidationFailed(
        message, code=code, details=[ErrorDetail(path=pointer, message=message, code=code)]
    )


def _holds_reference(value: Any) -> bool:
    if isinstance(value, dict):
        return REFERENCE_KEY in value or any(_holds_reference(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_reference(item) for item in value)
    return False


def check_default(name: str, value: Any) -> None:
    """Refuse a name that cannot be an input's, a value that is null, too large, or holds a secret."""
    if not NAME_PATTERN.fullmatch(name):
        raise _refusal(
            "/path/name",
            "A default's name is an input name: a letter or underscore, then up to 63 letters, "
            "digits, _ or -.",
            "invalid_default_name",
        )
    if value is None:
        raise _refusal("/value", "A default needs a value; DELETE it to remove it.", "invalid_default_value")
    if len(json.dumps(value, separators=(",", ":")).encode()) > MAX_VALUE_BYTES:
        raise _refusal(
            "/value", f"A default's value is at most {MAX_VALUE_BYTES} bytes of JSON.", "default_too_large"
        )
    if _holds_reference(value) or next(credential_literals(value), None) is not None:
        raise _refusal(
            "/value",
            "Space defaults are readable by every member and copied into runs' inputs: keep credentials "
            'as secrets and reference them from a step\'s config ({"$secret": "<name>"}).',
            "secret_not_allowed",
        )


class InputDefaultService:
    async def list(self, session: AsyncSession, access: SpaceAccess) -> list[SpaceInputDefault]:
        access.require(Permissions.read)
        return await InputDefaultRepository(session).in_space(access.space_id)

    async def put(
        self, session: AsyncSession, access: SpaceAccess, name: str, value: Any
    ) -> tuple[SpaceInputDefault, bool]:
        """Set one default (admin): the row, and whether the name is new (it counts against the limit)."""
        access.require(Permissions.manage_space)
        check_default(name, value)
        repository = InputDefaultRepository(session)
        await repository.lock(access.space_id)
        names = await repository.names(access.space_id)
        created = name not in names
        if created and len(names) >= MAX_DEFAULTS_PER_SPACE:
            raise _refusal(
                "/path/name",
                f"A space keeps at most {MAX_DEFAULTS_PER_SPACE} input defaults.",
                "too_many_defaults",
            )
        return await repository.upsert(access.space_id, name, value, access.user_id, utcnow()), created

    async def delete(self, session: AsyncSession, access: SpaceAccess, name: str) -> None:
        access.require(Permissions.manage_space)
        if not await InputDefaultRepository(session).delete(access.space_id, name):
            raise NotFound("This space has no input default of that name.", code="input_default_not_found")

    async def names(self, session: AsyncSession, access: SpaceAccess) -> frozenset[str]:
        """The names the space has a default for, for the save-time check."""
        return await InputDefaultRepository(session).names(access.space_id)


input_default_service = InputDefaultService()
