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
  from ..models.draft_out_clarifications_item import DraftOutClarificationsItem
  from ..models.draft_out_definition_type_0 import DraftOutDefinitionType0
  from ..models.draft_out_diff_type_0 import DraftOutDiffType0
  from ..models.draft_out_estimate_type_0 import DraftOutEstimateType0
  from ..models.draft_out_write_policy_type_0 import DraftOutWritePolicyType0
  from ..models.flag_out import FlagOut
  from ..models.overlap_out import OverlapOut
  from ..models.problem_out import ProblemOut





T = TypeVar("T", bound="DraftOut")



@_attrs_define
class DraftOut:
    """ 
        Attributes:
            attempts (int): Generator calls in the last turn.
            automation_id (None | str): Set on a draft that changes an existing automation.
            base_version (int | None):
            clarifications (list[DraftOutClarificationsItem]):
            cost_usd (float): What authoring this draft has cost so far.
            created_at (datetime.datetime):
            created_by (str):
            definition (DraftOutDefinitionType0 | None):
            diff (DraftOutDiffType0 | None): RFC 6902 `patch` and `unified` text diff.
            estimate (DraftOutEstimateType0 | None): Worst-case LLM cost per run and per month.
            expires_at (datetime.datetime):
            flags (list[FlagOut]):
            id (str):
            model (str):
            notes (list[str]):
            problems (list[ProblemOut]):
            request (str):
            review_model (None | str):
            status (str): ready | needs_clarification | failed
            summary (None | str):
            turns (list[str]): The request and every message since, in order.
            updated_at (datetime.datetime):
            overlaps (list[OverlapOut] | Unset): Automations of the space the proposal fires, writes or means alike.
            write_policy (DraftOutWritePolicyType0 | None | Unset): `value`, `chosen_by` (proposed | human), `writes`
                (pointers) and a plain `explanation`; null when the proposal writes nothing outside the service and nobody chose
                a policy.
     """

    attempts: int
    automation_id: None | str
    base_version: int | None
    clarifications: list[DraftOutClarificationsItem]
    cost_usd: float
    created_at: datetime.datetime
    created_by: str
    definition: DraftOutDefinitionType0 | None
    diff: DraftOutDiffType0 | None
    estimate: DraftOutEstimateType0 | None
    expires_at: datetime.datetime
    flags: list[FlagOut]
    id: str
    model: str
    notes: list[str]
    problems: list[ProblemOut]
    request: str
    review_model: None | str
    status: str
    summary: None | str
    turns: list[str]
    updated_at: datetime.datetime
    overlaps: list[OverlapOut] | Unset = UNSET
    write_policy: DraftOutWritePolicyType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.draft_out_clarifications_item import DraftOutClarificationsItem # noqa: PLC0415
        from ..models.draft_out_definition_type_0 import DraftOutDefinitionType0 # noqa: PLC0415
        from ..models.draft_out_diff_type_0 import DraftOutDiffType0 # noqa: PLC0415
        from ..models.draft_out_estimate_type_0 import DraftOutEstimateType0 # noqa: PLC0415
        from ..models.draft_out_write_policy_type_0 import DraftOutWritePolicyType0 # noqa: PLC0415
        from ..models.flag_out import FlagOut # noqa: PLC0415
        from ..models.overlap_out import OverlapOut # noqa: PLC0415
        from ..models.problem_out import ProblemOut # noqa: PLC0415
        attempts = self.attempts

        automation_id: None | str
        automation_id = self.automation_id

        base_version: int | None
        base_version = self.base_version

        clarifications = []
        for clarifications_item_data in self.clarifications:
            clarifications_item = clarifications_item_data.to_dict()
            clarifications.append(clarifications_item)



        cost_usd = self.cost_usd

        created_at = self.created_at.isoformat()

        created_by = self.created_by

        definition: dict[str, Any] | None
        if isinstance(self.definition, DraftOutDefinitionType0):
            definition = self.definition.to_dict()
        else:
            definition = self.definition

        diff: dict[str, Any] | None
        if isinstance(self.diff, DraftOutDiffType0):
            diff = self.diff.to_dict()
        else:
            diff = self.diff

        estimate: dict[str, Any] | None
        if isinstance(self.estimate, DraftOutEstimateType0):
            estimate = self.estimate.to_dict()
        else:
            estimate = self.estimate

        expires_at = self.expires_at.isoformat()

        flags = []
        for flags_item_data in self.flags:
            flags_item = flags_item_data.to_dict()
            flags.append(flags_item)



        id = self.id

        model = self.model

        notes = self.notes



        problems = []
        for problems_item_data in self.problems:
            problems_item = problems_item_data.to_dict()
            problems.append(problems_item)



        request = self.request

        review_model: None | str
        review_model = self.review_model

        status = self.status

        summary: None | str
        summary = self.summary

        turns = self.turns



        updated_at = self.updated_at.isoformat()

        overlaps: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.overlaps, Unset):
            overlaps = []
            for overlaps_item_data in self.overlaps:
                overlaps_item = overlaps_item_data.to_dict()
                overlaps.append(overlaps_item)



        write_policy: dict[str, Any] | None | Unset
        if isinstance(self.write_policy, Unset):
            write_policy = UNSET
        elif isinstance(self.write_policy, DraftOutWritePolicyType0):
            write_policy = self.write_policy.to_dict()
        else:
            write_policy = self.write_policy


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "attempts": attempts,
            "automation_id": automation_id,
            "base_version": base_version,
            "clarifications": clarifications,
            "cost_usd": cost_usd,
            "created_at": created_at,
            "created_by": created_by,
            "definition": definition,
            "diff": diff,
            "estimate": estimate,
            "expires_at": expires_at,
            "flags": flags,
            "id": id,
            "model": model,
            "notes": notes,
            "problems": problems,
            "request": request,
            "review_model": review_model,
            "status": status,
            "summary": summary,
            "turns": turns,
            "updated_at": updated_at,
        })
        if overlaps is not UNSET:
            field_dict["overlaps"] = overlaps
        if write_policy is not UNSET:
            field_dict["write_policy"] = write_policy

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.draft_out_clarifications_item import DraftOutClarificationsItem # noqa: PLC0415
        from ..models.draft_out_definition_type_0 import DraftOutDefinitionType0 # noqa: PLC0415
        from ..models.draft_out_diff_type_0 import DraftOutDiffType0 # noqa: PLC0415
        from ..models.draft_out_estimate_type_0 import DraftOutEstimateType0 # noqa: PLC0415
        from ..models.draft_out_write_policy_type_0 import DraftOutWritePolicyType0 # noqa: PLC0415
        from ..models.flag_out import FlagOut # noqa: PLC0415
        from ..models.overlap_out import OverlapOut # noqa: PLC0415
        from ..models.problem_out import ProblemOut # noqa: PLC0415
        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_automation_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        automation_id = _parse_automation_id(d.pop("automation_id"))


        def _parse_base_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        base_version = _parse_base_version(d.pop("base_version"))


        clarifications = []
        _clarifications = d.pop("clarifications")
        for clarifications_item_data in (_clarifications):
            clarifications_item = DraftOutClarificationsItem.from_dict(clarifications_item_data)



            clarifications.append(clarifications_item)


        cost_usd = d.pop("cost_usd")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        created_by = d.pop("created_by")

        def _parse_definition(data: object) -> DraftOutDefinitionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                definition_type_0 = DraftOutDefinitionType0.from_dict(data)



                return definition_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DraftOutDefinitionType0 | None, data)

        definition = _parse_definition(d.pop("definition"))


        def _parse_diff(data: object) -> DraftOutDiffType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                diff_type_0 = DraftOutDiffType0.from_dict(data)



                return diff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DraftOutDiffType0 | None, data)

        diff = _parse_diff(d.pop("diff"))


        def _parse_estimate(data: object) -> DraftOutEstimateType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimate_type_0 = DraftOutEstimateType0.from_dict(data)



                return estimate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DraftOutEstimateType0 | None, data)

        estimate = _parse_estimate(d.pop("estimate"))


        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        flags = []
        _flags = d.pop("flags")
        for flags_item_data in (_flags):
            flags_item = FlagOut.from_dict(flags_item_data)



            flags.append(flags_item)


        id = d.pop("id")

        model = d.pop("model")

        notes = cast(list[str], d.pop("notes"))


        problems = []
        _problems = d.pop("problems")
        for problems_item_data in (_problems):
            problems_item = ProblemOut.from_dict(problems_item_data)



            problems.append(problems_item)


        request = d.pop("request")

        def _parse_review_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        review_model = _parse_review_model(d.pop("review_model"))


        status = d.pop("status")

        def _parse_summary(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        summary = _parse_summary(d.pop("summary"))


        turns = cast(list[str], d.pop("turns"))


        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        _overlaps = d.pop("overlaps", UNSET)
        overlaps: list[OverlapOut] | Unset = UNSET
        if _overlaps is not UNSET:
            overlaps = []
            for overlaps_item_data in _overlaps:
                overlaps_item = OverlapOut.from_dict(overlaps_item_data)



                overlaps.append(overlaps_item)


        def _parse_write_policy(data: object) -> DraftOutWritePolicyType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                write_policy_type_0 = DraftOutWritePolicyType0.from_dict(data)



                return write_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DraftOutWritePolicyType0 | None | Unset, data)

        write_policy = _parse_write_policy(d.pop("write_policy", UNSET))


        draft_out = cls(
            attempts=attempts,
            automation_id=automation_id,
            base_version=base_version,
            clarifications=clarifications,
            cost_usd=cost_usd,
            created_at=created_at,
            created_by=created_by,
            definition=definition,
            diff=diff,
            estimate=estimate,
            expires_at=expires_at,
            flags=flags,
            id=id,
            model=model,
            notes=notes,
            problems=problems,
            request=request,
            review_model=review_model,
            status=status,
            summary=summary,
            turns=turns,
            updated_at=updated_at,
            overlaps=overlaps,
            write_policy=write_policy,
        )


        draft_out.additional_properties = d
        return draft_out

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
