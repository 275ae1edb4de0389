from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.link_out_served_by import LinkOutServedBy
from typing import cast
import datetime






T = TypeVar("T", bound="LinkOut")



@_attrs_define
class LinkOut:
    """ 
        Attributes:
            expires_at (datetime.datetime):
            served_by (LinkOutServedBy):
            url (str): The link; an API link works for as long as `expires_at` says.
     """

    expires_at: datetime.datetime
    served_by: LinkOutServedBy
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at.isoformat()

        served_by = self.served_by.value

        url = self.url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "expires_at": expires_at,
            "served_by": served_by,
            "url": url,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        served_by = LinkOutServedBy(d.pop("served_by"))




        url = d.pop("url")

        link_out = cls(
            expires_at=expires_at,
            served_by=served_by,
            url=url,
        )


        link_out.additional_properties = d
        return link_out

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
