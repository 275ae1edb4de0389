"""What the Prometheus metrics cost on the hot paths: CPU per operation with metrics on and off.

Throughput cannot resolve a 5% difference on a shared 2-core machine (the same comparison of fires/s
gave 0.8x, 1.1x and 1.3x in three runs), so every figure here is a cost per operation:

- api: two fresh apis (`automations api`, one with `AUTOMATIONS_METRICS_ENABLED=false`) take the same
  webhook fires in short alternating rounds; each round reads the CPU seconds (psutil, the api's every
  process) the measured api used for its fires. The per-round ratios on/off give the median and a
  distribution-free 95% interval of it.
- worker: two fresh workers (`bench.worker`, one with metrics off) drain the same backlog of 3-step runs
  in alternating batches, each while the other does not consume the run queue; the worker's CPU (all
  its processes) per run, per batch, as above.
- calls: the metric calls of one fire and of one 3-step run, exactly as the hot paths make them, in
  multiprocess mode (`bench/metrics_probe.py`), counted in instructions by callgrind (deterministic,
  whatever the load) and in process CPU, on minus off; set beside the api's and the worker's CPU per
  operation with metrics off.

Verdict: within the 5% budget when the interval's upper end is at most 1.05; over it when its lower
end is above 1.05; otherwise the difference is below what this run could resolve.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from bench.data import Hook, create_hooks, webhook_body
from bench.fire import fire_many, http_client
from bench.floors import RUN_QUEUE
from bench.machine import cpu_seconds
from bench.report import Row, median, ms, percentile, us
from bench.runs import _finished_at, _fire_batch, _settle
from bench.stack import ROOT, BenchStack, log

BUDGET = 1.05
METRICS_OFF = {"AUTOMATIONS_METRICS_ENABLED": "false"}
# Two apis at once on a server other work shares: small pools keep both well inside max_connections
# (a fire waits for a connection rather than opening one; the CPU per fire barely changes).
API_POOL = {"AUTOMATIONS_DATABASE_POOL_SIZE": "4", "AUTOMATIONS_DATABASE_MAX_OVERFLOW": "0"}
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


@dataclass(frozen=True)
class Sizes:
    """How much each part measures (the suite's profile picks them)."""

    clients: int
    fire_warmup: int
    fire_rounds: int
    fires: int
    run_rounds: int
    runs: int
    probe_count: int
    probe_rounds: int
    callgrind: bool
    # Fresh processes on both sides (a full run); a smoke run reuses the suite's api and worker as "on".
    fresh: bool = True


@dataclass(frozen=True)
class Compared:
    """Seconds of CPU per operation, per round, with metrics on and off (rounds paired)."""

    on: list[float]
    off: list[float]

    @property
    def ratios(self) -> list[float]:
        return [on / off for on, off in zip(self.on, self.off, strict=True) if off > 0]


def median_interval(samples: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free interval for the median: the narrowest pair of order statistics x(k),
    x(n+1-k) that covers it with at least `confidence` (a binomial(n, ½) count of samples below it);
    None when even the whole range cannot (fewer than 6 samples at 95%)."""
    ordered = sorted(samples)
    n = len(ordered)
    below = 0.0  # P(Binomial(n, ½) < k): the chance that the median lies below x(k)
    k = 0
    while k < n // 2 and 1 - 2 * (below + math.comb(n, k) / 2**n) >= confidence:
        below += math.comb(n, k) / 2**n
        k += 1
    if k == 0:
        return None
    return ordered[k - 1], ordered[n - k]


def verdict(ratios: Sequence[float]) -> str:
    """Whether the on/off ratio meets the 5% budget, exceeds it, or this run cannot tell."""
    interval = median_interval(ratios)
    if interval is None:
        return f"too few rounds ({len(ratios)}) for a 95% interval of the median"
    low, high = interval
    if high <= BUDGET:
        return f"within the 5% budget (95% interval of the median {low:.3f}-{high:.3f}x)"
    if low > BUDGET:
        return f"OVER the 5% budget (95% interval of the median {low:.3f}-{high:.3f}x)"
    return f"not resolved at 5% in this run (95% interval of the median {low:.3f}-{high:.3f}x spans 1.05)"


def _spread(ratios: Sequence[float]) -> str:
    return f"per-round ratios: IQR {percentile(ratios, 25):.3f}-{percentile(ratios, 75):.3f}x"


def _load() -> str:
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


# --- api ----------------------------------------------------------------------------------------------


async def _api_rounds(
    urls: dict[str, str], pids: dict[str, int], hooks: list[Hook], sizes: Sizes
) -> Compared:
    body = webhook_body(1)
    per_fire: dict[str, list[float]] = {"on": [], "off": []}
    clients = {name: http_client(url, sizes.clients) for name, url in urls.items()}
    try:
        for client in clients.values():
            await fire_many(client, hooks, sizes.fire_warmup, sizes.clients, body)
        for index in range(sizes.fire_rounds):
            # The order alternates too: a drift within a pair of rounds favours neither side.
            for name in ("on", "off") if index % 2 == 0 else ("off", "on"):
                before = cpu_seconds(pids[name], tree=True)
                await fire_many(clients[name], hooks, sizes.fires, sizes.clients, body)
                per_fire[name].append((cpu_seconds(pids[name], tree=True) - before) / sizes.fires)
    finally:
        for client in clients.values():
            await client.aclose()
    return Compared(per_fire["on"], per_fire["off"])


def _measure_api(stack: BenchStack, sizes: Sizes) -> Compared:
    hooks = asyncio.run(create_hooks(stack.database_url, sizes.clients))
    if sizes.fresh:
        on, on_url = stack.extra_api("api-metrics-on", API_POOL)
    else:
        on, on_url = stack.api(), stack.api_url
    started = [on] if sizes.fresh else []
    try:
        off, off_url = stack.extra_api("api-metrics-off", {**API_POOL, **METRICS_OFF})
        started.append(off)
        log(f"metrics: api CPU per fire, {sizes.fire_rounds} alternating rounds of {sizes.fires} fires each")
        return asyncio.run(
            _api_rounds({"on": on_url, "off": off_url}, {"on": on.pid, "off": off.pid}, hooks, sizes)
        )
    except Exception:
        log("\n".join(f"--- {process.name} log ---\n{process.log_tail()}" for process in started))
        raise
    finally:
        for process in started:
            stack.stop_extra_api(process)
        # The fires' wake-ups: no worker consumes the run queue now, and none is to run them.
        stack.redis_client().delete(RUN_QUEUE)


# --- worker -------------------------------------------------------------------------------------------


def _worker_batch(stack: BenchStack, hook: Hook, count: int, clients: int, node: str, pid: int) -> float:
    """The worker `node` drains a backlog of `count` runs; its CPU seconds per run (all its processes,
    the terminal events' dispatch included)."""
    run_ids = asyncio.run(_fire_batch(stack, hook, count, clients))
    before = cpu_seconds(pid, tree=True)
    stack.resume_queue(RUN_QUEUE, node)
    asyncio.run(_finished_at(stack, run_ids, limit=max(120.0, count * 0.5)))
    _settle(stack)
    spent = cpu_seconds(pid, tree=True) - before
    stack.pause_queue(RUN_QUEUE, node)
    return spent / count


def _measure_worker(stack: BenchStack, sizes: Sizes) -> Compared:
    stack.api()  # the runs are fired through the suite's api
    (hook,) = asyncio.run(create_hooks(stack.database_url, 1))
    started = []
    try:
        workers: dict[str, tuple[int, str]] = {}
        if not sizes.fresh:  # run() paused the suite's worker already
            workers["on"] = (stack.worker().pid, stack.worker_node)
        wanted = {name: env for name, env in (("on", {}), ("off", METRICS_OFF)) if name not in workers}
        fresh = stack.extra_workers({f"worker-metrics-{name}": env for name, env in wanted.items()})
        for name, (process, node) in zip(wanted, fresh, strict=True):
            started.append(process)
            stack.pause_queue(RUN_QUEUE, node)
            workers[name] = (process.pid, node)
        per_run: dict[str, list[float]] = {"on": [], "off": []}
        log(f"metrics: worker CPU per run, {sizes.run_rounds} alternating batches of {sizes.runs} runs each")
        for pid, node in workers.values():  # warm-up: imports, sandboxes, caches of both
            _worker_batch(stack, hook, sizes.runs, sizes.clients, node, pid)
        for index in range(sizes.run_rounds):
            for name in ("on", "off") if index % 2 == 0 else ("off", "on"):
                pid, node = workers[name]
                per_run[name].append(_worker_batch(stack, hook, sizes.runs, sizes.clients, node, pid))
        return Compared(per_run["on"], per_run["off"])
    finally:
        for process in started:
            stack.stop_extra_worker(process)


# --- the metric calls alone ------------------------------------------------------------------------------


def _probe(args: list[str], *, callgrind: bool) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bench.metrics_probe", *args]
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    # A fixed hash seed: the same dict layouts, hence the same instruction count, run after run.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True)


def instructions_per_call(workload: str, count: int) -> float:
    """Instructions of one `workload` (fire or run) of metric calls, on minus off, counted by callgrind."""
    totals = {}
    for state in ("on", "off"):
        found = _COLLECTED.search(_probe([workload, str(count), state], callgrind=True).stderr)
        if found is None:
            raise RuntimeError("callgrind printed no instruction count")
        totals[state] = int(found.group(1))
    return (totals["on"] - totals["off"]) / count


def cpu_per_call(workload: str, count: int, rounds: int) -> float:
    """Process CPU seconds of one `workload` of metric calls, on minus off (medians of alternating rounds)."""
    answer = json.loads(_probe([workload, str(count), "cpu", str(rounds)], callgrind=False).stdout)
    return max(0.0, float(answer["on"]) - float(answer["off"]))


def _calls_row(figure: str, workload: str, sizes: Sizes, cost_off: float, cost_name: str) -> Row:
    cpu = cpu_per_call(workload, sizes.probe_count * 10, sizes.probe_rounds)
    if sizes.callgrind and shutil.which("valgrind"):
        log(f"metrics: counting the instructions of the metric calls per {workload} (callgrind)")
        counted = (
            f"{instructions_per_call(workload, sizes.probe_count) / 1000:,.1f} k instructions (callgrind); "
        )
    else:
        counted = "instructions not counted (valgrind absent, or a smoke run); "
    share = 1 + cpu / cost_off if cost_off > 0 else math.nan
    return Row(
        figure,
        f"{counted}{us(cpu)} CPU",
        f"{ms(cost_off)} {cost_name} with metrics off (row above)",
        f"{share:.3f}x",
        details=(
            "the calls the hot path makes, in prometheus-client's multiprocess mode, on minus off: "
            "instructions are load-independent; CPU is the median of alternating rounds in one process; "
            "x floor = (metrics-off cost + these calls' CPU) / metrics-off cost"
        ),
        target="≤ 1.05x",
    )


# --- the rows -------------------------------------------------------------------------------------------


def _compared_row(figure: str, compared: Compared, unit: str, how: str) -> Row:
    ratios = compared.ratios
    return Row(
        figure,
        f"on {ms(median(compared.on))}, off {ms(median(compared.off))} {unit}",
        f"{ms(median(compared.off))} {unit} (metrics off, AUTOMATIONS_METRICS_ENABLED=false)",
        f"{median(ratios):.3f}x",
        details=f"{verdict(ratios)}; {_spread(ratios)}; {how}; {_load()}",
        target="≤ 1.05x",
    )


def run(stack: BenchStack, sizes: Sizes) -> list[Row]:
    """The api and worker CPU per operation with metrics on vs off, and the metric calls alone."""
    # The suite's worker, if it runs, must take no run meanwhile: only the measured one does.
    if not sizes.fresh:
        stack.worker()
    main_worker = stack.worker_running
    if main_worker:
        stack.pause_queue(RUN_QUEUE)
    try:
        api = _measure_api(stack, sizes)
        worker = _measure_worker(stack, sizes)
    finally:
        if main_worker:
            stack.consume(RUN_QUEUE)
    return [
        _compared_row(
            "metrics on vs off, api CPU per fire",
            api,
            "per fire",
            f"{len(api.on)} alternating rounds x {sizes.fires} fires per api ({sizes.clients} clients → "
            f"{sizes.clients} webhooks), two fresh apis, CPU of all processes of each (psutil)",
        ),
        _calls_row("metric calls per fire", "fire", sizes, median(api.off), "api CPU per fire"),
        _compared_row(
            "metrics on vs off, worker CPU per 3-step run",
            worker,
            "per run",
            f"{len(worker.on)} alternating batches x {sizes.runs} runs per worker after one warm-up batch "
            "each, two fresh workers (default pool), CPU of all processes of each (psutil)",
        ),
        _calls_row("metric calls per 3-step run", "run", sizes, median(worker.off), "worker CPU per run"),
    ]
