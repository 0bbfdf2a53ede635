"""ChatMixin: the five entry points of a turn, all over the one tool loop.

``chat`` / ``achat`` drain the event stream of a non-streaming turn;
``iter_stream`` yields the text deltas of a streaming one; ``stream_events`` /
``astream_events`` yield every event. The turn is opened and closed in one
place (:func:`~praisonlike.agent.assembly.assemble_turn`,
:func:`~praisonlike.agent.assembly.close_turn`) from one options type
(:class:`~praisonlike.agent.assembly.RunOptions`), so history, results and
errors are handled identically on every path: a turn that fails leaves
``chat_history`` exactly as it was and raises a typed error.

Turns of one agent run one at a time (see :mod:`praisonlike.agent.turn_gate`):
a turn started while another runs waits for it (a thread blocks, a task
awaits) and then sees its history; one started from inside the running turn
raises :class:`~praisonlike.errors.ConcurrentTurnError`. A stream holds the
agent from its first ``next()`` until it ends or is closed.

ChatMixin is the adapter over the agent's
:class:`~praisonlike.agent.conversation.Conversation` (which holds the turn
rule, the history and the last result) and turn assembly.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from praisonlike.agent.assembly import (
    AssembledTurn,
    Images,
    RunOptions,
    abandon_turn,
    assemble_turn,
    close_turn,
)
from praisonlike.agent.parts import HasParts

if TYPE_CHECKING:
    from praisonlike._runtime.cancellation import CancelToken
    from praisonlike.events import Event
    from praisonlike.result import RunResult


class ChatMixin(HasParts):
    def _open(self, prompt: Any, options: RunOptions) -> AssembledTurn:
        return assemble_turn(
            prompt, options, self.spec, self._conversation, self._parts, self.usage_tracker, self
        )

    def _close(self, turn: AssembledTurn) -> RunResult:
        return close_turn(turn, self.spec, self._conversation, self._parts, self.usage_tracker)

    def _run(self, prompt: Any, options: RunOptions) -> Any:
        with self._conversation.turn():
            turn = self._open(prompt, options)
            for _ in turn.run.events():
                pass
            return self._close(turn).output

    async def _arun(self, prompt: Any, options: RunOptions) -> Any:
        async with self._conversation.aturn():
            turn = self._open(prompt, options)
            async for _ in turn.run.aevents():
                pass
            return self._close(turn).output

    def _events(self, prompt: Any, options: RunOptions) -> Generator[Event, None, None]:
        with self._conversation.turn():
            turn = self._open(prompt, options)
            try:
                yield from turn.run.events()
            except GeneratorExit:
                abandon_turn(turn, self._conversation)
                raise
            self._close(turn)

    async def _aevents(self, prompt: Any, options: RunOptions) -> AsyncGenerator[Event, None]:
        async with self._conversation.aturn():
            turn = self._open(prompt, options)
            try:
                async for event in turn.run.aevents():
                    yield event
            except GeneratorExit:
                abandon_turn(turn, self._conversation)
                raise
            self._close(turn)

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
        return self._run(
            prompt,
            RunOptions(
                tools=tools,
                images=images,
                deps=deps,
                cancel_token=cancel_token,
                output_pydantic=output_pydantic,
                output_json=output_json,
                stream=stream,
                events=False,
            ),
        )

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
        return await self._arun(
            prompt,
            RunOptions(
                tools=tools,
                images=images,
                deps=deps,
                cancel_token=cancel_token,
                output_pydantic=output_pydantic,
                output_json=output_json,
                stream=stream,
                events=False,
            ),
        )

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
        return self._events(
            prompt,
            RunOptions(
                tools=tools,
                images=images,
                deps=deps,
                cancel_token=cancel_token,
                output_pydantic=output_pydantic,
                output_json=output_json,
                stream=stream,
            ),
        )

    def astream_events(
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
        return self._aevents(
            prompt,
            RunOptions(
                tools=tools,
                images=images,
                deps=deps,
                cancel_token=cancel_token,
                output_pydantic=output_pydantic,
                output_json=output_json,
                stream=stream,
            ),
        )

    @property
    def last_result(self) -> RunResult | None:
        """The RunResult of the last turn that finished (``None`` before any turn)."""
        return self._conversation.last_result

    @property
    def chat_history(self) -> list[dict[str, Any]]:
        """A copy of the conversation: user, assistant (with tool calls), tool messages.

        The copy is deep: editing it, or the dicts in it, does not change the
        agent's history. To change the history, use ``load_state``.
        """
        return self._conversation.history()

    def clear_history(self) -> None:
        """Forget the conversation, and the token counts cached for it."""
        self._conversation.clear()
        self._parts.contexts.forget_history()
