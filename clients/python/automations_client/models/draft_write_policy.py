from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.draft_write_policy_write_policy import DraftWritePolicyWritePolicy






T = TypeVar("T", bound="DraftWritePolicy")



@_attrs_define
class DraftWritePolicy:
    """ 
        Attributes:
            write_policy (DraftWritePolicyWritePolicy): always_draft: each write outside the service waits for approval;
                auto_confirm_safe: writes the saved definition names run without asking.
     """

    write_policy: DraftWritePolicyWritePolicy





    def to_dict(self) -> dict[str, Any]:
        write_policy = self.write_policy.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "write_policy": write_policy,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        write_policy = DraftWritePolicyWritePolicy(d.pop("write_policy"))




        draft_write_policy = cls(
            write_policy=write_policy,
        )

        return draft_write_policy

