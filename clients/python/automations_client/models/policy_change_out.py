from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="PolicyChangeOut")



@_attrs_define
class PolicyChangeOut:
    """ 
        Attributes:
            actor_id (None | UUID):
            after (Any):
            automation_id (None | UUID): None: a change of the space itself.
            before (Any):
            created_at (datetime.datetime):
            id (UUID):
            kind (str): space_modes, automation_modes, approval_settings, approval_grant_added or approval_grant_revoked.
     """

    actor_id: None | UUID
    after: Any
    automation_id: None | UUID
    before: Any
    created_at: datetime.datetime
    id: UUID
    kind: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        actor_id: None | str
        if isinstance(self.actor_id, UUID):
            actor_id = str(self.actor_id)
        else:
            actor_id = self.actor_id

        after = self.after

        automation_id: None | str
        if isinstance(self.automation_id, UUID):
            automation_id = str(self.automation_id)
        else:
            automation_id = self.automation_id

        before = self.before

        created_at = self.created_at.isoformat()

        id = str(self.id)

        kind = self.kind


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor_id": actor_id,
            "after": after,
            "automation_id": automation_id,
            "before": before,
            "created_at": created_at,
            "id": id,
            "kind": kind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_actor_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                actor_id_type_0 = UUID(data)



                return actor_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        actor_id = _parse_actor_id(d.pop("actor_id"))


        after = d.pop("after")

        def _parse_automation_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                automation_id_type_0 = UUID(data)



                return automation_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        automation_id = _parse_automation_id(d.pop("automation_id"))


        before = d.pop("before")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = UUID(d.pop("id"))




        kind = d.pop("kind")

        policy_change_out = cls(
            actor_id=actor_id,
            after=after,
            automation_id=automation_id,
            before=before,
            created_at=created_at,
            id=id,
            kind=kind,
        )


        policy_change_out.additional_properties = d
        return policy_change_out

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
