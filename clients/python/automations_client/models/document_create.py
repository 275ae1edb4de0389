from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.document_create_format import DocumentCreateFormat
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.document_create_metadata import DocumentCreateMetadata





T = TypeVar("T", bound="DocumentCreate")



@_attrs_define
class DocumentCreate:
    """ 
        Attributes:
            text (str):
            title (str):
            format_ (DocumentCreateFormat | Unset):  Default: DocumentCreateFormat.TEXT.
            metadata (DocumentCreateMetadata | Unset):
            source_url (None | str | Unset):
            tags (list[str] | Unset):
     """

    text: str
    title: str
    format_: DocumentCreateFormat | Unset = DocumentCreateFormat.TEXT
    metadata: DocumentCreateMetadata | Unset = UNSET
    source_url: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.document_create_metadata import DocumentCreateMetadata # noqa: PLC0415
        text = self.text

        title = self.title

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value


        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        source_url: None | str | Unset
        if isinstance(self.source_url, Unset):
            source_url = UNSET
        else:
            source_url = self.source_url

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "text": text,
            "title": title,
        })
        if format_ is not UNSET:
            field_dict["format"] = format_
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if source_url is not UNSET:
            field_dict["source_url"] = source_url
        if tags is not UNSET:
            field_dict["tags"] = tags

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.document_create_metadata import DocumentCreateMetadata # noqa: PLC0415
        d = dict(src_dict)
        text = d.pop("text")

        title = d.pop("title")

        _format_ = d.pop("format", UNSET)
        format_: DocumentCreateFormat | Unset
        if isinstance(_format_,  Unset):
            format_ = UNSET
        else:
            format_ = DocumentCreateFormat(_format_)




        _metadata = d.pop("metadata", UNSET)
        metadata: DocumentCreateMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = DocumentCreateMetadata.from_dict(_metadata)




        def _parse_source_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_url = _parse_source_url(d.pop("source_url", UNSET))


        tags = cast(list[str], d.pop("tags", UNSET))


        document_create = cls(
            text=text,
            title=title,
            format_=format_,
            metadata=metadata,
            source_url=source_url,
            tags=tags,
        )

        return document_create

