"""A small pool of warm sandbox processes, owned by one service process.

Templates are compiled and rendered in child processes (see `child.py`) so that a runaway template
can be stopped for real: the child limits its own memory and CPU, and the parent enforces a wall
deadline on every exchange, killing and replacing a child that overruns.

Children are started with `subprocess.Popen`, not `multiprocessing`, because Celery's prefork
workers are daemonic processes and `multiprocessing` refuses to start children from those. A pool
belongs to the process that created it: after a fork the inherited pool is dropped (its pipes are
closed without touching the parent's children) and the new process starts its own on first use.

An exchange waits on a pipe. Code on an event loop uses `aexchange`, which waits on a thread of the
loop's default executor, so a render never stalls the loop (lease heartbeats, other requests).
"""

from __future__ import annotations

import asyncio
import atexit
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
        os.set_blocking(self._write_fd, False)
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
            chunk = os.read(self._read_fd, min(size, _READ_CHUNK))
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


class TemplatePool:
    """Up to `size` warm sandbox processes, started lazily, shared safely between threads."""

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
            except _ChildGone as gone:
                # A child that died while idle never saw this request: try once more on a fresh one.
                if gone.before_request and attempt == 0:
                    continue
                raise TemplateLimitError(
                    "the template sandbox process stopped (memory or CPU limit)", code=MEMORY
                ) from None
            except _Overrun:
                raise TemplateLimitError(
                    f"the template did not finish within {timeout:g} s and was stopped", code=TIMEOUT
                ) from None
            except ValueError:
                raise TemplateError(
                    "the template sandbox sent an invalid reply", code=ENGINE_UNAVAILABLE
                ) from None
            finally:
                self._release(child, healthy)
        raise TemplateError("the template sandbox is unavailable", code=ENGINE_UNAVAILABLE)

    async def aexchange(self, payload: bytes, sources: int) -> Any:
        """`exchange` without blocking the event loop: the pipe wait happens on a worker thread.

        Cancelling the awaiting task does not cut the exchange short; it ends by the wall deadline
        at the latest, and the child is then killed or returned to the pool as usual.
        """
        return await asyncio.to_thread(self.exchange, payload, sources)

    def _acquire(self) -> _Child:
        with self._condition:
            while True:
                while self._idle:
                    child = self._idle.pop()
                    if child.alive():
                        return child
                    self._live -= 1
                    child.close()
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
            self._condition.notify()

    def _release(self, child: _Child, healthy: bool) -> None:
        if not healthy:
            # The child may be mid-request (deadline, interrupted caller): its state is unknown.
            child.kill()
            self._forget_one()
            return
        with self._condition:
            self._idle.append(child)
            self._condition.notify()

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
