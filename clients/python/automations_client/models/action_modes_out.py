from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.action_modes_out_modes import ActionModesOutModes
  from ..models.action_modes_out_rules_item import ActionModesOutRulesItem





T = TypeVar("T", bound="ActionModesOut")



@_attrs_define
class ActionModesOut:
    """ 
        Attributes:
            modes (ActionModesOutModes):
            rules (list[ActionModesOutRulesItem] | Unset):
     """

    modes: ActionModesOutModes
    rules: list[ActionModesOutRulesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_modes_out_modes import ActionModesOutModes # noqa: PLC0415
        from ..models.action_modes_out_rules_item import ActionModesOutRulesItem # noqa: PLC0415
        modes = self.modes.to_dict()

        rules: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.rules, Unset):
            rules = []
            for rules_item_data in self.rules:
                rules_item = rules_item_data.to_dict()
                rules.append(rules_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "modes": modes,
        })
        if rules is not UNSET:
            field_dict["rules"] = rules

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_modes_out_modes import ActionModesOutModes # noqa: PLC0415
        from ..models.action_modes_out_rules_item import ActionModesOutRulesItem # noqa: PLC0415
        d = dict(src_dict)
        modes = ActionModesOutModes.from_dict(d.pop("modes"))




        _rules = d.pop("rules", UNSET)
        rules: list[ActionModesOutRulesItem] | Unset = UNSET
        if _rules is not UNSET:
            rules = []
            for rules_item_data in _rules:
                rules_item = ActionModesOutRulesItem.from_dict(rules_item_data)



                rules.append(rules_item)


        action_modes_out = cls(
            modes=modes,
            rules=rules,
        )


        action_modes_out.additional_properties = d
        return action_modes_out

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
