"""The S3 store against a loopback S3-compatible server (moto's server mode), through boto3."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from moto.server import ThreadedMotoServer

from app.config import Settings
from app.integrations.artifact_store import LocalStore, S3Store, store_for


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def store(s3_endpoint: str, tmp_path: Path) -> S3Store:
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    bucket = f"artifacts-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=bucket)
    return S3Store(f"s3://{bucket}/space/prefix", tmp_path / "staging", client=client)


async def collect(store: S3Store, sha256: str) -> bytes:
    return b"".join([chunk async for chunk in store.read(sha256)])


async def test_save_read_presign_delete(store: S3Store) -> None:
    data = os.urandom(300_000)
    sha256 = hashlib.sha256(data).hexdigest()
    staged = store.staging_dir / "put-1"
    staged.write_bytes(data)
    await store.save(sha256, staged)
    assert not staged.exists(), "the staging file is gone once uploaded"
    listed = store.client.list_objects_v2(Bucket=store.bucket)["Contents"]
    assert [item["Key"] for item in listed] == [f"space/prefix/{sha256}"]
    assert await collect(store, sha256) == data

    url = await store.presigned_url(sha256, filename="r é.pdf", content_type="application/pdf", seconds=60)
    assert url is not None
    answer = httpx.get(url)
    assert answer.status_code == 200
    assert answer.content == data
    assert answer.headers["content-type"] == "application/pdf"
    assert "filename*=UTF-8''r%20%C3%A9.pdf" in answer.headers["content-disposition"]

    await store.delete(sha256)
    with pytest.raises(FileNotFoundError):
        await collect(store, sha256)
    await store.delete(sha256)  # already gone: not an error


def test_the_url_picks_the_store(tmp_path: Path) -> None:
    local = store_for(Settings(environment="development", home=tmp_path))
    assert isinstance(local, LocalStore)
    assert local.root == tmp_path / "artifacts"
    s3 = store_for(Settings(environment="development", home=tmp_path, artifacts_url="s3://bucket/a/b/"))
    assert isinstance(s3, S3Store)
    assert (s3.bucket, s3.prefix) == ("bucket", "a/b")
    for bad in ("http://bucket/x", "s3:///nobucket"):
        with pytest.raises(ValueError, match="s3://bucket/prefix"):
            S3Store(bad, tmp_path)


def test_blob_names_must_be_hashes(store: S3Store) -> None:
    with pytest.raises(ValueError, match="SHA-256"):
        store.key_of("../../etc/passwd")
