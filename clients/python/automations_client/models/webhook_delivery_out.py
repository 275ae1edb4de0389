from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.webhook_delivery_out_status import WebhookDeliveryOutStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.webhook_attempt_out import WebhookAttemptOut
  from ..models.webhook_delivery_out_payload import WebhookDeliveryOutPayload





T = TypeVar("T", bound="WebhookDeliveryOut")



@_attrs_define
class WebhookDeliveryOut:
    """ 
        Attributes:
            attempts (int):
            created_at (datetime.datetime):
            endpoint_id (None | UUID): Null for a run's own callback.
            event_type (str):
            finished_at (datetime.datetime | None):
            id (UUID): Also the webhook-id header, the same on every attempt.
            last_error (None | str):
            last_status_code (int | None):
            max_attempts (int):
            next_attempt_at (datetime.datetime | None):
            payload (WebhookDeliveryOutPayload):
            run_id (None | UUID):
            status (WebhookDeliveryOutStatus):
            attempt_log (list[WebhookAttemptOut] | Unset):
     """

    attempts: int
    created_at: datetime.datetime
    endpoint_id: None | UUID
    event_type: str
    finished_at: datetime.datetime | None
    id: UUID
    last_error: None | str
    last_status_code: int | None
    max_attempts: int
    next_attempt_at: datetime.datetime | None
    payload: WebhookDeliveryOutPayload
    run_id: None | UUID
    status: WebhookDeliveryOutStatus
    attempt_log: list[WebhookAttemptOut] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_attempt_out import WebhookAttemptOut # noqa: PLC0415
        from ..models.webhook_delivery_out_payload import WebhookDeliveryOutPayload # noqa: PLC0415
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        endpoint_id: None | str
        if isinstance(self.endpoint_id, UUID):
            endpoint_id = str(self.endpoint_id)
        else:
            endpoint_id = self.endpoint_id

        event_type = self.event_type

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = str(self.id)

        last_error: None | str
        last_error = self.last_error

        last_status_code: int | None
        last_status_code = self.last_status_code

        max_attempts = self.max_attempts

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        payload = self.payload.to_dict()

        run_id: None | str
        if isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        status = self.status.value

        attempt_log: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempt_log, Unset):
            attempt_log = []
            for attempt_log_item_data in self.attempt_log:
                attempt_log_item = attempt_log_item_data.to_dict()
                attempt_log.append(attempt_log_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "created_at": created_at,
            "endpoint_id": endpoint_id,
            "event_type": event_type,
            "finished_at": finished_at,
            "id": id,
            "last_error": last_error,
            "last_status_code": last_status_code,
            "max_attempts": max_attempts,
            "next_attempt_at": next_attempt_at,
            "payload": payload,
            "run_id": run_id,
            "status": status,
        })
        if attempt_log is not UNSET:
            field_dict["attempt_log"] = attempt_log

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_attempt_out import WebhookAttemptOut # noqa: PLC0415
        from ..models.webhook_delivery_out_payload import WebhookDeliveryOutPayload # noqa: PLC0415
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_endpoint_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                endpoint_id_type_0 = UUID(data)



                return endpoint_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        endpoint_id = _parse_endpoint_id(d.pop("endpoint_id"))


        event_type = d.pop("event_type")

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




        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))


        def _parse_last_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_status_code = _parse_last_status_code(d.pop("last_status_code"))


        max_attempts = d.pop("max_attempts")

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)



                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))


        payload = WebhookDeliveryOutPayload.from_dict(d.pop("payload"))




        def _parse_run_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)



                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        run_id = _parse_run_id(d.pop("run_id"))


        status = WebhookDeliveryOutStatus(d.pop("status"))




        _attempt_log = d.pop("attempt_log", UNSET)
        attempt_log: list[WebhookAttemptOut] | Unset = UNSET
        if _attempt_log is not UNSET:
            attempt_log = []
            for attempt_log_item_data in _attempt_log:
                attempt_log_item = WebhookAttemptOut.from_dict(attempt_log_item_data)



                attempt_log.append(attempt_log_item)


        webhook_delivery_out = cls(
            attempts=attempts,
            created_at=created_at,
            endpoint_id=endpoint_id,
            event_type=event_type,
            finished_at=finished_at,
            id=id,
            last_error=last_error,
            last_status_code=last_status_code,
            max_attempts=max_attempts,
            next_attempt_at=next_attempt_at,
            payload=payload,
            run_id=run_id,
            status=status,
            attempt_log=attempt_log,
        )


        webhook_delivery_out.additional_properties = d
        return webhook_delivery_out

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
