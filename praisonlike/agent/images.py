"""Image inputs as OpenAI-style chat content parts (what LiteLLM forwards).

Each image becomes ``{"type": "image_url", "image_url": {"url": ...}}``:

* ``http://`` / ``https://`` URLs pass through untouched and are never fetched
  here (the provider fetches them);
* ``data:image/...`` URLs pass through untouched;
* local file paths (``str`` or :class:`~pathlib.Path`, ``~`` expanded) and raw
  ``bytes`` become base64 ``data:`` URLs. The MIME type is sniffed from the
  magic bytes (PNG, JPEG, GIF, WebP, BMP); a file whose content is not
  recognised falls back to its extension, raw bytes do not.

Failures raise :class:`ImageInputError` (an
:class:`~praisonlike.errors.UnsupportedInputError`); a missing file raises
:class:`ImageNotFoundError`, which is also a :class:`FileNotFoundError`.
"""

from __future__ import annotations

import base64
import errno
import mimetypes
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from praisonlike.errors import UnsupportedInputError

ImageInput = str | Path | bytes
"""One image: a URL, a ``data:`` URL, a local file path, or the image's bytes."""

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Largest image (file or bytes) accepted, the common provider limit."""

_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_BMP_HEADER_SIZES = {12, 40, 52, 56, 64, 108, 124}


class ImageInputError(UnsupportedInputError):
    """An image input cannot be turned into a content part."""


class ImageNotFoundError(ImageInputError, FileNotFoundError):
    """A local image path does not exist; ``filename`` holds the path."""

    def __init__(self, path: str | Path) -> None:
        FileNotFoundError.__init__(self, errno.ENOENT, "image file not found", str(path))


def sniff_image_mime(data: bytes) -> str | None:
    """The image MIME type recognised from ``data``'s magic bytes, or ``None``."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if (
        len(data) >= 18
        and data.startswith(b"BM")
        and int.from_bytes(data[14:18], "little") in _BMP_HEADER_SIZES
    ):
        return "image/bmp"
    return None


def image_content_parts(images: Sequence[ImageInput] | ImageInput) -> list[dict[str, Any]]:
    """One ``image_url`` content part per image, in order.

    A single image (not in a list) is accepted as a one-image list.
    """
    if isinstance(images, (str, Path, bytes, bytearray)):
        images = [images]
    return [{"type": "image_url", "image_url": {"url": _image_url(image)}} for image in images]


def user_message_with_images(
    text: str, images: Sequence[ImageInput] | ImageInput
) -> dict[str, Any]:
    """A user chat message holding ``text`` followed by the image parts (only the
    images when ``text`` is blank: providers refuse an empty text part)."""
    text_part = [{"type": "text", "text": text}] if text.strip() else []
    return {"role": "user", "content": [*text_part, *image_content_parts(images)]}


def _image_url(image: object) -> str:
    if isinstance(image, (bytes, bytearray)):
        data = bytes(image)
        if len(data) > MAX_IMAGE_BYTES:
            raise ImageInputError(f"image bytes exceed the {MAX_IMAGE_BYTES} byte image limit")
        mime = sniff_image_mime(data)
        if mime is None:
            raise ImageInputError(
                "image bytes are not a recognised format (png, jpeg, gif, webp, bmp)"
            )
        return _data_url(mime, data)
    if isinstance(image, Path):
        return _file_url(image)
    if isinstance(image, str):
        return _string_url(image)
    raise ImageInputError(
        f"an image must be a URL, a file path or bytes, not {type(image).__name__}"
    )


def _string_url(image: str) -> str:
    lowered = image[:16].lower()
    if lowered.startswith(("http://", "https://")):
        return image
    if lowered.startswith("data:"):
        if not lowered.startswith("data:image/"):
            raise ImageInputError("a data: URL image must have an image/* media type")
        return image
    if _URL_SCHEME.match(image):
        raise ImageInputError(
            f"unsupported image URL scheme in {image[:40]!r}; use http(s), data: or a file path"
        )
    return _file_url(Path(image))


def _file_url(path: Path) -> str:
    path = path.expanduser()
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise ImageNotFoundError(path) from exc
    except OSError as exc:
        raise ImageInputError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    if not path.is_file():
        raise ImageInputError(f"{path}: not a regular file")
    if size > MAX_IMAGE_BYTES:
        raise ImageInputError(f"{path}: larger than the {MAX_IMAGE_BYTES} byte image limit")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageInputError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    if not data:
        raise ImageInputError(f"{path}: the file is empty")
    mime = sniff_image_mime(data) or mimetypes.guess_type(path.name)[0]
    if mime is None or not mime.startswith("image/"):
        raise ImageInputError(f"{path}: not a recognised image (by content or extension)")
    return _data_url(mime, data)


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
