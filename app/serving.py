"""Serving the API from several processes, each accepting on a listening socket of its own.

uvicorn's supervisor binds one socket and every process accepts from it. A process that wakes up takes
every connection waiting in the queue at once, so clients that connect together (a proxy's keep-alive
pool, a load test's connections) all land on one process, which then serves everything on one core
while the others idle: measured here, 16 keep-alive clients were all served by one of two processes.

With `SO_REUSEPORT` each process gets a socket of its own bound to the same address, and the kernel
spreads new connections over the sockets by their addresses. The supervisor holds every socket for the
whole run, so a process that dies leaves its socket in the group: connections sent to it wait in its
queue until the replacement, started on the same socket, accepts them.

Where the platform has no `SO_REUSEPORT`, uvicorn's own supervisor serves as before.

Where the API shares a machine's cores with a worker, it can also serve at a lower CPU priority
(`lower_cpu_priority`, AUTOMATIONS_API_CPU_NICE), so that under overload the runs it accepted finish
before it takes more.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.supervisors.multiprocess import Multiprocess, Process

logger = logging.getLogger("uvicorn.error")

# Linux's autogroup scheduling: the nice value of this process's session as a whole.
AUTOGROUP = Path("/proc/self/autogroup")


def reuse_port_supported() -> bool:
    """Whether sockets here can share a port, each with its own accept queue."""
    return hasattr(socket, "SO_REUSEPORT")


def _family(config: Config) -> socket.AddressFamily:
    return socket.AF_INET6 if config.host and ":" in config.host else socket.AF_INET


def listening_sockets(config: Config, count: int) -> list[socket.socket]:
    """`count` sockets bound to the configured address with `SO_REUSEPORT`, inheritable by children.

    The port must be free first: a socket with `SO_REUSEPORT` would otherwise join the listeners of
    another server of the same user on that port (a second `automations api`) and split its traffic.
    Port 0 takes one free port for all of them."""
    with socket.socket(family=_family(config)) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((config.host, config.port))
        port = probe.getsockname()[1] if config.port == 0 else config.port
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family=_family(config))
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((config.host, port))
            # Listening from now on, so the kernel counts the socket in from the start: connections
            # sent to it wait in its queue while its process starts (or is replaced), not elsewhere.
            sock.listen(config.backlog)
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class SocketPerProcess(Multiprocess):
    """uvicorn's supervisor (signals, health checks, restarts), with process i always on socket i."""

    def __init__(self, config: Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets=[])
        self.own_sockets = sockets
        self.processes_num = len(sockets)

    def _start(self, index: int) -> Process:
        process = Process(self.config, [self.own_sockets[index]])
        process.start()
        return process

    def init_processes(self) -> None:
        self.processes = [self._start(index) for index in range(self.processes_num)]

    def keep_subprocess_alive(self) -> None:
        """Replace a process that died or stopped answering, on the socket it served."""
        if self.should_exit.is_set():
            return
        for index, process in enumerate(self.processes):
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()
            process.join()
            if self.should_exit.is_set():
                return
            if process.exitcode == STARTUP_FAILURE:
                # It never served: the app or its settings are broken and would fail again.
                logger.error(f"Child process [{process.pid}] failed to start, stopping the parent process.")
                self.should_exit.set()
                return
            logger.info(f"Child process [{process.pid}] died")
            self.processes[index] = self._start(index)

    def restart_all(self) -> None:
        """Replace every process in turn, each new one serving before the old one leaves."""
        for index, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = self._start(index)
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                new.kill()
                new.join()
                if not self.should_exit.is_set():
                    logger.error(f"Child process [{new.pid}] was not ready in time; keeping [{old.pid}].")
                return
            old.terminate()
            old.join()
            self.processes[index] = new


def lower_cpu_priority(nice: int) -> None:
    """Lower this process's CPU priority by `nice` before it starts its API processes (they inherit it).

    Where Linux schedules by session (autogroup), nice orders processes only within their session, and
    sessions share the CPU evenly. An API that leads a session of its own (a supervisor that starts
    each service in a new session) competes with the worker as a whole session, so that session's nice
    is raised too; inside a shared session (`automations dev`) the process's own nice already counts.
    """
    if nice <= 0:
        return
    current = os.nice(nice)
    if os.getsid(0) == os.getpid():
        # Not every kernel schedules by autogroup (or exposes it): then the process's nice is all.
        with contextlib.suppress(OSError):
            AUTOGROUP.write_text(str(current))


def serve(**options: Any) -> None:
    """`uvicorn.run(**options)`, with a socket per process when there are several processes."""
    if (options.get("workers") or 1) <= 1 or not reuse_port_supported():
        uvicorn.run(**options)
        return
    config = Config(**options)
    try:
        sockets = listening_sockets(config, config.workers)
    except OSError as exc:
        logger.error(exc)
        sys.exit(STARTUP_FAILURE)
    host, port = sockets[0].getsockname()[:2]
    logger.info("Uvicorn running on http://%s:%d (%d processes, a socket each)", host, port, len(sockets))
    try:
        SocketPerProcess(config, sockets).run()
    finally:
        for sock in sockets:
            sock.close()
