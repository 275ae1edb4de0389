from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.ran_as_out import RanAsOut
  from ..models.run_out_error_type_0 import RunOutErrorType0
  from ..models.run_out_inputs import RunOutInputs





T = TypeVar("T", bound="RunOut")



@_attrs_define
class RunOut:
    """ 
        Attributes:
            attempt (int): How many times a worker has claimed the run.
            automation_id (UUID):
            automation_version (int):
            cancel_requested (bool):
            cost_usd (float):
            created_at (datetime.datetime):
            error (None | RunOutErrorType0):
            failed_step_id (None | str):
            finished_at (datetime.datetime | None):
            id (UUID):
            inputs (RunOutInputs):
            output (Any | None):
            queue (str):
            reason (None | str):
            retry_at (datetime.datetime | None):
            space_id (UUID):
            started_at (datetime.datetime | None):
            status (str):
            trigger_id (None | UUID):
            trigger_type (str):
            children_cost_usd (float | Unset): Model spend of its finished child runs (counted against its budget; not in
                cost_usd). Default: 0.0.
            depth (int | Unset): 0 for a top run; a child is its parent's depth + 1. Default: 0.
            llm_mode (str | Unset):  Default: 'run'.
            mode (str | Unset):  Default: 'live'.
            parent_path (None | str | Unset): The parent's step path that started it.
            parent_run_id (None | Unset | UUID): The run whose call_automation step started this one (its children: GET
                /runs?parent_run_id=).
            priority (int | Unset):  Default: 0.
            promoted_at (datetime.datetime | None | Unset): When it left the queue.
            promotion_reason (None | str | Unset): Why it left the queue then.
            ran_as (None | RanAsOut | Unset): Who the run acts as: who started it by hand, else the automation's creator.
            replay_of (None | Unset | UUID): The run this one replays.
            url (str | Unset):  Default: ''.
     """

    attempt: int
    automation_id: UUID
    automation_version: int
    cancel_requested: bool
    cost_usd: float
    created_at: datetime.datetime
    error: None | RunOutErrorType0
    failed_step_id: None | str
    finished_at: datetime.datetime | None
    id: UUID
    inputs: RunOutInputs
    output: Any | None
    queue: str
    reason: None | str
    retry_at: datetime.datetime | None
    space_id: UUID
    started_at: datetime.datetime | None
    status: str
    trigger_id: None | UUID
    trigger_type: str
    children_cost_usd: float | Unset = 0.0
    depth: int | Unset = 0
    llm_mode: str | Unset = 'run'
    mode: str | Unset = 'live'
    parent_path: None | str | Unset = UNSET
    parent_run_id: None | Unset | UUID = UNSET
    priority: int | Unset = 0
    promoted_at: datetime.datetime | None | Unset = UNSET
    promotion_reason: None | str | Unset = UNSET
    ran_as: None | RanAsOut | Unset = UNSET
    replay_of: None | Unset | UUID = UNSET
    url: str | Unset = ''
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ran_as_out import RanAsOut # noqa: PLC0415
        from ..models.run_out_error_type_0 import RunOutErrorType0 # noqa: PLC0415
        from ..models.run_out_inputs import RunOutInputs # noqa: PLC0415
        attempt = self.attempt

        automation_id = str(self.automation_id)

        automation_version = self.automation_version

        cancel_requested = self.cancel_requested

        cost_usd = self.cost_usd

        created_at = self.created_at.isoformat()

        error: dict[str, Any] | None
        if isinstance(self.error, RunOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        failed_step_id: None | str
        failed_step_id = self.failed_step_id

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = str(self.id)

        inputs = self.inputs.to_dict()

        output: Any | None
        output = self.output

        queue = self.queue

        reason: None | str
        reason = self.reason

        retry_at: None | str
        if isinstance(self.retry_at, datetime.datetime):
            retry_at = self.retry_at.isoformat()
        else:
            retry_at = self.retry_at

        space_id = str(self.space_id)

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status

        trigger_id: None | str
        if isinstance(self.trigger_id, UUID):
            trigger_id = str(self.trigger_id)
        else:
            trigger_id = self.trigger_id

        trigger_type = self.trigger_type

        children_cost_usd = self.children_cost_usd

        depth = self.depth

        llm_mode = self.llm_mode

        mode = self.mode

        parent_path: None | str | Unset
        if isinstance(self.parent_path, Unset):
            parent_path = UNSET
        else:
            parent_path = self.parent_path

        parent_run_id: None | str | Unset
        if isinstance(self.parent_run_id, Unset):
            parent_run_id = UNSET
        elif isinstance(self.parent_run_id, UUID):
            parent_run_id = str(self.parent_run_id)
        else:
            parent_run_id = self.parent_run_id

        priority = self.priority

        promoted_at: None | str | Unset
        if isinstance(self.promoted_at, Unset):
            promoted_at = UNSET
        elif isinstance(self.promoted_at, datetime.datetime):
            promoted_at = self.promoted_at.isoformat()
        else:
            promoted_at = self.promoted_at

        promotion_reason: None | str | Unset
        if isinstance(self.promotion_reason, Unset):
            promotion_reason = UNSET
        else:
            promotion_reason = self.promotion_reason

        ran_as: dict[str, Any] | None | Unset
        if isinstance(self.ran_as, Unset):
            ran_as = UNSET
        elif isinstance(self.ran_as, RanAsOut):
            ran_as = self.ran_as.to_dict()
        else:
            ran_as = self.ran_as

        replay_of: None | str | Unset
        if isinstance(self.replay_of, Unset):
            replay_of = UNSET
        elif isinstance(self.replay_of, UUID):
            replay_of = str(self.replay_of)
        else:
            replay_of = self.replay_of

        url = self.url


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempt": attempt,
            "automation_id": automation_id,
            "automation_version": automation_version,
            "cancel_requested": cancel_requested,
            "cost_usd": cost_usd,
            "created_at": created_at,
            "error": error,
            "failed_step_id": failed_step_id,
            "finished_at": finished_at,
            "id": id,
            "inputs": inputs,
            "output": output,
            "queue": queue,
            "reason": reason,
            "retry_at": retry_at,
            "space_id": space_id,
            "started_at": started_at,
            "status": status,
            "trigger_id": trigger_id,
            "trigger_type": trigger_type,
        })
        if children_cost_usd is not UNSET:
            field_dict["children_cost_usd"] = children_cost_usd
        if depth is not UNSET:
            field_dict["depth"] = depth
        if llm_mode is not UNSET:
            field_dict["llm_mode"] = llm_mode
        if mode is not UNSET:
            field_dict["mode"] = mode
        if parent_path is not UNSET:
            field_dict["parent_path"] = parent_path
        if parent_run_id is not UNSET:
            field_dict["parent_run_id"] = parent_run_id
        if priority is not UNSET:
            field_dict["priority"] = priority
        if promoted_at is not UNSET:
            field_dict["promoted_at"] = promoted_at
        if promotion_reason is not UNSET:
            field_dict["promotion_reason"] = promotion_reason
        if ran_as is not UNSET:
            field_dict["ran_as"] = ran_as
        if replay_of is not UNSET:
            field_dict["replay_of"] = replay_of
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ran_as_out import RanAsOut # noqa: PLC0415
        from ..models.run_out_error_type_0 import RunOutErrorType0 # noqa: PLC0415
        from ..models.run_out_inputs import RunOutInputs # noqa: PLC0415
        d = dict(src_dict)
        attempt = d.pop("attempt")

        automation_id = UUID(d.pop("automation_id"))




        automation_version = d.pop("automation_version")

        cancel_requested = d.pop("cancel_requested")

        cost_usd = d.pop("cost_usd")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_error(data: object) -> None | RunOutErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = RunOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunOutErrorType0, data)

        error = _parse_error(d.pop("error"))


        def _parse_failed_step_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failed_step_id = _parse_failed_step_id(d.pop("failed_step_id"))


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


        id = UUID(d.pop("id"))




        inputs = RunOutInputs.from_dict(d.pop("inputs"))




        def _parse_output(data: object) -> Any | None:
            if data is None:
                return data
            return cast(Any | None, data)

        output = _parse_output(d.pop("output"))


        queue = d.pop("queue")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))


        def _parse_retry_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                retry_at_type_0 = datetime.datetime.fromisoformat(data)



                return retry_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        retry_at = _parse_retry_at(d.pop("retry_at"))


        space_id = UUID(d.pop("space_id"))




        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)



                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))


        status = d.pop("status")

        def _parse_trigger_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                trigger_id_type_0 = UUID(data)



                return trigger_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        trigger_id = _parse_trigger_id(d.pop("trigger_id"))


        trigger_type = d.pop("trigger_type")

        children_cost_usd = d.pop("children_cost_usd", UNSET)

        depth = d.pop("depth", UNSET)

        llm_mode = d.pop("llm_mode", UNSET)

        mode = d.pop("mode", UNSET)

        def _parse_parent_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent_path = _parse_parent_path(d.pop("parent_path", UNSET))


        def _parse_parent_run_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_run_id_type_0 = UUID(data)



                return parent_run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_run_id = _parse_parent_run_id(d.pop("parent_run_id", UNSET))


        priority = d.pop("priority", UNSET)

        def _parse_promoted_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                promoted_at_type_0 = datetime.datetime.fromisoformat(data)



                return promoted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        promoted_at = _parse_promoted_at(d.pop("promoted_at", UNSET))


        def _parse_promotion_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        promotion_reason = _parse_promotion_reason(d.pop("promotion_reason", UNSET))


        def _parse_ran_as(data: object) -> None | RanAsOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ran_as_type_0 = RanAsOut.from_dict(data)



                return ran_as_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RanAsOut | Unset, data)

        ran_as = _parse_ran_as(d.pop("ran_as", UNSET))


        def _parse_replay_of(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                replay_of_type_0 = UUID(data)



                return replay_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        replay_of = _parse_replay_of(d.pop("replay_of", UNSET))


        url = d.pop("url", UNSET)

        run_out = cls(
            attempt=attempt,
            automation_id=automation_id,
            automation_version=automation_version,
            cancel_requested=cancel_requested,
            cost_usd=cost_usd,
            created_at=created_at,
            error=error,
            failed_step_id=failed_step_id,
            finished_at=finished_at,
            id=id,
            inputs=inputs,
            output=output,
            queue=queue,
            reason=reason,
            retry_at=retry_at,
            space_id=space_id,
            started_at=started_at,
            status=status,
            trigger_id=trigger_id,
            trigger_type=trigger_type,
            children_cost_usd=children_cost_usd,
            depth=depth,
            llm_mode=llm_mode,
            mode=mode,
            parent_path=parent_path,
            parent_run_id=parent_run_id,
            priority=priority,
            promoted_at=promoted_at,
            promotion_reason=promotion_reason,
            ran_as=ran_as,
            replay_of=replay_of,
            url=url,
        )


        run_out.additional_properties = d
        return run_out

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
