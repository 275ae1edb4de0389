from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.plugin_entry_out_risk import PluginEntryOutRisk






T = TypeVar("T", bound="PluginEntryOut")



@_attrs_define
class PluginEntryOut:
    """ 
        Attributes:
            description (str):
            id (str): The capability id or action type a definition names.
            risk (PluginEntryOutRisk):
     """

    description: str
    id: str
    risk: PluginEntryOutRisk
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        description = self.description

        id = self.id

        risk = self.risk.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "description": description,
            "id": id,
            "risk": risk,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        description = d.pop("description")

        id = d.pop("id")

        risk = PluginEntryOutRisk(d.pop("risk"))




        plugin_entry_out = cls(
            description=description,
            id=id,
            risk=risk,
        )


        plugin_entry_out.additional_properties = d
        return plugin_entry_out

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
