from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.automation_status import AutomationStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.automation_out_action_modes import AutomationOutActionModes
  from ..models.automation_out_definition import AutomationOutDefinition
  from ..models.trigger_out import TriggerOut





T = TypeVar("T", bound="AutomationOut")



@_attrs_define
class AutomationOut:
    """ 
        Attributes:
            archived_at (datetime.datetime | None):
            created_at (datetime.datetime):
            created_by (None | UUID):
            definition (AutomationOutDefinition):
            id (UUID):
            name (str):
            space_id (UUID):
            status (AutomationStatus):
            triggers (list[TriggerOut]):
            updated_at (datetime.datetime):
            version (int):
            action_modes (AutomationOutActionModes | Unset): Permission overrides (PUT …/action-modes); not part of the
                definition. Its rules over arguments are listed by GET …/action-modes.
            coexistence_note (None | str | Unset): Why it may run beside the automations it overlaps (given on activate).
     """

    archived_at: datetime.datetime | None
    created_at: datetime.datetime
    created_by: None | UUID
    definition: AutomationOutDefinition
    id: UUID
    name: str
    space_id: UUID
    status: AutomationStatus
    triggers: list[TriggerOut]
    updated_at: datetime.datetime
    version: int
    action_modes: AutomationOutActionModes | Unset = UNSET
    coexistence_note: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.automation_out_action_modes import AutomationOutActionModes # noqa: PLC0415
        from ..models.automation_out_definition import AutomationOutDefinition # noqa: PLC0415
        from ..models.trigger_out import TriggerOut # noqa: PLC0415
        archived_at: None | str
        if isinstance(self.archived_at, datetime.datetime):
            archived_at = self.archived_at.isoformat()
        else:
            archived_at = self.archived_at

        created_at = self.created_at.isoformat()

        created_by: None | str
        if isinstance(self.created_by, UUID):
            created_by = str(self.created_by)
        else:
            created_by = self.created_by

        definition = self.definition.to_dict()

        id = str(self.id)

        name = self.name

        space_id = str(self.space_id)

        status = self.status.value

        triggers = []
        for triggers_item_data in self.triggers:
            triggers_item = triggers_item_data.to_dict()
            triggers.append(triggers_item)



        updated_at = self.updated_at.isoformat()

        version = self.version

        action_modes: dict[str, Any] | Unset = UNSET
        if not isinstance(self.action_modes, Unset):
            action_modes = self.action_modes.to_dict()

        coexistence_note: None | str | Unset
        if isinstance(self.coexistence_note, Unset):
            coexistence_note = UNSET
        else:
            coexistence_note = self.coexistence_note


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "archived_at": archived_at,
            "created_at": created_at,
            "created_by": created_by,
            "definition": definition,
            "id": id,
            "name": name,
            "space_id": space_id,
            "status": status,
            "triggers": triggers,
            "updated_at": updated_at,
            "version": version,
        })
        if action_modes is not UNSET:
            field_dict["action_modes"] = action_modes
        if coexistence_note is not UNSET:
            field_dict["coexistence_note"] = coexistence_note

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_out_action_modes import AutomationOutActionModes # noqa: PLC0415
        from ..models.automation_out_definition import AutomationOutDefinition # noqa: PLC0415
        from ..models.trigger_out import TriggerOut # noqa: PLC0415
        d = dict(src_dict)
        def _parse_archived_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                archived_at_type_0 = datetime.datetime.fromisoformat(data)



                return archived_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        archived_at = _parse_archived_at(d.pop("archived_at"))


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


        definition = AutomationOutDefinition.from_dict(d.pop("definition"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        space_id = UUID(d.pop("space_id"))




        status = AutomationStatus(d.pop("status"))




        triggers = []
        _triggers = d.pop("triggers")
        for triggers_item_data in (_triggers):
            triggers_item = TriggerOut.from_dict(triggers_item_data)



            triggers.append(triggers_item)


        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        version = d.pop("version")

        _action_modes = d.pop("action_modes", UNSET)
        action_modes: AutomationOutActionModes | Unset
        if isinstance(_action_modes,  Unset):
            action_modes = UNSET
        else:
            action_modes = AutomationOutActionModes.from_dict(_action_modes)




        def _parse_coexistence_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        coexistence_note = _parse_coexistence_note(d.pop("coexistence_note", UNSET))


        automation_out = cls(
            archived_at=archived_at,
            created_at=created_at,
            created_by=created_by,
            definition=definition,
            id=id,
            name=name,
            space_id=space_id,
            status=status,
            triggers=triggers,
            updated_at=updated_at,
            version=version,
            action_modes=action_modes,
            coexistence_note=coexistence_note,
        )


        automation_out.additional_properties = d
        return automation_out

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
