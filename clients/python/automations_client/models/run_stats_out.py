from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.automation_stats_out import AutomationStatsOut
  from ..models.day_stats_out import DayStatsOut
  from ..models.durations_out import DurationsOut
  from ..models.totals_out import TotalsOut





T = TypeVar("T", bound="RunStatsOut")



@_attrs_define
class RunStatsOut:
    """ 
        Attributes:
            automation_id (None | UUID): The automation, or null for the whole space.
            by_automation (list[AutomationStatsOut] | None): The space's answer only (null for one automation): the
                automations with runs in the range, at most 50, most spend first, then most failures.
            days (int):
            duration_ms (DurationsOut):
            first_day (datetime.date):
            last_day (datetime.date): Today (UTC).
            per_day (list[DayStatsOut]): One entry per day of the range, oldest first, zeros included.
            statuses (list[str]): Every run status, in lifecycle order (the series of a chart).
            totals (TotalsOut):
     """

    automation_id: None | UUID
    by_automation: list[AutomationStatsOut] | None
    days: int
    duration_ms: DurationsOut
    first_day: datetime.date
    last_day: datetime.date
    per_day: list[DayStatsOut]
    statuses: list[str]
    totals: TotalsOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.automation_stats_out import AutomationStatsOut # noqa: PLC0415
        from ..models.day_stats_out import DayStatsOut # noqa: PLC0415
        from ..models.durations_out import DurationsOut # noqa: PLC0415
        from ..models.totals_out import TotalsOut # noqa: PLC0415
        automation_id: None | str
        if isinstance(self.automation_id, UUID):
            automation_id = str(self.automation_id)
        else:
            automation_id = self.automation_id

        by_automation: list[dict[str, Any]] | None
        if isinstance(self.by_automation, list):
            by_automation = []
            for by_automation_type_0_item_data in self.by_automation:
                by_automation_type_0_item = by_automation_type_0_item_data.to_dict()
                by_automation.append(by_automation_type_0_item)


        else:
            by_automation = self.by_automation

        days = self.days

        duration_ms = self.duration_ms.to_dict()

        first_day = self.first_day.isoformat()

        last_day = self.last_day.isoformat()

        per_day = []
        for per_day_item_data in self.per_day:
            per_day_item = per_day_item_data.to_dict()
            per_day.append(per_day_item)



        statuses = self.statuses



        totals = self.totals.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "by_automation": by_automation,
            "days": days,
            "duration_ms": duration_ms,
            "first_day": first_day,
            "last_day": last_day,
            "per_day": per_day,
            "statuses": statuses,
            "totals": totals,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_stats_out import AutomationStatsOut # noqa: PLC0415
        from ..models.day_stats_out import DayStatsOut # noqa: PLC0415
        from ..models.durations_out import DurationsOut # noqa: PLC0415
        from ..models.totals_out import TotalsOut # noqa: PLC0415
        d = dict(src_dict)
        def _parse_automation_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                automation_id_type_0 = UUID(data)



                return automation_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        automation_id = _parse_automation_id(d.pop("automation_id"))


        def _parse_by_automation(data: object) -> list[AutomationStatsOut] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                by_automation_type_0 = []
                _by_automation_type_0 = data
                for by_automation_type_0_item_data in (_by_automation_type_0):
                    by_automation_type_0_item = AutomationStatsOut.from_dict(by_automation_type_0_item_data)



                    by_automation_type_0.append(by_automation_type_0_item)

                return by_automation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[AutomationStatsOut] | None, data)

        by_automation = _parse_by_automation(d.pop("by_automation"))


        days = d.pop("days")

        duration_ms = DurationsOut.from_dict(d.pop("duration_ms"))




        first_day = datetime.date.fromisoformat(d.pop("first_day"))




        last_day = datetime.date.fromisoformat(d.pop("last_day"))




        per_day = []
        _per_day = d.pop("per_day")
        for per_day_item_data in (_per_day):
            per_day_item = DayStatsOut.from_dict(per_day_item_data)



            per_day.append(per_day_item)


        statuses = cast(list[str], d.pop("statuses"))


        totals = TotalsOut.from_dict(d.pop("totals"))




        run_stats_out = cls(
            automation_id=automation_id,
            by_automation=by_automation,
            days=days,
            duration_ms=duration_ms,
            first_day=first_day,
            last_day=last_day,
            per_day=per_day,
            statuses=statuses,
            totals=totals,
        )


        run_stats_out.additional_properties = d
        return run_stats_out

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
