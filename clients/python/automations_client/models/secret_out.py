from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="SecretOut")



@_attrs_define
class SecretOut:
    """ A secret's metadata; its value is never part of an answer.

        Attributes:
            created_at (datetime.datetime):
            created_by (None | UUID): The user who first set it.
            description (None | str):
            hosts (list[str]): The hosts the value may be sent to; empty: any public host the egress guard allows.
            name (str):
            updated_at (datetime.datetime):
            updated_by (None | UUID): The user who set the current value.
            suggested_hosts (list[str] | Unset): For a secret bound to no host: the host the space's first automation that
                uses it sends it to, for an admin to confirm with PUT …/hosts. Never applied by itself.
     """

    created_at: datetime.datetime
    created_by: None | UUID
    description: None | str
    hosts: list[str]
    name: str
    updated_at: datetime.datetime
    updated_by: None | UUID
    suggested_hosts: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        created_by: None | str
        if isinstance(self.created_by, UUID):
            created_by = str(self.created_by)
        else:
            created_by = self.created_by

        description: None | str
        description = self.description

        hosts = self.hosts



        name = self.name

        updated_at = self.updated_at.isoformat()

        updated_by: None | str
        if isinstance(self.updated_by, UUID):
            updated_by = str(self.updated_by)
        else:
            updated_by = self.updated_by

        suggested_hosts: list[str] | Unset = UNSET
        if not isinstance(self.suggested_hosts, Unset):
            suggested_hosts = self.suggested_hosts




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "created_by": created_by,
            "description": description,
            "hosts": hosts,
            "name": name,
            "updated_at": updated_at,
            "updated_by": updated_by,
        })
        if suggested_hosts is not UNSET:
            field_dict["suggested_hosts"] = suggested_hosts

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
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


        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))


        hosts = cast(list[str], d.pop("hosts"))


        name = d.pop("name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        def _parse_updated_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_by_type_0 = UUID(data)



                return updated_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        updated_by = _parse_updated_by(d.pop("updated_by"))


        suggested_hosts = cast(list[str], d.pop("suggested_hosts", UNSET))


        secret_out = cls(
            created_at=created_at,
            created_by=created_by,
            description=description,
            hosts=hosts,
            name=name,
            updated_at=updated_at,
            updated_by=updated_by,
            suggested_hosts=suggested_hosts,
        )


        secret_out.additional_properties = d
        return secret_out

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
