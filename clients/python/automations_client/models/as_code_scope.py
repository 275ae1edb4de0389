from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="AsCodeScope")



@_attrs_define
class AsCodeScope:
    """ The `as_code` scope: export and apply the automations of one space, from CI.

        Attributes:
            space (UUID): The one space (one of yours) whose automations the token manages.
     """

    space: UUID





    def to_dict(self) -> dict[str, Any]:
        space = str(self.space)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "space": space,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        space = UUID(d.pop("space"))




        as_code_scope = cls(
            space=space,
        )

        return as_code_scope

