from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.day_stats_out_by_status import DayStatsOutByStatus





T = TypeVar("T", bound="DayStatsOut")



@_attrs_define
class DayStatsOut:
    """ 
        Attributes:
            by_status (DayStatsOutByStatus): Of those, how many are now in each status (absent: none).
            cost_usd (float): Model spend of those runs.
            day (datetime.date): A UTC day; runs count on the day they were created.
            total (int): Runs created that day.
     """

    by_status: DayStatsOutByStatus
    cost_usd: float
    day: datetime.date
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.day_stats_out_by_status import DayStatsOutByStatus # noqa: PLC0415
        by_status = self.by_status.to_dict()

        cost_usd = self.cost_usd

        day = self.day.isoformat()

        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "by_status": by_status,
            "cost_usd": cost_usd,
            "day": day,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_stats_out_by_status import DayStatsOutByStatus # noqa: PLC0415
        d = dict(src_dict)
        by_status = DayStatsOutByStatus.from_dict(d.pop("by_status"))




        cost_usd = d.pop("cost_usd")

        day = datetime.date.fromisoformat(d.pop("day"))




        total = d.pop("total")

        day_stats_out = cls(
            by_status=by_status,
            cost_usd=cost_usd,
            day=day,
            total=total,
        )


        day_stats_out.additional_properties = d
        return day_stats_out

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
