from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.definition_preview_create_definition import DefinitionPreviewCreateDefinition
  from ..models.definition_preview_create_inputs import DefinitionPreviewCreateInputs
  from ..models.definition_preview_create_trigger_payload import DefinitionPreviewCreateTriggerPayload





T = TypeVar("T", bound="DefinitionPreviewCreate")



@_attrs_define
class DefinitionPreviewCreate:
    """ 
        Attributes:
            definition (DefinitionPreviewCreateDefinition): An unsaved definition (see GET /api/v1/schemas/definition).
            inputs (DefinitionPreviewCreateInputs | Unset): Inputs; the schema's defaults fill the rest.
            trigger_payload (DefinitionPreviewCreateTriggerPayload | Unset): The fire's payload, as `trigger` in templates.
     """

    definition: DefinitionPreviewCreateDefinition
    inputs: DefinitionPreviewCreateInputs | Unset = UNSET
    trigger_payload: DefinitionPreviewCreateTriggerPayload | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.definition_preview_create_definition import DefinitionPreviewCreateDefinition # noqa: PLC0415
        from ..models.definition_preview_create_inputs import DefinitionPreviewCreateInputs # noqa: PLC0415
        from ..models.definition_preview_create_trigger_payload import DefinitionPreviewCreateTriggerPayload # noqa: PLC0415
        definition = self.definition.to_dict()

        inputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inputs, Unset):
            inputs = self.inputs.to_dict()

        trigger_payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.trigger_payload, Unset):
            trigger_payload = self.trigger_payload.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "definition": definition,
        })
        if inputs is not UNSET:
            field_dict["inputs"] = inputs
        if trigger_payload is not UNSET:
            field_dict["trigger_payload"] = trigger_payload

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition_preview_create_definition import DefinitionPreviewCreateDefinition # noqa: PLC0415
        from ..models.definition_preview_create_inputs import DefinitionPreviewCreateInputs # noqa: PLC0415
        from ..models.definition_preview_create_trigger_payload import DefinitionPreviewCreateTriggerPayload # noqa: PLC0415
        d = dict(src_dict)
        definition = DefinitionPreviewCreateDefinition.from_dict(d.pop("definition"))




        _inputs = d.pop("inputs", UNSET)
        inputs: DefinitionPreviewCreateInputs | Unset
        if isinstance(_inputs,  Unset):
            inputs = UNSET
        else:
            inputs = DefinitionPreviewCreateInputs.from_dict(_inputs)




        _trigger_payload = d.pop("trigger_payload", UNSET)
        trigger_payload: DefinitionPreviewCreateTriggerPayload | Unset
        if isinstance(_trigger_payload,  Unset):
            trigger_payload = UNSET
        else:
            trigger_payload = DefinitionPreviewCreateTriggerPayload.from_dict(_trigger_payload)




        definition_preview_create = cls(
            definition=definition,
            inputs=inputs,
            trigger_payload=trigger_payload,
        )

        return definition_preview_create

