"""Knowledge: a space's documents (add, upload, list, read, edit, delete), search, and artifacts indexed."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from starlette.datastructures import UploadFile

from app.api.body import JsonBodyRoute
from app.api.deps import PageDep, RuntimeDep, SessionDep, SpaceDep
from app.api.document_schemas import (
    ArtifactIndex,
    DocumentCreate,
    DocumentOut,
    DocumentPage,
    DocumentPatch,
    DocumentTextOut,
    IsoMoment,
    SearchHitOut,
    SearchOut,
    SearchRequest,
)
from app.errors import BadRequest, ErrorDetail, PayloadTooLarge
from app.persistence.repositories.knowledge import DocumentFilters
from app.services.knowledge import sources
from app.services.knowledge.documents import NewDocument, document_service
from app.services.knowledge.limits import DEFAULT_READ_CHARS, MAX_READ_CHARS
from app.services.knowledge.search import search_service
from app.services.knowledge.validation import clean_source, clean_tags

router = APIRouter(prefix="/spaces/{space_id}", tags=["knowledge"], route_class=JsonBodyRoute)
# Multipart bodies are read here, bounded by the upload limit, not by the JSON body check.
upload_router = APIRouter(prefix="/spaces/{space_id}", tags=["knowledge"])
# Room a multipart body's boundaries and small fields take beside the file.
MULTIPART_OVERHEAD = 64 * 1024


@router.post("/documents", status_code=status.HTTP_201_CREATED, summary="Add a text or Markdown document")
async def create_document(
    body: DocumentCreate, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> DocumentOut:
    new = NewDocument(
        title=body.title,
        format=body.format,
        source="api",
        text=body.text,
        tags=body.tags,
        source_url=body.source_url,
        metadata=body.metadata,
    )
    return DocumentOut.of(await document_service.create(session, access, new, runtime.knowledge))


async def _bounded_body(request: Request, max_bytes: int) -> None:
    """Read the body into the request, refusing it (413) past `max_bytes` without reading on."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"The upload is larger than {max_bytes} bytes.", code="document_too_large")
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(f"The upload is larger than {max_bytes} bytes.", code="document_too_large")
        parts.append(chunk)
    request._body = b"".join(parts)


UPLOAD_FORM = {
    "type": "object",
    "required": ["file"],
    "properties": {
        "file": {"type": "string", "format": "binary", "description": "The file."},
        "title": {"type": "string", "description": "Defaults to the file name."},
        "tags": {"type": "array", "items": {"type": "string"}},
        "source_url": {"type": "string", "description": "An http(s) URL the file came from."},
    },
}


def _field(form_value: object) -> str | None:
    return form_value if isinstance(form_value, str) and form_value.strip() else None


