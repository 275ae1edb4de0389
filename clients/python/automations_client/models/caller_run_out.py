from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.caller_run_out_error_type_0 import CallerRunOutErrorType0





T = TypeVar("T", bound="CallerRunOut")



@_attrs_define
class CallerRunOut:
    """ What a webhook caller reads of a run its trigger fired.

        Attributes:
            error (CallerRunOutErrorType0 | None):
            run_id (UUID):
            status (str):
            url (str):
            output (Any | None | Unset): Only when the trigger's output_visibility is caller.
     """

    error: CallerRunOutErrorType0 | None
    run_id: UUID
    status: str
    url: str
    output: Any | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.caller_run_out_error_type_0 import CallerRunOutErrorType0 # noqa: PLC0415
        error: dict[str, Any] | None
        if isinstance(self.error, CallerRunOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        run_id = str(self.run_id)

        status = self.status

        url = self.url

        output: Any | None | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        else:
            output = self.output


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "error": error,
            "run_id": run_id,
            "status": status,
            "url": url,
        })
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.caller_run_out_error_type_0 import CallerRunOutErrorType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_error(data: object) -> CallerRunOutErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = CallerRunOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CallerRunOutErrorType0 | None, data)

        error = _parse_error(d.pop("error"))


        run_id = UUID(d.pop("run_id"))




        status = d.pop("status")

        url = d.pop("url")

        def _parse_output(data: object) -> Any | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Any | None | Unset, data)

        output = _parse_output(d.pop("output", UNSET))


        caller_run_out = cls(
            error=error,
            run_id=run_id,
            status=status,
            url=url,
            output=output,
        )


        caller_run_out.additional_properties = d
        return caller_run_out

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
