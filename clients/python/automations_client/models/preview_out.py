from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.preview_out_caps import PreviewOutCaps
  from ..models.preview_out_cost import PreviewOutCost
  from ..models.preview_out_inputs import PreviewOutInputs
  from ..models.preview_out_schedules_item import PreviewOutSchedulesItem
  from ..models.preview_out_steps_item import PreviewOutStepsItem
  from ..models.preview_out_warnings_item import PreviewOutWarningsItem





T = TypeVar("T", bound="PreviewOut")



@_attrs_define
class PreviewOut:
    """ 
        Attributes:
            caps (PreviewOutCaps): The spending caps in effect: daily_cost_usd and run_tokens, each with its value, its
                source (automation or operator_default) and the operator's maximum.
            cost (PreviewOutCost): per_run_usd, basis, runs_per_month, per_month_usd.
            external_hosts (list[str]):
            inputs (PreviewOutInputs): The resolved inputs, runtime defaults filled.
            schedules (list[PreviewOutSchedulesItem]): The next 5 fire times of each schedule trigger.
            steps (list[PreviewOutStepsItem]): Per step: `when` (decided, value, or waits_for), rendered `config` or
                `waits_for`, and the capability `calls` it would make with the `mode` each would get now.
            warnings (list[PreviewOutWarningsItem] | Unset): Warnings of the definition as stored (path, code, message,
                severity), e.g. grant_any_host.
     """

    caps: PreviewOutCaps
    cost: PreviewOutCost
    external_hosts: list[str]
    inputs: PreviewOutInputs
    schedules: list[PreviewOutSchedulesItem]
    steps: list[PreviewOutStepsItem]
    warnings: list[PreviewOutWarningsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.preview_out_caps import PreviewOutCaps # noqa: PLC0415
        from ..models.preview_out_cost import PreviewOutCost # noqa: PLC0415
        from ..models.preview_out_inputs import PreviewOutInputs # noqa: PLC0415
        from ..models.preview_out_schedules_item import PreviewOutSchedulesItem # noqa: PLC0415
        from ..models.preview_out_steps_item import PreviewOutStepsItem # noqa: PLC0415
        from ..models.preview_out_warnings_item import PreviewOutWarningsItem # noqa: PLC0415
        caps = self.caps.to_dict()

        cost = self.cost.to_dict()

        external_hosts = self.external_hosts



        inputs = self.inputs.to_dict()

        schedules = []
        for schedules_item_data in self.schedules:
            schedules_item = schedules_item_data.to_dict()
            schedules.append(schedules_item)



        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        warnings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = []
            for warnings_item_data in self.warnings:
                warnings_item = warnings_item_data.to_dict()
                warnings.append(warnings_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "caps": caps,
            "cost": cost,
            "external_hosts": external_hosts,
            "inputs": inputs,
            "schedules": schedules,
            "steps": steps,
        })
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preview_out_caps import PreviewOutCaps # noqa: PLC0415
        from ..models.preview_out_cost import PreviewOutCost # noqa: PLC0415
        from ..models.preview_out_inputs import PreviewOutInputs # noqa: PLC0415
        from ..models.preview_out_schedules_item import PreviewOutSchedulesItem # noqa: PLC0415
        from ..models.preview_out_steps_item import PreviewOutStepsItem # noqa: PLC0415
        from ..models.preview_out_warnings_item import PreviewOutWarningsItem # noqa: PLC0415
        d = dict(src_dict)
        caps = PreviewOutCaps.from_dict(d.pop("caps"))




        cost = PreviewOutCost.from_dict(d.pop("cost"))




        external_hosts = cast(list[str], d.pop("external_hosts"))


        inputs = PreviewOutInputs.from_dict(d.pop("inputs"))




        schedules = []
        _schedules = d.pop("schedules")
        for schedules_item_data in (_schedules):
            schedules_item = PreviewOutSchedulesItem.from_dict(schedules_item_data)



            schedules.append(schedules_item)


        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = PreviewOutStepsItem.from_dict(steps_item_data)



            steps.append(steps_item)


        _warnings = d.pop("warnings", UNSET)
        warnings: list[PreviewOutWarningsItem] | Unset = UNSET
        if _warnings is not UNSET:
            warnings = []
            for warnings_item_data in _warnings:
                warnings_item = PreviewOutWarningsItem.from_dict(warnings_item_data)



                warnings.append(warnings_item)


        preview_out = cls(
            caps=caps,
            cost=cost,
            external_hosts=external_hosts,
            inputs=inputs,
            schedules=schedules,
            steps=steps,
            warnings=warnings,
        )


        preview_out.additional_properties = d
        return preview_out

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
