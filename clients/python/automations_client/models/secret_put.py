from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SecretPut")



@_attrs_define
class SecretPut:
    """ 
        Attributes:
            value (str): The value, 1 to 8192 bytes of UTF-8. Never shown again by any answer.
            description (None | str | Unset):
            hosts (list[str] | None | Unset): The hosts the value may be sent to: names (api.example.com), *.domain
                wildcards or addresses. Empty: any public host. Omitted: a replaced secret keeps its hosts.
     """

    value: str
    description: None | str | Unset = UNSET
    hosts: list[str] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        value = self.value

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        hosts: list[str] | None | Unset
        if isinstance(self.hosts, Unset):
            hosts = UNSET
        elif isinstance(self.hosts, list):
            hosts = self.hosts


        else:
            hosts = self.hosts


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "value": value,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if hosts is not UNSET:
            field_dict["hosts"] = hosts

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_hosts(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hosts_type_0 = cast(list[str], data)

                return hosts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        hosts = _parse_hosts(d.pop("hosts", UNSET))


        secret_put = cls(
            value=value,
            description=description,
            hosts=hosts,
        )

        return secret_put

