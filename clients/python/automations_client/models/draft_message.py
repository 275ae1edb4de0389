from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.draft_message_answers import DraftMessageAnswers





T = TypeVar("T", bound="DraftMessage")



@_attrs_define
class DraftMessage:
    """ 
        Attributes:
            answers (DraftMessageAnswers | Unset): Answers to the draft's clarifications, by their id (q1, q2, …).
            message (None | str | Unset): What to change, in plain words.
     """

    answers: DraftMessageAnswers | Unset = UNSET
    message: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.draft_message_answers import DraftMessageAnswers # noqa: PLC0415
        answers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.answers, Unset):
            answers = self.answers.to_dict()

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if answers is not UNSET:
            field_dict["answers"] = answers
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.draft_message_answers import DraftMessageAnswers # noqa: PLC0415
        d = dict(src_dict)
        _answers = d.pop("answers", UNSET)
        answers: DraftMessageAnswers | Unset
        if isinstance(_answers,  Unset):
            answers = UNSET
        else:
            answers = DraftMessageAnswers.from_dict(_answers)




        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))


        draft_message = cls(
            answers=answers,
            message=message,
        )

        return draft_message

