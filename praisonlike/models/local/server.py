"""Serve a local GGUF model over an OpenAI-compatible HTTP API on the loopback.

The server is llama.cpp embedded through ``xllamacpp`` and runs inside this
process (its own threads). LiteLLM reaches it as an ``openai/<alias>`` model at
``http://127.0.0.1:<port>/v1``. Sampling settings such as temperature are sent
per request by the caller; the server only serves.
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import json
import threading
import time
import urllib.error
from pathlib import Path
from typing import Any

from praisonlike._runtime.deprecation import renamed_attributes
from praisonlike._runtime.loopback_http import LOOPBACK_OPENER
from praisonlike._runtime.progress import slow_step
from praisonlike.errors import PraisonlikeError
from praisonlike.models.config import LLMConfig, Secret
from praisonlike.models.local.model_file import (
    DEFAULT_LOCAL_MODEL,
    INSTALL_HINT,
    LOCAL_MODELS,
    ModelFileError,
    ensure_model_file,
    get_spec,
    parts_installed,
)
from praisonlike.models.model_variables import origin_note

LOCAL_PREFIX = "local"
DEFAULT_THREADS = 2
DEFAULT_CONTEXT = 4096
DEFAULT_STARTUP_TIMEOUT = 120.0
DEFAULT_MAX_TOKENS = 512
"""Output-token cap of a local model call when ``LLMConfig.max_tokens`` is unset.

Qwen2.5-Coder-0.5B answers an ordinary question in 20-150 tokens; without a cap
llama.cpp decodes until the context is full (minutes on a CPU)."""
DEFAULT_REQUEST_TIMEOUT = 120.0
"""Seconds a local model call may take when neither ``LLMConfig.timeout`` nor
``ExecutionConfig.timeout`` is set: 512 tokens on 2 busy CPU cores, with room."""
_LOOPBACK = "127.0.0.1"


class LocalServerError(PraisonlikeError):
    """The local model server could not be started or did not become ready."""


def is_local_available(name: str = DEFAULT_LOCAL_MODEL) -> bool:
    """True when ``xllamacpp`` and the parts of local model ``name`` are installed.

    Only looks the modules up (``importlib.util.find_spec``); imports nothing heavy.
    """
    spec = LOCAL_MODELS.get(name)
    if spec is None:
        return False
    try:
        found = importlib.util.find_spec("xllamacpp")
    except (ImportError, ValueError):
        return False
    return found is not None and parts_installed(spec)


class LlamaCppServer:
    """One llama.cpp server for one GGUF file, on ``127.0.0.1`` and a free port.

    :meth:`start` loads the model and returns once the server answers its
    health check; :meth:`stop` shuts it down (idempotent). The OpenAI-style
    base URL is :attr:`url` (``http://127.0.0.1:<port>/v1``). With ``api_key``
    every request but ``/health`` must carry it as ``Authorization: Bearer``
    (401 otherwise); ``metrics`` turns on llama.cpp's ``/metrics``.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        alias: str | None = None,
        n_threads: int = DEFAULT_THREADS,
        n_ctx: int = DEFAULT_CONTEXT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        verbose: bool = False,
        api_key: str | None = None,
        metrics: bool = False,
    ) -> None:
        self.model_path = Path(model_path)
        self.api_key = api_key
        self.metrics = metrics
        self.alias = alias or self.model_path.stem
        self.n_threads = n_threads
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.verbose = verbose
        self._server: Any = None
        self._address: str | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        """The ``/v1`` base URL; :class:`LocalServerError` when not started."""
        if self._address is None:
            raise LocalServerError("the local model server is not running; call start() first")
        return f"{self._address}/v1"

    def start(self) -> None:
        """Load the model and wait until the server is ready (idempotent).

        Raises :class:`LocalServerError` when ``xllamacpp`` is missing, the model
        cannot be loaded, or the server is not ready within ``startup_timeout``.
        """
        with self._lock:
            if self._server is not None:
                return
            with slow_step(f"Starting the local model server ({self.alias})"):
                server, address = self._launch()
            self._server, self._address = server, address

    def _launch(self) -> tuple[Any, str]:
        xllamacpp = _import_xllamacpp()
        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        params.model_alias = {self.alias}
        params.hostnames = [_LOOPBACK]
        params.port = 0
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.n_threads
        params.cpuparams_batch.n_threads = self.n_threads
        params.use_jinja = True
        params.verbosity = 3 if self.verbose else 1
        params.api_keys = [self.api_key] if self.api_key else []
        params.endpoint_metrics = self.metrics
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:
            raise LocalServerError(f"could not load local model {self.model_path}: {exc}") from exc
        address = str(server.listening_address).rstrip("/")
        try:
            _wait_ready(address, self.startup_timeout)
        except LocalServerError:
            del server
            raise
        return server, address

    def stop(self) -> None:
        """Shut the server down and free the model (idempotent)."""
        with self._lock:
            self._server = None
            self._address = None

    def __enter__(self) -> LlamaCppServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _import_xllamacpp() -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise LocalServerError(
            f"the local model server needs xllamacpp; install it with: {INSTALL_HINT}"
        ) from exc
    return xllamacpp


