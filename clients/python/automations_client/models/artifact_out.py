from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ArtifactOut")



@_attrs_define
class ArtifactOut:
    """ 
        Attributes:
            automation_id (None | UUID):
            content_type (str):
            created_at (datetime.datetime):
            expires_at (datetime.datetime | None):
            id (UUID):
            kind (str):
            name (str):
            retention (str):
            run_id (None | UUID):
            sha256 (str):
            size (int):
            step_id (None | str):
            step_path (None | str): Which execution of the step kept it: `<loop>/<iteration>/<step_id>` inside a for_each.
            visibility (str):
     """

    automation_id: None | UUID
    content_type: str
    created_at: datetime.datetime
    expires_at: datetime.datetime | None
    id: UUID
    kind: str
    name: str
    retention: str
    run_id: None | UUID
    sha256: str
    size: int
    step_id: None | str
    step_path: None | str
    visibility: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        automation_id: None | str
        if isinstance(self.automation_id, UUID):
            automation_id = str(self.automation_id)
        else:
            automation_id = self.automation_id

        content_type = self.content_type

        created_at = self.created_at.isoformat()

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = str(self.id)

        kind = self.kind

        name = self.name

        retention = self.retention

        run_id: None | str
        if isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        sha256 = self.sha256

        size = self.size

        step_id: None | str
        step_id = self.step_id

        step_path: None | str
        step_path = self.step_path

        visibility = self.visibility


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "content_type": content_type,
            "created_at": created_at,
            "expires_at": expires_at,
            "id": id,
            "kind": kind,
            "name": name,
            "retention": retention,
            "run_id": run_id,
            "sha256": sha256,
            "size": size,
            "step_id": step_id,
            "step_path": step_path,
            "visibility": visibility,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
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


        content_type = d.pop("content_type")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




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


        id = UUID(d.pop("id"))




        kind = d.pop("kind")

        name = d.pop("name")

        retention = d.pop("retention")

        def _parse_run_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)



                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        run_id = _parse_run_id(d.pop("run_id"))


        sha256 = d.pop("sha256")

        size = d.pop("size")

        def _parse_step_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        step_id = _parse_step_id(d.pop("step_id"))


        def _parse_step_path(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        step_path = _parse_step_path(d.pop("step_path"))


        visibility = d.pop("visibility")

        artifact_out = cls(
            automation_id=automation_id,
            content_type=content_type,
            created_at=created_at,
            expires_at=expires_at,
            id=id,
            kind=kind,
            name=name,
            retention=retention,
            run_id=run_id,
            sha256=sha256,
            size=size,
            step_id=step_id,
            step_path=step_path,
            visibility=visibility,
        )


        artifact_out.additional_properties = d
        return artifact_out

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
