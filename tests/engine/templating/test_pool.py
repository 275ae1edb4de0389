"""The sandbox processes: killed on overrun, limited, replaced, fork- and thread-safe, started lean."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.engine.templating import TemplateLimitError, render_template
from app.engine.templating.limits import SANDBOX_MEMORY_BYTES
from app.engine.templating.pool import TemplatePool, default_pool
from app.engine.templating.protocol import encode_request

NESTED_LOOPS = "{% for a in x %}{% for b in x %}{% for c in x %}{% endfor %}{% endfor %}{% endfor %}"
DOUBLING_MACRO = (
    "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% else %}{{ s|length }}{% endif %}{% endmacro %}"
    "{{ d('ab', 40) }}"
)


def _render(pool: TemplatePool, template: str, context: dict[str, Any] | None = None) -> Any:
    return pool.exchange(encode_request("render", [template], context or {}), 1)


def _child_pids(pool: TemplatePool) -> list[int]:
    return [child.process.pid for child in pool._idle]


def _is_running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return status != "Z"


@pytest.fixture
def untimed_pool() -> Iterator[TemplatePool]:
    """A pool whose children do not time themselves: only the parent's wall deadline stops them."""
    pool = TemplatePool(size=1, render_seconds=None, compile_seconds=None, wall_slack_seconds=0.5)
    yield pool
    pool.close()


def test_pool_starts_its_children_lazily() -> None:
    pool = TemplatePool(size=2)
    assert _child_pids(pool) == []
    assert _render(pool, "{{ 1 }}") == {"results": ["1"]}
    assert len(_child_pids(pool)) == 1
    pool.close()


def test_runaway_child_is_killed_at_the_wall_deadline_and_replaced(untimed_pool: TemplatePool) -> None:
    _render(untimed_pool, "{{ 1 }}")
    (pid,) = _child_pids(untimed_pool)
    started = time.monotonic()
    with pytest.raises(TemplateLimitError) as caught:
        _render(untimed_pool, NESTED_LOOPS, {"x": list(range(1000))})
    assert 0.4 < time.monotonic() - started < 3.0
    assert caught.value.code == "template_timeout"
    assert not _is_running(pid)
    assert _render(untimed_pool, "{{ 2 }}") == {"results": ["2"]}
    assert _child_pids(untimed_pool) != [pid]


def test_memory_limit_stops_a_memory_bomb_and_the_child_retires() -> None:
    pool = TemplatePool(size=1, memory_bytes=200 * 1024 * 1024, render_seconds=None, wall_slack_seconds=10)
    try:
        _render(pool, "{{ 1 }}")
        (pid,) = _child_pids(pool)
        reply = _render(pool, DOUBLING_MACRO)
        assert reply["error"]["code"] == "template_memory"
        assert reply["retire"] is True
        assert _render(pool, "{{ 3 }}") == {"results": ["3"]}
        assert _child_pids(pool) != [pid]
    finally:
        pool.close()


def test_child_that_died_while_idle_is_replaced_transparently(still_renders: Callable[[], None]) -> None:
    still_renders()
    pool = default_pool()
    for pid in _child_pids(pool):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.05)
    still_renders()


def test_children_run_with_resource_limits_and_without_the_service_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUTOMATIONS_SECRET_KEY", "do-not-leak")
    pool = TemplatePool(size=1)
    try:
        _render(pool, "{{ 1 }}")
        (pid,) = _child_pids(pool)
        environment = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"do-not-leak" not in environment
        assert b"AUTOMATIONS" not in environment
        limits = Path(f"/proc/{pid}/limits").read_text()
        address_space = next(line for line in limits.splitlines() if line.startswith("Max address space"))
        assert str(SANDBOX_MEMORY_BYTES) in address_space
        cpu_time = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
        assert cpu_time.split()[3] != "unlimited"
        # stdio (on /dev/null) and the two protocol copies: nothing inherited from the service
        assert len(os.listdir(f"/proc/{pid}/fd")) <= 6
    finally:
        pool.close()


def test_closed_pool_leaves_no_process_behind() -> None:
    pool = TemplatePool(size=1)
    _render(pool, "{{ 1 }}")
    (pid,) = _child_pids(pool)
    pool.close()
    assert not _is_running(pid)


def _render_in_forked_process(results: Any) -> None:
    results.put((render_template("{{ 6 * 7 }}", {}), default_pool().pid == os.getpid()))


def test_renders_inside_a_daemonic_forked_process_like_a_celery_worker(
    still_renders: Callable[[], None],
) -> None:
    still_renders()  # the parent has a warm pool that the fork inherits
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    process = context.Process(target=_render_in_forked_process, args=(results,), daemon=True)
    process.start()
    assert results.get(timeout=20) == ("42", True)
    process.join(timeout=10)
    assert process.exitcode == 0
    still_renders()  # the fork did not disturb the parent's children


def test_threads_share_the_pool_safely() -> None:
    pool = TemplatePool(size=2)
    failures: list[BaseException] = []

    def work(number: int) -> None:
        try:
            for step in range(20):
                reply = _render(pool, "{{ a }}-{{ b }}", {"a": number, "b": step})
                assert reply == {"results": [f"{number}-{step}"]}
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(_child_pids(pool)) <= 2
    pool.close()
