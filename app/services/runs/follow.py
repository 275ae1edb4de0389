"""Following a run until it ends, without holding a database connection or the event loop.

A caller that asked to wait (`?wait=N` on a webhook fire, `wait_seconds` on run now) is answered with
the finished run when it ends within N seconds. The wait listens on the process's one run-change hub
(`app.persistence.run_events`: PostgreSQL NOTIFY at every status change's commit, on a single LISTEN
connection shared by every waiter and live stream of the process) and re-reads the run, each time in
a short session of its own, only when a change of that run is heard. NOTIFY already carries every
change from whichever process made it, so no second channel (Redis pub/sub) is needed. A notice lost
(the hub reconnecting, a slow reader's dropped change) only delays the answer: the run is also re-read
every `REREAD_SECONDS` and once more when the wait ends.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from app.definitions import run_states
from app.persistence.models import Run
from app.persistence.run_events import RunEventHub

MAX_WAIT_SECONDS = 30
REREAD_SECONDS = 2.0
# What a webhook caller may be shown of its run's output: nothing, or the output as recorded.
OUTPUT_VISIBILITIES = ("none", "caller")


def is_finished(run: Run) -> bool:
    return run.status in run_states.TERMINAL


async def wait_until_finished(
    hub: RunEventHub,
    space_id: uuid.UUID,
    run_id: uuid.UUID,
    seconds: float,
    read: Callable[[], Awaitable[Run | None]],
    until: Callable[[Run], bool] = is_finished,
) -> Run | None:
    """The run once `until` holds for it (by default: once it is terminal), or as it is when `seconds`
    have passed (None if it is gone).

    `read` loads the run in a session of its own that it closes before returning: between reads this
    holds no connection, only a subscription to the hub."""
    deadline = time.monotonic() + seconds
    async with hub.subscribe(space_id) as changes:
        run = await read()  # after subscribing: a change committed from here on is heard
        while run is not None and not until(run):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                change = await asyncio.wait_for(changes.get(), min(left, REREAD_SECONDS))
            except TimeoutError:
                change = None
            if change is None or change.run_id == run_id:
                run = await read()
    return run


def caller_view(run: Run, run_url: str, output_visibility: str) -> dict[str, Any]:
    """What a webhook caller reads of its own run: its status and error, and its output only when the
    trigger's `output_visibility` is `caller`. Nothing else (no inputs, steps, definition or costs)."""
    view: dict[str, Any] = {
        "run_id": str(run.id),
        "status": str(run.status),
        "error": run.error,
        "url": run_url,
    }
    if output_visibility == "caller":
        view["output"] = run.output
    return view
