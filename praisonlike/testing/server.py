"""LocalLLMServer: an OpenAI-compatible HTTP server that plays a script.

The server runs an asyncio loop on its own daemon thread, so it serves a
synchronous test, an async test and a thread pool alike. Each
chat-completions request consumes the next scripted response (FIFO); every
request is recorded for later assertions. It also speaks Anthropic's Messages
wire (``POST /v1/messages``) from the same script, for an ``anthropic/...``
model through LiteLLM (:meth:`LocalLLMServer.llm_config` with
``wire="anthropic"``).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Literal

from praisonlike.errors import ConfigurationError
from praisonlike.testing.anthropic_payloads import MESSAGES_PATHS
from praisonlike.testing.payloads import error_json, models_json, no_route
from praisonlike.testing.playback import PLAYABLE, Playable, Player
from praisonlike.testing.script import Delay, Fault, RecordedRequest, ReportedUsage, Response
from praisonlike.testing.wire import BadHttpRequest, HttpRequest, json_response, read_request

HOST = "127.0.0.1"
BACKLOG = 2048
CHAT_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
MODELS_PATHS = frozenset({"/v1/models", "/models"})
EXHAUSTED_MESSAGE = "LocalLLMServer: script exhausted"
MAX_RESOLUTIONS = 64


def _server_fault(message: str) -> Fault:
    return Fault(500, message, type="server_error")


class LocalLLMServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 at a free port.

    ``script`` responses are served in order, one per chat-completions
    request. When the script is exhausted the server answers with
    ``default`` (a response or a callable) if one is set, else with a 500
    ``"LocalLLMServer: script exhausted"`` error, which is also appended to
    :attr:`errors`. ``models`` are the names ``GET /v1/models`` lists, along
    with every model requested so far, each with ``context_window`` as its
    ``max_model_len`` when given (as vLLM lists its window). ``max_recorded`` bounds
    :attr:`requests` to the most recent requests (for soak tests);
    :attr:`request_count` still counts all of them. ``port`` binds that port
    instead of a free one (a server that comes back where a client expects it).

    All methods and properties are thread-safe. Response callables run on the
    server's event loop: they must not block (use :class:`Delay` to wait).
    """

    def __init__(
        self,
        script: Iterable[Response] | None = None,
        *,
        default: Response | None = None,
        models: Sequence[str] = ("test-model",),
        max_recorded: int | None = None,
        context_window: int | None = None,
        port: int = 0,
    ) -> None:
        if max_recorded is not None and max_recorded < 0:
            raise ConfigurationError("max_recorded cannot be negative")
        if context_window is not None and context_window <= 0:
            raise ConfigurationError("context_window must be a positive number of tokens")
        self._context_window = context_window
        self._requested_port = port
        self._lock = threading.Lock()
        self._script: deque[Response] = deque(script or ())
        self._default = default
        self._configured_models = tuple(models)
        self._models = list(dict.fromkeys(models))
        self._requests: deque[RecordedRequest] = deque(maxlen=max_recorded)
        self._request_count = 0
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._errors: list[str] = []
        self._ids: dict[str, int] = {}
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._port: int | None = None
        self._startup_error: BaseException | None = None
        self._player = Player(self._next_id, self._count_tokens)

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> LocalLLMServer:
        """Bind the port (a free one by default) and start serving; returns ``self``
        once it accepts connections."""
        if self._thread is not None:
            raise ConfigurationError("LocalLLMServer is already running")
        ready = threading.Event()
        self._startup_error = None
        thread = threading.Thread(
            target=self._run, args=(ready,), name="LocalLLMServer", daemon=True
        )
        thread.start()
        ready.wait()
        if self._startup_error is not None:
            thread.join()
            raise ConfigurationError(
                f"LocalLLMServer could not start: {self._startup_error}"
            ) from self._startup_error
        self._thread = thread
        return self

    def stop(self) -> None:
        """Close every connection, stop the loop and join its thread. Idempotent."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        if threading.current_thread() is thread:
            raise ConfigurationError("LocalLLMServer.stop() cannot run on the server's own thread")
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        self._thread = self._loop = self._server = None
        self._port = None

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def port(self) -> int:
        """The bound port; raises :class:`ConfigurationError` before :meth:`start`."""
        if self._port is None:
            raise ConfigurationError("LocalLLMServer is not running; call start() first")
        return self._port

    @property
    def url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:<port>/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    def llm_config(
        self, model: str = "test-model", *, wire: Literal["openai", "anthropic"] = "openai"
    ) -> dict[str, str]:
        """The ``llm=`` dict an agent accepts to talk to this server.

        ``wire="openai"``: ``openai/<model>`` at :attr:`url` (the direct transport
        for a name that is not one of OpenAI's own models, else LiteLLM).
        ``wire="anthropic"``: ``anthropic/<model>`` at the server's root, always
        through LiteLLM's Anthropic provider, which posts to ``/v1/messages``;
        use a model LiteLLM's map knows (``claude-haiku-4-5``) for its context
        window, native tool calls and prices.
        """
        if wire == "anthropic":
            root = f"http://{HOST}:{self.port}"
            return {"model": f"anthropic/{model}", "api_base": root, "api_key": "sk-ant-test"}
        return {"model": f"openai/{model}", "api_base": self.url, "api_key": "sk-test"}

    # -- script and recording --------------------------------------------------------

    def add(self, *responses: Response) -> None:
        """Append responses to the end of the script."""
        self.extend(responses)

    def extend(self, responses: Iterable[Response]) -> None:
        """Append every response of ``responses`` to the end of the script."""
        items = list(responses)
        with self._lock:
            self._script.extend(items)

    @property
    def default(self) -> Response | None:
        """What is served once the script is exhausted (None: a 500 error)."""
        with self._lock:
            return self._default

    @default.setter
    def default(self, response: Response | None) -> None:
        with self._lock:
            self._default = response

    @property
    def remaining(self) -> int:
        """How many scripted responses have not been served yet."""
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[RecordedRequest]:
        """The chat-completions requests received, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def request_count(self) -> int:
        """How many chat-completions requests were received since start or reset."""
        with self._lock:
            return self._request_count

    @property
    def tokens_served(self) -> tuple[int, int]:
        """``(prompt, completion)`` totals over every usage the server actually sent."""
        with self._lock:
            return self._prompt_tokens, self._completion_tokens

    @property
    def errors(self) -> list[str]:
        """Server-side problems (script exhausted, a response callable raised, ...)."""
        with self._lock:
            return list(self._errors)

    @property
    def models(self) -> list[str]:
        """The configured model names, then every other model requested, in order."""
        with self._lock:
            return list(self._models)

    def reset(self) -> None:
        """Clear the script, the recorded requests, the errors, the token totals and
        the prompt cache of the Anthropic wire."""
        with self._lock:
            self._script.clear()
            self._requests.clear()
            self._request_count = 0
            self._prompt_tokens = self._completion_tokens = 0
            self._errors.clear()
            self._models = list(dict.fromkeys(self._configured_models))
        self._player.prompt_cache.clear()

    def _record(self, request: RecordedRequest) -> Response:
        with self._lock:
            self._requests.append(request)
            self._request_count += 1
            if request.model and request.model not in self._models:
                self._models.append(request.model)
            if self._script:
                return self._script.popleft()
            if self._default is not None:
                return self._default
            self._errors.append(EXHAUSTED_MESSAGE)
        return _server_fault(EXHAUSTED_MESSAGE)

    def _error(self, message: str) -> Fault:
        with self._lock:
            self._errors.append(message)
        return _server_fault(message)

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            self._ids[prefix] = number = self._ids.get(prefix, 0) + 1
            return f"{prefix}{number}"

    def _count_tokens(self, usage: ReportedUsage) -> None:
        with self._lock:
            self._prompt_tokens += usage.prompt_tokens
            self._completion_tokens += usage.completion_tokens

    # -- event loop ------------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(
                asyncio.start_server(self._handle, HOST, self._requested_port, backlog=BACKLOG)
            )
        except BaseException as exc:
            self._startup_error = exc
            loop.close()
            ready.set()
            return
        self._loop, self._server = loop, server
        self._port = server.sockets[0].getsockname()[1]
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    @property
    def open_connections(self) -> int:
        """The client connections open now, kept-alive ones included. A client that
        leaves a stream early and closes its connection stops counting once the
        server notices, at its next write."""
        return len(self._connections)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = list(self._connections)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                request = await read_request(reader, writer)
                if request is None or not await self._respond(request, writer):
                    break
        except BadHttpRequest as exc:
            fault = Fault.bad_request(f"LocalLLMServer: {exc}")
            writer.write(json_response(400, error_json(fault), keep_alive=False))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            writer.transport.abort()
        except Exception as exc:
            self._error(f"LocalLLMServer: internal error {type(exc).__name__}: {exc}")
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _respond(self, request: HttpRequest, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must be closed afterwards."""
        if request.method == "POST" and (
            request.path in CHAT_PATHS or request.path in MESSAGES_PATHS
        ):
            return await self._chat(request, writer)
        if request.method == "GET" and request.path in MODELS_PATHS:
            listing = models_json(self.models, self._context_window)
            writer.write(json_response(200, listing, keep_alive=request.keep_alive))
        else:
            fault = no_route(request.method, request.path)
            writer.write(json_response(404, error_json(fault), keep_alive=request.keep_alive))
        await writer.drain()
        return request.keep_alive

    async def _chat(self, request: HttpRequest, writer: asyncio.StreamWriter) -> bool:
        try:
            body = json.loads(request.body)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            message = "LocalLLMServer: request body is not a JSON object"
            with self._lock:
                self._errors.append(message)
            fault = Fault.bad_request(message)
            writer.write(json_response(400, error_json(fault), keep_alive=request.keep_alive))
            await writer.drain()
            return request.keep_alive
        recorded = RecordedRequest(request.path, request.headers, body, time.monotonic())
        response = await self._resolve(self._record(recorded), recorded)
        try:
            return await self._player.play(response, recorded, writer, request.keep_alive)
        except ValueError as exc:  # an answer this wire cannot carry
            fault = self._error(f"LocalLLMServer: {exc}")
            return await self._player.play(fault, recorded, writer, request.keep_alive)

    async def _resolve(self, response: Response, request: RecordedRequest) -> Playable:
        """Sleep through delays and call callables until a playable response remains."""
        for _ in range(MAX_RESOLUTIONS):
            if isinstance(response, Delay):
                await asyncio.sleep(response.seconds)
                response = response.then
            elif isinstance(response, PLAYABLE):
                return response
            elif callable(response):
                try:
                    response = response(request)
                except Exception as exc:
                    return self._error(
                        f"LocalLLMServer: response callable raised {type(exc).__name__}: {exc}"
                    )
            else:
                return self._error(f"LocalLLMServer: {type(response).__name__} is not a response")
        return self._error(f"LocalLLMServer: response did not resolve in {MAX_RESOLUTIONS} steps")


__all__ = ["EXHAUSTED_MESSAGE", "LocalLLMServer"]
