from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RunPriority")



@_attrs_define
class RunPriority:
    """ 
        Attributes:
            priority (int): Higher is promoted first.
     """

    priority: int





    def to_dict(self) -> dict[str, Any]:
        priority = self.priority


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "priority": priority,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        priority = d.pop("priority")

        run_priority = cls(
            priority=priority,
        )

        return run_priority

