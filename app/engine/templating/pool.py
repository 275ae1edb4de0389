"""A small pool of warm sandbox processes, owned by one service process.

Templates are compiled and rendered in child processes (see `child.py`) so that a runaway template
can be stopped for real: the child limits its own memory and CPU, and the parent enforces a wall
deadline on every exchange, killing and replacing a child that overruns.

Children are started with `subprocess.Popen`, not `multiprocessing`, because Celery's prefork
workers are daemonic processes and `multiprocessing` refuses to start children from those. A pool
belongs to the process that created it: after a fork the inherited pool is dropped (its pipes are
closed without touching the parent's children) and the new process starts its own on first use.

An exchange waits on a pipe. Code on an event loop uses `aexchange`, which waits on the pipes through
the loop's own selector (no thread), so a render never stalls the loop (lease heartbeats, other
requests); threads use `exchange`, which polls. Both share the same children.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from app.engine.templating.errors import (
    ENGINE_UNAVAILABLE,
    MEMORY,
    TIMEOUT,
    TemplateError,
    TemplateLimitError,
)
from app.engine.templating.limits import COMPILE_CPU_SECONDS, RENDER_CPU_SECONDS, SANDBOX_MEMORY_BYTES
from app.engine.templating.protocol import HEADER, MAX_REPLY_BYTES

CHILD_MODULE = "app.engine.templating.child"
# The directory that holds the `app` package: the child runs there so `-m` finds it even when
# the project is not installed.
_PROJECT_ROOT = Path(__file__).resolve().parents[3]
_STARTUP_SECONDS = 20.0
_READ_CHUNK = 1 << 20


class _Overrun(Exception):
    """The child did not answer before the deadline."""


class _ChildGone(Exception):
    """The child's pipes closed: it died (crash, memory, CPU limit) or was never reachable."""

    def __init__(self, *, before_request: bool) -> None:
        super().__init__()
        self.before_request = before_request


