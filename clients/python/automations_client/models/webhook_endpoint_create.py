from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.webhook_endpoint_create_events_item import WebhookEndpointCreateEventsItem
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="WebhookEndpointCreate")



@_attrs_define
class WebhookEndpointCreate:
    """ 
        Attributes:
            events (list[WebhookEndpointCreateEventsItem]): Event types, e.g. "automation.run.failed" or "automation.run.*".
            url (str): https URL that receives deliveries.
            automation_ids (list[UUID] | None | Unset): Only these automations' events.
            description (None | str | Unset):
     """

    events: list[WebhookEndpointCreateEventsItem]
    url: str
    automation_ids: list[UUID] | None | Unset = UNSET
    description: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)



        url = self.url

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


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
            "url": url,
        })
        if automation_ids is not UNSET:
            field_dict["automation_ids"] = automation_ids
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in (_events):
            events_item = WebhookEndpointCreateEventsItem(events_item_data)



            events.append(events_item)


        url = d.pop("url")

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


        webhook_endpoint_create = cls(
            events=events,
            url=url,
            automation_ids=automation_ids,
            description=description,
        )

        return webhook_endpoint_create

