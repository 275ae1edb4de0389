from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="WebhookAttemptOut")



@_attrs_define
class WebhookAttemptOut:
    """ 
        Attributes:
            attempt (int):
            created_at (datetime.datetime):
            duration_ms (int):
            error (None | str):
            next_attempt_at (datetime.datetime | None):
            status_code (int | None):
     """

    attempt: int
    created_at: datetime.datetime
    duration_ms: int
    error: None | str
    next_attempt_at: datetime.datetime | None
    status_code: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        created_at = self.created_at.isoformat()

        duration_ms = self.duration_ms

        error: None | str
        error = self.error

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        status_code: int | None
        status_code = self.status_code


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt": attempt,
            "created_at": created_at,
            "duration_ms": duration_ms,
            "error": error,
            "next_attempt_at": next_attempt_at,
            "status_code": status_code,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        duration_ms = d.pop("duration_ms")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


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


        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("status_code"))


        webhook_attempt_out = cls(
            attempt=attempt,
            created_at=created_at,
            duration_ms=duration_ms,
            error=error,
            next_attempt_at=next_attempt_at,
            status_code=status_code,
        )


        webhook_attempt_out.additional_properties = d
        return webhook_attempt_out

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
