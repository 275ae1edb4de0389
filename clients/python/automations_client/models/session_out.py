from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.user_out import UserOut





T = TypeVar("T", bound="SessionOut")



@_attrs_define
class SessionOut:
    """ 
        Attributes:
            expires_at (datetime.datetime):
            token (str): An API token for this sign-in; send it as `Authorization: Bearer`.
            token_id (UUID): Listed with your tokens; revoke it to sign out.
            user (UserOut):
     """

    expires_at: datetime.datetime
    token: str
    token_id: UUID
    user: UserOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.user_out import UserOut # noqa: PLC0415
        expires_at = self.expires_at.isoformat()

        token = self.token

        token_id = str(self.token_id)

        user = self.user.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "expires_at": expires_at,
            "token": token,
            "token_id": token_id,
            "user": user,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_out import UserOut # noqa: PLC0415
        d = dict(src_dict)
        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        token = d.pop("token")

        token_id = UUID(d.pop("token_id"))




        user = UserOut.from_dict(d.pop("user"))




        session_out = cls(
            expires_at=expires_at,
            token=token,
            token_id=token_id,
            user=user,
        )


        session_out.additional_properties = d
        return session_out

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
