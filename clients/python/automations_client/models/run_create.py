from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.run_create_llm import RunCreateLlm
from ..models.run_create_mode import RunCreateMode
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.run_create_inputs import RunCreateInputs





T = TypeVar("T", bound="RunCreate")



@_attrs_define
class RunCreate:
    """ 
        Attributes:
            callback_url (None | str | Unset): Also deliver this run's terminal event here, signed with the space's callback
                secret.
            inputs (RunCreateInputs | Unset): Inputs; the inputs schema's defaults fill the rest.
            llm (RunCreateLlm | Unset): skip: a dry or verify run calls no model. Default: RunCreateLlm.RUN.
            mode (RunCreateMode | Unset): live; dry_run (every write held back, reads run); verify (external writes held
                back). Default: RunCreateMode.LIVE.
            priority (int | Unset): Where the run stands if it is queued: higher first, then oldest first. Default: 0.
            wait_seconds (float | Unset): Answer with the finished run if it ends within this many seconds (else 202 as
                usual). Default: 0.0.
     """

    callback_url: None | str | Unset = UNSET
    inputs: RunCreateInputs | Unset = UNSET
    llm: RunCreateLlm | Unset = RunCreateLlm.RUN
    mode: RunCreateMode | Unset = RunCreateMode.LIVE
    priority: int | Unset = 0
    wait_seconds: float | Unset = 0.0





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_create_inputs import RunCreateInputs # noqa: PLC0415
        callback_url: None | str | Unset
        if isinstance(self.callback_url, Unset):
            callback_url = UNSET
        else:
            callback_url = self.callback_url

        inputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inputs, Unset):
            inputs = self.inputs.to_dict()

        llm: str | Unset = UNSET
        if not isinstance(self.llm, Unset):
            llm = self.llm.value


        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value


        priority = self.priority

        wait_seconds = self.wait_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url
        if inputs is not UNSET:
            field_dict["inputs"] = inputs
        if llm is not UNSET:
            field_dict["llm"] = llm
        if mode is not UNSET:
            field_dict["mode"] = mode
        if priority is not UNSET:
            field_dict["priority"] = priority
        if wait_seconds is not UNSET:
            field_dict["wait_seconds"] = wait_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_create_inputs import RunCreateInputs # noqa: PLC0415
        d = dict(src_dict)
        def _parse_callback_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        callback_url = _parse_callback_url(d.pop("callback_url", UNSET))


        _inputs = d.pop("inputs", UNSET)
        inputs: RunCreateInputs | Unset
        if isinstance(_inputs,  Unset):
            inputs = UNSET
        else:
            inputs = RunCreateInputs.from_dict(_inputs)




        _llm = d.pop("llm", UNSET)
        llm: RunCreateLlm | Unset
        if isinstance(_llm,  Unset):
            llm = UNSET
        else:
            llm = RunCreateLlm(_llm)




        _mode = d.pop("mode", UNSET)
        mode: RunCreateMode | Unset
        if isinstance(_mode,  Unset):
            mode = UNSET
        else:
            mode = RunCreateMode(_mode)




        priority = d.pop("priority", UNSET)

        wait_seconds = d.pop("wait_seconds", UNSET)

        run_create = cls(
            callback_url=callback_url,
            inputs=inputs,
            llm=llm,
            mode=mode,
            priority=priority,
            wait_seconds=wait_seconds,
        )

        return run_create

