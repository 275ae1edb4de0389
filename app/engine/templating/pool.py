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
import os
import threading
import time
from typing import Any

from app.engine.templating.child_process import Child, ChildGone, Overrun, settle
from app.engine.templating.errors import (
    ENGINE_UNAVAILABLE,
    MEMORY,
    TIMEOUT,
    TemplateError,
    TemplateLimitError,
)
from app.engine.templating.limits import COMPILE_CPU_SECONDS, RENDER_CPU_SECONDS, SANDBOX_MEMORY_BYTES


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
        self._idle: list[Child] = []
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
            except (ChildGone, Overrun, ValueError) as exc:
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
            except (ChildGone, Overrun, ValueError) as exc:
                failure = _failure(exc, attempt, timeout)
                if failure is None:
                    continue
                raise failure from None
            finally:
                self._release(child, healthy)
        raise TemplateError("the template sandbox is unavailable", code=ENGINE_UNAVAILABLE)

    def _take_idle(self) -> Child | None:
        """An idle live child, under the condition's lock (dead ones are dropped on the way)."""
        while self._idle:
            child = self._idle.pop()
            if child.alive():
                return child
            self._live -= 1
            child.close()
        return None

    async def _aacquire(self) -> Child:
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

    async def _aspawn(self) -> Child:
        # Rare (a new or replaced child), and it waits for the child's start-up: off the loop. A
        # caller cancelled meanwhile must not leak the child: it is stopped when it arrives.
        spawning = asyncio.ensure_future(asyncio.to_thread(Child.spawn, self._arguments))
        try:
            return await asyncio.shield(spawning)
        except asyncio.CancelledError:
            spawning.add_done_callback(self._discard)
            raise
        except (OSError, Overrun, ChildGone, ValueError) as exc:
            self._forget_one()
            raise TemplateError(
                f"the template sandbox process could not start: {exc!r}", code=ENGINE_UNAVAILABLE
            ) from None
        except BaseException:
            self._forget_one()
            raise

    def _discard(self, spawning: asyncio.Future[Child]) -> None:
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
                loop.call_soon_threadsafe(settle, woken, True)
                return
            except RuntimeError:  # that loop is closed: nobody waits there any more
                continue

    def _acquire(self) -> Child:
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
            return Child.spawn(self._arguments)
        except (OSError, Overrun, ChildGone, ValueError) as exc:
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

    def _release(self, child: Child, healthy: bool) -> None:
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
    if isinstance(exc, ChildGone):
        # A child that died while idle never saw this request: try once more on a fresh one.
        if exc.before_request and attempt == 0:
            return None
        return TemplateLimitError("the template sandbox process stopped (memory or CPU limit)", code=MEMORY)
    if isinstance(exc, Overrun):
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
