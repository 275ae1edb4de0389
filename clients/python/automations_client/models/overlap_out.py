from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.overlap_reason_out import OverlapReasonOut





T = TypeVar("T", bound="OverlapOut")



@_attrs_define
class OverlapOut:
    """ 
        Attributes:
            automation_id (UUID):
            name (str):
            reasons (list[OverlapReasonOut]):
            status (str):
            strict (bool): A shared write target: activating needs an acknowledgement.
     """

    automation_id: UUID
    name: str
    reasons: list[OverlapReasonOut]
    status: str
    strict: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.overlap_reason_out import OverlapReasonOut # noqa: PLC0415
        automation_id = str(self.automation_id)

        name = self.name

        reasons = []
        for reasons_item_data in self.reasons:
            reasons_item = reasons_item_data.to_dict()
            reasons.append(reasons_item)



        status = self.status

        strict = self.strict


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "name": name,
            "reasons": reasons,
            "status": status,
            "strict": strict,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.overlap_reason_out import OverlapReasonOut # noqa: PLC0415
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        name = d.pop("name")

        reasons = []
        _reasons = d.pop("reasons")
        for reasons_item_data in (_reasons):
            reasons_item = OverlapReasonOut.from_dict(reasons_item_data)



            reasons.append(reasons_item)


        status = d.pop("status")

        strict = d.pop("strict")

        overlap_out = cls(
            automation_id=automation_id,
            name=name,
            reasons=reasons,
            status=status,
            strict=strict,
        )


        overlap_out.additional_properties = d
        return overlap_out

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
