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
  from ..models.event_config import EventConfig





T = TypeVar("T", bound="EventTrigger")



@_attrs_define
class EventTrigger:
    """ 
        Attributes:
            config (EventConfig):
            type_ (Literal['event']):
            enabled (bool | Unset):  Default: True.
            name (None | str | Unset):
     """

    config: EventConfig
    type_: Literal['event']
    enabled: bool | Unset = True
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_config import EventConfig # noqa: PLC0415
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
        from ..models.event_config import EventConfig # noqa: PLC0415
        d = dict(src_dict)
        config = EventConfig.from_dict(d.pop("config"))




        type_ = cast(Literal['event'] , d.pop("type"))
        if type_ != 'event':
            raise ValueError(f"type must match const 'event', got '{type_}'")

        enabled = d.pop("enabled", UNSET)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        event_trigger = cls(
            config=config,
            type_=type_,
            enabled=enabled,
            name=name,
        )

        return event_trigger

