from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="TriggerOut")



@_attrs_define
class TriggerOut:
    """ 
        Attributes:
            enabled (bool):
            event_type (None | str):
            id (UUID):
            last_fired_at (datetime.datetime | None):
            name (None | str):
            next_fire_at (datetime.datetime | None):
            position (int): Index among the definition's triggers of the same type.
            token_prefix (None | str): Start of the webhook token, to tell tokens apart.
            type_ (str):
            token (None | str | Unset): A new webhook token; shown once, only when it is made.
     """

    enabled: bool
    event_type: None | str
    id: UUID
    last_fired_at: datetime.datetime | None
    name: None | str
    next_fire_at: datetime.datetime | None
    position: int
    token_prefix: None | str
    type_: str
    token: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        event_type: None | str
        event_type = self.event_type

        id = str(self.id)

        last_fired_at: None | str
        if isinstance(self.last_fired_at, datetime.datetime):
            last_fired_at = self.last_fired_at.isoformat()
        else:
            last_fired_at = self.last_fired_at

        name: None | str
        name = self.name

        next_fire_at: None | str
        if isinstance(self.next_fire_at, datetime.datetime):
            next_fire_at = self.next_fire_at.isoformat()
        else:
            next_fire_at = self.next_fire_at

        position = self.position

        token_prefix: None | str
        token_prefix = self.token_prefix

        type_ = self.type_

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "enabled": enabled,
            "event_type": event_type,
            "id": id,
            "last_fired_at": last_fired_at,
            "name": name,
            "next_fire_at": next_fire_at,
            "position": position,
            "token_prefix": token_prefix,
            "type": type_,
        })
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_event_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        event_type = _parse_event_type(d.pop("event_type"))


        id = UUID(d.pop("id"))




        def _parse_last_fired_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_fired_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_fired_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_fired_at = _parse_last_fired_at(d.pop("last_fired_at"))


        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        def _parse_next_fire_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_fire_at_type_0 = datetime.datetime.fromisoformat(data)



                return next_fire_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_fire_at = _parse_next_fire_at(d.pop("next_fire_at"))


        position = d.pop("position")

        def _parse_token_prefix(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        token_prefix = _parse_token_prefix(d.pop("token_prefix"))


        type_ = d.pop("type")

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))


        trigger_out = cls(
            enabled=enabled,
            event_type=event_type,
            id=id,
            last_fired_at=last_fired_at,
            name=name,
            next_fire_at=next_fire_at,
            position=position,
            token_prefix=token_prefix,
            type_=type_,
            token=token,
        )


        trigger_out.additional_properties = d
        return trigger_out

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
