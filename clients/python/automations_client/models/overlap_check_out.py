from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.overlap_match_out import OverlapMatchOut





T = TypeVar("T", bound="OverlapCheckOut")



@_attrs_define
class OverlapCheckOut:
    """ 
        Attributes:
            count (int):
            matches (list[OverlapMatchOut]):
            strict_count (int):
     """

    count: int
    matches: list[OverlapMatchOut]
    strict_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.overlap_match_out import OverlapMatchOut # noqa: PLC0415
        count = self.count

        matches = []
        for matches_item_data in self.matches:
            matches_item = matches_item_data.to_dict()
            matches.append(matches_item)



        strict_count = self.strict_count


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "count": count,
            "matches": matches,
            "strict_count": strict_count,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.overlap_match_out import OverlapMatchOut # noqa: PLC0415
        d = dict(src_dict)
        count = d.pop("count")

        matches = []
        _matches = d.pop("matches")
        for matches_item_data in (_matches):
            matches_item = OverlapMatchOut.from_dict(matches_item_data)



            matches.append(matches_item)


        strict_count = d.pop("strict_count")

        overlap_check_out = cls(
            count=count,
            matches=matches,
            strict_count=strict_count,
        )


        overlap_check_out.additional_properties = d
        return overlap_check_out

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
