"""RemoteControlMixin: stop or steer a session's turn running in another process.

With a store that carries control signals (:class:`PostgresStore`), an agent
that is not running the session's turn itself sends ``cancel()`` and
``steer()`` through the store, under its ``MemoryConfig.owner`` identity; the
store refuses a stop from anyone but the session's owner. The process running
the turn takes the signals before each model call.

Uses from ``self``: ``session_id``, ``memory_config``, ``store``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from praisonlike.cancellation import CancelToken

if TYPE_CHECKING:
    from praisonlike.agent.memory import MemoryConfig


class RemoteControlMixin:
    session_id: str | None
    memory_config: MemoryConfig | None

    if TYPE_CHECKING:

        @property
        def store(self) -> Any: ...

    def _control_store(self) -> Any:
        if self.session_id is None or self.memory_config is None:
            return None
        store = self.store
        return store if hasattr(store, "poll_control") else None

    def _remote_cancel(self, reason: str) -> bool:
        """Send a stop through the store; False when the store carries no signals."""
        store = self._control_store()
        if store is None:
            return False
        assert self.memory_config is not None
        store.request_stop(self.session_id, self.memory_config.owner, reason=reason)
        return True

    def _remote_steer(self, text: str) -> bool:
        store = self._control_store()
        if store is None:
            return False
        assert self.memory_config is not None
        store.request_steer(self.session_id, self.memory_config.owner, text)
        return True

    def _poll_remote(self, cancel: CancelToken, taken: list[str]) -> list[str]:
        """Act on pending signals: a stop cancels the turn, steering texts are returned."""
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
        taken.extend(texts)
        return texts
