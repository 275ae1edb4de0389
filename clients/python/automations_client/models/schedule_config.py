from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.schedule_config_catch_up import ScheduleConfigCatchUp
from ..types import UNSET, Unset






T = TypeVar("T", bound="ScheduleConfig")



@_attrs_define
class ScheduleConfig:
    """ 
        Attributes:
            cron (str): Five-field cron expression.
            catch_up (ScheduleConfigCatchUp | Unset): After downtime: fire once for the latest missed slot, or skip.
                Default: ScheduleConfigCatchUp.LATEST.
            timezone (str | Unset): IANA time zone name. Default: 'UTC'.
     """

    cron: str
    catch_up: ScheduleConfigCatchUp | Unset = ScheduleConfigCatchUp.LATEST
    timezone: str | Unset = 'UTC'





    def to_dict(self) -> dict[str, Any]:
        cron = self.cron

        catch_up: str | Unset = UNSET
        if not isinstance(self.catch_up, Unset):
            catch_up = self.catch_up.value


        timezone = self.timezone


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cron": cron,
        })
        if catch_up is not UNSET:
            field_dict["catch_up"] = catch_up
        if timezone is not UNSET:
            field_dict["timezone"] = timezone

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cron = d.pop("cron")

        _catch_up = d.pop("catch_up", UNSET)
        catch_up: ScheduleConfigCatchUp | Unset
        if isinstance(_catch_up,  Unset):
            catch_up = UNSET
        else:
            catch_up = ScheduleConfigCatchUp(_catch_up)




        timezone = d.pop("timezone", UNSET)

        schedule_config = cls(
            cron=cron,
            catch_up=catch_up,
            timezone=timezone,
        )

        return schedule_config

