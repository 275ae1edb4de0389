"""Artifacts: a run's list, one's metadata, a signed link; and `GET /artifacts/{token}`, which serves one."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import StreamingResponse

from app.api.artifact_schemas import ArtifactListOut, ArtifactOut, LinkCreate, LinkOut
from app.api.body import JsonBodyRoute
from app.api.deps import RuntimeDep, SessionDep, SettingsDep, SpaceDep
from app.errors import NotFound
from app.integrations.artifact_store import content_disposition
from app.services.resources.artifacts import artifact_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["artifacts"], route_class=JsonBodyRoute)
download_router = APIRouter(tags=["artifacts"])


@router.get("/runs/{run_id}/artifacts", summary="The artifacts a run kept, oldest first")
async def list_run_artifacts(run_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> ArtifactListOut:
    artifacts = await artifact_service.list_for_run(session, access, run_id)
    return ArtifactListOut(items=[ArtifactOut.model_validate(a) for a in artifacts])


@router.get("/artifacts/{artifact_id}", summary="An artifact's metadata (never its bytes)")
async def get_artifact(artifact_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> ArtifactOut:
    return ArtifactOut.model_validate(await artifact_service.get(session, access, artifact_id))


@router.post("/artifacts/{artifact_id}/link", summary="A signed, expiring link to download the artifact")
async def link_artifact(
    artifact_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
    request: Request,
    body: LinkCreate | None = None,
) -> LinkOut:
    link = await artifact_service.link(
        session,
        access,
        artifact_id,
        seconds=body.expires_in if body else None,
        secret=settings.resolved_secret_key(),
        store=runtime.artifact_store,
    )
    url = link.url if link.served_by == "store" else str(request.base_url).rstrip("/") + link.url
    return LinkOut(url=url, expires_at=link.expires_at, served_by=link.served_by)


@download_router.get(
    "/artifacts/{token}",
    summary="Download an artifact by its signed link (`space` and `private` ones also need a member's token)",
    response_class=StreamingResponse,
)
async def download_artifact(
    token: Annotated[str, Path(max_length=200)],
    session: SessionDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
    authorization: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    scheme, _, credentials = (authorization or "").partition(" ")
    bearer = credentials.strip() if scheme.lower() == "bearer" else None
    download = await artifact_service.open_link(
        session, token, bearer, secret=settings.resolved_secret_key(), store=runtime.artifact_store
    )
    try:
        first = await anext(download.chunks, b"")
    except FileNotFoundError:
        raise NotFound("Artifact not found.", code="artifact_not_found") from None

    async def body() -> AsyncIterator[bytes]:
        if first:
            yield first
        async for chunk in download.chunks:
            yield chunk

    artifact = download.artifact
    return StreamingResponse(
        body(),
        media_type=artifact.content_type,
        headers={
            "Content-Length": str(artifact.size),
            "Content-Disposition": content_disposition(artifact.name),
            # Served from the API's origin: never sniffed into HTML, never run as a page.
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'",
            "Cache-Control": "private, no-store",
            "ETag": f'"{artifact.sha256}"',
        },
    )
