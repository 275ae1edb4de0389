from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.plugin_trigger_out_payload_schema import PluginTriggerOutPayloadSchema





T = TypeVar("T", bound="PluginTriggerOut")



@_attrs_define
class PluginTriggerOut:
    """ 
        Attributes:
            description (str):
            payload_schema (PluginTriggerOutPayloadSchema):
            type_ (str): The event type an `event` trigger subscribes to.
     """

    description: str
    payload_schema: PluginTriggerOutPayloadSchema
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.plugin_trigger_out_payload_schema import PluginTriggerOutPayloadSchema # noqa: PLC0415
        description = self.description

        payload_schema = self.payload_schema.to_dict()

        type_ = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "description": description,
            "payload_schema": payload_schema,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plugin_trigger_out_payload_schema import PluginTriggerOutPayloadSchema # noqa: PLC0415
        d = dict(src_dict)
        description = d.pop("description")

        payload_schema = PluginTriggerOutPayloadSchema.from_dict(d.pop("payload_schema"))




        type_ = d.pop("type")

        plugin_trigger_out = cls(
            description=description,
            payload_schema=payload_schema,
            type_=type_,
        )


        plugin_trigger_out.additional_properties = d
        return plugin_trigger_out

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
