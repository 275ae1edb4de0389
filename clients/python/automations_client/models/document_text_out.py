from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.document_text_out_status import DocumentTextOutStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.document_text_out_metadata import DocumentTextOutMetadata





T = TypeVar("T", bound="DocumentTextOut")



@_attrs_define
class DocumentTextOut:
    """ 
        Attributes:
            chunk_count (int):
            created_at (datetime.datetime):
            format_ (str):
            id (UUID):
            indexed_at (datetime.datetime | None):
            metadata (DocumentTextOutMetadata):
            next_offset (int | None): Pass as offset to read on; null at the end.
            revision (int):
            size_bytes (int):
            source (str): Where it came from: api, upload, artifact or http_request.
            source_url (None | str):
            status (DocumentTextOutStatus):
            status_reason (None | str):
            tags (list[str]):
            text (str): A bounded part of the text, from text_offset.
            text_offset (int):
            title (str):
            total_chars (int):
            updated_at (datetime.datetime):
     """

    chunk_count: int
    created_at: datetime.datetime
    format_: str
    id: UUID
    indexed_at: datetime.datetime | None
    metadata: DocumentTextOutMetadata
    next_offset: int | None
    revision: int
    size_bytes: int
    source: str
    source_url: None | str
    status: DocumentTextOutStatus
    status_reason: None | str
    tags: list[str]
    text: str
    text_offset: int
    title: str
    total_chars: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.document_text_out_metadata import DocumentTextOutMetadata # noqa: PLC0415
        chunk_count = self.chunk_count

        created_at = self.created_at.isoformat()

        format_ = self.format_

        id = str(self.id)

        indexed_at: None | str
        if isinstance(self.indexed_at, datetime.datetime):
            indexed_at = self.indexed_at.isoformat()
        else:
            indexed_at = self.indexed_at

        metadata = self.metadata.to_dict()

        next_offset: int | None
        next_offset = self.next_offset

        revision = self.revision

        size_bytes = self.size_bytes

        source = self.source

        source_url: None | str
        source_url = self.source_url

        status = self.status.value

        status_reason: None | str
        status_reason = self.status_reason

        tags = self.tags



        text = self.text

        text_offset = self.text_offset

        title = self.title

        total_chars = self.total_chars

        updated_at = self.updated_at.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "chunk_count": chunk_count,
            "created_at": created_at,
            "format": format_,
            "id": id,
            "indexed_at": indexed_at,
            "metadata": metadata,
            "next_offset": next_offset,
            "revision": revision,
            "size_bytes": size_bytes,
            "source": source,
            "source_url": source_url,
            "status": status,
            "status_reason": status_reason,
            "tags": tags,
            "text": text,
            "text_offset": text_offset,
            "title": title,
            "total_chars": total_chars,
            "updated_at": updated_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.document_text_out_metadata import DocumentTextOutMetadata # noqa: PLC0415
        d = dict(src_dict)
        chunk_count = d.pop("chunk_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        format_ = d.pop("format")

        id = UUID(d.pop("id"))




        def _parse_indexed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                indexed_at_type_0 = datetime.datetime.fromisoformat(data)



                return indexed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        indexed_at = _parse_indexed_at(d.pop("indexed_at"))


        metadata = DocumentTextOutMetadata.from_dict(d.pop("metadata"))




        def _parse_next_offset(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_offset = _parse_next_offset(d.pop("next_offset"))


        revision = d.pop("revision")

        size_bytes = d.pop("size_bytes")

        source = d.pop("source")

        def _parse_source_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source_url = _parse_source_url(d.pop("source_url"))


        status = DocumentTextOutStatus(d.pop("status"))




        def _parse_status_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        status_reason = _parse_status_reason(d.pop("status_reason"))


        tags = cast(list[str], d.pop("tags"))


        text = d.pop("text")

        text_offset = d.pop("text_offset")

        title = d.pop("title")

        total_chars = d.pop("total_chars")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        document_text_out = cls(
            chunk_count=chunk_count,
            created_at=created_at,
            format_=format_,
            id=id,
            indexed_at=indexed_at,
            metadata=metadata,
            next_offset=next_offset,
            revision=revision,
            size_bytes=size_bytes,
            source=source,
            source_url=source_url,
            status=status,
            status_reason=status_reason,
            tags=tags,
            text=text,
            text_offset=text_offset,
            title=title,
            total_chars=total_chars,
            updated_at=updated_at,
        )


        document_text_out.additional_properties = d
        return document_text_out

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