@upload_router.post(
    "/documents/upload",
    status_code=status.HTTP_201_CREATED,
    summary="Upload a file (text, Markdown, HTML, PDF, DOCX) as a document: multipart field `file`",
    # The form is read by hand (size-bounded first), so the document states its fields here.
    openapi_extra={
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": UPLOAD_FORM}}}
    },
)
async def upload_document(
    request: Request, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> DocumentOut:
    limits = runtime.knowledge
    await _bounded_body(request, limits.max_upload_bytes + MULTIPART_OVERHEAD)
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise BadRequest(
            "Upload a file as multipart/form-data with the field `file`.",
            code="multipart_expected",
            details=[ErrorDetail(path="/file", message="send multipart/form-data")],
        )
    try:
        form = await request.form(max_files=1, max_fields=50)
    except Exception as exc:  # python-multipart's refusals differ by version: each is a bad request
        raise BadRequest(
            f"The multipart body could not be read: {exc}.", code="malformed_multipart"
        ) from None
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise BadRequest(
            "The upload has no file.",
            code="file_missing",
            details=[ErrorDetail(path="/file", message="add the file as the field `file`")],
        )
    data = await upload.read()
    document = await sources.upload(
        session,
        access,
        filename=upload.filename,
        content_type=upload.content_type,
        data=data,
        title=_field(form.get("title")),
        tags=sources.split_tags([value for value in form.getlist("tags") if isinstance(value, str)]),
        source_url=_field(form.get("source_url")),
        limits=limits,
    )
    return DocumentOut.of(document)


@router.get("/documents", summary="List documents, newest first (filters, cursor pagination)")
async def list_documents(
    session: SessionDep,
    access: SpaceDep,
    page: PageDep,
    tag: Annotated[list[str] | None, Query(max_length=50, description="Documents with all of these.")] = None,
    since: Annotated[IsoMoment | None, Query(description="Indexed at or after.")] = None,
    until: Annotated[IsoMoment | None, Query(description="Indexed before.")] = None,
    source: Annotated[str | None, Query(max_length=32)] = None,
    status_: Annotated[str | None, Query(alias="status", pattern="^(pending|indexed|failed)$")] = None,
) -> DocumentPage:
    filters = DocumentFilters(
        tags=clean_tags(sources.split_tags(tag or [])),
        since=since,
        until=until,
        source=clean_source(source),
        status=status_,
    )
    result = await document_service.list(session, access, filters, limit=page.limit, cursor=page.cursor)
    return DocumentPage(items=[DocumentOut.of(d) for d in result.items], next_cursor=result.next_cursor)


@router.get("/documents/{document_id:uuid}", summary="A document and a bounded part of its text")
async def get_document(
    document_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
    max_chars: Annotated[int, Query(ge=1, le=MAX_READ_CHARS)] = DEFAULT_READ_CHARS,
) -> DocumentTextOut:
    await document_service.get(session, access, document_id)
    document, part = await document_service.read(
        session, access.space_id, document_id, offset=offset, max_chars=max_chars
    )
    return DocumentTextOut(
        **DocumentOut.of(document).model_dump(),
        text=part.text,
        text_offset=part.offset,
        next_offset=part.next_offset,
        total_chars=part.total_chars,
    )


@router.patch("/documents/{document_id:uuid}", summary="Edit a document (a new revision; new text indexed)")
async def patch_document(
    document_id: uuid.UUID, body: DocumentPatch, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> DocumentOut:
    changes = {key: getattr(body, key) for key in body.model_fields_set if getattr(body, key) is not None}
    document = await document_service.update(session, access, document_id, runtime.knowledge, **changes)
    return DocumentOut.of(document)


@router.delete(
    "/documents/{document_id:uuid}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a document"
)
async def delete_document(document_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await document_service.delete(session, access, document_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/documents/search", summary="Search the space's documents: the best chunks for a query")
async def search_documents(
    body: SearchRequest, session: SessionDep, access: SpaceDep, runtime: RuntimeDep
) -> SearchOut:
    await document_service.list_permission(access)
    filters = DocumentFilters(
        tags=body.filters.tags,
        since=body.filters.since,
        until=body.filters.until,
        source=body.filters.source,
        document_ids=body.filters.document_ids,
    )
    answer = await search_service.search(
        session,
        access.space_id,
        body.query,
        body.top_k,
        filters,
        runtime.knowledge,
        embed_query=runtime.query_embedder(),
    )
    return SearchOut(
        items=[
            SearchHitOut(
                document_id=hit.document_id,
                title=hit.title,
                tags=hit.tags,
                chunk_index=hit.chunk_index,
                score=hit.score,
                snippet=hit.snippet,
            )
            for hit in answer.items
        ],
        mode=answer.mode,
    )


@router.post(
    "/artifacts/{artifact_id}/index",
    status_code=status.HTTP_201_CREATED,
    summary="Index an artifact (text, Markdown, HTML, PDF, DOCX) as a document",
)
async def index_artifact(
    artifact_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    runtime: RuntimeDep,
    body: ArtifactIndex | None = None,
) -> DocumentOut:
    document = await sources.from_artifact(
        session,
        access,
        artifact_id,
        runtime.artifact_store,
        runtime.knowledge,
        title=body.title if body else None,
        tags=body.tags if body else None,
    )
    return DocumentOut.of(document)
