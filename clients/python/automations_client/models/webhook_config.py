from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.webhook_config_output_visibility import WebhookConfigOutputVisibility
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.webhook_config_input_mapping import WebhookConfigInputMapping





T = TypeVar("T", bound="WebhookConfig")



@_attrs_define
class WebhookConfig:
    """ 
        Attributes:
            input_mapping (WebhookConfigInputMapping | Unset): Input name -> JSONPath expression evaluated against the
                request body.
            output_visibility (WebhookConfigOutputVisibility | Unset): caller: this trigger's token may read its runs'
                output (else status and error only). Default: WebhookConfigOutputVisibility.NONE.
     """

    input_mapping: WebhookConfigInputMapping | Unset = UNSET
    output_visibility: WebhookConfigOutputVisibility | Unset = WebhookConfigOutputVisibility.NONE





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_config_input_mapping import WebhookConfigInputMapping # noqa: PLC0415
        input_mapping: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_mapping, Unset):
            input_mapping = self.input_mapping.to_dict()

        output_visibility: str | Unset = UNSET
        if not isinstance(self.output_visibility, Unset):
            output_visibility = self.output_visibility.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if input_mapping is not UNSET:
            field_dict["input_mapping"] = input_mapping
        if output_visibility is not UNSET:
            field_dict["output_visibility"] = output_visibility

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_config_input_mapping import WebhookConfigInputMapping # noqa: PLC0415
        d = dict(src_dict)
        _input_mapping = d.pop("input_mapping", UNSET)
        input_mapping: WebhookConfigInputMapping | Unset
        if isinstance(_input_mapping,  Unset):
            input_mapping = UNSET
        else:
            input_mapping = WebhookConfigInputMapping.from_dict(_input_mapping)




        _output_visibility = d.pop("output_visibility", UNSET)
        output_visibility: WebhookConfigOutputVisibility | Unset
        if isinstance(_output_visibility,  Unset):
            output_visibility = UNSET
        else:
            output_visibility = WebhookConfigOutputVisibility(_output_visibility)




        webhook_config = cls(
            input_mapping=input_mapping,
            output_visibility=output_visibility,
        )

        return webhook_config