def _wait_ready(address: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last_error = "no answer"
    while True:
        try:
            with LOOPBACK_OPENER.open(f"{address}/health", timeout=5) as response:
                body = json.loads(response.read() or b"{}")
                if response.status == 200 and body.get("status", "ok") == "ok":
                    return
                last_error = f"status {response.status}: {body}"
        except (urllib.error.URLError, OSError, ValueError) as exc:
            last_error = str(exc)
        if time.monotonic() >= deadline:
            raise LocalServerError(
                f"local model server at {address} not ready after {timeout:.0f}s ({last_error})"
            )
        time.sleep(0.1)


_servers: dict[str, LlamaCppServer] = {}
_servers_lock = threading.Lock()


def served_model_names() -> frozenset[str]:
    """The aliases (``openai/<alias>``) of the servers :func:`local_endpoint` is running."""
    from praisonlike.models.local.warm_server import endpoint_aliases

    with _servers_lock:
        return frozenset(server.alias for server in _servers.values()) | endpoint_aliases()


def resolve_local_model(model: str) -> tuple[str, Path, int]:
    """``(alias, GGUF path, context size)`` for a ``local`` model string.

    Accepts ``"local"`` (the default model), ``"local/<name>"`` for a name in
    :data:`LOCAL_MODELS`, and ``"local/<path to a .gguf file>"``. Raises
    :class:`ModelFileError` for anything else or a missing/mismatching file.
    """
    if model == LOCAL_PREFIX:
        rest = DEFAULT_LOCAL_MODEL
    elif model.startswith(f"{LOCAL_PREFIX}/"):
        rest = model[len(LOCAL_PREFIX) + 1 :]
    else:
        raise ModelFileError(f"{model!r} is not a local model (expected 'local/<name>')")
    if rest in LOCAL_MODELS:
        spec = get_spec(rest)
        return spec.name, ensure_model_file(spec), spec.context_window
    if rest.endswith(".gguf"):
        path = Path(rest).expanduser()
        if not path.is_file():
            raise ModelFileError(f"local model file {path} does not exist")
        return path.stem, path.resolve(), DEFAULT_CONTEXT
    known = ", ".join(f"local/{name}" for name in sorted(LOCAL_MODELS))
    raise ModelFileError(
        f"unknown local model {model!r}{origin_note(model)}; use {known} or local/<path>.gguf"
    )


def local_endpoint(model: str) -> tuple[str, str]:
    """``(litellm_model, api_base)`` for a ``local`` model, starting its server once.

    E.g. ``("openai/qwen2.5-coder-0.5b", "http://127.0.0.1:PORT/v1")``. By
    default the server is a warm one shared by processes, which stays for
    ``PRAISONLIKE_LOCAL_KEEP_ALIVE`` after its last use (see
    :mod:`praisonlike.models.local.warm_server`; its token is the api_key
    :func:`with_local_defaults` sets). With a keep-alive of 0, or off POSIX, it
    is one server per model per process, started on first use (thread-safe) and
    stopped at interpreter exit. Once started, ``openai/<alias>`` is registered
    in the model map (:func:`praisonlike.models.model_map.register`; in LiteLLM's
    too unless it has the alias, for a warm server only once LiteLLM is
    imported) with the server's context size and a price of 0, so context
    budgeting and cost accounting know the model.
    """
    alias, path, n_ctx = resolve_local_model(model)
    from praisonlike.models.local import warm_server

    if warm_server.warm_servers_supported() and warm_server.keep_alive_seconds() != 0:
        state = warm_server.warm_endpoint(model, alias, path, n_ctx)
        _register_model(state.alias, state.n_ctx, import_litellm=False)
        return f"openai/{state.alias}", f"{state.base_url}/v1"
    key = str(path)
    with _servers_lock:
        server = _servers.get(key)
        if server is None:
            server = LlamaCppServer(path, alias=alias, n_ctx=n_ctx)
            server.start()
            _register_model(server.alias, server.n_ctx, import_litellm=True)
            _servers[key] = server
    return f"openai/{server.alias}", server.url


def _register_model(alias: str, n_ctx: int, *, import_litellm: bool) -> None:
    from praisonlike.models import litellm_backend, model_map

    name = f"openai/{alias}"
    info = {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": n_ctx,
        "max_output_tokens": n_ctx,
        "max_tokens": n_ctx,
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "cache_read_input_token_cost": 0.0,
        "cache_creation_input_token_cost": 0.0,
    }
    model_map.register(name, info)
    if not (import_litellm or litellm_backend.is_loaded()):
        return
    litellm = litellm_backend.load_litellm()
    if alias in litellm.model_cost or name in litellm.model_cost:
        return
    litellm.register_model({name: info})


def with_local_defaults(config: LLMConfig, litellm_model: str, api_base: str) -> LLMConfig:
    """``config`` pointed at a running local server, with the local call defaults.

    Unset settings get temperature 0, :data:`DEFAULT_MAX_TOKENS` and
    :data:`DEFAULT_REQUEST_TIMEOUT`; what the caller set is kept (and
    ``ExecutionConfig.timeout``, when set, bounds each call instead). The
    api_key is the token of the warm server at ``api_base``, when it is one.
    """
    from praisonlike.models.local.warm_server import endpoint_token

    token = endpoint_token(api_base)
    return dataclasses.replace(
        config,
        model=litellm_model,
        api_base=api_base,
        api_key=Secret(token) if token else config.api_key or Secret("local"),
        temperature=0.0 if config.temperature is None else config.temperature,
        max_tokens=DEFAULT_MAX_TOKENS if config.max_tokens is None else config.max_tokens,
        timeout=DEFAULT_REQUEST_TIMEOUT if config.timeout is None else config.timeout,
    )


def stop_local_servers() -> None:
    """Stop every server :func:`local_endpoint` started."""
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(stop_local_servers)

__getattr__ = renamed_attributes(__name__, {"LocalModelServer": ("LlamaCppServer", LlamaCppServer)})
