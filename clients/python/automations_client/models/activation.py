from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Activation")



@_attrs_define
class Activation:
    """ 
        Attributes:
            acknowledged_overlap (bool | Unset): Activate although it strictly overlaps active automations. Default: False.
            coexistence_note (None | str | Unset): Why both may run (10 to 1,000 characters); needed with
                acknowledged_overlap, kept.
            version (int | None | Unset): Expected current version (or use If-Match).
     """

    acknowledged_overlap: bool | Unset = False
    coexistence_note: None | str | Unset = UNSET
    version: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        acknowledged_overlap = self.acknowledged_overlap

        coexistence_note: None | str | Unset
        if isinstance(self.coexistence_note, Unset):
            coexistence_note = UNSET
        else:
            coexistence_note = self.coexistence_note

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if acknowledged_overlap is not UNSET:
            field_dict["acknowledged_overlap"] = acknowledged_overlap
        if coexistence_note is not UNSET:
            field_dict["coexistence_note"] = coexistence_note
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        acknowledged_overlap = d.pop("acknowledged_overlap", UNSET)

        def _parse_coexistence_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        coexistence_note = _parse_coexistence_note(d.pop("coexistence_note", UNSET))


        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))


        activation = cls(
            acknowledged_overlap=acknowledged_overlap,
            coexistence_note=coexistence_note,
            version=version,
        )

        return activation

