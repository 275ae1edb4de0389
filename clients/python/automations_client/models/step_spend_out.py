from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="StepSpendOut")



@_attrs_define
class StepSpendOut:
    """ 
        Attributes:
            calls (int): Model calls the step made (an agent's turns count one each).
            cost_usd (float):
            input_tokens (int):
            output_tokens (int):
            step_id (str):
     """

    calls: int
    cost_usd: float
    input_tokens: int
    output_tokens: int
    step_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        cost_usd = self.cost_usd

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        step_id = self.step_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calls": calls,
            "cost_usd": cost_usd,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "step_id": step_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calls = d.pop("calls")

        cost_usd = d.pop("cost_usd")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        step_id = d.pop("step_id")

        step_spend_out = cls(
            calls=calls,
            cost_usd=cost_usd,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            step_id=step_id,
        )


        step_spend_out.additional_properties = d
        return step_spend_out

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
