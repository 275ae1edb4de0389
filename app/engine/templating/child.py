"""The sandbox process: `python -m app.engine.templating.child` answers template requests on stdin.

It caps its own address space (RLIMIT_AS) and CPU time (RLIMIT_CPU, renewed per request), arms a
CPU-time timer around every compile and render so a runaway template is interrupted without losing
the process, and speaks the framed JSON protocol of `protocol.py` on private copies of stdin and
stdout (the real file descriptors 0 and 1 point at /dev/null, so a stray print cannot corrupt the
protocol). It exits when its stdin closes, i.e. when the service process that owns it goes away.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import sys
from contextlib import AbstractContextManager, nullcontext
from types import FrameType
from typing import Any, BinaryIO

from app.engine.templating.errors import INVALID_CONTEXT, TemplateRuntimeError, error_to_wire
from app.engine.templating.evaluator import CpuBudgetExceeded, Evaluator
from app.engine.templating.protocol import encode_reply, read_frame

# Spare CPU seconds per request on top of the per-template budgets, before RLIMIT_CPU kills us.
_CPU_HEADROOM_SECONDS = 2


class _CpuTimer:
    """Interrupts the running compile or render when its CPU budget is spent (SIGPROF)."""

    def __init__(self) -> None:
        self._armed_for: float | None = None
        self._next = 0.0
        signal.signal(signal.SIGPROF, self._expired)

    def _expired(self, signum: int, frame: FrameType | None) -> None:
        # A signal that arrives after the budget was disarmed is ignored.
        if self._armed_for is not None:
            seconds, self._armed_for = self._armed_for, None
            raise CpuBudgetExceeded(seconds)

    def budget(self, seconds: float | None) -> AbstractContextManager[object]:
        """A context manager that interrupts its block after `seconds` of CPU time."""
        if seconds is None or self._armed_for is not None:  # no limit, or an outer budget governs
            return nullcontext()
        self._next = seconds
        return self  # a plain object, not a generator: this runs twice per template

    def __enter__(self) -> None:
        self._armed_for = self._next
        signal.setitimer(signal.ITIMER_PROF, self._next)

    def __exit__(self, *exc_info: object) -> None:
        self._armed_for = None
        signal.setitimer(signal.ITIMER_PROF, 0)


def _limit_memory(memory_bytes: int) -> None:
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _allow_cpu(seconds: float) -> None:
    """Let the process use `seconds` more CPU from now; past that the kernel stops it (SIGXCPU)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return requests, replies


def _seconds(milliseconds: int) -> float | None:
    return milliseconds / 1000 if milliseconds > 0 else None


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memory-bytes", type=int, default=0, help="RLIMIT_AS; 0 leaves it unset")
    parser.add_argument("--render-ms", type=int, default=0, help="CPU budget per render; 0 for none")
    parser.add_argument("--compile-ms", type=int, default=0, help="CPU budget per compile; 0 for none")
    return parser.parse_args(argv)


def _answer(frame: bytes, evaluator: Evaluator, per_source_seconds: float) -> dict[str, Any]:
    try:
        request = json.loads(frame)
    except (ValueError, RecursionError, MemoryError):  # e.g. a context nested deeper than we decode
        error = TemplateRuntimeError("the template context could not be decoded", code=INVALID_CONTEXT)
        return {"error": error_to_wire(error)}
    if not isinstance(request, dict):
        request = {}
    sources = request.get("sources")
    _allow_cpu(
        _CPU_HEADROOM_SECONDS + per_source_seconds * (len(sources) if isinstance(sources, list) else 1)
    )
    return evaluator.handle(request)


def serve(requests: BinaryIO, replies: BinaryIO, evaluator: Evaluator, per_source_seconds: float) -> int:
    """Answer requests until end of input; the exit status for the process."""
    replies.write(encode_reply({"ready": True}))
    replies.flush()
    while True:
        try:
            frame = read_frame(requests)
        except (ValueError, MemoryError):  # not our protocol: give up, the parent will replace us
            return 1
        if frame is None:
            return 0
        reply = _answer(frame, evaluator, per_source_seconds)
        replies.write(encode_reply(reply))
        replies.flush()
        if reply.get("retire"):
            return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the sandbox process."""
    options = _parse_args(argv)
    _limit_memory(options.memory_bytes)
    requests, replies = _claim_stdio()
    # Ctrl-C in a terminal reaches the whole process group; the owner decides when we stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    timer = _CpuTimer()
    render_seconds = _seconds(options.render_ms)
    compile_seconds = _seconds(options.compile_ms)
    evaluator = Evaluator(timer.budget, render_seconds=render_seconds, compile_seconds=compile_seconds)
    return serve(requests, replies, evaluator, (render_seconds or 1.0) + (compile_seconds or 1.0))


if __name__ == "__main__":
    sys.exit(main())
