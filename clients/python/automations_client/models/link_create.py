from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LinkCreate")



@_attrs_define
class LinkCreate:
    """ 
        Attributes:
            expires_in (int | None | Unset): Seconds the link lives: default 900 (15 minutes), at most 604800 (7 days).
     """

    expires_in: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        expires_in: int | None | Unset
        if isinstance(self.expires_in, Unset):
            expires_in = UNSET
        else:
            expires_in = self.expires_in


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if expires_in is not UNSET:
            field_dict["expires_in"] = expires_in

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_expires_in(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_in = _parse_expires_in(d.pop("expires_in", UNSET))


        link_create = cls(
            expires_in=expires_in,
        )

        return link_create

