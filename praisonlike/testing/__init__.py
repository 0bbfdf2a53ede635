"""Test your agents without a real model: a scripted OpenAI-compatible server.

:class:`LocalLLMServer` listens on 127.0.0.1 and answers chat-completions
requests from a script of responses (:class:`Text`, :class:`ToolCalls`,
:class:`Fault`, :class:`Delay`, :class:`DropConnection`, :class:`MalformedBody`
or a callable), recording every request. Point an agent at it with
``llm=server.llm_config()``. The pytest fixture ``llm_server`` lives in
:mod:`praisonlike.testing.pytest_plugin`.
"""

from __future__ import annotations

from praisonlike.testing.script import (
    Call,
    Delay,
    DropConnection,
    Fault,
    MalformedBody,
    RecordedRequest,
    Response,
    ResponseFactory,
    Text,
    ToolCalls,
    Usage,
)
from praisonlike.testing.server import EXHAUSTED_MESSAGE, LocalLLMServer

__all__ = [
    "EXHAUSTED_MESSAGE",
    "Call",
    "Delay",
    "DropConnection",
    "Fault",
    "LocalLLMServer",
    "MalformedBody",
    "RecordedRequest",
    "Response",
    "ResponseFactory",
    "Text",
    "ToolCalls",
    "Usage",
]
