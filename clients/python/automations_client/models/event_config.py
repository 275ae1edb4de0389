from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.event_config_filters_type_0 import EventConfigFiltersType0





T = TypeVar("T", bound="EventConfig")



@_attrs_define
class EventConfig:
    """ 
        Attributes:
            event_type (str): Event type to match, or a prefix ending in `.*` (e.g. `drive.*`).
            filters (EventConfigFiltersType0 | None | Unset): Filter expression over the event payload (see the filter
                grammar).
     """

    event_type: str
    filters: EventConfigFiltersType0 | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_config_filters_type_0 import EventConfigFiltersType0 # noqa: PLC0415
        event_type = self.event_type

        filters: dict[str, Any] | None | Unset
        if isinstance(self.filters, Unset):
            filters = UNSET
        elif isinstance(self.filters, EventConfigFiltersType0):
            filters = self.filters.to_dict()
        else:
            filters = self.filters


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_type": event_type,
        })
        if filters is not UNSET:
            field_dict["filters"] = filters

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_config_filters_type_0 import EventConfigFiltersType0 # noqa: PLC0415
        d = dict(src_dict)
        event_type = d.pop("event_type")

        def _parse_filters(data: object) -> EventConfigFiltersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filters_type_0 = EventConfigFiltersType0.from_dict(data)



                return filters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventConfigFiltersType0 | None | Unset, data)

        filters = _parse_filters(d.pop("filters", UNSET))


        event_config = cls(
            event_type=event_type,
            filters=filters,
        )

        return event_config

