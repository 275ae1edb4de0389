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
  from ..models.event_out_payload import EventOutPayload





T = TypeVar("T", bound="EventOut")



@_attrs_define
class EventOut:
    """ 
        Attributes:
            chain_depth (int):
            consumed_by (list[Any]): The triggers it fired: {trigger_id, run_id, status}.
            created_at (datetime.datetime):
            dispatched_at (datetime.datetime | None):
            event_type (str):
            id (UUID):
            payload (EventOutPayload):
            source_id (None | str):
     """

    chain_depth: int
    consumed_by: list[Any]
    created_at: datetime.datetime
    dispatched_at: datetime.datetime | None
    event_type: str
    id: UUID
    payload: EventOutPayload
    source_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_out_payload import EventOutPayload # noqa: PLC0415
        chain_depth = self.chain_depth

        consumed_by = self.consumed_by



        created_at = self.created_at.isoformat()

        dispatched_at: None | str
        if isinstance(self.dispatched_at, datetime.datetime):
            dispatched_at = self.dispatched_at.isoformat()
        else:
            dispatched_at = self.dispatched_at

        event_type = self.event_type

        id = str(self.id)

        payload = self.payload.to_dict()

        source_id: None | str
        source_id = self.source_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "chain_depth": chain_depth,
            "consumed_by": consumed_by,
            "created_at": created_at,
            "dispatched_at": dispatched_at,
            "event_type": event_type,
            "id": id,
            "payload": payload,
            "source_id": source_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_out_payload import EventOutPayload # noqa: PLC0415
        d = dict(src_dict)
        chain_depth = d.pop("chain_depth")

        consumed_by = cast(list[Any], d.pop("consumed_by"))


        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_dispatched_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                dispatched_at_type_0 = datetime.datetime.fromisoformat(data)



                return dispatched_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        dispatched_at = _parse_dispatched_at(d.pop("dispatched_at"))


        event_type = d.pop("event_type")

        id = UUID(d.pop("id"))




        payload = EventOutPayload.from_dict(d.pop("payload"))




        def _parse_source_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source_id = _parse_source_id(d.pop("source_id"))


        event_out = cls(
            chain_depth=chain_depth,
            consumed_by=consumed_by,
            created_at=created_at,
            dispatched_at=dispatched_at,
            event_type=event_type,
            id=id,
            payload=payload,
            source_id=source_id,
        )


        event_out.additional_properties = d
        return event_out

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
