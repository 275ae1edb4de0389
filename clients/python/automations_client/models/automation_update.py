from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.automation_definition import AutomationDefinition





T = TypeVar("T", bound="AutomationUpdate")



@_attrs_define
class AutomationUpdate:
    """ 
        Attributes:
            definition (AutomationDefinition): The whole automation: the program the service interprets.
            version (int | None | Unset): Expected current version (or use If-Match).
     """

    definition: AutomationDefinition
    version: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.automation_definition import AutomationDefinition # noqa: PLC0415
        definition = self.definition.to_dict()

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "definition": definition,
        })
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_definition import AutomationDefinition # noqa: PLC0415
        d = dict(src_dict)
        definition = AutomationDefinition.from_dict(d.pop("definition"))




        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))


        automation_update = cls(
            definition=definition,
            version=version,
        )

        return automation_update

