"""One sandbox child process and the framed exchange with it over its pipes.

`TemplatePool` (pool.py) keeps a few of these warm. An exchange writes a framed request and reads a framed
reply under a wall deadline, by polling (threads) or through the event loop's selector (`aexchange`); a
child that overruns or whose pipes close is killed and replaced by the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.engine.templating.protocol import HEADER, MAX_REPLY_BYTES

CHILD_MODULE = "app.engine.templating.child"
# The directory that holds the `app` package: the child runs there so `-m` finds it even when
# the project is not installed.
_PROJECT_ROOT = Path(__file__).resolve().parents[3]
_STARTUP_SECONDS = 20.0
_READ_CHUNK = 1 << 20


class Overrun(Exception):
    """The child did not answer before the deadline."""


class ChildGone(Exception):
    """The child's pipes closed: it died (crash, memory, CPU limit) or was never reachable."""

    def __init__(self, *, before_request: bool) -> None:
        super().__init__()
        self.before_request = before_request


class Child:
    """One sandbox process and its two pipes."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._write_fd = self._stdin.fileno()
        self._read_fd = self._stdout.fileno()
        # Both ends non-blocking: threads poll() before each read or write, an event loop waits on
        # its selector; either way a read or write never blocks the caller.
        os.set_blocking(self._write_fd, False)
        os.set_blocking(self._read_fd, False)
        # poll() rather than select(): descriptor numbers in a busy service can pass FD_SETSIZE.
        self._readable = select.poll()
        self._readable.register(self._read_fd, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(self._write_fd, select.POLLOUT)

    @classmethod
    def spawn(cls, arguments: list[str]) -> Child:
        process = subprocess.Popen(
            [sys.executable, "-E", "-s", "-m", CHILD_MODULE, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=_PROJECT_ROOT,
            # Nothing of the service's environment (database URLs, keys) is handed down.
            env={"LC_ALL": "C.UTF-8"},
            close_fds=True,
            bufsize=0,
        )
        child = cls(process)
        try:
            ready = child._read_reply(time.monotonic() + _STARTUP_SECONDS)
        except (Overrun, ChildGone, ValueError):
            child.kill()
            raise
        if ready != {"ready": True}:
            child.kill()
            raise ChildGone(before_request=True)
        return child

    def alive(self) -> bool:
        return self.process.poll() is None

    def exchange(self, payload: bytes, deadline: float) -> Any:
        self._write_all(payload, deadline)
        return self._read_reply(deadline)

    def _wait(self, poller: select.poll, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(remaining * 1000):
            raise Overrun

    def _write_all(self, payload: bytes, deadline: float) -> None:
        view = memoryview(payload)
        while view:
            try:
                written = os.write(self._write_fd, view)
            except BlockingIOError:
                self._wait(self._writable, deadline)
                continue
            except OSError:  # EPIPE: the child is gone; it never saw a complete request
                raise ChildGone(before_request=True) from None
            view = view[written:]

    def _read_exact(self, size: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        while size:
            self._wait(self._readable, deadline)
            try:
                chunk = os.read(self._read_fd, min(size, _READ_CHUNK))
            except BlockingIOError:
                continue
            if not chunk:
                raise ChildGone(before_request=False)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def _read_reply(self, deadline: float) -> Any:
        (size,) = HEADER.unpack(self._read_exact(HEADER.size, deadline))
        if size > MAX_REPLY_BYTES:
            raise ValueError(f"sandbox reply of {size} bytes is over the limit")
        return json.loads(self._read_exact(size, deadline))

    async def aexchange(self, payload: bytes, deadline: float) -> Any:
        """`exchange` on an event loop: the waits happen in the loop's selector."""
        view = memoryview(payload)
        while view:
            try:
                written = os.write(self._write_fd, view)
            except BlockingIOError:
                await self._ready(self._write_fd, deadline, writable=True)
                continue
            except OSError:
                raise ChildGone(before_request=True) from None
            view = view[written:]
        (size,) = HEADER.unpack(await self._aread_exact(HEADER.size, deadline))
        if size > MAX_REPLY_BYTES:
            raise ValueError(f"sandbox reply of {size} bytes is over the limit")
        return json.loads(await self._aread_exact(size, deadline))

    async def _aread_exact(self, size: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        while size:
            try:
                chunk = os.read(self._read_fd, min(size, _READ_CHUNK))
            except BlockingIOError:
                await self._ready(self._read_fd, deadline, writable=False)
                continue
            if not chunk:
                raise ChildGone(before_request=False)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    @staticmethod
    async def _ready(fd: int, deadline: float, *, writable: bool) -> None:
        """Wait until `fd` is ready, or raise `Overrun` at the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Overrun
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bool] = loop.create_future()
        timer = loop.call_later(remaining, settle, ready, False)
        if writable:
            loop.add_writer(fd, settle, ready, True)
        else:
            loop.add_reader(fd, settle, ready, True)
        try:
            in_time = await ready
        finally:
            timer.cancel()
            if writable:
                loop.remove_writer(fd)
            else:
                loop.remove_reader(fd)
        if not in_time:
            raise Overrun

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.abandon()

    def close(self) -> None:
        """Ask the child to exit (end of input), killing it if it does not."""
        self.abandon()
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.kill()

    def abandon(self) -> None:
        """Close our ends of the pipes without waiting: used after a fork, where the child is not ours."""
        for stream in (self._stdin, self._stdout):
            with contextlib.suppress(OSError):
                stream.close()


def settle(future: asyncio.Future[bool], value: bool) -> None:
    """Resolve `future` with `value` unless something resolved it first (a deadline or readiness)."""
    if not future.done():
        future.set_result(value)
