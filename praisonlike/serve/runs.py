"""The runs a server process is running: start, drive, stop, steer, watch the store.

A run is driven by its own asyncio task, so it goes on whether or not a client
reads its events: a streaming client that disconnects cancels it (unless it
asked to detach), a detached run finishes and is stored as usual. The events
are serialised once, as they come, onto the run's queue; the end of the run
puts ``None``. With a store that carries control signals (PostgreSQL), a
watcher task takes the session's stop and steer signals sent by other workers;
signals pending when a run starts are taken first (stops dropped as stale,
steering given to the new run).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from praisonlike._runtime.cancellation import CancelToken
from praisonlike._runtime.loggers import get_logger
from praisonlike.serve.http_errors import ApiError

_log = get_logger("praisonlike.serve")


@dataclass(frozen=True)
class StreamItem:
    """One SDK event, serialised: its ``type`` and its JSON."""

    event: str
    data: str


@dataclass
class LiveRun:
    """A run of this process; ``result`` and ``error`` are set when it ends."""

    run_id: str
    session_id: str | None
    owner: str | None
    agent: Any
    cancel: CancelToken
    detach: bool
    queue: asyncio.Queue[StreamItem | None] = field(default_factory=asyncio.Queue)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    result: Any = None
    error: BaseException | None = None
    task: asyncio.Task[None] | None = None

    def status(self) -> dict[str, Any]:
        """``GET /v1/runs/{run_id}``: ``running``, or ``ended`` with how it ended (the
        ``end`` event's data) and its result (``None`` when it failed)."""
        if not self.finished.is_set():
            return {"run_id": self.run_id, "session_id": self.session_id, "status": "running"}
        result = self.result.model_dump(mode="json") if self.result is not None else None
        return {**self.end_data(), "status": "ended", "result": result}

    def end_data(self) -> dict[str, Any]:
        """The ``end`` event's data: how the run ended."""
        reason = self.result.termination_reason.value if self.result is not None else "error"
        error = None
        if self.error is not None:
            error = {"type": type(self.error).__name__, "message": safe_message(self.error)}
        return {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "termination_reason": reason,
            "error": error,
        }


def safe_message(error: BaseException) -> str:
    """The SDK's typed errors carry redacted messages; anything else shows its type only."""
    from praisonlike.errors import PraisonlikeError

    if isinstance(error, PraisonlikeError):
        return str(error)
    return f"{type(error).__name__} (see the server's log)"


ENDED_RUNS_KEPT = 256
"""How many ended runs a server process remembers for ``GET /v1/runs/{run_id}``."""


class RunRegistry:
    """The live runs of this process, by run id, the session each one holds, and
    the last :data:`ENDED_RUNS_KEPT` runs that ended."""

    def __init__(self, control_poll_interval: float) -> None:
        self._runs: dict[str, LiveRun] = {}
        self._ended: OrderedDict[str, tuple[str | None, dict[str, Any]]] = OrderedDict()
        """Owner and final status of the last runs that ended (not the runs: their
        agents and unread events are let go)."""
        self._busy: set[str] = set()
        self._poll = control_poll_interval

    def get(self, run_id: str) -> LiveRun | None:
        return self._runs.get(run_id)

    def status(self, run_id: str) -> tuple[str | None, dict[str, Any]] | None:
        """The owner and :meth:`LiveRun.status` of a run of this process, live or among
        the last that ended; None when there is none."""
        live = self._runs.get(run_id)
        if live is not None:
            return live.owner, live.status()
        return self._ended.get(run_id)

    def session_busy(self, session_id: str) -> bool:
        return session_id in self._busy

    async def start(
        self,
        agent: Any,
        prompt: str,
        *,
        session_id: str | None,
        owner: str | None,
        detach: bool,
        store: Any = None,
        output_json: dict[str, Any] | None = None,
    ) -> LiveRun:
        """Open the turn (its first event is ``run_started``; its answer to match
        ``output_json`` when given) and drive it on a task.

        Errors opening the turn (bad input, the agent's configuration) are
        raised here, before anything is streamed.
        """
        if session_id is not None and self.session_busy(session_id):
            raise ApiError(409, "a run of this session is already running; stop it or wait")
        if session_id is not None:
            self._busy.add(session_id)
        steering: list[Any] = []
        try:
            steering = await _take_pending_signals(store, session_id)
            cancel = CancelToken()
            stream = agent.astream_events(prompt, cancel_token=cancel, output_json=output_json)
            first = await stream.__anext__()
        except BaseException:
            self._busy.discard(session_id or "")
            await _send_back(store, steering)
            raise
        for signal in steering:
            agent.steer(signal.reason)
        live = LiveRun(
            run_id=first.run_id,
            session_id=session_id,
            owner=owner,
            agent=agent,
            cancel=cancel,
            detach=detach,
        )
        self._runs[live.run_id] = live
        live.queue.put_nowait(StreamItem(first.type, first.model_dump_json()))
        live.task = asyncio.create_task(self._drive(live, stream, store))
        return live

    async def _drive(self, live: LiveRun, stream: AsyncIterator[Any], store: Any) -> None:
        watcher = None
        if store is not None and hasattr(store, "poll_control") and live.session_id is not None:
            watcher = asyncio.create_task(self._watch_control(live, store))
        try:
            async for event in stream:
                if event.type == "run_finished":
                    live.result = event.result
                live.queue.put_nowait(StreamItem(event.type, event.model_dump_json()))
        except Exception as exc:
            live.error = exc
            if not _is_typed(exc):
                _log.error("run %s failed", live.run_id, exc_info=exc)
        finally:
            if watcher is not None:
                watcher.cancel()
            self._runs.pop(live.run_id, None)
            self._busy.discard(live.session_id or "")
            live.finished.set()
            self._ended[live.run_id] = (live.owner, live.status())
            while len(self._ended) > ENDED_RUNS_KEPT:
                self._ended.popitem(last=False)
            live.queue.put_nowait(None)

    async def _watch_control(self, live: LiveRun, store: Any) -> None:
        """Act on the session's signals from other workers until the run ends."""
        while not live.finished.is_set():
            await asyncio.sleep(self._poll)
            try:
                signal = await asyncio.to_thread(store.poll_control, live.session_id)
            except Exception as exc:
                _log.warning("polling control signals failed: %s", type(exc).__name__)
                continue
            if signal is None:
                continue
            if signal.kind.value == "stop":
                live.cancel.cancel(f"stopped by {signal.requester!r} through the session store")
            else:
                live.agent.steer(signal.reason)


async def _take_pending_signals(store: Any, session_id: str | None) -> list[Any]:
    """Take the session's pending signals before a run starts; return the steering ones.

    A pending stop was meant for an earlier run of the session (every stop
    the server sends names a run that was running), so it is dropped rather
    than left to stop this one.
    """
    if session_id is None or store is None or not hasattr(store, "poll_control"):
        return []

    def take() -> list[Any]:
        signals = []
        while (signal := store.poll_control(session_id)) is not None:
            signals.append(signal)
        return signals

    return [s for s in await asyncio.to_thread(take) if s.kind.value == "steer"]


async def _send_back(store: Any, steering: list[Any]) -> None:
    """Store again the steering signals taken for a run that did not start."""
    for signal in steering:
        await asyncio.to_thread(
            store.request_steer, signal.session_id, signal.requester, signal.reason
        )


def _is_typed(error: BaseException) -> bool:
    from praisonlike.errors import PraisonlikeError

    return isinstance(error, PraisonlikeError)
