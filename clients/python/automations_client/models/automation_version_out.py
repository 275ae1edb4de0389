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
  from ..models.automation_version_out_definition import AutomationVersionOutDefinition





T = TypeVar("T", bound="AutomationVersionOut")



@_attrs_define
class AutomationVersionOut:
    """ 
        Attributes:
            automation_id (UUID):
            created_at (datetime.datetime):
            created_by (None | UUID):
            definition (AutomationVersionOutDefinition):
            restored_from (int | None):
            version (int):
     """

    automation_id: UUID
    created_at: datetime.datetime
    created_by: None | UUID
    definition: AutomationVersionOutDefinition
    restored_from: int | None
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.automation_version_out_definition import AutomationVersionOutDefinition # noqa: PLC0415
        automation_id = str(self.automation_id)

        created_at = self.created_at.isoformat()

        created_by: None | str
        if isinstance(self.created_by, UUID):
            created_by = str(self.created_by)
        else:
            created_by = self.created_by

        definition = self.definition.to_dict()

        restored_from: int | None
        restored_from = self.restored_from

        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "created_at": created_at,
            "created_by": created_by,
            "definition": definition,
            "restored_from": restored_from,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_version_out_definition import AutomationVersionOutDefinition # noqa: PLC0415
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_created_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_by_type_0 = UUID(data)



                return created_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        created_by = _parse_created_by(d.pop("created_by"))


        definition = AutomationVersionOutDefinition.from_dict(d.pop("definition"))




        def _parse_restored_from(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        restored_from = _parse_restored_from(d.pop("restored_from"))


        version = d.pop("version")

        automation_version_out = cls(
            automation_id=automation_id,
            created_at=created_at,
            created_by=created_by,
            definition=definition,
            restored_from=restored_from,
            version=version,
        )


        automation_version_out.additional_properties = d
        return automation_version_out

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
