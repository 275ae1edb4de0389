"""`python -m bench.redis_memory [N]`: Redis memory per waiting run.

A run waiting for a worker costs Redis one wake-up message on its queue's list (the run itself is a
PostgreSQL row). This sends N wake-ups exactly as the service does (Celery `runs.execute` with a run id,
to `runs.fast`) under a key prefix of its own that no worker consumes, then reads the list's size
(`MEMORY USAGE … SAMPLES 0`, exact) and the server's `used_memory` before and after (also counts other
clients of a shared server), and deletes the list.
"""

from __future__ import annotations

import sys
import uuid

import redis

from app.config import Settings
from app.worker.celery_app import create_celery
from bench.stack import SECRET_KEY, resolve_servers

QUEUE = "runs.fast"


def measure(count: int) -> dict[str, float]:
    servers = resolve_servers()
    prefix = f"bench-memory-{uuid.uuid4().hex[:8]}:"
    settings = Settings(
        environment="test", secret_key=SECRET_KEY, redis_url=servers.redis_url, redis_key_prefix=prefix
    )
    celery = create_celery(settings)
    client = redis.Redis.from_url(servers.redis_url)
    key = f"{prefix}{QUEUE}"
    try:
        before = int(client.info("memory")["used_memory"])
        with celery.producer_pool.acquire(block=True) as producer:
            for _ in range(count):
                celery.send_task("runs.execute", args=[str(uuid.uuid4())], queue=QUEUE, producer=producer)
        after = int(client.info("memory")["used_memory"])
        waiting = int(client.llen(key))
        size = int(client.memory_usage(key, samples=0) or 0)
        message = len(client.lindex(key, 0) or b"")
    finally:
        client.delete(key)
        client.close()
        celery.close()
    assert waiting == count, f"{waiting} of {count} wake-ups on the list"
    return {
        "list_bytes_per_run": size / count,
        "message_bytes": message,
        "used_memory_bytes_per_run": (after - before) / count,
    }


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 10_000
    figures = measure(count)
    print(
        f"{count:,} waiting runs on {QUEUE}: {figures['list_bytes_per_run']:,.0f} B per run in the list "
        f"(MEMORY USAGE; one message {figures['message_bytes']:,} B), "
        f"{figures['used_memory_bytes_per_run']:,.0f} B per run by INFO used_memory"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
