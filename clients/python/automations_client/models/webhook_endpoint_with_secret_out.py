from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="WebhookEndpointWithSecretOut")



@_attrs_define
class WebhookEndpointWithSecretOut:
    """ 
        Attributes:
            automation_ids (list[UUID] | None):
            consecutive_failures (int):
            created_at (datetime.datetime):
            description (None | str):
            disabled_reason (None | str):
            enabled (bool):
            events (list[str]):
            failing_since (datetime.datetime | None):
            id (UUID):
            previous_secret_expires_at (datetime.datetime | None): Until then the secret before the last rotation signs too.
            secret (str): The signing secret (whsec_…). Shown only in this answer.
            space_id (UUID):
            updated_at (datetime.datetime):
            url (str): Query values are shown as ***.
     """

    automation_ids: list[UUID] | None
    consecutive_failures: int
    created_at: datetime.datetime
    description: None | str
    disabled_reason: None | str
    enabled: bool
    events: list[str]
    failing_since: datetime.datetime | None
    id: UUID
    previous_secret_expires_at: datetime.datetime | None
    secret: str
    space_id: UUID
    updated_at: datetime.datetime
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        automation_ids: list[str] | None
        if isinstance(self.automation_ids, list):
            automation_ids = []
            for automation_ids_type_0_item_data in self.automation_ids:
                automation_ids_type_0_item = str(automation_ids_type_0_item_data)
                automation_ids.append(automation_ids_type_0_item)


        else:
            automation_ids = self.automation_ids

        consecutive_failures = self.consecutive_failures

        created_at = self.created_at.isoformat()

        description: None | str
        description = self.description

        disabled_reason: None | str
        disabled_reason = self.disabled_reason

        enabled = self.enabled

        events = self.events



        failing_since: None | str
        if isinstance(self.failing_since, datetime.datetime):
            failing_since = self.failing_since.isoformat()
        else:
            failing_since = self.failing_since

        id = str(self.id)

        previous_secret_expires_at: None | str
        if isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        secret = self.secret

        space_id = str(self.space_id)

        updated_at = self.updated_at.isoformat()

        url = self.url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_ids": automation_ids,
            "consecutive_failures": consecutive_failures,
            "created_at": created_at,
            "description": description,
            "disabled_reason": disabled_reason,
            "enabled": enabled,
            "events": events,
            "failing_since": failing_since,
            "id": id,
            "previous_secret_expires_at": previous_secret_expires_at,
            "secret": secret,
            "space_id": space_id,
            "updated_at": updated_at,
            "url": url,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_automation_ids(data: object) -> list[UUID] | None:
            if data is None:
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
            return cast(list[UUID] | None, data)

        automation_ids = _parse_automation_ids(d.pop("automation_ids"))


        consecutive_failures = d.pop("consecutive_failures")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))


        def _parse_disabled_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason"))


        enabled = d.pop("enabled")

        events = cast(list[str], d.pop("events"))


        def _parse_failing_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failing_since_type_0 = datetime.datetime.fromisoformat(data)



                return failing_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        failing_since = _parse_failing_since(d.pop("failing_since"))


        id = UUID(d.pop("id"))




        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(d.pop("previous_secret_expires_at"))


        secret = d.pop("secret")

        space_id = UUID(d.pop("space_id"))




        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        url = d.pop("url")

        webhook_endpoint_with_secret_out = cls(
            automation_ids=automation_ids,
            consecutive_failures=consecutive_failures,
            created_at=created_at,
            description=description,
            disabled_reason=disabled_reason,
            enabled=enabled,
            events=events,
            failing_since=failing_since,
            id=id,
            previous_secret_expires_at=previous_secret_expires_at,
            secret=secret,
            space_id=space_id,
            updated_at=updated_at,
            url=url,
        )


        webhook_endpoint_with_secret_out.additional_properties = d
        return webhook_endpoint_with_secret_out

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
