from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.totals_out_by_status import TotalsOutByStatus





T = TypeVar("T", bound="TotalsOut")



@_attrs_define
class TotalsOut:
    """ 
        Attributes:
            by_status (TotalsOutByStatus):
            cost_usd (float):
            runs (int):
     """

    by_status: TotalsOutByStatus
    cost_usd: float
    runs: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.totals_out_by_status import TotalsOutByStatus # noqa: PLC0415
        by_status = self.by_status.to_dict()

        cost_usd = self.cost_usd

        runs = self.runs


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "by_status": by_status,
            "cost_usd": cost_usd,
            "runs": runs,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.totals_out_by_status import TotalsOutByStatus # noqa: PLC0415
        d = dict(src_dict)
        by_status = TotalsOutByStatus.from_dict(d.pop("by_status"))




        cost_usd = d.pop("cost_usd")

        runs = d.pop("runs")

        totals_out = cls(
            by_status=by_status,
            cost_usd=cost_usd,
            runs=runs,
        )


        totals_out.additional_properties = d
        return totals_out

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
