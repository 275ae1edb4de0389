from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="KvPut")



@_attrs_define
class KvPut:
    """ 
        Attributes:
            value (Any): Any JSON value whose strings and keys hold no NUL character.
            ttl_seconds (int | None | Unset): Expire the key this many seconds from now (1 to 366 days); null: never.
     """

    value: Any
    ttl_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        value = self.value

        ttl_seconds: int | None | Unset
        if isinstance(self.ttl_seconds, Unset):
            ttl_seconds = UNSET
        else:
            ttl_seconds = self.ttl_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "value": value,
        })
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))


        kv_put = cls(
            value=value,
            ttl_seconds=ttl_seconds,
        )

        return kv_put

