from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.plugin_task_out_kind import PluginTaskOutKind
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.plugin_task_out_error_type_0 import PluginTaskOutErrorType0





T = TypeVar("T", bound="PluginTaskOut")



@_attrs_define
class PluginTaskOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            emitted (int): Events the call emitted.
            error (None | PluginTaskOutErrorType0):
            event_id (None | UUID): The event a subscription was handed.
            finished_at (datetime.datetime | None):
            id (UUID):
            kind (PluginTaskOutKind):
            name (str):
            started_at (datetime.datetime | None):
            status (str): queued, running, succeeded, failed, timed_out, skipped or lost.
     """

    created_at: datetime.datetime
    emitted: int
    error: None | PluginTaskOutErrorType0
    event_id: None | UUID
    finished_at: datetime.datetime | None
    id: UUID
    kind: PluginTaskOutKind
    name: str
    started_at: datetime.datetime | None
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.plugin_task_out_error_type_0 import PluginTaskOutErrorType0 # noqa: PLC0415
        created_at = self.created_at.isoformat()

        emitted = self.emitted

        error: dict[str, Any] | None
        if isinstance(self.error, PluginTaskOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        event_id: None | str
        if isinstance(self.event_id, UUID):
            event_id = str(self.event_id)
        else:
            event_id = self.event_id

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = str(self.id)

        kind = self.kind.value

        name = self.name

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "emitted": emitted,
            "error": error,
            "event_id": event_id,
            "finished_at": finished_at,
            "id": id,
            "kind": kind,
            "name": name,
            "started_at": started_at,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plugin_task_out_error_type_0 import PluginTaskOutErrorType0 # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        emitted = d.pop("emitted")

        def _parse_error(data: object) -> None | PluginTaskOutErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = PluginTaskOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PluginTaskOutErrorType0, data)

        error = _parse_error(d.pop("error"))


        def _parse_event_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                event_id_type_0 = UUID(data)



                return event_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        event_id = _parse_event_id(d.pop("event_id"))


        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))


        id = UUID(d.pop("id"))




        kind = PluginTaskOutKind(d.pop("kind"))




        name = d.pop("name")

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)



                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))


        status = d.pop("status")

        plugin_task_out = cls(
            created_at=created_at,
            emitted=emitted,
            error=error,
            event_id=event_id,
            finished_at=finished_at,
            id=id,
            kind=kind,
            name=name,
            started_at=started_at,
            status=status,
        )


        plugin_task_out.additional_properties = d
        return plugin_task_out

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
