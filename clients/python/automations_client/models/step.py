from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.step_retry_backoff_type_0 import StepRetryBackoffType0
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.step_config import StepConfig





T = TypeVar("T", bound="Step")



@_attrs_define
class Step:
    """ One step of the plan: an action named by type, its config, and how its output is bound.

        Attributes:
            action (str):
            step_id (str):
            config (StepConfig | Unset):
            max_retries (int | None | Unset):
            name (None | str | Unset):
            output_as (None | str | Unset):
            retry_backoff (None | StepRetryBackoffType0 | Unset): How long to wait between this step's retries; overrides
                the policy's.
            timeout_seconds (int | None | Unset):
            when (None | str | Unset): Template expression; a false result skips the step.
     """

    action: str
    step_id: str
    config: StepConfig | Unset = UNSET
    max_retries: int | None | Unset = UNSET
    name: None | str | Unset = UNSET
    output_as: None | str | Unset = UNSET
    retry_backoff: None | StepRetryBackoffType0 | Unset = UNSET
    timeout_seconds: int | None | Unset = UNSET
    when: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.step_config import StepConfig # noqa: PLC0415
        action = self.action

        step_id = self.step_id

        config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.config, Unset):
            config = self.config.to_dict()

        max_retries: int | None | Unset
        if isinstance(self.max_retries, Unset):
            max_retries = UNSET
        else:
            max_retries = self.max_retries

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        output_as: None | str | Unset
        if isinstance(self.output_as, Unset):
            output_as = UNSET
        else:
            output_as = self.output_as

        retry_backoff: None | str | Unset
        if isinstance(self.retry_backoff, Unset):
            retry_backoff = UNSET
        elif isinstance(self.retry_backoff, StepRetryBackoffType0):
            retry_backoff = self.retry_backoff.value
        else:
            retry_backoff = self.retry_backoff

        timeout_seconds: int | None | Unset
        if isinstance(self.timeout_seconds, Unset):
            timeout_seconds = UNSET
        else:
            timeout_seconds = self.timeout_seconds

        when: None | str | Unset
        if isinstance(self.when, Unset):
            when = UNSET
        else:
            when = self.when


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "action": action,
            "step_id": step_id,
        })
        if config is not UNSET:
            field_dict["config"] = config
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if name is not UNSET:
            field_dict["name"] = name
        if output_as is not UNSET:
            field_dict["output_as"] = output_as
        if retry_backoff is not UNSET:
            field_dict["retry_backoff"] = retry_backoff
        if timeout_seconds is not UNSET:
            field_dict["timeout_seconds"] = timeout_seconds
        if when is not UNSET:
            field_dict["when"] = when

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_config import StepConfig # noqa: PLC0415
        d = dict(src_dict)
        action = d.pop("action")

        step_id = d.pop("step_id")

        _config = d.pop("config", UNSET)
        config: StepConfig | Unset
        if isinstance(_config,  Unset):
            config = UNSET
        else:
            config = StepConfig.from_dict(_config)




        def _parse_max_retries(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_retries = _parse_max_retries(d.pop("max_retries", UNSET))


        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_output_as(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output_as = _parse_output_as(d.pop("output_as", UNSET))


        def _parse_retry_backoff(data: object) -> None | StepRetryBackoffType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                retry_backoff_type_0 = StepRetryBackoffType0(data)



                return retry_backoff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StepRetryBackoffType0 | Unset, data)

        retry_backoff = _parse_retry_backoff(d.pop("retry_backoff", UNSET))


        def _parse_timeout_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_seconds = _parse_timeout_seconds(d.pop("timeout_seconds", UNSET))


        def _parse_when(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        when = _parse_when(d.pop("when", UNSET))


        step = cls(
            action=action,
            step_id=step_id,
            config=config,
            max_retries=max_retries,
            name=name,
            output_as=output_as,
            retry_backoff=retry_backoff,
            timeout_seconds=timeout_seconds,
            when=when,
        )

        return step

