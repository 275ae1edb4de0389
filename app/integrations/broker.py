"""Wake-ups sent to the Celery broker (Redis) from an event loop, over one pooled connection.

`celery_app.send_task` is blocking network I/O: on the API's event loop it would hold up every other
request, and sending it from a thread costs two thread hand-offs per fire and kombu's producer machinery
(a pool checkout, a message built through several layers). A wake-up is one `LPUSH` of a JSON document
onto its queue's list, so this module writes that document itself, in Celery's task protocol 2 exactly
as kombu's Redis transport lays it out (see `task_message`), and sends it with `redis.asyncio` over a
connection the process keeps. Workers need no change: to them the message is one `send_task` would
have written.

Scope: queues on the anonymous exchange at priority 0, which is how every job of this service is sent
(`job_sender` passes `declare=[]` and no exchange); the list's key is the queue's name behind the
broker's `global_keyprefix`.

A publisher may *coalesce* the wake-ups of some queues (the run queues, when workers claim runs directly:
see `direct_claim_batch`): a job for such a queue, with no countdown, is pushed only when no message
waits on its list, in one script run by Redis, so the check and the push are one step and still one
round trip. A waiting message is taken later by a worker that claims the next pending runs of its queue
one after another, so a run committed before the check is claimed by that drain without a message of
its own; under a backlog the broker then carries a few messages instead of one per run.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import uuid
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

from celery.utils.saferepr import saferepr
from redis.asyncio import Redis

from app.jobs import Job

DEFAULT_QUEUE = "system"
"""Where Celery routes a job sent without a queue (`task_default_queue`; `system.*` and `events.*` too)."""
# Celery's own bounds for the argument previews in the headers (`argsrepr`, `kwargsrepr`).
REPR_MAXSIZE = 1024
REPR_MAXLEVELS = 3
# A dead broker fails a publish in about this long instead of holding the request up; the run it would
# have woken stays pending in the database and recovery sends it again.
SOCKET_TIMEOUT_SECONDS = 2.0
# Push unless a message already waits on the list: the check and the push cannot be split by another
# client's push or a consumer's pop.
_PUSH_UNLESS_WAITING = """
if redis.call('LLEN', KEYS[1]) == 0 then
  return redis.call('LPUSH', KEYS[1], ARGV[1])
end
return 0
"""


_PLAIN = (str, int, float, bool, type(None))


def _preview(value: tuple[Any, ...] | dict[str, Any]) -> str:
    """Celery's `saferepr` of the arguments; plain short values (a run id) take `repr`, which is what
    `saferepr` answers for them, without its per-character walk."""
    items = value.values() if isinstance(value, dict) else value
    if all(type(item) in _PLAIN for item in items):
        text = repr(value)
        if len(text) <= REPR_MAXSIZE and text.isascii():
            return text
    return str(saferepr(value, REPR_MAXSIZE, maxlevels=REPR_MAXLEVELS))


def _json(value: Any) -> str:
    # kombu's own encoding of a message: json.dumps with its default separators.
    return json.dumps(value)


def task_message(job: Job, *, origin: str, reply_to: str, now: datetime | None = None) -> tuple[str, str]:
    """(queue, serialised message) for `job`: the document kombu's Redis transport pushes for
    `send_task(name, args, kwargs, queue=..., countdown=..., ignore_result=True)`."""
    task_id = str(uuid.uuid4())
    queue = job.queue or DEFAULT_QUEUE
    eta = None
    if job.countdown is not None:
        eta = ((now or datetime.now(UTC)) + timedelta(seconds=job.countdown)).isoformat()
    args = list(job.args)
    body = _json([args, job.kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}])
    headers: dict[str, Any] = {
        "lang": "py",
        "task": job.name,
        "id": task_id,
        "shadow": None,
        "eta": eta,
        "expires": None,
        "group": None,
        "group_index": None,
        "retries": 0,
        "timelimit": [None, None],
        "root_id": task_id,
        "parent_id": None,
        "argsrepr": _preview(tuple(job.args)),
        "kwargsrepr": _preview(job.kwargs),
        "origin": origin,
        "ignore_result": True,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
    message = {
        "body": base64.b64encode(body.encode()).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": headers,
        "properties": {
            "correlation_id": task_id,
            "reply_to": reply_to,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }
    return queue, _json(message)


class BrokerPublisher:
    """Sends jobs as Celery task messages with `redis.asyncio`; its connection pool outlives requests.

    `coalesce` names the queues whose immediate jobs are pushed only when no message waits there
    (see the module's docstring); a job with a countdown is always pushed.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        key_prefix: str = "",
        reply_to: str | None = None,
        coalesce: Collection[str] = (),
    ) -> None:
        self.redis = redis
        self.key_prefix = key_prefix
        # What Celery writes: `gen<pid>@<host>` and the app's process-wide reply queue id.
        self.origin = f"gen{os.getpid()}@{socket.gethostname()}"
        self.reply_to = reply_to or str(uuid.uuid4())
        self.coalesce = frozenset(coalesce)
        self._push_unless_waiting = redis.register_script(_PUSH_UNLESS_WAITING)

    @classmethod
    def from_url(
        cls, url: str, *, key_prefix: str = "", reply_to: str | None = None, coalesce: Collection[str] = ()
    ) -> BrokerPublisher:
        """A publisher on its own client of the broker at `url` (no connection opens until a send)."""
        redis = Redis.from_url(
            url, socket_timeout=SOCKET_TIMEOUT_SECONDS, socket_connect_timeout=SOCKET_TIMEOUT_SECONDS
        )
        return cls(redis, key_prefix=key_prefix, reply_to=reply_to, coalesce=coalesce)

    async def publish(self, job: Job, *, coalesce: bool = True) -> bool:
        """Push `job` onto its queue; False when it was coalesced (a message already waited there;
        `coalesce=False` pushes it regardless). Raises the client's error when the broker cannot take it."""
        queue, message = task_message(job, origin=self.origin, reply_to=self.reply_to)
        key = self.key_prefix + queue
        if coalesce and queue in self.coalesce and job.countdown is None:
            return bool(await self._push_unless_waiting(keys=[key], args=[message]))
        await self.redis.lpush(key, message)
        return True

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self.redis.aclose()
