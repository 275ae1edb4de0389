"""The awaitable render calls: the same answers as the blocking ones, and the event loop keeps running."""

from __future__ import annotations

import asyncio

import pytest

from app.engine.templating import (
    TemplateUndefinedError,
    aevaluate_predicate,
    arender_value,
    evaluate_predicate,
    render_value,
)

CONFIG = {"title": "Hello {{ inputs.name }}", "tags": "{{ inputs.tags }}", "n": 3, "plain": "text"}
CONTEXT = {"inputs": {"name": "Ada", "tags": ["a", "b"]}}


async def test_arender_value_answers_what_render_value_answers() -> None:
    assert await arender_value(CONFIG, CONTEXT) == render_value(CONFIG, CONTEXT)
    assert await arender_value({"n": 1}, {}) == {"n": 1}


async def test_aevaluate_predicate_answers_what_evaluate_predicate_answers() -> None:
    for expression in ("{{ inputs.tags | length > 1 }}", "inputs.name == 'Bob'"):
        assert await aevaluate_predicate(expression, CONTEXT) is evaluate_predicate(expression, CONTEXT)


async def test_errors_keep_their_pointer() -> None:
    with pytest.raises(TemplateUndefinedError) as failure:
        await arender_value({"a": ["{{ nope.x }}"]}, {})
    assert failure.value.pointer == "/a/0"


async def test_other_tasks_run_while_a_render_waits_on_the_sandbox() -> None:
    ticks = 0
    rendering = True

    async def ticker() -> None:
        nonlocal ticks
        while rendering:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    started = ticks
    try:
        await arender_value({"big": "{% for i in items %}{{ i }}{% endfor %}"}, {"items": list(range(20000))})
    finally:
        rendering = False
        await task
    assert ticks > started
