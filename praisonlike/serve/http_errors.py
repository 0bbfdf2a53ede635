"""The server's refusals: one exception type, answered as a JSON error body."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

ERROR_TYPES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    500: "server_error",
    502: "bad_gateway",
    504: "gateway_timeout",
}


class ApiError(Exception):
    """A refused request: ``status``, a message safe to show the client, and ``retry``.

    ``retry`` says whether sending the same request again may succeed
    (``None``: no advice); see :func:`error_response`.
    """

    def __init__(self, status: int, message: str, *, retry: bool | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry = retry


def error_body(status: int, message: str) -> dict[str, Any]:
    """``{"error": {"message", "type", "code"}}``, the shape OpenAI's clients read too."""
    return {"error": {"message": message, "type": ERROR_TYPES.get(status, "error"), "code": status}}


def error_response(status: int, message: str, *, retry: bool | None = None) -> JSONResponse:
    """The JSON response of :func:`error_body`.

    With ``retry`` given it carries ``x-should-retry: true`` or ``false``, the
    header OpenAI's clients obey instead of their own retry rules.
    """
    from starlette.responses import JSONResponse

    headers = None if retry is None else {"x-should-retry": "true" if retry else "false"}
    return JSONResponse(error_body(status, message), status, headers=headers)
