from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.schedule_config import ScheduleConfig





T = TypeVar("T", bound="ScheduleTrigger")



@_attrs_define
class ScheduleTrigger:
    """ 
        Attributes:
            config (ScheduleConfig):
            type_ (Literal['schedule']):
            enabled (bool | Unset):  Default: True.
            name (None | str | Unset):
     """

    config: ScheduleConfig
    type_: Literal['schedule']
    enabled: bool | Unset = True
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.schedule_config import ScheduleConfig # noqa: PLC0415
        config = self.config.to_dict()

        type_ = self.type_

        enabled = self.enabled

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "config": config,
            "type": type_,
        })
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_config import ScheduleConfig # noqa: PLC0415
        d = dict(src_dict)
        config = ScheduleConfig.from_dict(d.pop("config"))




        type_ = cast(Literal['schedule'] , d.pop("type"))
        if type_ != 'schedule':
            raise ValueError(f"type must match const 'schedule', got '{type_}'")

        enabled = d.pop("enabled", UNSET)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        schedule_trigger = cls(
            config=config,
            type_=type_,
            enabled=enabled,
            name=name,
        )

        return schedule_trigger

