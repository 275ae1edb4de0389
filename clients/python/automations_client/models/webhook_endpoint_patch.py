from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="WebhookEndpointPatch")



@_attrs_define
class WebhookEndpointPatch:
    """ 
        Attributes:
            automation_ids (list[UUID] | None | Unset):
            description (None | str | Unset):
            enabled (bool | None | Unset):
            events (list[str] | None | Unset):
            url (None | str | Unset):
     """

    automation_ids: list[UUID] | None | Unset = UNSET
    description: None | str | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    events: list[str] | None | Unset = UNSET
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        automation_ids: list[str] | None | Unset
        if isinstance(self.automation_ids, Unset):
            automation_ids = UNSET
        elif isinstance(self.automation_ids, list):
            automation_ids = []
            for automation_ids_type_0_item_data in self.automation_ids:
                automation_ids_type_0_item = str(automation_ids_type_0_item_data)
                automation_ids.append(automation_ids_type_0_item)


        else:
            automation_ids = self.automation_ids

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        events: list[str] | None | Unset
        if isinstance(self.events, Unset):
            events = UNSET
        elif isinstance(self.events, list):
            events = self.events


        else:
            events = self.events

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if automation_ids is not UNSET:
            field_dict["automation_ids"] = automation_ids
        if description is not UNSET:
            field_dict["description"] = description
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if events is not UNSET:
            field_dict["events"] = events
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_automation_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                automation_ids_type_0 = []
                _automation_ids_type_0 = data
                for automation_ids_type_0_item_data in (_automation_ids_type_0):
                    automation_ids_type_0_item = UUID(automation_ids_type_0_item_data)



                    automation_ids_type_0.append(automation_ids_type_0_item)

                return automation_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        automation_ids = _parse_automation_ids(d.pop("automation_ids", UNSET))


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))


        def _parse_events(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = cast(list[str], data)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        events = _parse_events(d.pop("events", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        webhook_endpoint_patch = cls(
            automation_ids=automation_ids,
            description=description,
            enabled=enabled,
            events=events,
            url=url,
        )

        return webhook_endpoint_patch

