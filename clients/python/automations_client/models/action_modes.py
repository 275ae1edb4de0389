from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.action_modes_modes import ActionModesModes





T = TypeVar("T", bound="ActionModes")



@_attrs_define
class ActionModes:
    """ 
        Attributes:
            modes (ActionModesModes): Capability id or pattern → mode, e.g. {"crm.create_note": "allow", "crm.*": "deny"}.
            rules (list[Any] | None | Unset): Ordered rules over a call's arguments, tried before `modes` (first match
                wins): {"capability": "payments.refund", "when": {"amount": {"gt": 1000}}, "mode": "require_approval",
                "approvals": 2}. Left out: the level keeps its rules; [] removes them.
     """

    modes: ActionModesModes
    rules: list[Any] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_modes_modes import ActionModesModes # noqa: PLC0415
        modes = self.modes.to_dict()

        rules: list[Any] | None | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, list):
            rules = self.rules


        else:
            rules = self.rules


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "modes": modes,
        })
        if rules is not UNSET:
            field_dict["rules"] = rules

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_modes_modes import ActionModesModes # noqa: PLC0415
        d = dict(src_dict)
        modes = ActionModesModes.from_dict(d.pop("modes"))




        def _parse_rules(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rules_type_0 = cast(list[Any], data)

                return rules_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))


        action_modes = cls(
            modes=modes,
            rules=rules,
        )

        return action_modes

