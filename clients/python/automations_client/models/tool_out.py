from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.tool_out_annotations import ToolOutAnnotations
  from ..models.tool_out_input_schema import ToolOutInputSchema
  from ..models.tool_out_output_schema_type_0 import ToolOutOutputSchemaType0





T = TypeVar("T", bound="ToolOut")



@_attrs_define
class ToolOut:
    """ 
        Attributes:
            annotations (ToolOutAnnotations):
            capability_id (str):
            confirmed_hash (str):
            description (str):
            destructive (bool):
            drifted (bool):
            drifted_at (datetime.datetime | None):
            input_schema (ToolOutInputSchema):
            name (str):
            output_schema (None | ToolOutOutputSchemaType0):
            previous_hash (None | str):
            removed (bool):
            removed_at (datetime.datetime | None):
            risk (str):
            risk_hint (str):
            risk_override (None | str):
            schema_hash (str):
            unusable_reason (None | str):
     """

    annotations: ToolOutAnnotations
    capability_id: str
    confirmed_hash: str
    description: str
    destructive: bool
    drifted: bool
    drifted_at: datetime.datetime | None
    input_schema: ToolOutInputSchema
    name: str
    output_schema: None | ToolOutOutputSchemaType0
    previous_hash: None | str
    removed: bool
    removed_at: datetime.datetime | None
    risk: str
    risk_hint: str
    risk_override: None | str
    schema_hash: str
    unusable_reason: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_out_annotations import ToolOutAnnotations # noqa: PLC0415
        from ..models.tool_out_input_schema import ToolOutInputSchema # noqa: PLC0415
        from ..models.tool_out_output_schema_type_0 import ToolOutOutputSchemaType0 # noqa: PLC0415
        annotations = self.annotations.to_dict()

        capability_id = self.capability_id

        confirmed_hash = self.confirmed_hash

        description = self.description

        destructive = self.destructive

        drifted = self.drifted

        drifted_at: None | str
        if isinstance(self.drifted_at, datetime.datetime):
            drifted_at = self.drifted_at.isoformat()
        else:
            drifted_at = self.drifted_at

        input_schema = self.input_schema.to_dict()

        name = self.name

        output_schema: dict[str, Any] | None
        if isinstance(self.output_schema, ToolOutOutputSchemaType0):
            output_schema = self.output_schema.to_dict()
        else:
            output_schema = self.output_schema

        previous_hash: None | str
        previous_hash = self.previous_hash

        removed = self.removed

        removed_at: None | str
        if isinstance(self.removed_at, datetime.datetime):
            removed_at = self.removed_at.isoformat()
        else:
            removed_at = self.removed_at

        risk = self.risk

        risk_hint = self.risk_hint

        risk_override: None | str
        risk_override = self.risk_override

        schema_hash = self.schema_hash

        unusable_reason: None | str
        unusable_reason = self.unusable_reason


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "annotations": annotations,
            "capability_id": capability_id,
            "confirmed_hash": confirmed_hash,
            "description": description,
            "destructive": destructive,
            "drifted": drifted,
            "drifted_at": drifted_at,
            "input_schema": input_schema,
            "name": name,
            "output_schema": output_schema,
            "previous_hash": previous_hash,
            "removed": removed,
            "removed_at": removed_at,
            "risk": risk,
            "risk_hint": risk_hint,
            "risk_override": risk_override,
            "schema_hash": schema_hash,
            "unusable_reason": unusable_reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_out_annotations import ToolOutAnnotations # noqa: PLC0415
        from ..models.tool_out_input_schema import ToolOutInputSchema # noqa: PLC0415
        from ..models.tool_out_output_schema_type_0 import ToolOutOutputSchemaType0 # noqa: PLC0415
        d = dict(src_dict)
        annotations = ToolOutAnnotations.from_dict(d.pop("annotations"))




        capability_id = d.pop("capability_id")

        confirmed_hash = d.pop("confirmed_hash")

        description = d.pop("description")

        destructive = d.pop("destructive")

        drifted = d.pop("drifted")

        def _parse_drifted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                drifted_at_type_0 = datetime.datetime.fromisoformat(data)



                return drifted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        drifted_at = _parse_drifted_at(d.pop("drifted_at"))


        input_schema = ToolOutInputSchema.from_dict(d.pop("input_schema"))




        name = d.pop("name")

        def _parse_output_schema(data: object) -> None | ToolOutOutputSchemaType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_schema_type_0 = ToolOutOutputSchemaType0.from_dict(data)



                return output_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolOutOutputSchemaType0, data)

        output_schema = _parse_output_schema(d.pop("output_schema"))


        def _parse_previous_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        previous_hash = _parse_previous_hash(d.pop("previous_hash"))


        removed = d.pop("removed")

        def _parse_removed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                removed_at_type_0 = datetime.datetime.fromisoformat(data)



                return removed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        removed_at = _parse_removed_at(d.pop("removed_at"))


        risk = d.pop("risk")

        risk_hint = d.pop("risk_hint")

        def _parse_risk_override(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        risk_override = _parse_risk_override(d.pop("risk_override"))


        schema_hash = d.pop("schema_hash")

        def _parse_unusable_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        unusable_reason = _parse_unusable_reason(d.pop("unusable_reason"))


        tool_out = cls(
            annotations=annotations,
            capability_id=capability_id,
            confirmed_hash=confirmed_hash,
            description=description,
            destructive=destructive,
            drifted=drifted,
            drifted_at=drifted_at,
            input_schema=input_schema,
            name=name,
            output_schema=output_schema,
            previous_hash=previous_hash,
            removed=removed,
            removed_at=removed_at,
            risk=risk,
            risk_hint=risk_hint,
            risk_override=risk_override,
            schema_hash=schema_hash,
            unusable_reason=unusable_reason,
        )


        tool_out.additional_properties = d
        return tool_out

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
