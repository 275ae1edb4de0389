from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.token_out_kind import TokenOutKind
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.token_scopes import TokenScopes





T = TypeVar("T", bound="TokenOut")



@_attrs_define
class TokenOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            display_prefix (str): The first characters of the token, to tell tokens apart.
            expires_at (datetime.datetime | None):
            id (UUID):
            kind (TokenOutKind): `session` for a sign-in, `service` for a token that never expires.
            last_used_at (datetime.datetime | None):
            name (str):
            revoked_at (datetime.datetime | None):
            scopes (None | TokenScopes | Unset): What the token is limited to; null for a token with full access.
     """

    created_at: datetime.datetime
    display_prefix: str
    expires_at: datetime.datetime | None
    id: UUID
    kind: TokenOutKind
    last_used_at: datetime.datetime | None
    name: str
    revoked_at: datetime.datetime | None
    scopes: None | TokenScopes | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.token_scopes import TokenScopes # noqa: PLC0415
        created_at = self.created_at.isoformat()

        display_prefix = self.display_prefix

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = str(self.id)

        kind = self.kind.value

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        name = self.name

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        scopes: dict[str, Any] | None | Unset
        if isinstance(self.scopes, Unset):
            scopes = UNSET
        elif isinstance(self.scopes, TokenScopes):
            scopes = self.scopes.to_dict()
        else:
            scopes = self.scopes


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "display_prefix": display_prefix,
            "expires_at": expires_at,
            "id": id,
            "kind": kind,
            "last_used_at": last_used_at,
            "name": name,
            "revoked_at": revoked_at,
        })
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.token_scopes import TokenScopes # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        display_prefix = d.pop("display_prefix")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        id = UUID(d.pop("id"))




        kind = TokenOutKind(d.pop("kind"))




        def _parse_last_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))


        name = d.pop("name")

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))


        def _parse_scopes(data: object) -> None | TokenScopes | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scopes_type_0 = TokenScopes.from_dict(data)



                return scopes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TokenScopes | Unset, data)

        scopes = _parse_scopes(d.pop("scopes", UNSET))


        token_out = cls(
            created_at=created_at,
            display_prefix=display_prefix,
            expires_at=expires_at,
            id=id,
            kind=kind,
            last_used_at=last_used_at,
            name=name,
            revoked_at=revoked_at,
            scopes=scopes,
        )


        token_out.additional_properties = d
        return token_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
