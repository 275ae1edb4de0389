from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.token_scopes import TokenScopes





T = TypeVar("T", bound="TokenCreate")



@_attrs_define
class TokenCreate:
    """ 
        Attributes:
            name (str):
            expires_in_days (int | Literal['never'] | None | Unset): Days until it expires (default
                AUTOMATIONS_TOKEN_TTL_DAYS, at most AUTOMATIONS_TOKEN_MAX_TTL_DAYS), or `never` for a service token (owners and
                admins only).
            scopes (None | TokenScopes | Unset): Limit the token to these purposes (it can do nothing else); absent: full
                access. E.g. {"mcp": {"automations": [id, ...]}} for an agent that calls those automations as MCP tools.
     """

    name: str
    expires_in_days: int | Literal['never'] | None | Unset = UNSET
    scopes: None | TokenScopes | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.token_scopes import TokenScopes # noqa: PLC0415
        name = self.name

        expires_in_days: int | Literal['never'] | None | Unset
        if isinstance(self.expires_in_days, Unset):
            expires_in_days = UNSET
        else:
            expires_in_days = self.expires_in_days

        scopes: dict[str, Any] | None | Unset
        if isinstance(self.scopes, Unset):
            scopes = UNSET
        elif isinstance(self.scopes, TokenScopes):
            scopes = self.scopes.to_dict()
        else:
            scopes = self.scopes


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if expires_in_days is not UNSET:
            field_dict["expires_in_days"] = expires_in_days
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.token_scopes import TokenScopes # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_expires_in_days(data: object) -> int | Literal['never'] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            expires_in_days_type_1 = cast(Literal['never'] , data)
            if expires_in_days_type_1 != 'never':
                raise ValueError(f"expires_in_days_type_1 must match const 'never', got '{expires_in_days_type_1}'")
            return expires_in_days_type_1
            return cast(int | Literal['never'] | None | Unset, data)

        expires_in_days = _parse_expires_in_days(d.pop("expires_in_days", UNSET))


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


        token_create = cls(
            name=name,
            expires_in_days=expires_in_days,
            scopes=scopes,
        )

        return token_create

