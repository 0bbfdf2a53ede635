"""Sending a model call on the transport :func:`~praisonlike.models.transport.transport_for`
chooses: the ``openai`` SDK directly, LiteLLM, or an in-process model.

The drivers' only way to reach a model. The request is not checked here: the
tool loop runs the pre-flight first (see :mod:`praisonlike.models.transport`).
"""

from __future__ import annotations

from typing import Any

from praisonlike.loop.commands import CallModel
from praisonlike.models import litellm_backend, openai_wire
from praisonlike.models.codec import completion_kwargs
from praisonlike.models.in_process import InProcessModel
from praisonlike.models.transport import transport_for


def send(command: CallModel) -> Any:
    """Send ``command`` on its transport and block: the response, or its chunks."""
    if isinstance(command.llm, InProcessModel):
        return command.llm.respond(command)
    if transport_for(command.llm, command.params) == "openai":
        return openai_wire.complete(command)
    return litellm_backend.load_litellm().completion(**completion_kwargs(command))


async def asend(command: CallModel) -> Any:
    """Send ``command`` on its transport: the response, or an async iterator of its chunks."""
    if isinstance(command.llm, InProcessModel):
        return await command.llm.arespond(command)
    if transport_for(command.llm, command.params) == "openai":
        return await openai_wire.acomplete(command)
    return await litellm_backend.load_litellm().acompletion(**completion_kwargs(command))


def close(response: Any) -> None:
    """Release a streamed response's connection at once (a stream left before its end
    otherwise holds it, and the server goes on generating, until it is collected)."""
    closer = getattr(response, "close", None)
    if closer is not None:
        closer()


async def aclose(response: Any) -> None:
    """Release a streamed response's connection early (the direct transport's only)."""
    close = getattr(response, "close", None)
    if close is not None and type(response).__module__.startswith("openai"):
        await close()


__all__ = ["aclose", "asend", "close", "send"]
