from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.approval_decision_scope import ApprovalDecisionScope
from ..types import UNSET, Unset






T = TypeVar("T", bound="ApprovalDecision")



@_attrs_define
class ApprovalDecision:
    """ 
        Attributes:
            scope (ApprovalDecisionScope | Unset): once: this call; always: also later calls of this step to the same target
                (a standing approval of this automation); always_space: allow the capability in the whole space. Default:
                ApprovalDecisionScope.ONCE.
     """

    scope: ApprovalDecisionScope | Unset = ApprovalDecisionScope.ONCE





    def to_dict(self) -> dict[str, Any]:
        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _scope = d.pop("scope", UNSET)
        scope: ApprovalDecisionScope | Unset
        if isinstance(_scope,  Unset):
            scope = UNSET
        else:
            scope = ApprovalDecisionScope(_scope)




        approval_decision = cls(
            scope=scope,
        )

        return approval_decision

