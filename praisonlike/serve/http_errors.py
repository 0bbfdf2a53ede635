"""The server's refusals: one exception type, answered as a JSON error body."""

from __future__ import annotations

from typing import Any

ERROR_TYPES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    500: "server_error",
}


class ApiError(Exception):
    """A refused request: ``status`` and a message safe to show the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_body(status: int, message: str) -> dict[str, Any]:
    """``{"error": {"message", "type", "code"}}``, the shape OpenAI's clients read too."""
    return {"error": {"message": message, "type": ERROR_TYPES.get(status, "error"), "code": status}}
