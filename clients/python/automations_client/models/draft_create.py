from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="DraftCreate")



@_attrs_define
class DraftCreate:
    """ 
        Attributes:
            request (str): What the automation should do, in plain words.
     """

    request: str





    def to_dict(self) -> dict[str, Any]:
        request = self.request


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "request": request,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request = d.pop("request")

        draft_create = cls(
            request=request,
        )

        return draft_create

