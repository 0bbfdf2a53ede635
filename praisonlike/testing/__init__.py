"""Test your agents without a real model: a scripted OpenAI-compatible server.

:class:`LocalLLMServer` listens on 127.0.0.1 and answers chat-completions
requests from a script of responses (:class:`Text`, :class:`ToolCalls`,
:class:`Fault`, :class:`Delay`, :class:`DropConnection`, :class:`MalformedBody`
or a callable), recording every request. Point an agent at it with
``llm=server.llm_config()``. The pytest fixture ``llm_server`` lives in
:mod:`praisonlike.testing.pytest_plugin`.

:class:`FunctionModel` and :class:`TestModel` answer from the same script
items inside the process, with no socket: ``llm=FunctionModel(answer)``, or
``with agent.override(model=TestModel()):`` around code that builds its own
agent.
"""

from __future__ import annotations

from praisonlike._runtime.deprecation import renamed_attributes
from praisonlike.testing.function_model import (
    FunctionModel,
    FunctionModelFault,
    ModelFunction,
    ModelInfo,
)
from praisonlike.testing.script import (
    Call,
    Delay,
    DropConnection,
    Fault,
    MalformedBody,
    RecordedRequest,
    ReportedUsage,
    Response,
    ResponseFactory,
    Text,
    ToolCalls,
)
from praisonlike.testing.server import EXHAUSTED_MESSAGE, LocalLLMServer
from praisonlike.testing.test_model import TestModel, example_arguments

__all__ = [
    "EXHAUSTED_MESSAGE",
    "Call",
    "Delay",
    "DropConnection",
    "Fault",
    "FunctionModel",
    "FunctionModelFault",
    "LocalLLMServer",
    "MalformedBody",
    "ModelFunction",
    "ModelInfo",
    "RecordedRequest",
    "Response",
    "ResponseFactory",
    "TestModel",
    "Text",
    "ToolCalls",
    "ReportedUsage",
    "example_arguments",
]

__getattr__ = renamed_attributes(__name__, {"Usage": ("ReportedUsage", ReportedUsage)})