class _Child:
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
    def spawn(cls, arguments: list[str]) -> _Child:
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
        except (_Overrun, _ChildGone, ValueError):
            child.kill()
            raise
        if ready != {"ready": True}:
            child.kill()
            raise _ChildGone(before_request=True)
        return child

    def alive(self) -> bool:
        return self.process.poll() is None

    def exchange(self, payload: bytes, deadline: float) -> Any:
        self._write_all(payload, deadline)
        return self._read_reply(deadline)

    def _wait(self, poller: select.poll, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(remaining * 1000):
            raise _Overrun

    def _write_all(self, payload: bytes, deadline: float) -> None:
        view = memoryview(payload)
        while view:
            try:
                written = os.write(self._write_fd, view)
            except BlockingIOError:
                self._wait(self._writable, deadline)
                continue
            except OSError:  # EPIPE: the child is gone; it never saw a complete request
                raise _ChildGone(before_request=True) from None
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
                raise _ChildGone(before_request=False)
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
                raise _ChildGone(before_request=True) from None
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
                raise _ChildGone(before_request=False)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    @staticmethod
    async def _ready(fd: int, deadline: float, *, writable: bool) -> None:
        """Wait until `fd` is ready, or raise `_Overrun` at the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Overrun
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bool] = loop.create_future()
        timer = loop.call_later(remaining, _settle, ready, False)
        if writable:
            loop.add_writer(fd, _settle, ready, True)
        else:
            loop.add_reader(fd, _settle, ready, True)
        try:
            in_time = await ready
        finally:
            timer.cancel()
            if writable:
                loop.remove_writer(fd)
            else:
                loop.remove_reader(fd)
        if not in_time:
            raise _Overrun

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


def _settle(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


class TemplatePool:
    """Up to `size` warm sandbox processes, started lazily, shared safely between threads and loops."""

    def __init__(
        self,
        size: int = 2,
        *,
        memory_bytes: int = SANDBOX_MEMORY_BYTES,
        render_seconds: float | None = RENDER_CPU_SECONDS,
        compile_seconds: float | None = COMPILE_CPU_SECONDS,
        wall_slack_seconds: float = 1.0,
    ) -> None:
        self.size = size
        self.pid = os.getpid()
        self._arguments = [
            f"--memory-bytes={memory_bytes}",
            f"--render-ms={round((render_seconds or 0) * 1000)}",
            f"--compile-ms={round((compile_seconds or 0) * 1000)}",
        ]
        self._per_source_seconds = (render_seconds or 0) + (compile_seconds or 0)
        self._wall_slack = wall_slack_seconds
        self._condition = threading.Condition()
        self._idle: list[_Child] = []
        self._live = 0
        # Coroutines waiting for a child, each with the loop to wake it on (threads use the condition).
        self._waiters: collections.deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[bool]]] = (
            collections.deque()
        )

    def deadline_for(self, sources: int) -> float:
        """Wall-clock seconds an exchange of `sources` templates may take before the child is killed.

        The child interrupts itself after each template's CPU budget; this deadline is the backstop
        for work a signal cannot interrupt (one long C-level operation), plus scheduling slack.
        """
        return self._wall_slack + self._per_source_seconds * max(sources, 1)

    def exchange(self, payload: bytes, sources: int) -> Any:
        """Send one framed request and return the decoded reply, enforcing the wall deadline."""
        timeout = self.deadline_for(sources)
        for attempt in range(2):
            child = self._acquire()
            healthy = False
            try:
                reply = child.exchange(payload, time.monotonic() + timeout)
                healthy = not (isinstance(reply, dict) and reply.get("retire"))
                return reply
            except (_ChildGone, _Overrun, ValueError) as exc:
                failure = _failure(exc, attempt, timeout)
                if failure is None:
                    continue
                raise failure from None
            finally:
                self._release(child, healthy)
        raise TemplateError("the template sandbox is unavailable", code=ENGINE_UNAVAILABLE)

    async def aexchange(self, payload: bytes, sources: int) -> Any:
        """`exchange` for code on an event loop: it never blocks the loop.

        A cancelled caller (a step's timeout) leaves the child mid-request: it is killed and replaced,
        as after an overrun.
        """
        timeout = self.deadline_for(sources)
        for attempt in range(2):
            child = await self._aacquire()
            healthy = False
            try:
                reply = await child.aexchange(payload, time.monotonic() + timeout)
                healthy = not (isinstance(reply, dict) and reply.get("retire"))
                return reply
            except (_ChildGone, _Overrun, ValueError) as exc:
                failure = _failure(exc, attempt, timeout)
                if failure is None:
                    continue
                raise failure from None
            finally:
                self._release(child, healthy)
        raise TemplateError("the template sandbox is unavailable", code=ENGINE_UNAVAILABLE)

    def _take_idle(self) -> _Child | None:
        """An idle live child, under the condition's lock (dead ones are dropped on the way)."""
        while self._idle:
            child = self._idle.pop()
            if child.alive():
                return child
            self._live -= 1
            child.close()
        return None

    async def _aacquire(self) -> _Child:
        loop = asyncio.get_running_loop()
        while True:
            with self._condition:
                child = self._take_idle()
                if child is not None:
                    return child
                spawn = self._live < self.size
                if spawn:
                    self._live += 1
                else:
                    woken: asyncio.Future[bool] = loop.create_future()
                    self._waiters.append((loop, woken))
            if spawn:
                return await self._aspawn()
            try:
                await woken
            except BaseException:
                with self._condition:
                    try:
                        self._waiters.remove((loop, woken))
                    except ValueError:  # a wake-up was already sent to us: hand it on
                        self._wake_one()
                raise

    async def _aspawn(self) -> _Child:
        # Rare (a new or replaced child), and it waits for the child's start-up: off the loop. A
        # caller cancelled meanwhile must not leak the child: it is stopped when it arrives.
        spawning = asyncio.ensure_future(asyncio.to_thread(_Child.spawn, self._arguments))
        try:
            return await asyncio.shield(spawning)
        except asyncio.CancelledError:
            spawning.add_done_callback(self._discard)
            raise
        except (OSError, _Overrun, _ChildGone, ValueError) as exc:
            self._forget_one()
            raise TemplateError(
                f"the template sandbox process could not start: {exc!r}", code=ENGINE_UNAVAILABLE
            ) from None
        except BaseException:
            self._forget_one()
            raise

    def _discard(self, spawning: asyncio.Future[_Child]) -> None:
        """A child started for a caller that went away: stop it and free its slot."""
        if not spawning.cancelled() and spawning.exception() is None:
            spawning.result().kill()
        self._forget_one()

    def _wake_one(self) -> None:
        """Tell one waiting thread and one waiting coroutine that a child or a slot is free (lock held)."""
        self._condition.notify()
        while self._waiters:
            loop, woken = self._waiters.popleft()
            try:
                loop.call_soon_threadsafe(_settle, woken, True)
                return
            except RuntimeError:  # that loop is closed: nobody waits there any more
                continue

    def _acquire(self) -> _Child:
        with self._condition:
            while True:
                child = self._take_idle()
                if child is not None:
                    return child
                if self._live < self.size:
                    self._live += 1
                    break
                self._condition.wait()
        try:
            return _Child.spawn(self._arguments)
        except (OSError, _Overrun, _ChildGone, ValueError) as exc:
            self._forget_one()
            raise TemplateError(
                f"the template sandbox process could not start: {exc!r}", code=ENGINE_UNAVAILABLE
            ) from None
        except BaseException:
            self._forget_one()
            raise

    def _forget_one(self) -> None:
        with self._condition:
            self._live -= 1
            self._wake_one()

    def _release(self, child: _Child, healthy: bool) -> None:
        if not healthy:
            # The child may be mid-request (deadline, interrupted caller): its state is unknown.
            child.kill()
            self._forget_one()
            return
        with self._condition:
            self._idle.append(child)
            self._wake_one()

    def close(self) -> None:
        """Stop the idle children (children in use are stopped when they are released as unhealthy)."""
        with self._condition:
            idle, self._idle = self._idle, []
            self._live -= len(idle)
        for child in idle:
            child.close()

    def abandon(self) -> None:
        """Drop a pool inherited through fork: close our pipe ends, leave the processes to their owner."""
        for child in self._idle:
            child.abandon()
        self._idle = []


def _failure(exc: Exception, attempt: int, timeout: float) -> TemplateError | None:
    """The error an exchange failure becomes, or None to try once more on a fresh child."""
    if isinstance(exc, _ChildGone):
        # A child that died while idle never saw this request: try once more on a fresh one.
        if exc.before_request and attempt == 0:
            return None
        return TemplateLimitError("the template sandbox process stopped (memory or CPU limit)", code=MEMORY)
    if isinstance(exc, _Overrun):
        return TemplateLimitError(
            f"the template did not finish within {timeout:g} s and was stopped", code=TIMEOUT
        )
    return TemplateError("the template sandbox sent an invalid reply", code=ENGINE_UNAVAILABLE)


_default_pool: TemplatePool | None = None
_default_lock = threading.Lock()


def _after_fork_in_child() -> None:
    # A lock held by another thread at fork time would stay locked forever in the child.
    global _default_lock
    _default_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def default_pool() -> TemplatePool:
    """The pool of this process, created on first use and replaced after a fork."""
    global _default_pool
    pool = _default_pool
    if pool is not None and pool.pid == os.getpid():
        return pool
    with _default_lock:
        if _default_pool is not None and _default_pool.pid != os.getpid():
            _default_pool.abandon()
            _default_pool = None
        if _default_pool is None:
            _default_pool = TemplatePool()
        return _default_pool


def shutdown_default_pool() -> None:
    """Stop the children of this process's pool (also run at interpreter exit)."""
    global _default_pool
    with _default_lock:
        pool, _default_pool = _default_pool, None
    if pool is not None and pool.pid == os.getpid():
        pool.close()


atexit.register(shutdown_default_pool)
