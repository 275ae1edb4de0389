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
  from ..models.invocation_out_error_type_0 import InvocationOutErrorType0
  from ..models.invocation_out_mode_rule_type_0 import InvocationOutModeRuleType0





T = TypeVar("T", bound="InvocationOut")



@_attrs_define
class InvocationOut:
    """ 
        Attributes:
            automation_id (UUID):
            capability (str):
            chosen_by (str): definition (a tight step) or agent (a model's tool call).
            completed_at (datetime.datetime | None):
            created_at (datetime.datetime):
            decided_at (datetime.datetime | None):
            decided_by (None | UUID):
            decision_scope (None | str):
            denied_reason (None | str):
            destructive (bool):
            duration_ms (int | None):
            error (InvocationOutErrorType0 | None):
            expires_at (datetime.datetime | None):
            id (UUID):
            mode (str):
            mode_source (str):
            params (Any): Redacted; secrets appear as references.
            result (Any): Redacted, at most 10 KB (`_truncated: true` when cut).
            risk (str):
            run_id (UUID):
            space_id (UUID):
            status (str):
            step_id (str):
            tier (str):
            mode_rule (InvocationOutModeRuleType0 | None | Unset): The mode rule that decided the call, e.g. {"level":
                "automation", "index": 0}.
            params_hash (None | str | Unset): For a call that asked for approval: SHA-256 of its full arguments (canonical
                JSON, secret references as written). The approval covers only a call whose arguments hash the same.
            required_approvals (int | Unset): Distinct members who must approve the call. Default: 1.
            target (None | str | Unset): For a call that asked for approval: what it acts on (an HTTP request's method and
                URL, an MCP tool), which approving `always` grants for its step.
     """

    automation_id: UUID
    capability: str
    chosen_by: str
    completed_at: datetime.datetime | None
    created_at: datetime.datetime
    decided_at: datetime.datetime | None
    decided_by: None | UUID
    decision_scope: None | str
    denied_reason: None | str
    destructive: bool
    duration_ms: int | None
    error: InvocationOutErrorType0 | None
    expires_at: datetime.datetime | None
    id: UUID
    mode: str
    mode_source: str
    params: Any
    result: Any
    risk: str
    run_id: UUID
    space_id: UUID
    status: str
    step_id: str
    tier: str
    mode_rule: InvocationOutModeRuleType0 | None | Unset = UNSET
    params_hash: None | str | Unset = UNSET
    required_approvals: int | Unset = 1
    target: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.invocation_out_error_type_0 import InvocationOutErrorType0 # noqa: PLC0415
        from ..models.invocation_out_mode_rule_type_0 import InvocationOutModeRuleType0 # noqa: PLC0415
        automation_id = str(self.automation_id)

        capability = self.capability

        chosen_by = self.chosen_by

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        created_at = self.created_at.isoformat()

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        decided_by: None | str
        if isinstance(self.decided_by, UUID):
            decided_by = str(self.decided_by)
        else:
            decided_by = self.decided_by

        decision_scope: None | str
        decision_scope = self.decision_scope

        denied_reason: None | str
        denied_reason = self.denied_reason

        destructive = self.destructive

        duration_ms: int | None
        duration_ms = self.duration_ms

        error: dict[str, Any] | None
        if isinstance(self.error, InvocationOutErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = str(self.id)

        mode = self.mode

        mode_source = self.mode_source

        params = self.params

        result = self.result

        risk = self.risk

        run_id = str(self.run_id)

        space_id = str(self.space_id)

        status = self.status

        step_id = self.step_id

        tier = self.tier

        mode_rule: dict[str, Any] | None | Unset
        if isinstance(self.mode_rule, Unset):
            mode_rule = UNSET
        elif isinstance(self.mode_rule, InvocationOutModeRuleType0):
            mode_rule = self.mode_rule.to_dict()
        else:
            mode_rule = self.mode_rule

        params_hash: None | str | Unset
        if isinstance(self.params_hash, Unset):
            params_hash = UNSET
        else:
            params_hash = self.params_hash

        required_approvals = self.required_approvals

        target: None | str | Unset
        if isinstance(self.target, Unset):
            target = UNSET
        else:
            target = self.target


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "automation_id": automation_id,
            "capability": capability,
            "chosen_by": chosen_by,
            "completed_at": completed_at,
            "created_at": created_at,
            "decided_at": decided_at,
            "decided_by": decided_by,
            "decision_scope": decision_scope,
            "denied_reason": denied_reason,
            "destructive": destructive,
            "duration_ms": duration_ms,
            "error": error,
            "expires_at": expires_at,
            "id": id,
            "mode": mode,
            "mode_source": mode_source,
            "params": params,
            "result": result,
            "risk": risk,
            "run_id": run_id,
            "space_id": space_id,
            "status": status,
            "step_id": step_id,
            "tier": tier,
        })
        if mode_rule is not UNSET:
            field_dict["mode_rule"] = mode_rule
        if params_hash is not UNSET:
            field_dict["params_hash"] = params_hash
        if required_approvals is not UNSET:
            field_dict["required_approvals"] = required_approvals
        if target is not UNSET:
            field_dict["target"] = target

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invocation_out_error_type_0 import InvocationOutErrorType0 # noqa: PLC0415
        from ..models.invocation_out_mode_rule_type_0 import InvocationOutModeRuleType0 # noqa: PLC0415
        d = dict(src_dict)
        automation_id = UUID(d.pop("automation_id"))




        capability = d.pop("capability")

        chosen_by = d.pop("chosen_by")

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)



                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))


        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)



                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))


        def _parse_decided_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_by_type_0 = UUID(data)



                return decided_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        decided_by = _parse_decided_by(d.pop("decided_by"))


        def _parse_decision_scope(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        decision_scope = _parse_decision_scope(d.pop("decision_scope"))


        def _parse_denied_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        denied_reason = _parse_denied_reason(d.pop("denied_reason"))


        destructive = d.pop("destructive")

        def _parse_duration_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        duration_ms = _parse_duration_ms(d.pop("duration_ms"))


        def _parse_error(data: object) -> InvocationOutErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = InvocationOutErrorType0.from_dict(data)



                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InvocationOutErrorType0 | None, data)

        error = _parse_error(d.pop("error"))


        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))


        id = UUID(d.pop("id"))




        mode = d.pop("mode")

        mode_source = d.pop("mode_source")

        params = d.pop("params")

        result = d.pop("result")

        risk = d.pop("risk")

        run_id = UUID(d.pop("run_id"))




        space_id = UUID(d.pop("space_id"))




        status = d.pop("status")

        step_id = d.pop("step_id")

        tier = d.pop("tier")

        def _parse_mode_rule(data: object) -> InvocationOutModeRuleType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mode_rule_type_0 = InvocationOutModeRuleType0.from_dict(data)



                return mode_rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InvocationOutModeRuleType0 | None | Unset, data)

        mode_rule = _parse_mode_rule(d.pop("mode_rule", UNSET))


        def _parse_params_hash(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        params_hash = _parse_params_hash(d.pop("params_hash", UNSET))


        required_approvals = d.pop("required_approvals", UNSET)

        def _parse_target(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target = _parse_target(d.pop("target", UNSET))


        invocation_out = cls(
            automation_id=automation_id,
            capability=capability,
            chosen_by=chosen_by,
            completed_at=completed_at,
            created_at=created_at,
            decided_at=decided_at,
            decided_by=decided_by,
            decision_scope=decision_scope,
            denied_reason=denied_reason,
            destructive=destructive,
            duration_ms=duration_ms,
            error=error,
            expires_at=expires_at,
            id=id,
            mode=mode,
            mode_source=mode_source,
            params=params,
            result=result,
            risk=risk,
            run_id=run_id,
            space_id=space_id,
            status=status,
            step_id=step_id,
            tier=tier,
            mode_rule=mode_rule,
            params_hash=params_hash,
            required_approvals=required_approvals,
            target=target,
        )


        invocation_out.additional_properties = d
        return invocation_out

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
