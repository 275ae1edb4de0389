"""A loopback TCP proxy that can go silent: the connections it carries stay open but every byte is
dropped, as when a network path dies without a FIN or an RST. Connections made afterwards work."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from sqlalchemy.engine import URL, make_url


class SilentProxy:
    def __init__(self, upstream: URL) -> None:
        self.upstream = upstream
        self.port = 0
        self._server: asyncio.Server | None = None
        self._live: set[asyncio.StreamWriter] = set()
        self._silenced: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def start(cls, database_url: str) -> SilentProxy:
        proxy = cls(make_url(database_url))
        proxy._server = await asyncio.start_server(proxy._accept, "127.0.0.1", 0)
        proxy.port = proxy._server.sockets[0].getsockname()[1]
        return proxy

    def url(self) -> str:
        """The database URL, through this proxy."""
        query = {k: v for k, v in self.upstream.query.items() if k != "host"}
        through = self.upstream.set(host="127.0.0.1", port=self.port, query=query)
        return through.render_as_string(hide_password=False)

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        socket_dir: Any = self.upstream.query.get("host") or self.upstream.host or "127.0.0.1"
        port = self.upstream.port or 5432
        if str(socket_dir).startswith("/"):
            return await asyncio.open_unix_connection(f"{socket_dir}/.s.PGSQL.{port}")
        return await asyncio.open_connection(str(socket_dir), port)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await self._open_upstream()
        self._live.add(writer)
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer, writer)),
            asyncio.create_task(self._pump(up_reader, writer, writer)),
        ]
        self._tasks.update(pumps)
        # Either side closing closes both, as a real path would once the client gives up.
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        for each in (writer, up_writer):
            each.close()
        self._live.discard(writer)

    async def _pump(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, client: asyncio.StreamWriter
    ) -> None:
        while data := await source.read(65536):
            if client in self._silenced:
                continue
            sink.write(data)
            await sink.drain()

    def silence(self) -> None:
        """From now on, drop every byte of the connections open now (they stay open)."""
        self._silenced |= self._live

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        for writer in self._live:
            writer.close()
