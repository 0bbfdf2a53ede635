"""create_app: the Starlette app of a served agent (routes in docs/serving.md).

Every ``/v1`` route but ``/v1/health`` first resolves the requester (see
:mod:`praisonlike.serve.auth`); a refusal is a JSON error body
(:mod:`praisonlike.serve.http_errors`). The ``praisonlike.serve`` logger gets
a WARNING at start-up when there is no auth, and an ERROR with the traceback
for each request or run that fails on an error that is not one of the SDK's
typed errors. Nothing is logged about a request beyond its outcome: no body,
no header, no token.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from praisonlike._runtime.loggers import get_logger
from praisonlike.errors import PraisonlikeError
from praisonlike.models import litellm_backend
from praisonlike.models.transport import needs_litellm
from praisonlike.serve import openai_routes, require_serve_extra, run_routes, session_routes
from praisonlike.serve.config import ServeConfig
from praisonlike.serve.http_errors import ApiError, error_response
from praisonlike.serve.runs import safe_message
from praisonlike.serve.state import ServerState

if TYPE_CHECKING:
    from starlette.applications import Starlette

STATIC_DIR = Path(__file__).parent / "static"
NO_AUTH_NOTICE = (
    "no tokens configured: no auth, so the app answers only on a loopback address "
    "(127.0.0.1, ::1); configure tokens to serve anything else"
)

_log = get_logger("praisonlike.serve")

Handler = Callable[[ServerState, Any, str | None], Awaitable[Any]]


def create_app(agent: Any, config: ServeConfig | None = None) -> Starlette:
    """A Starlette app serving ``agent`` as a template for every run (see ``Agent.to_asgi``).

    Raises :class:`~praisonlike.errors.ConfigurationError` naming the serve
    extra when Starlette or sse-starlette cannot be imported.
    """
    require_serve_extra(("starlette", "sse_starlette"))
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    state = ServerState.build(agent, config or ServeConfig())

    def protected(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                requester = state.auth.owner(request.headers, request.scope)
                answer = await handler(state, request, requester)
            except ApiError as exc:
                return error_response(exc.status, exc.message, retry=exc.retry)
            except PermissionError:
                return error_response(403, "refused: not the owner")
            except Exception as exc:
                if not isinstance(exc, PraisonlikeError):
                    _log.error("request failed", exc_info=exc)
                return error_response(500, safe_message(exc), retry=False)
            return answer if isinstance(answer, Response) else JSONResponse(answer)

        return endpoint

    async def runs(state: ServerState, request: Request, who: str | None) -> Any:
        return await run_routes.start_run(state, request, who)

    async def stop(state: ServerState, request: Request, who: str | None) -> Any:
        answer = await run_routes.stop_run(state, request, request.path_params["run_id"], who)
        return JSONResponse(answer, 202)

    async def run_status(state: ServerState, request: Request, who: str | None) -> Any:
        return await run_routes.run_status(state, request.path_params["run_id"], who)

    async def steer(state: ServerState, request: Request, who: str | None) -> Any:
        answer = await run_routes.steer_run(state, request, request.path_params["run_id"], who)
        return JSONResponse(answer, 202)

    async def session(state: ServerState, request: Request, who: str | None) -> Any:
        return await session_routes.session(state, request.path_params["session_id"], who)

    async def messages(state: ServerState, request: Request, who: str | None) -> Any:
        return await session_routes.messages(
            state, request.path_params["session_id"], who, _limit(request)
        )

    async def completions(state: ServerState, request: Request, who: str | None) -> Any:
        return await openai_routes.chat_completions(state, request, who)

    async def models(state: ServerState, request: Request, who: str | None) -> Any:
        return openai_routes.models(state)

    async def model(state: ServerState, request: Request, who: str | None) -> Any:
        return openai_routes.model(state, request.path_params["model_id"])

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def page(request: Request) -> Response:
        index = STATIC_DIR / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"Cache-Control": "no-cache"})
        return Response(_PLACEHOLDER, media_type="text/html")

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        message = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return error_response(status, str(message))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        if not state.auth.enabled:
            _log.warning(NO_AUTH_NOTICE)
        if needs_litellm(state.agent.spec.llm_config):  # the first run would wait for it
            await asyncio.to_thread(litellm_backend.load_litellm)
        yield
        if state.owns_store:
            await asyncio.to_thread(state.store.close)

    routes: list[Route | Mount] = [
        Route("/", page, methods=["GET"]),
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/runs", protected(runs), methods=["POST"]),
        Route("/v1/runs/{run_id}", protected(run_status), methods=["GET"]),
        Route("/v1/runs/{run_id}/stop", protected(stop), methods=["POST"]),
        Route("/v1/runs/{run_id}/steer", protected(steer), methods=["POST"]),
        Route("/v1/sessions/{session_id}", protected(session), methods=["GET"]),
        Route("/v1/sessions/{session_id}/messages", protected(messages), methods=["GET"]),
        Route("/v1/chat/completions", protected(completions), methods=["POST"]),
        Route("/v1/models", protected(models), methods=["GET"]),
        Route("/v1/models/{model_id:path}", protected(model), methods=["GET"]),
    ]
    if STATIC_DIR.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"))
    app = Starlette(
        routes=routes, exception_handlers={HTTPException: http_error}, lifespan=lifespan
    )
    app.state.server = state
    return app


def _limit(request: Any) -> int | None:
    raw = request.query_params.get("limit")
    if raw is None:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ApiError(400, "invalid request: limit must be a positive integer")
    return int(raw)


_PLACEHOLDER = """<!doctype html>
<html><head><meta charset="utf-8"><title>praisonlike</title></head>
<body><p>praisonlike is serving an agent: POST /v1/runs (see docs/serving.md).</p></body></html>
"""
