from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.preview_create_inputs import PreviewCreateInputs
  from ..models.preview_create_trigger_payload import PreviewCreateTriggerPayload





T = TypeVar("T", bound="PreviewCreate")



@_attrs_define
class PreviewCreate:
    """ 
        Attributes:
            inputs (PreviewCreateInputs | Unset): Inputs; the schema's defaults fill the rest.
            trigger_payload (PreviewCreateTriggerPayload | Unset): The fire's payload, as `trigger` in templates.
     """

    inputs: PreviewCreateInputs | Unset = UNSET
    trigger_payload: PreviewCreateTriggerPayload | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.preview_create_inputs import PreviewCreateInputs # noqa: PLC0415
        from ..models.preview_create_trigger_payload import PreviewCreateTriggerPayload # noqa: PLC0415
        inputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inputs, Unset):
            inputs = self.inputs.to_dict()

        trigger_payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.trigger_payload, Unset):
            trigger_payload = self.trigger_payload.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if inputs is not UNSET:
            field_dict["inputs"] = inputs
        if trigger_payload is not UNSET:
            field_dict["trigger_payload"] = trigger_payload

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preview_create_inputs import PreviewCreateInputs # noqa: PLC0415
        from ..models.preview_create_trigger_payload import PreviewCreateTriggerPayload # noqa: PLC0415
        d = dict(src_dict)
        _inputs = d.pop("inputs", UNSET)
        inputs: PreviewCreateInputs | Unset
        if isinstance(_inputs,  Unset):
            inputs = UNSET
        else:
            inputs = PreviewCreateInputs.from_dict(_inputs)




        _trigger_payload = d.pop("trigger_payload", UNSET)
        trigger_payload: PreviewCreateTriggerPayload | Unset
        if isinstance(_trigger_payload,  Unset):
            trigger_payload = UNSET
        else:
            trigger_payload = PreviewCreateTriggerPayload.from_dict(_trigger_payload)




        preview_create = cls(
            inputs=inputs,
            trigger_payload=trigger_payload,
        )

        return preview_create

