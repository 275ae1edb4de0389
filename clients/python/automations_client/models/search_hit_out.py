from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="SearchHitOut")



@_attrs_define
class SearchHitOut:
    """ 
        Attributes:
            chunk_index (int):
            document_id (UUID):
            score (float):
            snippet (str):
            tags (list[str]):
            title (str):
     """

    chunk_index: int
    document_id: UUID
    score: float
    snippet: str
    tags: list[str]
    title: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        chunk_index = self.chunk_index

        document_id = str(self.document_id)

        score = self.score

        snippet = self.snippet

        tags = self.tags



        title = self.title


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "chunk_index": chunk_index,
            "document_id": document_id,
            "score": score,
            "snippet": snippet,
            "tags": tags,
            "title": title,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chunk_index = d.pop("chunk_index")

        document_id = UUID(d.pop("document_id"))




        score = d.pop("score")

        snippet = d.pop("snippet")

        tags = cast(list[str], d.pop("tags"))


        title = d.pop("title")

        search_hit_out = cls(
            chunk_index=chunk_index,
            document_id=document_id,
            score=score,
            snippet=snippet,
            tags=tags,
            title=title,
        )


        search_hit_out.additional_properties = d
        return search_hit_out

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
