from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.error_detail_out import ErrorDetailOut





T = TypeVar("T", bound="ErrorBodyOut")



@_attrs_define
class ErrorBodyOut:
    """ 
        Attributes:
            code (str): Stable, machine-readable code.
            details (list[ErrorDetailOut]):
            message (str):
     """

    code: str
    details: list[ErrorDetailOut]
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail_out import ErrorDetailOut # noqa: PLC0415
        code = self.code

        details = []
        for details_item_data in self.details:
            details_item = details_item_data.to_dict()
            details.append(details_item)



        message = self.message


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "details": details,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_detail_out import ErrorDetailOut # noqa: PLC0415
        d = dict(src_dict)
        code = d.pop("code")

        details = []
        _details = d.pop("details")
        for details_item_data in (_details):
            details_item = ErrorDetailOut.from_dict(details_item_data)



            details.append(details_item)


        message = d.pop("message")

        error_body_out = cls(
            code=code,
            details=details,
            message=message,
        )


        error_body_out.additional_properties = d
        return error_body_out

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
