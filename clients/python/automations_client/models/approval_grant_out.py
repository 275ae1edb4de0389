from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.approval_grant_out_status import ApprovalGrantOutStatus
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ApprovalGrantOut")



@_attrs_define
class ApprovalGrantOut:
    """ 
        Attributes:
            automation_id (UUID):
            capability (str):
            definition_version (int): The automation version the approved run ran.
            granted_at (datetime.datetime):
            granted_by (None | UUID):
            id (UUID):
            invocation_id (None | UUID): The approval it came from.
            lapsed_at (datetime.datetime | None):
            lapsed_target (None | str):
            lapsed_version (int | None): The version whose call of the step had another target.
            status (ApprovalGrantOutStatus):
            step_id (str): The step whose call was approved.
            target (str): What the call acts on: `METHOD scheme://host[:port]/path?query` for http.request (the literal URL
                less fragment and user info), the capability id for an MCP tool or a capability without a target.
     """

    automation_id: UUID
    capability: str
    definition_version: int
    granted_at: datetime.datetime
    granted_by: None | UUID
    id: UUID
    invocation_id: None | UUID
    lapsed_at: datetime.datetime | None
    lapsed_target: None | str
    lapsed_version: int | None
    status: ApprovalGrantOutStatus
    step_id: str
    target: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        automation_id = str(self.automation_id)

        capability = self.capability

        definition_version = self.definition_version

        granted_at = self.granted_at.isoformat()

        granted_by: None | str
        if isinstance(self.granted_by, UUID):
            granted_by = str(self.granted_by)
        else:
            granted_by = self.granted_by

        id = str(self.id)

        invocation_id: None | str
        if isinstance(self.invocation_id, UUID):
            invocation_id = str(self.invocation_id)
        else:
            invocation_id = self.invocation_id

        lapsed_at: None | str
        if isinstance(self.lapsed_at, datetime.datetime):
            lapsed_at = self.lapsed_at.isoformat()
        else:
            lapsed_at = self.lapsed_at

        lapsed_target: None | str
        lapsed_target = self.lapsed_target

        lapsed_version: int | None
        lapsed_version = self.lapsed_version

        status = self.status.value

        step_id = self.step_id

        target = self.target


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "capability": capability,
            "definition_version": definition_version,
            "granted_at": granted_at,
            "granted_by": granted_by,
            "id": id,
            "invocation_id": invocation_id,
            "lapsed_at": lapsed_at,
            "lapsed_target": lapsed_target,
            "lapsed_version": lapsed_version,
            "status": status,
            "step_id": step_id,
            "target": target,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        capability = d.pop("capability")

        definition_version = d.pop("definition_version")

        granted_at = datetime.datetime.fromisoformat(d.pop("granted_at"))




        def _parse_granted_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                granted_by_type_0 = UUID(data)



                return granted_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        granted_by = _parse_granted_by(d.pop("granted_by"))


        id = UUID(d.pop("id"))




        def _parse_invocation_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                invocation_id_type_0 = UUID(data)



                return invocation_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        invocation_id = _parse_invocation_id(d.pop("invocation_id"))


        def _parse_lapsed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lapsed_at_type_0 = datetime.datetime.fromisoformat(data)



                return lapsed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        lapsed_at = _parse_lapsed_at(d.pop("lapsed_at"))


        def _parse_lapsed_target(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        lapsed_target = _parse_lapsed_target(d.pop("lapsed_target"))


        def _parse_lapsed_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        lapsed_version = _parse_lapsed_version(d.pop("lapsed_version"))


        status = ApprovalGrantOutStatus(d.pop("status"))




        step_id = d.pop("step_id")

        target = d.pop("target")

        approval_grant_out = cls(
            automation_id=automation_id,
            capability=capability,
            definition_version=definition_version,
            granted_at=granted_at,
            granted_by=granted_by,
            id=id,
            invocation_id=invocation_id,
            lapsed_at=lapsed_at,
            lapsed_target=lapsed_target,
            lapsed_version=lapsed_version,
            status=status,
            step_id=step_id,
            target=target,
        )


        approval_grant_out.additional_properties = d
        return approval_grant_out

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
