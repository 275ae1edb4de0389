from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="InputDefaultOut")



@_attrs_define
class InputDefaultOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            name (str): The input name whose `$space_default` takes this value.
            updated_at (datetime.datetime):
            updated_by (None | UUID):
            value (Any):
     """

    created_at: datetime.datetime
    name: str
    updated_at: datetime.datetime
    updated_by: None | UUID
    value: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        name = self.name

        updated_at = self.updated_at.isoformat()

        updated_by: None | str
        if isinstance(self.updated_by, UUID):
            updated_by = str(self.updated_by)
        else:
            updated_by = self.updated_by

        value = self.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "name": name,
            "updated_at": updated_at,
            "updated_by": updated_by,
            "value": value,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        name = d.pop("name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_updated_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_by_type_0 = UUID(data)



                return updated_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        updated_by = _parse_updated_by(d.pop("updated_by"))


        value = d.pop("value")

        input_default_out = cls(
            created_at=created_at,
            name=name,
            updated_at=updated_at,
            updated_by=updated_by,
            value=value,
        )


        input_default_out.additional_properties = d
        return input_default_out

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
