from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.draft_example_out_definition import DraftExampleOutDefinition





T = TypeVar("T", bound="DraftExampleOut")



@_attrs_define
class DraftExampleOut:
    """ 
        Attributes:
            definition (DraftExampleOutDefinition):
            name (str):
            request (str):
     """

    definition: DraftExampleOutDefinition
    name: str
    request: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.draft_example_out_definition import DraftExampleOutDefinition # noqa: PLC0415
        definition = self.definition.to_dict()

        name = self.name

        request = self.request


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "definition": definition,
            "name": name,
            "request": request,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.draft_example_out_definition import DraftExampleOutDefinition # noqa: PLC0415
        d = dict(src_dict)
        definition = DraftExampleOutDefinition.from_dict(d.pop("definition"))




        name = d.pop("name")

        request = d.pop("request")

        draft_example_out = cls(
            definition=definition,
            name=name,
            request=request,
        )


        draft_example_out.additional_properties = d
        return draft_example_out

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
