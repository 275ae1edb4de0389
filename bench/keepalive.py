"""The benches' HTTP client: keep-alive HTTP/1.1 over asyncio streams, nothing else.

The fire benches run their clients on the same two cores as the api, PostgreSQL, Redis and the worker,
so what a client spends per request is taken from the service being measured. httpx spends about
1.4 ms of CPU per POST here, more than half of what the api spends answering it; this client writes
the request bytes and reads the status line, headers and body with a few stream calls (a tenth of
that), as an outside load tool such as wrk would. It speaks only what the benches need: requests with
a body or none, answers with `Content-Length` or chunked, connections kept open until the server
closes them (a request that finds its idle connection closed goes once more on a new one).
"""

from __future__ import annotations

import asyncio
import json as jsonlib
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

StreamPair = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class ClosedBeforeAnswer(ConnectionError):
    """The server closed the connection without a byte of an answer."""


@dataclass(frozen=True)
class Answer:
    """A server's answer: its status and body (headers are read and dropped)."""

    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return jsonlib.loads(self.content)


class KeepAliveClient:
    """Up to `connections` keep-alive connections to one server, each carrying one request at a time."""

    def __init__(self, base_url: str, connections: int, timeout: float = 60) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or parts.hostname is None:
            raise ValueError(f"a plain http:// base URL is needed, not {base_url!r}")
        self._host = parts.hostname
        self._port = parts.port or 80
        self._authority = f"{self._host}:{self._port}".encode()
        self._timeout = timeout
        self._idle: asyncio.Queue[StreamPair] = asyncio.Queue()
        self._slots = asyncio.Semaphore(connections)
        self._open: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> KeepAliveClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every connection."""
        for writer in list(self._open):
            writer.close()
        self._open.clear()

    async def post(
        self,
        path: str,
        *,
        content: bytes | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """POST `content` (or `json`, encoded) to `path`; the answer whatever its status."""
        headers = dict(headers or {})
        if json is not None:
            content = jsonlib.dumps(json).encode()
            headers.setdefault("Content-Type", "application/json")
        return await self.request("POST", path, content or b"", headers)

    async def request(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        """One request on a free connection (a new one while fewer than `connections` are open)."""
        head = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + self._authority]
        head += [f"{name}: {value}".encode() for name, value in headers.items()]
        head.append(f"Content-Length: {len(body)}".encode())
        message = b"\r\n".join(head) + b"\r\n\r\n" + body
        async with self._slots:
            if self._idle.empty():
                return await self._exchange(await self._connect(), message)
            try:
                return await self._exchange(self._idle.get_nowait(), message)
            except ClosedBeforeAnswer:
                # The server closed the idle connection (its keep-alive timeout) before reading this
                # request, so nothing was done: once more on a new connection, as HTTP clients do.
                return await self._exchange(await self._connect(), message)

    async def _exchange(self, connection: StreamPair, message: bytes) -> Answer:
        reader, writer = connection
        try:
            writer.write(message)
            answer, keep = await asyncio.wait_for(_read_answer(reader), self._timeout)
        except BaseException:
            self._drop(writer)
            raise
        if keep:
            self._idle.put_nowait(connection)
        else:
            self._drop(writer)
        return answer

    async def _connect(self) -> StreamPair:
        reader, writer = await asyncio.open_connection(self._host, self._port)
        self._open.add(writer)
        return reader, writer

    def _drop(self, writer: asyncio.StreamWriter) -> None:
        self._open.discard(writer)
        writer.close()


async def _read_answer(reader: asyncio.StreamReader) -> tuple[Answer, bool]:
    """The status and body of one answer, and whether the connection stays open after it."""
    status_line = await reader.readline()
    if not status_line:
        raise ClosedBeforeAnswer("the server closed the connection before answering")
    status = int(status_line.split(b" ", 2)[1])
    length: int | None = None
    chunked = False
    keep = True
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        elif name == b"connection":
            keep = b"close" not in value.lower()
    if chunked:
        body = await _read_chunks(reader)
    elif length is not None:
        body = await reader.readexactly(length)
    else:
        body, keep = await reader.read(), False
    return Answer(status, body), keep


async def _read_chunks(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readline()).split(b";", 1)[0], 16)
        if size == 0:
            # Trailers (none are sent here) end with an empty line.
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
