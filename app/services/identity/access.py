"""Who is calling, and what their role in a space lets them do."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.errors import Forbidden
from app.persistence.models import Role

_RANK = {Role.member: 1, Role.admin: 2, Role.owner: 3}


@dataclass(frozen=True)
class Permission:
    """What a request needs: a name, and the lowest role that has it."""

    name: str
    minimum: Role


class Permissions:
    read = Permission("read", Role.member)
    write_automations = Permission("write_automations", Role.member)
    write_documents = Permission("write_documents", Role.member)
    manage_members = Permission("manage_members", Role.admin)
    manage_space = Permission("manage_space", Role.admin)
    manage_secrets = Permission("manage_secrets", Role.admin)
    manage_owners = Permission("manage_owners", Role.owner)


@dataclass(frozen=True)
class Caller:
    """An authenticated user, identified by the API token they presented."""

    user_id: uuid.UUID
    email: str
    token_id: uuid.UUID
    # None: the token has its user's full access; otherwise only what these scopes open.
    scopes: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SpaceAccess:
    """A caller acting inside one space they are a member of."""

    caller: Caller
    space_id: uuid.UUID
    role: Role

    @property
    def user_id(self) -> uuid.UUID:
        return self.caller.user_id

    def allows(self, permission: Permission) -> bool:
        return _RANK[self.role] >= _RANK[permission.minimum]

    def require(self, permission: Permission) -> None:
        """Raise 403 when the caller's role lacks the permission (they can see the space, so not 404)."""
        if not self.allows(permission):
            raise Forbidden(
                f"Your role in this space ({self.role.value}) cannot do this; "
                f"it needs {permission.minimum.value} or above.",
                code="role_insufficient",
            )


def outranks_or_equals(role: Role, other: Role) -> bool:
    return _RANK[role] >= _RANK[other]
