from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.link_decision_decision import LinkDecisionDecision
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LinkDecision")



@_attrs_define
class LinkDecision:
    """ 
        Attributes:
            decision (LinkDecisionDecision):
            token (str): The token of the link's URL fragment.
            reason (None | str | Unset):
     """

    decision: LinkDecisionDecision
    token: str
    reason: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        token = self.token

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "decision": decision,
            "token": token,
        })
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        decision = LinkDecisionDecision(d.pop("decision"))




        token = d.pop("token")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))


        link_decision = cls(
            decision=decision,
            token=token,
            reason=reason,
        )

        return link_decision

