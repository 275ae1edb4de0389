from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.tool_patch_risk_type_0 import ToolPatchRiskType0
from typing import cast






T = TypeVar("T", bound="ToolPatch")



@_attrs_define
class ToolPatch:
    """ 
        Attributes:
            risk (None | ToolPatchRiskType0): The risk in force; null returns to the hint.
     """

    risk: None | ToolPatchRiskType0





    def to_dict(self) -> dict[str, Any]:
        risk: None | str
        if isinstance(self.risk, ToolPatchRiskType0):
            risk = self.risk.value
        else:
            risk = self.risk


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "risk": risk,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_risk(data: object) -> None | ToolPatchRiskType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                risk_type_0 = ToolPatchRiskType0(data)



                return risk_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolPatchRiskType0, data)

        risk = _parse_risk(d.pop("risk"))


        tool_patch = cls(
            risk=risk,
        )

        return tool_patch

