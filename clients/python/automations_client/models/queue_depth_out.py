from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.queue_series_out import QueueSeriesOut





T = TypeVar("T", bound="QueueDepthOut")



@_attrs_define
class QueueDepthOut:
    """ 
        Attributes:
            first_minute (datetime.datetime): The first minute of the range (UTC).
            last_minute (datetime.datetime): The last minute of the range (UTC): the current one, or the one before while
                beat has not sampled the current one yet.
            minutes (int):
            queues (list[QueueSeriesOut]): The queues that had runs waiting in the range; a minute without a sample counts
                0.
     """

    first_minute: datetime.datetime
    last_minute: datetime.datetime
    minutes: int
    queues: list[QueueSeriesOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_series_out import QueueSeriesOut # noqa: PLC0415
        first_minute = self.first_minute.isoformat()

        last_minute = self.last_minute.isoformat()

        minutes = self.minutes

        queues = []
        for queues_item_data in self.queues:
            queues_item = queues_item_data.to_dict()
            queues.append(queues_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "first_minute": first_minute,
            "last_minute": last_minute,
            "minutes": minutes,
            "queues": queues,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_series_out import QueueSeriesOut # noqa: PLC0415
        d = dict(src_dict)
        first_minute = datetime.datetime.fromisoformat(d.pop("first_minute"))




        last_minute = datetime.datetime.fromisoformat(d.pop("last_minute"))




        minutes = d.pop("minutes")

        queues = []
        _queues = d.pop("queues")
        for queues_item_data in (_queues):
            queues_item = QueueSeriesOut.from_dict(queues_item_data)



            queues.append(queues_item)


        queue_depth_out = cls(
            first_minute=first_minute,
            last_minute=last_minute,
            minutes=minutes,
            queues=queues,
        )


        queue_depth_out.additional_properties = d
        return queue_depth_out

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
