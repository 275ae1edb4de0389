from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.definition_check_definition import DefinitionCheckDefinition





T = TypeVar("T", bound="DefinitionCheck")



@_attrs_define
class DefinitionCheck:
    """ 
        Attributes:
            definition (DefinitionCheckDefinition): Any JSON object: every way it falls short of a definition is reported,
                not refused.
     """

    definition: DefinitionCheckDefinition





    def to_dict(self) -> dict[str, Any]:
        from ..models.definition_check_definition import DefinitionCheckDefinition # noqa: PLC0415
        definition = self.definition.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "definition": definition,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_check_definition import DefinitionCheckDefinition # noqa: PLC0415
        d = dict(src_dict)
        definition = DefinitionCheckDefinition.from_dict(d.pop("definition"))




        definition_check = cls(
            definition=definition,
        )

        return definition_check

