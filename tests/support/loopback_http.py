"""A tiny HTTP/1.1 server on a loopback address, with the misbehaviours the egress tests need.

Routes: /ok, /headers (echoes Host and Accept-Encoding), /redirect?to=URL, /loop, /chain/N (N redirects
then 200), /big?size=N (with Content-Length), /stream?size=N (no Content-Length), /gzip (small gzipped
JSON), /brotli (an encoding we never asked for),
/bomb?size=N (gzip that inflates to N bytes), /hang (never answers), /drip (one byte every 50 ms).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    path: str
    host: str
    headers: dict[str, str]


@dataclass
class LoopbackHTTP:
    name: str
    host: str = "127.0.0.1"
    port: int = 0
    ssl_context: ssl.SSLContext | None = None
    requests: list[Seen] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> LoopbackHTTP:
        self._server = await asyncio.start_server(self._serve, self.host, self.port, ssl=self.ssl_context)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    def url(self, path: str, host: str | None = None) -> str:
        scheme = "https" if self.ssl_context else "http"
        return f"{scheme}://{host or self.host}:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *lines = head.decode("latin-1").split("\r\n")
            headers = {
                k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)
            }
            target = request_line.split(" ")[1]
            self.requests.append(Seen(target, headers.get("host", ""), headers))
            await self._answer(target, headers, writer)
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _answer(self, target: str, headers: dict[str, str], writer: asyncio.StreamWriter) -> None:
        url = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        size = int(query.get("size", "0"))
        path = url.path
        if path == "/ok":
            await _send(writer, 200, b"hello from " + self.name.encode())
        elif path == "/headers":
            body = json.dumps(
                {"host": headers.get("host"), "accept-encoding": headers.get("accept-encoding")}
            )
            await _send(writer, 200, body.encode(), content_type="application/json")
        elif path == "/redirect":
            await _send(writer, 302, b"", location=query["to"])
        elif path == "/loop":
            await _send(writer, 302, b"", location="/loop")
        elif path.startswith("/chain/"):
            left = int(path.rsplit("/", 1)[1])
            if left:
                await _send(writer, 302, b"", location=f"/chain/{left - 1}")
            else:
                await _send(writer, 200, b"end of chain")
        elif path == "/big":
            await _send(writer, 200, b"x" * size)
        elif path == "/stream":
            writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            for offset in range(0, size, 65536):
                writer.write(b"y" * min(65536, size - offset))
                await writer.drain()
        elif path == "/gzip":
            await _send(writer, 200, gzip.compress(b'{"zipped": true}'), encoding="gzip")
        elif path == "/brotli":
            await _send(writer, 200, b"not really brotli", encoding="br")
        elif path == "/bomb":
            await _send(writer, 200, gzip.compress(b"\0" * size), encoding="gzip")
        elif path == "/hang":
            await asyncio.sleep(3600)
        elif path == "/drip":
            writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            while True:
                writer.write(b".")
                await writer.drain()
                await asyncio.sleep(0.05)
        else:
            await _send(writer, 404, b"no such route")


async def _send(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    location: str | None = None,
    encoding: str | None = None,
    content_type: str = "text/plain",
) -> None:
    lines = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", f"Content-Type: {content_type}"]
    lines.append("Connection: close")
    if location is not None:
        lines.append(f"Location: {location}")
    if encoding is not None:
        lines.append(f"Content-Encoding: {encoding}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()
