"""SessionBinding: where an agent's session lives, and the signals that reach it.

With a ``session_id`` and memory on, the binding opens the session store on
first use (:attr:`SessionBinding.store`), loads the session's recent answered
turns and its summary on the first turn (:meth:`SessionBinding.prepare`),
records each turn with one step per tool call, tool result, model response,
compaction, retry, fallback and reflection (:meth:`recorder`,
:meth:`record`), and runs the background summary updates
(:meth:`in_background`, :meth:`wait`).

With a store that carries control signals (:class:`PostgresStore`), an agent
that is not running the session's turn itself sends stops and steering
through the store under its ``MemoryConfig.owner`` identity
(:meth:`request_stop`, :meth:`request_steer`); the process running the turn
takes them before each model call (:meth:`poll`). Without memory every
method is a no-op.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.progress import slow_step

if TYPE_CHECKING:
    from praisonlike._runtime.cancellation import CancelToken
    from praisonlike.agent.conversation import Conversation
    from praisonlike.memory.config import MemoryConfig
    from praisonlike.memory.step_recorder import StepRecorder
    from praisonlike.memory.store import SessionStore
    from praisonlike.result import RunResult


class SessionBinding:
    """One agent's session: its id, memory configuration, store and background work."""

    def __init__(
        self, session_id: str | None, config: MemoryConfig | None, agent_name: str | None
    ) -> None:
        self.session_id = session_id
        self.config = config if session_id is not None else None
        self.agent_name = agent_name
        self._store: SessionStore | None = None
        self._loaded = False
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    @property
    def store(self) -> SessionStore | None:
        """The session store (opened on first use), or None without memory."""
        if self.config is None:
            return None
        if self._store is None:
            from praisonlike.memory.store import open_store

            where = self.config.store
            self._store = open_store(Path(where) if isinstance(where, Path) else where)
        return self._store

    def prepare(self, conversation: Conversation, count_message: Callable[[Any], int]) -> None:
        """On the session's first turn: load history (when ``conversation`` has none)
        and the summary (with ``long_term``) from the store."""
        store = self.store
        if store is None or self._loaded or self.session_id is None:
            return
        from praisonlike.memory.history import history_window
        from praisonlike.memory.records import MessageStatus

        config = self.config
        assert config is not None
        store.ensure_conversation(self.session_id, agent_name=self.agent_name, owner=config.owner)
        if not conversation.history_for_turn():
            turns = store.load_turns(
                self.session_id,
                limit=max(config.history_rounds * 3, 30),
                statuses=[MessageStatus.NORMAL],
            )
            conversation.start_from(
                history_window(
                    turns,
                    rounds=config.history_rounds,
                    max_tokens=config.history_tokens,
                    count_tokens=count_message,
                )
            )
        if config.long_term:
            conversation.set_summary(store.get_summary(self.session_id))
        self._loaded = True

    def recorder(self) -> StepRecorder | None:
        """A new step recorder for a turn to feed its events, or None without a store."""
        if self.store is None:
            return None
        from praisonlike.memory.step_recorder import StepRecorder

        return StepRecorder()

    def record(
        self, query: str, result: RunResult, failed: bool, recorder: StepRecorder | None
    ) -> None:
        """Store the turn (its answer is empty when it ``failed``) with its steps."""
        store = self.store
        if store is None or self.session_id is None or recorder is None:
            return
        from praisonlike.memory.records import TurnRecord
        from praisonlike.memory.step_recorder import STATUS_OF

        store.save_turn(
            TurnRecord(
                id=result.run_id,
                conversation_id=self.session_id,
                query=query,
                answer="" if failed else result.text,
                status=STATUS_OF[result.termination_reason],
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                cost=result.usage.cost,
                latency=result.latency,
                model=result.model,
                created_at=time.time(),
                steps=recorder.steps,
            )
        )

    def save_summary(self, text: str) -> None:
        """Store the session's long-term summary."""
        store = self.store
        if store is not None and self.session_id is not None:
            store.set_summary(self.session_id, text)

    # -- background work --------------------------------------------------------------

    def in_background(self, work: Callable[[], None]) -> None:
        """Run ``work`` on a daemon thread that :meth:`wait` waits for."""
        thread = threading.Thread(target=work, name="praisonlike-summary", daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the background work started so far is done (each for ``timeout``);
        while it runs, a terminal's stderr shows that the summary is being written
        (:func:`~praisonlike._runtime.progress.slow_step`)."""
        with self._lock:
            threads = [thread for thread in self._threads if thread.is_alive()]
        if not threads:
            return
        with slow_step("Updating the conversation's summary"):
            for thread in threads:
                thread.join(timeout)

    def close(self) -> None:
        """Wait for background work and close the store if the binding opened it."""
        self.wait()
        given = self.config is not None and not isinstance(self.config.store, str | Path | None)
        if self._store is not None and not given:
            self._store.close()
            self._store = None

    # -- remote control ---------------------------------------------------------------

    def _control_store(self) -> Any:
        if self.session_id is None or self.config is None:
            return None
        store = self.store
        return store if hasattr(store, "poll_control") else None

    def request_stop(self, reason: str) -> bool:
        """Send a stop through the store; False when the store carries no signals."""
        store = self._control_store()
        if store is None:
            return False
        assert self.config is not None
        store.request_stop(self.session_id, self.config.owner, reason=reason)
        return True

    def request_steer(self, text: str) -> bool:
        """Send steering through the store; False when the store carries no signals."""
        store = self._control_store()
        if store is None:
            return False
        assert self.config is not None
        store.request_steer(self.session_id, self.config.owner, text)
        return True

    def poll(self, cancel: CancelToken) -> list[str]:
        """Act on pending signals: a stop cancels ``cancel``, steering texts are returned."""
        store = self._control_store()
        if store is None:
            return []
        texts: list[str] = []
        while (signal := store.poll_control(self.session_id)) is not None:
            if signal.kind.value == "stop":
                cancel.cancel(
                    f"stopped through the session store by {signal.requester!r}"
                    + (f": {signal.reason}" if signal.reason else "")
                )
            else:
                texts.append(signal.reason)
        return texts
