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
  from ..models.fire_out_error_type_0 import FireOutErrorType0





T = TypeVar("T", bound="FireOut")



@_attrs_define
class FireOut:
    """ 
        Attributes:
            run_id (UUID):
            run_url (str): The run as this trigger's caller reads it, with the same trigger token.
            status (str):
            url (str): The run in the space's API (an API token reads it).
            error (FireOutErrorType0 | None | Unset): With ?wait, when the run ended.
            output (Any | None | Unset): With ?wait, when the run ended and the trigger shows callers its output.
     """

    run_id: UUID
    run_url: str
    status: str
    url: str
    error: FireOutErrorType0 | None | Unset = UNSET
    output: Any | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.fire_out_error_type_0 import FireOutErrorType0 # noqa: PLC0415
        run_id = str(self.run_id)

        run_url = self.run_url

        status = self.status

        url = self.url

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, FireOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        output: Any | None | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        else:
            output = self.output


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "run_id": run_id,
            "run_url": run_url,
            "status": status,
            "url": url,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fire_out_error_type_0 import FireOutErrorType0 # noqa: PLC0415
        d = dict(src_dict)
        run_id = UUID(d.pop("run_id"))




        run_url = d.pop("run_url")

        status = d.pop("status")

        url = d.pop("url")

        def _parse_error(data: object) -> FireOutErrorType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = FireOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FireOutErrorType0 | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_output(data: object) -> Any | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Any | None | Unset, data)

        output = _parse_output(d.pop("output", UNSET))


        fire_out = cls(
            run_id=run_id,
            run_url=run_url,
            status=status,
            url=url,
            error=error,
            output=output,
        )


        fire_out.additional_properties = d
        return fire_out

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
