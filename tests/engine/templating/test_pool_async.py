"""The pool on an event loop: waits in the loop's selector, queues callers, kills what it abandons."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.engine.templating import TemplateLimitError
from app.engine.templating.pool import TemplatePool
from app.engine.templating.protocol import encode_request

NESTED_LOOPS = "{% for a in x %}{% for b in x %}{% for c in x %}{% endfor %}{% endfor %}{% endfor %}"


async def _render(pool: TemplatePool, template: str, context: dict[str, Any] | None = None) -> Any:
    return await pool.aexchange(encode_request("render", [template], context or {}), 1)


@pytest.fixture
async def single() -> AsyncIterator[TemplatePool]:
    pool = TemplatePool(size=1)
    yield pool
    pool.close()


async def test_more_callers_than_children_wait_their_turn(single: TemplatePool) -> None:
    answers = await asyncio.gather(*(_render(single, "{{ n * 2 }}", {"n": n}) for n in range(12)))
    assert answers == [{"results": [str(n * 2)]} for n in range(12)]
    assert single._live == 1
    assert single._waiters == type(single._waiters)()


async def test_threads_and_coroutines_share_one_child(single: TemplatePool) -> None:
    from_threads: list[Any] = []

    def in_thread(n: int) -> None:
        from_threads.append(single.exchange(encode_request("render", ["{{ n }}"], {"n": n}), 1))

    threads = [threading.Thread(target=in_thread, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    from_loop = await asyncio.gather(*(_render(single, "{{ n }}", {"n": n}) for n in range(4)))
    for thread in threads:
        await asyncio.to_thread(thread.join)
    assert sorted(r["results"][0] for r in [*from_threads, *from_loop]) == sorted(["0", "1", "2", "3"] * 2)


async def test_a_runaway_render_is_stopped_at_the_wall_deadline() -> None:
    pool = TemplatePool(size=1, render_seconds=None, compile_seconds=None, wall_slack_seconds=0.5)
    try:
        with pytest.raises(TemplateLimitError, match="did not finish"):
            await _render(pool, NESTED_LOOPS, {"x": list(range(2000))})
        assert await _render(pool, "{{ 1 + 1 }}") == {"results": ["2"]}
    finally:
        pool.close()


async def test_a_cancelled_caller_leaves_no_busy_child_behind() -> None:
    untimed = TemplatePool(size=1, render_seconds=None, compile_seconds=None, wall_slack_seconds=30)
    try:
        assert await _render(untimed, "{{ 0 }}") == {"results": ["0"]}
        task = asyncio.create_task(_render(untimed, NESTED_LOOPS, {"x": list(range(2000))}))
        while untimed._idle:  # the request is written in the same step that takes the child
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The child was mid-request: killed and forgotten, so the next caller gets a fresh one.
        assert untimed._live == 0
        assert await _render(untimed, "{{ 3 }}") == {"results": ["3"]}
    finally:
        untimed.close()


async def test_a_cancelled_waiter_hands_its_turn_on(single: TemplatePool) -> None:
    first = asyncio.create_task(_render(single, "{{ x | length }}", {"x": list(range(50000))}))
    waiting = asyncio.create_task(_render(single, "{{ 2 }}"))
    behind = asyncio.create_task(_render(single, "{{ 3 }}"))
    await asyncio.sleep(0)
    waiting.cancel()
    assert (await first)["results"] == ["50000"]
    assert await behind == {"results": ["3"]}


async def test_a_caller_cancelled_while_its_child_starts_leaks_no_child() -> None:
    pool = TemplatePool(size=1)
    try:
        task = asyncio.create_task(_render(pool, "{{ 1 }}"))
        await asyncio.sleep(0)  # the spawn has started on a thread
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(500):  # the slot frees once the started child has arrived and been stopped
            if pool._live == 0:
                break
            await asyncio.sleep(0.02)
        assert pool._live == 0
        assert pool._idle == []
        assert await _render(pool, "{{ 4 }}") == {"results": ["4"]}
    finally:
        pool.close()
