from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CompletionBody")



@_attrs_define
class CompletionBody:
    """ What the authorization server sent back to the callback, handed on by the web UI.

        Attributes:
            state (str):
            code (None | str | Unset):
            error (None | str | Unset):
            iss (None | str | Unset):
     """

    state: str
    code: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    iss: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        state = self.state

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        iss: None | str | Unset
        if isinstance(self.iss, Unset):
            iss = UNSET
        else:
            iss = self.iss


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "state": state,
        })
        if code is not UNSET:
            field_dict["code"] = code
        if error is not UNSET:
            field_dict["error"] = error
        if iss is not UNSET:
            field_dict["iss"] = iss

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        state = d.pop("state")

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))


        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_iss(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        iss = _parse_iss(d.pop("iss", UNSET))


        completion_body = cls(
            state=state,
            code=code,
            error=error,
            iss=iss,
        )

        return completion_body

