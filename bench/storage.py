"""`python -m bench.storage [N]`: PostgreSQL bytes per finished run.

Fires N runs of the bench's 3-step automation through the api (a fresh bench database), lets a worker
finish them, VACUUMs and ANALYZEs, and divides the size of every table the runs wrote to (heap, indexes,
TOAST: `pg_total_relation_size`) by N. An empty database's sizes are measured first and subtracted.
"""

from __future__ import annotations

import asyncio
import sys

import asyncpg

from bench.data import create_hooks
from bench.runs import _finished_at, _fire_batch, _settle
from bench.stack import FULL_REDIS_DB, BenchStack, resolve_servers

TABLES = (
    "runs",
    "run_steps",
    "domain_events",
    "action_invocations",
    "webhook_deliveries",
    "automation_triggers",
)


async def _sizes(dsn: str) -> dict[str, int]:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("VACUUM ANALYZE")
        rows = await connection.fetch(
            "SELECT relname, pg_total_relation_size(oid) AS size FROM pg_class"
            " WHERE relname = ANY($1::text[]) AND relkind = 'r'",
            list(TABLES),
        )
    finally:
        await connection.close()
    return {row["relname"]: int(row["size"]) for row in rows}


def measure(count: int) -> dict[str, float]:
    stack = BenchStack(resolve_servers(), FULL_REDIS_DB).open()
    try:
        stack.api()
        stack.worker()
        (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
        empty = asyncio.run(_sizes(stack.dsn))
        run_ids = asyncio.run(_fire_batch(stack, hook, count, 16))
        asyncio.run(_finished_at(stack, run_ids, limit=max(120.0, count * 0.5)))
        _settle(stack)
        full = asyncio.run(_sizes(stack.dsn))
    finally:
        stack.close()
    return {table: (full[table] - empty.get(table, 0)) / count for table in full}


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 2_000
    per_run = measure(count)
    parts = ", ".join(f"{table} {size:,.0f} B" for table, size in sorted(per_run.items()) if size > 0)
    print(f"{count:,} finished 3-step runs: {sum(per_run.values()):,.0f} B per run ({parts})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
