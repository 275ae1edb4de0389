from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.overlap_owner_out import OverlapOwnerOut
  from ..models.overlap_reason_out import OverlapReasonOut





T = TypeVar("T", bound="OverlapMatchOut")



@_attrs_define
class OverlapMatchOut:
    """ 
        Attributes:
            automation_id (UUID):
            last_run_at (datetime.datetime | None):
            name (str):
            owner (None | OverlapOwnerOut): Who created it (null once that user is gone).
            reasons (list[OverlapReasonOut]):
            status (str):
            strict (bool): A shared write target: they could duplicate each other's writes.
            trigger_kinds (list[str]): The kinds of its enabled triggers.
     """

    automation_id: UUID
    last_run_at: datetime.datetime | None
    name: str
    owner: None | OverlapOwnerOut
    reasons: list[OverlapReasonOut]
    status: str
    strict: bool
    trigger_kinds: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.overlap_owner_out import OverlapOwnerOut # noqa: PLC0415
        from ..models.overlap_reason_out import OverlapReasonOut # noqa: PLC0415
        automation_id = str(self.automation_id)

        last_run_at: None | str
        if isinstance(self.last_run_at, datetime.datetime):
            last_run_at = self.last_run_at.isoformat()
        else:
            last_run_at = self.last_run_at

        name = self.name

        owner: dict[str, Any] | None
        if isinstance(self.owner, OverlapOwnerOut):
            owner = self.owner.to_dict()
        else:
            owner = self.owner

        reasons = []
        for reasons_item_data in self.reasons:
            reasons_item = reasons_item_data.to_dict()
            reasons.append(reasons_item)



        status = self.status

        strict = self.strict

        trigger_kinds = self.trigger_kinds




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "last_run_at": last_run_at,
            "name": name,
            "owner": owner,
            "reasons": reasons,
            "status": status,
            "strict": strict,
            "trigger_kinds": trigger_kinds,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.overlap_owner_out import OverlapOwnerOut # noqa: PLC0415
        from ..models.overlap_reason_out import OverlapReasonOut # noqa: PLC0415
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        def _parse_last_run_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_run_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))


        name = d.pop("name")

        def _parse_owner(data: object) -> None | OverlapOwnerOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                owner_type_0 = OverlapOwnerOut.from_dict(data)



                return owner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OverlapOwnerOut, data)

        owner = _parse_owner(d.pop("owner"))


        reasons = []
        _reasons = d.pop("reasons")
        for reasons_item_data in (_reasons):
            reasons_item = OverlapReasonOut.from_dict(reasons_item_data)



            reasons.append(reasons_item)


        status = d.pop("status")

        strict = d.pop("strict")

        trigger_kinds = cast(list[str], d.pop("trigger_kinds"))


        overlap_match_out = cls(
            automation_id=automation_id,
            last_run_at=last_run_at,
            name=name,
            owner=owner,
            reasons=reasons,
            status=status,
            strict=strict,
            trigger_kinds=trigger_kinds,
        )


        overlap_match_out.additional_properties = d
        return overlap_match_out

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
