from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.execution_policy_concurrency import ExecutionPolicyConcurrency
from ..models.execution_policy_retry_backoff import ExecutionPolicyRetryBackoff
from ..models.execution_policy_write_policy import ExecutionPolicyWritePolicy
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.step import Step
  from ..models.tool_grant import ToolGrant





T = TypeVar("T", bound="ExecutionPolicy")



@_attrs_define
class ExecutionPolicy:
    """ How runs of the automation are executed: limits, retries, concurrency, budget, failure steps.

        Attributes:
            budget_cap_usd (float | None | Unset): Per run: LLM spend above this fails the run (budget_exceeded).
            concurrency (ExecutionPolicyConcurrency | Unset):  Default: ExecutionPolicyConcurrency.ALLOW_PARALLEL.
            cost_cap_daily_usd (float | None | Unset): Per automation and UTC day: once reached, fires are dropped and a
                running run stops at its next model call (unset: the operator's default,
                AUTOMATIONS_DEFAULT_DAILY_COST_CAP_USD).
            max_llm_tokens (int | None | Unset): Per run: LLM input + output tokens above this fail the run (unset: the
                operator's default, AUTOMATIONS_DEFAULT_RUN_TOKEN_CAP).
            max_retries (int | Unset):  Default: 0.
            on_failure (list[Step] | Unset):
            retry_backoff (ExecutionPolicyRetryBackoff | Unset):  Default: ExecutionPolicyRetryBackoff.EXPONENTIAL.
            timeout_seconds (int | Unset):  Default: 600.
            tool_grants (list[ToolGrant] | None | Unset): When present, every capability call must fit one of these grants.
            write_policy (ExecutionPolicyWritePolicy | Unset): always_draft: a write that inference would allow needs
                approval instead. Default: ExecutionPolicyWritePolicy.AUTO_CONFIRM_SAFE.
     """

    budget_cap_usd: float | None | Unset = UNSET
    concurrency: ExecutionPolicyConcurrency | Unset = ExecutionPolicyConcurrency.ALLOW_PARALLEL
    cost_cap_daily_usd: float | None | Unset = UNSET
    max_llm_tokens: int | None | Unset = UNSET
    max_retries: int | Unset = 0
    on_failure: list[Step] | Unset = UNSET
    retry_backoff: ExecutionPolicyRetryBackoff | Unset = ExecutionPolicyRetryBackoff.EXPONENTIAL
    timeout_seconds: int | Unset = 600
    tool_grants: list[ToolGrant] | None | Unset = UNSET
    write_policy: ExecutionPolicyWritePolicy | Unset = ExecutionPolicyWritePolicy.AUTO_CONFIRM_SAFE





    def to_dict(self) -> dict[str, Any]:
        from ..models.step import Step # noqa: PLC0415
        from ..models.tool_grant import ToolGrant # noqa: PLC0415
        budget_cap_usd: float | None | Unset
        if isinstance(self.budget_cap_usd, Unset):
            budget_cap_usd = UNSET
        else:
            budget_cap_usd = self.budget_cap_usd

        concurrency: str | Unset = UNSET
        if not isinstance(self.concurrency, Unset):
            concurrency = self.concurrency.value


        cost_cap_daily_usd: float | None | Unset
        if isinstance(self.cost_cap_daily_usd, Unset):
            cost_cap_daily_usd = UNSET
        else:
            cost_cap_daily_usd = self.cost_cap_daily_usd

        max_llm_tokens: int | None | Unset
        if isinstance(self.max_llm_tokens, Unset):
            max_llm_tokens = UNSET
        else:
            max_llm_tokens = self.max_llm_tokens

        max_retries = self.max_retries

        on_failure: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.on_failure, Unset):
            on_failure = []
            for on_failure_item_data in self.on_failure:
                on_failure_item = on_failure_item_data.to_dict()
                on_failure.append(on_failure_item)



        retry_backoff: str | Unset = UNSET
        if not isinstance(self.retry_backoff, Unset):
            retry_backoff = self.retry_backoff.value


        timeout_seconds = self.timeout_seconds

        tool_grants: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_grants, Unset):
            tool_grants = UNSET
        elif isinstance(self.tool_grants, list):
            tool_grants = []
            for tool_grants_type_0_item_data in self.tool_grants:
                tool_grants_type_0_item = tool_grants_type_0_item_data.to_dict()
                tool_grants.append(tool_grants_type_0_item)


        else:
            tool_grants = self.tool_grants

        write_policy: str | Unset = UNSET
        if not isinstance(self.write_policy, Unset):
            write_policy = self.write_policy.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if budget_cap_usd is not UNSET:
            field_dict["budget_cap_usd"] = budget_cap_usd
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if cost_cap_daily_usd is not UNSET:
            field_dict["cost_cap_daily_usd"] = cost_cap_daily_usd
        if max_llm_tokens is not UNSET:
            field_dict["max_llm_tokens"] = max_llm_tokens
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if on_failure is not UNSET:
            field_dict["on_failure"] = on_failure
        if retry_backoff is not UNSET:
            field_dict["retry_backoff"] = retry_backoff
        if timeout_seconds is not UNSET:
            field_dict["timeout_seconds"] = timeout_seconds
        if tool_grants is not UNSET:
            field_dict["tool_grants"] = tool_grants
        if write_policy is not UNSET:
            field_dict["write_policy"] = write_policy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step import Step # noqa: PLC0415
        from ..models.tool_grant import ToolGrant # noqa: PLC0415
        d = dict(src_dict)
        def _parse_budget_cap_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        budget_cap_usd = _parse_budget_cap_usd(d.pop("budget_cap_usd", UNSET))


        _concurrency = d.pop("concurrency", UNSET)
        concurrency: ExecutionPolicyConcurrency | Unset
        if isinstance(_concurrency,  Unset):
            concurrency = UNSET
        else:
            concurrency = ExecutionPolicyConcurrency(_concurrency)




        def _parse_cost_cap_daily_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_cap_daily_usd = _parse_cost_cap_daily_usd(d.pop("cost_cap_daily_usd", UNSET))


        def _parse_max_llm_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_llm_tokens = _parse_max_llm_tokens(d.pop("max_llm_tokens", UNSET))


        max_retries = d.pop("max_retries", UNSET)

        _on_failure = d.pop("on_failure", UNSET)
        on_failure: list[Step] | Unset = UNSET
        if _on_failure is not UNSET:
            on_failure = []
            for on_failure_item_data in _on_failure:
                on_failure_item = Step.from_dict(on_failure_item_data)



                on_failure.append(on_failure_item)


        _retry_backoff = d.pop("retry_backoff", UNSET)
        retry_backoff: ExecutionPolicyRetryBackoff | Unset
        if isinstance(_retry_backoff,  Unset):
            retry_backoff = UNSET
        else:
            retry_backoff = ExecutionPolicyRetryBackoff(_retry_backoff)




        timeout_seconds = d.pop("timeout_seconds", UNSET)

        def _parse_tool_grants(data: object) -> list[ToolGrant] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_grants_type_0 = []
                _tool_grants_type_0 = data
                for tool_grants_type_0_item_data in (_tool_grants_type_0):
                    tool_grants_type_0_item = ToolGrant.from_dict(tool_grants_type_0_item_data)



                    tool_grants_type_0.append(tool_grants_type_0_item)

                return tool_grants_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolGrant] | None | Unset, data)

        tool_grants = _parse_tool_grants(d.pop("tool_grants", UNSET))


        _write_policy = d.pop("write_policy", UNSET)
        write_policy: ExecutionPolicyWritePolicy | Unset
        if isinstance(_write_policy,  Unset):
            write_policy = UNSET
        else:
            write_policy = ExecutionPolicyWritePolicy(_write_policy)




        execution_policy = cls(
            budget_cap_usd=budget_cap_usd,
            concurrency=concurrency,
            cost_cap_daily_usd=cost_cap_daily_usd,
            max_llm_tokens=max_llm_tokens,
            max_retries=max_retries,
            on_failure=on_failure,
            retry_backoff=retry_backoff,
            timeout_seconds=timeout_seconds,
            tool_grants=tool_grants,
            write_policy=write_policy,
        )

        return execution_policy

