"""A worker's claim run in the test's own process: the worker's runtime and ports around the test app's
collaborators, so a test can drive `execution_service.execute` and look at every statement it sends."""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import timedelta
from typing import Any

from app.integrations.slack import SlackApi
from app.services.runs.execution import ExecutionSettings, execution_service
from app.worker.ports import ports_for
from app.worker.runtime import WorkerRuntime, mail_port


def in_process_runtime(app: Any) -> WorkerRuntime:
    """The worker's runtime on the test app's engine, Redis and composition (its loop is the test's)."""
    core = app.state.runtime
    return WorkerRuntime(
        pid=os.getpid(),
        name="in-process",
        core=core,
        loop=asyncio.get_running_loop(),
        engine=app.state.engine,
        sessionmaker=app.state.sessionmaker,
        redis=app.state.redis,
        publisher=app.state.publisher,
        slack=SlackApi(core.settings.slack_api_url, core.egress_allow),
        mail=mail_port(core.settings, core.egress_allow),
    )


async def execute(runtime: WorkerRuntime, run_id: uuid.UUID) -> str:
    """One claim of the run, as the worker's task makes it; the answer says how it ended."""
    settings = ExecutionSettings(worker=runtime.name, lease=timedelta(seconds=30), limits=runtime.core.limits)
    deps = runtime.core.execution(ports_for(runtime))
    return await execution_service.execute(runtime.claim_writes, run_id, settings, deps)
