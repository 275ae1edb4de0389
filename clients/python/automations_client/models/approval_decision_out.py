from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.approval_decision_out_decision import ApprovalDecisionOutDecision
from ..models.approval_decision_out_via import ApprovalDecisionOutVia
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ApprovalDecisionOut")



@_attrs_define
class ApprovalDecisionOut:
    """ 
        Attributes:
            created_at (datetime.datetime):
            decision (ApprovalDecisionOutDecision):
            note (None | str):
            user_id (UUID):
            via (ApprovalDecisionOutVia): Where the member decided.
     """

    created_at: datetime.datetime
    decision: ApprovalDecisionOutDecision
    note: None | str
    user_id: UUID
    via: ApprovalDecisionOutVia
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        decision = self.decision.value

        note: None | str
        note = self.note

        user_id = str(self.user_id)

        via = self.via.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "decision": decision,
            "note": note,
            "user_id": user_id,
            "via": via,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        decision = ApprovalDecisionOutDecision(d.pop("decision"))




        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))


        user_id = UUID(d.pop("user_id"))




        via = ApprovalDecisionOutVia(d.pop("via"))




        approval_decision_out = cls(
            created_at=created_at,
            decision=decision,
            note=note,
            user_id=user_id,
            via=via,
        )


        approval_decision_out.additional_properties = d
        return approval_decision_out

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
