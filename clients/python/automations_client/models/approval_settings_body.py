from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="ApprovalSettingsBody")



@_attrs_define
class ApprovalSettingsBody:
    """ 
        Attributes:
            approval_ttl_seconds (int | Unset):  Default: 86400.
            forbid_self_approval (bool | Unset):  Default: False.
     """

    approval_ttl_seconds: int | Unset = 86400
    forbid_self_approval: bool | Unset = False





    def to_dict(self) -> dict[str, Any]:
        approval_ttl_seconds = self.approval_ttl_seconds

        forbid_self_approval = self.forbid_self_approval


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if approval_ttl_seconds is not UNSET:
            field_dict["approval_ttl_seconds"] = approval_ttl_seconds
        if forbid_self_approval is not UNSET:
            field_dict["forbid_self_approval"] = forbid_self_approval

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        approval_ttl_seconds = d.pop("approval_ttl_seconds", UNSET)

        forbid_self_approval = d.pop("forbid_self_approval", UNSET)

        approval_settings_body = cls(
            approval_ttl_seconds=approval_ttl_seconds,
            forbid_self_approval=forbid_self_approval,
        )

        return approval_settings_body

