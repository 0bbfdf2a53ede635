"""Reading one streamed model call: text released to the caller, tool calls held back.

Used by both drivers (:mod:`praisonlike.loop.drivers`,
:mod:`praisonlike.loop.async_driver`), which only feed it chunks.
"""

from __future__ import annotations

import time
from typing import Any

from praisonlike.loop.commands import CallModel, CutShort, ModelReply
from praisonlike.models.codec import StreamAssembler
from praisonlike.models.pricing import usage_from_response
from praisonlike.models.usage import Usage

_CALL_OPENERS = ("{", "[", "```", "<tool_call>")


class WholeAnswerHold:
    """Keeps a native model's tool call written as the whole answer out of its stream.

    A model with native tool calls sometimes writes its call as text instead;
    the loop runs it when the WHOLE answer is calls
    (:func:`~praisonlike.react.parse.is_whole_answer_a_call`, or
    :func:`~praisonlike.react.parse.unoffered_calls`). So an answer that starts,
    after whitespace, like a call (``{``, ``[``, a fence or ``<tool_call>``) is
    held to the end, then released unless it is such a call; any other answer
    passes through as it comes. Same interface as the ReAct
    ``StreamCallDetector``.
    """

    def __init__(self, offered: frozenset[str]) -> None:
        self._offered = offered
        self._text = ""
        self._holding: bool | None = None

    def feed(self, delta: str) -> str:
        """Add ``delta``; return the text that may be shown now (possibly ``""``)."""
        self._text += delta
        if self._holding is None:
            start = self._text.lstrip()[: len(_CALL_OPENERS[-1])]
            if any(start.startswith(opener) for opener in _CALL_OPENERS):
                self._holding = True
            elif not start or any(opener.startswith(start) for opener in _CALL_OPENERS):
                return ""
            else:
                self._holding = False
                return self._text
        return "" if self._holding else delta

    def finish(self) -> tuple[str, list[Any]]:
        """The text still held back (``""`` when it is a call) and the calls found."""
        if self._holding is False:
            return "", []
        from praisonlike.react.parse import is_whole_answer_a_call, unoffered_calls

        calls = is_whole_answer_a_call(self._text, self._offered) or unoffered_calls(
            self._text, self._offered
        )
        return ("" if calls else self._text), list(calls)


class StreamReader:
    """One streamed model call: its chunks in, the text to show out, then its reply.

    Text is held back while it may still be a tool call written as text: a
    ReAct call anywhere in the answer (when the command offers
    ``hold_back_calls``), or, when native tools are offered, an answer that is
    wholly a call (see :class:`WholeAnswerHold`). :attr:`streamed` says whether
    any text was released to the caller. :meth:`cut_short` tells what a call
    stopped mid-stream had produced.
    """

    def __init__(self, command: CallModel, started: float) -> None:
        self._assembler = StreamAssembler(command.llm.model)
        self._started = started
        self._text: list[str] = []
        self._usage: Usage | None = None
        self._detector: Any = None
        if command.hold_back_calls is not None:
            from praisonlike.react.parse import StreamCallDetector

            self._detector = StreamCallDetector(command.hold_back_calls)
        elif command.tools and command.params.get("tool_choice") != "none":
            self._detector = WholeAnswerHold(_tool_names(command.tools))
        self.streamed = False

    def take(self, chunk: Any) -> str:
        """Read one chunk; the text it releases ("" if none)."""
        text = self._assembler.add(chunk)
        if text:
            self._text.append(text)
        reported = chunk.get("usage") if isinstance(chunk, dict) else getattr(chunk, "usage", None)
        if reported:
            self._usage = usage_from_response(reported)
        return self._released(text if self._detector is None else self._detector.feed(text))

    def finish(self) -> str:
        """The text still held back once the stream has ended."""
        if self._detector is None:
            return ""
        released, _calls = self._detector.finish()
        return self._released(str(released))

    def cut_short(self) -> CutShort:
        """The text streamed so far (shown or held back) and the usage the server reported."""
        return CutShort(text="".join(self._text), usage=self._usage)

    def reply(self) -> ModelReply:
        return self._assembler.reply(time.monotonic() - self._started, streamed_text=self.streamed)

    def _released(self, text: str) -> str:
        if text:
            self.streamed = True
        return text


def _tool_names(tools: list[dict[str, Any]]) -> frozenset[str]:
    names = (tool.get("function", {}).get("name") for tool in tools)
    return frozenset(name for name in names if isinstance(name, str))
