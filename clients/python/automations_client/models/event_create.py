from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.event_create_payload import EventCreatePayload





T = TypeVar("T", bound="EventCreate")



@_attrs_define
class EventCreate:
    """ 
        Attributes:
            event_type (str):
            payload (EventCreatePayload | Unset): At most 262144 bytes as compact JSON.
            source_id (None | str | Unset):
     """

    event_type: str
    payload: EventCreatePayload | Unset = UNSET
    source_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_create_payload import EventCreatePayload # noqa: PLC0415
        event_type = self.event_type

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        source_id: None | str | Unset
        if isinstance(self.source_id, Unset):
            source_id = UNSET
        else:
            source_id = self.source_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_type": event_type,
        })
        if payload is not UNSET:
            field_dict["payload"] = payload
        if source_id is not UNSET:
            field_dict["source_id"] = source_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_create_payload import EventCreatePayload # noqa: PLC0415
        d = dict(src_dict)
        event_type = d.pop("event_type")

        _payload = d.pop("payload", UNSET)
        payload: EventCreatePayload | Unset
        if isinstance(_payload,  Unset):
            payload = UNSET
        else:
            payload = EventCreatePayload.from_dict(_payload)




        def _parse_source_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_id = _parse_source_id(d.pop("source_id", UNSET))


        event_create = cls(
            event_type=event_type,
            payload=payload,
            source_id=source_id,
        )

        return event_create

