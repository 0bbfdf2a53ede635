"""The stdio transport: an MCP server run as a subprocess, JSON-RPC lines on its stdin and stdout.

The MCP SDK's ``stdio_client`` can only stop a server politely: it closes the
server's stdin and gives it two seconds to exit before terminating it. A
server that has not completed the handshake must be gone within
``startup_timeout``, so :class:`StdioTransport` can also kill it at once.
Importing this module needs the ``mcp`` package.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from types import TracebackType
from typing import TextIO

import anyio
import mcp_types
from anyio.abc import AsyncResource, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.os.win32.utilities import (
    ServerProcess,
    close_process_job,
    create_windows_process,
    get_windows_executable_command,
    terminate_windows_process_tree,
)
from mcp.shared.message import SessionMessage

from praisonlike._runtime.loggers import get_logger
from praisonlike.tools.mcp.server_spec import StdioServer

_EXIT_GRACE = 2.0
_TERMINATE_GRACE = 2.0
_REAP_WAIT = 2.0
_POLL_INTERVAL = 0.01

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


class StdioTransport:
    """A transport for ``mcp.Client`` that runs one stdio server; usable once.

    Entering starts the server (in a process group of its own on POSIX) and
    gives the client its message streams. Leaving stops it as the MCP
    specification asks: stdin closed, two seconds to exit, then its process
    group terminated (SIGTERM, SIGKILL two seconds later). After :meth:`kill`
    leaving only waits, for up to two seconds, until the killed server is reaped.
    """

    def __init__(self, spec: StdioServer, errlog: TextIO) -> None:
        self._spec = spec
        self._errlog = errlog
        self._process: ServerProcess | None = None
        self._killed = False
        self._context: AbstractAsyncContextManager[Streams] | None = None

    def kill(self) -> None:
        """Kill the server and its process group now (SIGKILL on POSIX); never raises.

        A server still being spawned is killed as soon as it exists; once the
        transport has been left this does nothing.
        """
        self._killed = True
        if self._process is not None:
            _kill(self._process)

    async def __aenter__(self) -> Streams:
        self._context = self._run()
        return await self._context.__aenter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        if self._context is None:
            return None
        return await self._context.__aexit__(exc_type, exc, tb)

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[Streams]:
        process = await _spawn(self._spec, self._errlog)
        self._process = process
        if self._killed:
            _kill(process)
        to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_read_stdout, process, to_client)
                tasks.start_soon(_write_stdin, process, from_client, to_client)
                try:
                    yield from_server, to_server
                finally:
                    with anyio.CancelScope(shield=True):
                        await self._stop(process)
                    self._process = None
                    tasks.cancel_scope.cancel()
        finally:
            for stream in (from_server, to_server, to_client, from_client):
                stream.close()

    async def _stop(self, process: ServerProcess) -> None:
        if not self._killed:
            await _close(process.stdin)
            if not await _exited(process, _EXIT_GRACE):
                await _terminate_tree(process)
        if not await _exited(process, _REAP_WAIT):
            get_logger(__name__).warning(
                "MCP server process %d is still running after it was killed", process.pid
            )
        close_process_job(process)
        await _close(process.stdin)
        await _close(process.stdout)


async def _spawn(spec: StdioServer, errlog: TextIO) -> ServerProcess:
    env = get_default_environment() | dict(spec.env)
    command, *args = spec.command
    if sys.platform == "win32":
        executable = get_windows_executable_command(command)
        return await create_windows_process(executable, args, env, errlog, spec.cwd)
    return await anyio.open_process(
        [command, *args], env=env, stderr=errlog, cwd=spec.cwd, start_new_session=True
    )


def _kill(process: ServerProcess) -> None:
    with suppress(OSError):
        if sys.platform == "win32":
            close_process_job(process)
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGKILL)


async def _terminate_tree(process: ServerProcess) -> None:
    if sys.platform == "win32":
        await terminate_windows_process_tree(process)
    elif isinstance(process, Process):
        await terminate_posix_process_tree(process, _TERMINATE_GRACE)


async def _exited(process: ServerProcess, timeout: float) -> bool:
    """Whether the process has exited and been reaped within ``timeout`` seconds."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL_INTERVAL)
    return process.returncode is not None


async def _close(stream: AsyncResource | None) -> None:
    if stream is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.aclose()


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _read_stdout(
    process: ServerProcess, to_client: MemoryObjectSendStream[SessionMessage | Exception]
) -> None:
    """Pass each line of the server's stdout to the client, then discard what is left.

    Discarding keeps a server that is still writing from blocking on a full
    pipe, so it can see its stdin close and exit.
    """
    if process.stdout is None:
        return
    pending = ""
    async with to_client:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                *lines, pending = (pending + chunk).split("\n")
                for line in lines:
                    if line.strip():
                        await to_client.send(_parse(line))
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        async for _ in process.stdout:
            pass


async def _write_stdin(
    process: ServerProcess,
    from_client: MemoryObjectReceiveStream[SessionMessage],
    to_client: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    """Write each message of the client to the server's stdin, one JSON line each.

    When stdin breaks (the server is gone) the client's read stream is
    closed, so its pending requests fail instead of waiting forever.
    """
    if process.stdin is None:
        return
    try:
        async with from_client:
            async for message in from_client:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send((text + "\n").encode())
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await to_client.aclose()
