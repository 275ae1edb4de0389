from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.run_step_out_error_type_0 import RunStepOutErrorType0





T = TypeVar("T", bound="RunStepOut")



@_attrs_define
class RunStepOut:
    """ 
        Attributes:
            action (str):
            attempt (int):
            config (Any | None):
            duration_ms (int | None):
            error (None | RunStepOutErrorType0):
            finished_at (datetime.datetime | None):
            output (Any | None):
            path (str): Which execution of the step the record is: its step_id, behind `<loop id>/<iteration>/` for each
                loop around it (`fetch/3/classify`).
            phase (str):
            started_at (datetime.datetime):
            status (str):
            step_id (str):
            step_index (int): The step's index within its own step list.
            suppressed (list[Any] | None | Unset): Calls a dry or verify run held back: capability, params, mode.
     """

    action: str
    attempt: int
    config: Any | None
    duration_ms: int | None
    error: None | RunStepOutErrorType0
    finished_at: datetime.datetime | None
    output: Any | None
    path: str
    phase: str
    started_at: datetime.datetime
    status: str
    step_id: str
    step_index: int
    suppressed: list[Any] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.run_step_out_error_type_0 import RunStepOutErrorType0 # noqa: PLC0415
        action = self.action

        attempt = self.attempt

        config: Any | None
        config = self.config

        duration_ms: int | None
        duration_ms = self.duration_ms

        error: dict[str, Any] | None
        if isinstance(self.error, RunStepOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        output: Any | None
        output = self.output

        path = self.path

        phase = self.phase

        started_at = self.started_at.isoformat()

        status = self.status

        step_id = self.step_id

        step_index = self.step_index

        suppressed: list[Any] | None | Unset
        if isinstance(self.suppressed, Unset):
            suppressed = UNSET
        elif isinstance(self.suppressed, list):
            suppressed = self.suppressed


        else:
            suppressed = self.suppressed


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "action": action,
            "attempt": attempt,
            "config": config,
            "duration_ms": duration_ms,
            "error": error,
            "finished_at": finished_at,
            "output": output,
            "path": path,
            "phase": phase,
            "started_at": started_at,
            "status": status,
            "step_id": step_id,
            "step_index": step_index,
        })
        if suppressed is not UNSET:
            field_dict["suppressed"] = suppressed

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_step_out_error_type_0 import RunStepOutErrorType0 # noqa: PLC0415
        d = dict(src_dict)
        action = d.pop("action")

        attempt = d.pop("attempt")

        def _parse_config(data: object) -> Any | None:
            if data is None:
                return data
            return cast(Any | None, data)

        config = _parse_config(d.pop("config"))


        def _parse_duration_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        duration_ms = _parse_duration_ms(d.pop("duration_ms"))


        def _parse_error(data: object) -> None | RunStepOutErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = RunStepOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunStepOutErrorType0, data)

        error = _parse_error(d.pop("error"))


        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))


        def _parse_output(data: object) -> Any | None:
            if data is None:
                return data
            return cast(Any | None, data)

        output = _parse_output(d.pop("output"))


        path = d.pop("path")

        phase = d.pop("phase")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))




        status = d.pop("status")

        step_id = d.pop("step_id")

        step_index = d.pop("step_index")

        def _parse_suppressed(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                suppressed_type_0 = cast(list[Any], data)

                return suppressed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        suppressed = _parse_suppressed(d.pop("suppressed", UNSET))


        run_step_out = cls(
            action=action,
            attempt=attempt,
            config=config,
            duration_ms=duration_ms,
            error=error,
            finished_at=finished_at,
            output=output,
            path=path,
            phase=phase,
            started_at=started_at,
            status=status,
            step_id=step_id,
            step_index=step_index,
            suppressed=suppressed,
        )


        run_step_out.additional_properties = d
        return run_step_out

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
