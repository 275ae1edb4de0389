from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.draft_edit_definition import DraftEditDefinition





T = TypeVar("T", bound="DraftEdit")



@_attrs_define
class DraftEdit:
    """ 
        Attributes:
            definition (DraftEditDefinition): The whole proposal, replacing the draft's one: any JSON object, kept as it is;
                every way it falls short of a definition is reported in the draft's problems, and it saves only once valid.
     """

    definition: DraftEditDefinition





    def to_dict(self) -> dict[str, Any]:
        from ..models.draft_edit_definition import DraftEditDefinition # noqa: PLC0415
        definition = self.definition.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "definition": definition,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.draft_edit_definition import DraftEditDefinition # noqa: PLC0415
        d = dict(src_dict)
        definition = DraftEditDefinition.from_dict(d.pop("definition"))




        draft_edit = cls(
            definition=definition,
        )

        return draft_edit

