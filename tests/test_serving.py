"""`automations api` with several processes: connections that arrive together are spread over them, a
killed process is replaced on its socket, a reload (SIGHUP) replaces each process on its socket, and a
port another server holds is refused. Asked to, it serves at a lower CPU priority, every process of it."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.browser import free_port, start_api
from tests.support.processes import ServiceProcess

CLIENTS = 16


def _processes(api: ServiceProcess) -> list[psutil.Process]:
    """The processes serving requests: not multiprocessing's resource tracker, nor one that has exited
    and waits for the supervisor to reap it."""
    serving = []
    for child in psutil.Process(api.pid).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(child.cmdline()):
                serving.append(child)
        except psutil.NoSuchProcess:
            continue
    return serving


def _healthz(connection: socket.socket) -> bytes:
    """One keep-alive request on an open connection; the status line of its answer."""
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = connection.recv(4096)
        assert chunk, "the api closed the connection"
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += connection.recv(4096)
    return lines[0]


def _spread(api: ServiceProcess, port: int) -> dict[int, int]:
    """Open `CLIENTS` connections together (as a proxy's keep-alive pool opens them), then one request
    each: how many each serving process took.

    Each connection is counted as soon as it is answered: an idle keep-alive connection is closed by the
    api after a few seconds, and on a loaded machine the last answers can come later than that.
    """
    connections = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(CLIENTS)]
    served = dict.fromkeys((process.pid for process in _processes(api)), 0)
    try:
        for connection in connections:
            assert _healthz(connection).endswith(b"200 OK")
            holder = _holder(api, port, connection.getsockname()[1])
            if holder is not None:
                served[holder] = served.get(holder, 0) + 1
        return served
    finally:
        for connection in connections:
            connection.close()


def _holder(api: ServiceProcess, port: int, client_port: int) -> int | None:
    """The serving process holding the api's side of the connection from `client_port`."""
    for process in _processes(api):
        for connection in process.net_connections(kind="tcp"):
            if (
                connection.status == psutil.CONN_ESTABLISHED
                and connection.laddr.port == port
                and connection.raddr
                and connection.raddr.port == client_port
            ):
                return process.pid
    return None


@pytest.fixture
def api(service_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[ServiceProcess, int]]:
    port = free_port()
    process, _ = start_api({**service_env, "AUTOMATIONS_API_WORKERS": "2"}, tmp_path, port=port, name="api-2")
    deadline = time.monotonic() + 60
    while len(_processes(process)) < 2:
        assert time.monotonic() < deadline, process.log_tail()
        time.sleep(0.1)
    try:
        yield process, port
    finally:
        process.stop()


class TestSocketPerProcess:
    def test_connections_opened_together_are_served_by_every_process(
        self, api: tuple[ServiceProcess, int]
    ) -> None:
        process, port = api
        served = _spread(process, port)
        assert sum(served.values()) == CLIENTS, served
        # One shared socket gave all of them to the process that woke first (16 and 0).
        assert all(count > 0 for count in served.values()), served

    def test_a_killed_process_is_replaced_on_its_socket_and_no_connection_is_refused(
        self, api: tuple[ServiceProcess, int]
    ) -> None:
        process, port = api
        victim = _processes(process)[0]
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        # Connections the kernel sends to the dead process's socket wait for its replacement.
        assert sum(_spread(process, port).values()) == CLIENTS
        deadline = time.monotonic() + 60
        while True:
            serving = _processes(process)
            if len(serving) == 2 and victim.pid not in {child.pid for child in serving}:
                break
            assert time.monotonic() < deadline, process.log_tail()
            time.sleep(0.1)
        served = _spread(process, port)
        assert all(count > 0 for count in served.values()), served

    def test_a_reload_replaces_every_process_each_on_its_own_socket(
        self, api: tuple[ServiceProcess, int]
    ) -> None:
        process, port = api
        before = {child.pid for child in _processes(process)}
        os.kill(process.pid, signal.SIGHUP)
        deadline = time.monotonic() + 90
        while True:
            now = {child.pid for child in _processes(process)}
            if len(now) == 2 and not now & before:
                break
            assert time.monotonic() < deadline, process.log_tail()
            time.sleep(0.1)
        served = _spread(process, port)
        assert set(served) == now
        assert all(count > 0 for count in served.values()), served

    def test_a_port_another_server_holds_is_refused(
        self, api: tuple[ServiceProcess, int], service_env: dict[str, str], tmp_path: Path
    ) -> None:
        process, port = api
        second = ServiceProcess.cli(
            "api-second",
            ["api", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
            service_env,
            tmp_path,
        )
        try:
            second.process.wait(timeout=60)
        finally:
            second.stop(graceful=False)
        assert second.process.returncode != 0
        assert "address already in use" in second.log_tail().lower()
        # The first server still takes every connection: the second joined none of its sockets.
        assert sum(_spread(process, port).values()) == CLIENTS


def _autogroup_nice(pid: int) -> int | None:
    """The nice value of the process's session under Linux's autogroup scheduling (None without it)."""
    try:
        text = Path(f"/proc/{pid}/autogroup").read_text()
    except OSError:
        return None
    return int(text.rsplit("nice", 1)[1])


class TestCpuPriority:
    def test_the_api_and_every_process_it_starts_run_at_the_lowered_priority(
        self, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        env = {**service_env, "AUTOMATIONS_API_WORKERS": "2", "AUTOMATIONS_API_CPU_NICE": "7"}
        process, base = start_api(env, tmp_path, name="api-nice")
        try:
            deadline = time.monotonic() + 60
            while len(_processes(process)) < 2:
                assert time.monotonic() < deadline, process.log_tail()
                time.sleep(0.1)
            own = psutil.Process().nice()
            supervisor = psutil.Process(process.pid)
            assert supervisor.nice() == min(own + 7, 19)
            assert [child.nice() for child in _processes(process)] == [min(own + 7, 19)] * 2
            # It leads a session of its own here: where the kernel schedules by session, that session
            # competes as a whole, so its nice is raised too.
            if _autogroup_nice(process.pid) is not None:
                assert _autogroup_nice(process.pid) == min(own + 7, 19)
            assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        finally:
            process.stop()

    def test_by_default_the_api_keeps_its_priority(self, service_env: dict[str, str], tmp_path: Path) -> None:
        env = {**service_env, "AUTOMATIONS_API_WORKERS": "1"}
        process, _ = start_api(env, tmp_path, name="api-default-nice")
        try:
            assert psutil.Process(process.pid).nice() == psutil.Process().nice()
            if _autogroup_nice(process.pid) is not None:
                assert _autogroup_nice(process.pid) == 0
        finally:
            process.stop()
