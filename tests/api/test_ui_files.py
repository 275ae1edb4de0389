"""The UI's files: page URLs answer the app shell, built assets are cached for good, missing files and
unknown API paths are JSON 404s, and nothing outside the build folder is ever served."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from httpx import ASGITransport, AsyncClient

from app.api.errors import install_error_handlers
from app.api.ui import SecurityHeaders, ui_fallback


@pytest.fixture
def built(tmp_path: Path) -> Path:
    root = tmp_path / "ui"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>shell</title>")
    (root / "assets" / "main-ABC.js").write_text("console.log(1)")
    (tmp_path / "secret.txt").write_text("outside the build")
    return root


async def _client(root: Path) -> AsyncClient:
    app = FastAPI()
    install_error_handlers(app)
    app.add_middleware(SecurityHeaders)

    @app.get("/api/v1/thing")
    async def thing() -> dict[str, str]:
        return {"ok": "yes"}

    app.router.default = ui_fallback(root)
    return AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver")


async def test_page_urls_answer_the_shell_and_assets_are_immutable(built: Path) -> None:
    async with await _client(built) as client:
        page = await client.get("/runs/3fa85f64-5717-4562-b3fc-2c963f66afa6")
        assert page.status_code == 200
        assert "shell" in page.text
        assert page.headers["cache-control"] == "no-cache"
        assert "script-src 'self'" in page.headers["content-security-policy"]
        asset = await client.get("/assets/main-ABC.js")
        assert asset.status_code == 200
        assert "immutable" in asset.headers["cache-control"]


async def test_missing_files_unknown_api_paths_and_escapes_are_json_404s(built: Path) -> None:
    async with await _client(built) as client:
        for path in (
            "/assets/missing.js",
            "/api/v1/nothing",
            "/%2e%2e/secret.txt",
            "/assets/..%2f..%2fsecret.txt",
        ):
            response = await client.get(path)
            assert response.status_code == 404, path
            assert response.json()["error"]["code"] == "not_found"
            assert "outside the build" not in response.text
        posted = await client.post("/automations")
        assert posted.status_code == 404
        assert (await client.get("/api/v1/thing")).json() == {"ok": "yes"}


async def test_without_a_built_ui_pages_are_404_not_500(tmp_path: Path) -> None:
    async with await _client(tmp_path / "never-built") as client:
        response = await client.get("/automations")
        assert response.status_code == 404
        assert response.headers["x-frame-options"] == "DENY"
