"""Where artifact bytes live: one small interface, a local folder or an S3-compatible bucket.

Bytes are content-addressed: a blob is stored under its SHA-256, so the same file kept twice takes
its space once, and a blob is only removed when no artifact row names it any more. A writer first
streams into a staging file (hashing as it goes), then hands the finished file to `save`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

from app.config import Settings

CHUNK_BYTES = 256 * 1024
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ArtifactStore(Protocol):
    """Content-addressed blob storage."""

    @property
    def staging_dir(self) -> Path:
        """A local folder for files being written (on the same filesystem as a local store)."""
        ...

    async def save(self, sha256: str, staged: Path) -> None:
        """Keep the finished file `staged` under `sha256` (it is moved or uploaded, then gone)."""
        ...

    def read(self, sha256: str) -> AsyncIterator[bytes]:
        """The blob's bytes, chunk by chunk (`FileNotFoundError` when it is missing)."""
        ...

    async def delete(self, sha256: str) -> None:
        """Remove the blob; a blob already gone is not an error."""
        ...

    async def presigned_url(
        self, sha256: str, *, filename: str, content_type: str, seconds: int
    ) -> str | None:
        """A URL the store itself serves for `seconds`, or None when the store cannot make one."""
        ...


def _checked(sha256: str) -> str:
    if not _SHA256.fullmatch(sha256):
        raise ValueError("an artifact blob is named by a lowercase hex SHA-256")
    return sha256


def content_disposition(filename: str) -> str:
    """`attachment` with the name in RFC 6266 form: an ASCII fallback and the UTF-8 original."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\;' else "_" for c in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


class LocalStore:
    """Blobs as files under `root/ab/cd/<sha256>` (the default: `AUTOMATIONS_HOME/artifacts`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._staging = root / ".staging"

    @property
    def staging_dir(self) -> Path:
        self._staging.mkdir(parents=True, exist_ok=True)
        return self._staging

    def path_of(self, sha256: str) -> Path:
        sha256 = _checked(sha256)
        return self.root / sha256[:2] / sha256[2:4] / sha256

    async def save(self, sha256: str, staged: Path) -> None:
        target = self.path_of(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Same content, same name: replacing an existing blob changes nothing a reader could see.
        os.replace(staged, target)

    async def read(self, sha256: str) -> AsyncIterator[bytes]:
        path = self.path_of(sha256)
        handle = await asyncio.to_thread(path.open, "rb")
        try:
            while chunk := await asyncio.to_thread(handle.read, CHUNK_BYTES):
                yield chunk
        finally:
            handle.close()

    async def delete(self, sha256: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path_of(sha256).unlink()

    async def presigned_url(
        self, sha256: str, *, filename: str, content_type: str, seconds: int
    ) -> str | None:
        return None


class S3Store:
    """Blobs as objects `<prefix>/<sha256>` in an S3-compatible bucket, through boto3.

    Credentials, region and endpoint come from the usual AWS variables (`AWS_ACCESS_KEY_ID`,
    `AWS_SECRET_ACCESS_KEY`, `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` for MinIO and friends). boto3 is
    blocking, so every call runs in a thread; uploads are multipart for large files.
    """

    def __init__(self, url: str, staging: Path, client: Any = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError("AUTOMATIONS_ARTIFACTS_URL must look like s3://bucket/prefix")
        self.bucket = parts.netloc
        self.prefix = parts.path.strip("/")
        self._staging = staging
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            # Imported on first use: only installations with an S3 store pay for loading boto3.
            import boto3

            self._client = boto3.client("s3")
        return self._client

    @property
    def staging_dir(self) -> Path:
        self._staging.mkdir(parents=True, exist_ok=True)
        return self._staging

    def key_of(self, sha256: str) -> str:
        sha256 = _checked(sha256)
        return f"{self.prefix}/{sha256}" if self.prefix else sha256

    async def save(self, sha256: str, staged: Path) -> None:
        try:
            await asyncio.to_thread(self.client.upload_file, str(staged), self.bucket, self.key_of(sha256))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged)

    async def read(self, sha256: str) -> AsyncIterator[bytes]:
        try:
            answer = await asyncio.to_thread(
                self.client.get_object, Bucket=self.bucket, Key=self.key_of(sha256)
            )
        except self.client.exceptions.NoSuchKey:
            raise FileNotFoundError(sha256) from None
        body = answer["Body"]
        try:
            while chunk := await asyncio.to_thread(body.read, CHUNK_BYTES):
                yield chunk
        finally:
            body.close()

    async def delete(self, sha256: str) -> None:
        await asyncio.to_thread(self.client.delete_object, Bucket=self.bucket, Key=self.key_of(sha256))

    async def presigned_url(
        self, sha256: str, *, filename: str, content_type: str, seconds: int
    ) -> str | None:
        params = {
            "Bucket": self.bucket,
            "Key": self.key_of(sha256),
            "ResponseContentType": content_type,
            "ResponseContentDisposition": content_disposition(filename),
        }
        url: str = await asyncio.to_thread(
            self.client.generate_presigned_url, "get_object", Params=params, ExpiresIn=seconds
        )
        return url


def store_for(settings: Settings) -> ArtifactStore:
    """The store of these settings: S3 when AUTOMATIONS_ARTIFACTS_URL is set, else the local folder."""
    if settings.artifacts_url:
        staging = Path(tempfile.gettempdir()) / "automations-artifacts"
        return S3Store(settings.artifacts_url, staging)
    return LocalStore(settings.artifacts_dir)
