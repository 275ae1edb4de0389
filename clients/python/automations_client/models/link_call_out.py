from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="LinkCallOut")



@_attrs_define
class LinkCallOut:
    """ 
        Attributes:
            approval_id (str):
            approvals_so_far (int):
            approver_email (str): Whom the link is for: the decision is recorded as theirs.
            capability (str):
            expires_at (datetime.datetime | None):
            params (Any): Redacted; secrets appear as references.
            required_approvals (int):
            run_id (str):
            step_id (str):
     """

    approval_id: str
    approvals_so_far: int
    approver_email: str
    capability: str
    expires_at: datetime.datetime | None
    params: Any
    required_approvals: int
    run_id: str
    step_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        approval_id = self.approval_id

        approvals_so_far = self.approvals_so_far

        approver_email = self.approver_email

        capability = self.capability

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        params = self.params

        required_approvals = self.required_approvals

        run_id = self.run_id

        step_id = self.step_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "approval_id": approval_id,
            "approvals_so_far": approvals_so_far,
            "approver_email": approver_email,
            "capability": capability,
            "expires_at": expires_at,
            "params": params,
            "required_approvals": required_approvals,
            "run_id": run_id,
            "step_id": step_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        approval_id = d.pop("approval_id")

        approvals_so_far = d.pop("approvals_so_far")

        approver_email = d.pop("approver_email")

        capability = d.pop("capability")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        params = d.pop("params")

        required_approvals = d.pop("required_approvals")

        run_id = d.pop("run_id")

        step_id = d.pop("step_id")

        link_call_out = cls(
            approval_id=approval_id,
            approvals_so_far=approvals_so_far,
            approver_email=approver_email,
            capability=capability,
            expires_at=expires_at,
            params=params,
            required_approvals=required_approvals,
            run_id=run_id,
            step_id=step_id,
        )


        link_call_out.additional_properties = d
        return link_call_out

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
