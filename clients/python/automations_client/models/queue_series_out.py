from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="QueueSeriesOut")



@_attrs_define
class QueueSeriesOut:
    """ 
        Attributes:
            pending (list[int]): Per minute: the space's runs admitted and waiting for a worker.
            queue (str): A worker queue (runs.fast, runs.medium, runs.long).
            queued (list[int]): Per minute, oldest first: the space's runs held back (queued).
     """

    pending: list[int]
    queue: str
    queued: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        pending = self.pending



        queue = self.queue

        queued = self.queued




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "pending": pending,
            "queue": queue,
            "queued": queued,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        pending = cast(list[int], d.pop("pending"))


        queue = d.pop("queue")

        queued = cast(list[int], d.pop("queued"))


        queue_series_out = cls(
            pending=pending,
            queue=queue,
            queued=queued,
        )


        queue_series_out.additional_properties = d
        return queue_series_out

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
