"""ChatMixin: the five entry points of a turn, all over the one tool loop.

``chat`` / ``achat`` drain the event stream of a non-streaming turn;
``iter_stream`` yields the text deltas of a streaming one; ``stream_events`` /
``astream_events`` yield every event. The turn is opened and closed in one
place (:meth:`_open_turn`, :meth:`_close_turn`), so history, results and
errors are handled identically on every path: a turn that fails leaves
``chat_history`` exactly as it was and raises a typed error.

Turns of one agent run one at a time (see :mod:`praisonlike.agent.turn_gate`):
a turn started while another runs waits for it (a thread blocks, a task
awaits) and then sees its history; one started from inside the running turn
raises :class:`~praisonlike.errors.ConcurrentTurnError`. A stream holds the
agent from its first ``next()`` until it ends or is closed.

Uses from ``self``: ``_history``, ``_last_result``, ``_open_turn`` and ``_close_turn``
(TurnMixin).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from praisonlike.agent.turn import Turn
    from praisonlike.agent.turn_gate import TurnGate
    from praisonlike.cancellation import CancelToken
    from praisonlike.events import Event
    from praisonlike.result import RunResult

Images = Sequence[str | Path | bytes] | None


class ChatMixin:
    _history: list[dict[str, Any]]
    _last_result: RunResult | None

    if TYPE_CHECKING:

        def _open_turn(self, prompt: Any, *, stream: bool, options: dict[str, Any]) -> Turn: ...

        def _close_turn(self, turn: Turn) -> RunResult: ...

        def _abandon_turn(self, turn: Turn) -> None: ...

        def _forget_context(self) -> None: ...

    def _turn_gate(self) -> TurnGate:
        gate: TurnGate | None = vars(self).get("_turn_gate_instance")
        if gate is None:
            from praisonlike.agent.turn_gate import TurnGate

            gate = vars(self).setdefault("_turn_gate_instance", TurnGate())
        return gate

    @contextmanager
    def _turn_slot(self) -> Iterator[None]:
        gate = self._turn_gate()
        gate.enter()
        try:
            yield
        finally:
            gate.leave()

    @asynccontextmanager
    async def _aturn_slot(self) -> AsyncIterator[None]:
        gate = self._turn_gate()
        await gate.aenter()
        try:
            yield
        finally:
            gate.leave()

    def chat(
        self,
        prompt: str,
        *,
        tools: Sequence[Any] | None = None,
        images: Images = None,
        deps: Any = None,
        cancel_token: CancelToken | None = None,
        output_pydantic: type[Any] | None = None,
        output_json: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> Any:
        """Run one turn and return the answer (a str, or the validated structured output).

        ``tools=None`` offers the agent's tools; ``tools=[]`` offers none for this
        call. Raises a :class:`praisonlike.errors.PraisonlikeError` on failure; never
        returns ``None`` or an empty string to mean failure. Waits while another
        turn of this agent runs; raises :class:`~praisonlike.errors.ConcurrentTurnError`
        when called from inside one.
        """
        options = dict(
            tools=tools,
            images=images,
            deps=deps,
            cancel_token=cancel_token,
            output_pydantic=output_pydantic,
            output_json=output_json,
        )
        with self._turn_slot():
            turn = self._open_turn(prompt, stream=stream, options=options)
            for _ in turn.events():
                pass
            return self._close_turn(turn).output

    async def achat(
        self,
        prompt: str,
        *,
        tools: Sequence[Any] | None = None,
        images: Images = None,
        deps: Any = None,
        cancel_token: CancelToken | None = None,
        output_pydantic: type[Any] | None = None,
        output_json: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> Any:
        """The async twin of :meth:`chat`: same loop, same history, same errors.

        Waiting for another turn of this agent does not block the event loop.
        """
        options = dict(
            tools=tools,
            images=images,
            deps=deps,
            cancel_token=cancel_token,
            output_pydantic=output_pydantic,
            output_json=output_json,
        )
        async with self._aturn_slot():
            turn = self._open_turn(prompt, stream=stream, options=options)
            async for _ in turn.aevents():
                pass
            return self._close_turn(turn).output

    def iter_stream(
        self,
        prompt: str,
        *,
        tools: Sequence[Any] | None = None,
        images: Images = None,
        deps: Any = None,
        cancel_token: CancelToken | None = None,
    ) -> Iterator[str]:
        """Yield the answer's text as it streams, from every round of the tool loop.

        When a round is retried after text was streamed, a ``stream_reset`` event
        marks it (see :meth:`stream_events`); here the new text simply follows.
        Raises the turn's typed error at the end if it failed.
        """
        from praisonlike.events import TextDelta

        for event in self.stream_events(
            prompt, tools=tools, images=images, deps=deps, cancel_token=cancel_token
        ):
            if isinstance(event, TextDelta):
                yield event.text

    def stream_events(
        self,
        prompt: str,
        *,
        tools: Sequence[Any] | None = None,
        images: Images = None,
        deps: Any = None,
        cancel_token: CancelToken | None = None,
        output_pydantic: type[Any] | None = None,
        output_json: dict[str, Any] | None = None,
        stream: bool = True,
    ) -> Generator[Event, None, None]:
        """Yield every event of a turn, ending with ``run_finished``.

        If the turn failed, the typed error is raised after ``run_finished``.
        Leaving the loop early abandons the turn: it is cancelled and history
        is left as it was before the turn. The turn starts at the first
        ``next()`` (waiting while another turn of this agent runs) and holds
        the agent until the stream ends or is closed.
        """
        options = dict(
            tools=tools,
            images=images,
            deps=deps,
            cancel_token=cancel_token,
            output_pydantic=output_pydantic,
            output_json=output_json,
        )
        with self._turn_slot():
            turn = self._open_turn(prompt, stream=stream, options=options)
            try:
                yield from turn.events()
            except GeneratorExit:
                self._abandon_turn(turn)
                raise
            self._close_turn(turn)

    async def astream_events(
        self,
        prompt: str,
        *,
        tools: Sequence[Any] | None = None,
        images: Images = None,
        deps: Any = None,
        cancel_token: CancelToken | None = None,
        output_pydantic: type[Any] | None = None,
        output_json: dict[str, Any] | None = None,
        stream: bool = True,
    ) -> AsyncGenerator[Event, None]:
        """The async twin of :meth:`stream_events`."""
        options = dict(
            tools=tools,
            images=images,
            deps=deps,
            cancel_token=cancel_token,
            output_pydantic=output_pydantic,
            output_json=output_json,
        )
        async with self._aturn_slot():
            turn = self._open_turn(prompt, stream=stream, options=options)
            try:
                async for event in turn.aevents():
                    yield event
            except GeneratorExit:
                self._abandon_turn(turn)
                raise
            self._close_turn(turn)

    @property
    def last_result(self) -> RunResult | None:
        """The RunResult of the last turn that finished (``None`` before any turn)."""
        return self._last_result

    @property
    def chat_history(self) -> list[dict[str, Any]]:
        """A copy of the conversation: user, assistant (with tool calls), tool messages.

        The copy is deep: editing it, or the dicts in it, does not change the
        agent's history. To change the history, use ``load_state``.
        """
        from praisonlike.context.messages import snapshot

        return [snapshot(message) for message in self._history]

    def clear_history(self) -> None:
        """Forget the conversation, and the token counts cached for it."""
        self._history = []
        self._forget_context()
