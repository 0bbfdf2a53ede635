"""The text the model sees for the result of an MCP tool call."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from praisonlike.tools.results import NO_RESULT

if TYPE_CHECKING:
    from mcp_types import CallToolResult, ContentBlock


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _binary_placeholder(kind: str, mime_type: str | None, data: str, uri: str | None = None) -> str:
    parts = [part for part in (uri, mime_type or "unknown type") if part]
    return f"[{kind}: {', '.join(parts)}, {_decoded_size(data)} bytes]"


def block_text(block: ContentBlock) -> str:
    """One content block as text.

    Text is returned as is. Binary data is never inlined: an image becomes
    ``"[image: image/png, 1234 bytes]"``, audio ``"[audio: ...]"``, a binary
    embedded resource ``"[resource: uri, mime, N bytes]"``; an embedded text
    resource gives its text and a resource link ``"[resource link: name, uri]"``.
    """
    import mcp_types as types

    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return _binary_placeholder("image", block.mime_type, block.data)
    if isinstance(block, types.AudioContent):
        return _binary_placeholder("audio", block.mime_type, block.data)
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.name}, {block.uri}]"
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return resource.text
    return _binary_placeholder("resource", resource.mime_type, resource.blob, uri=resource.uri)


def result_text(result: CallToolResult) -> str:
    """The whole result as one string.

    The content blocks' texts joined by newlines; when the result has no
    content blocks, its structured content as JSON; when it has neither,
    :data:`~praisonlike.tools.results.NO_RESULT`.
    """
    if result.content:
        return "\n".join(block_text(block) for block in result.content)
    structured: Any = result.structured_content
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False, default=str)
    return NO_RESULT
