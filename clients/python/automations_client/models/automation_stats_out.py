from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="AutomationStatsOut")



@_attrs_define
class AutomationStatsOut:
    """ 
        Attributes:
            automation_id (UUID):
            cost_usd (float):
            failed (int): Of those, failed or timed out.
            runs (int):
     """

    automation_id: UUID
    cost_usd: float
    failed: int
    runs: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        automation_id = str(self.automation_id)

        cost_usd = self.cost_usd

        failed = self.failed

        runs = self.runs


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "cost_usd": cost_usd,
            "failed": failed,
            "runs": runs,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        cost_usd = d.pop("cost_usd")

        failed = d.pop("failed")

        runs = d.pop("runs")

        automation_stats_out = cls(
            automation_id=automation_id,
            cost_usd=cost_usd,
            failed=failed,
            runs=runs,
        )


        automation_stats_out.additional_properties = d
        return automation_stats_out

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
