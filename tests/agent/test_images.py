from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from praisonlike.agent.images import (
    MAX_IMAGE_BYTES,
    ImageInputError,
    ImageNotFoundError,
    image_content_parts,
    sniff_image_mime,
    user_message_with_images,
)
from praisonlike.errors import UnsupportedInputError


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00"
BMP = b"BM" + b"\x00" * 12 + struct.pack("<I", 40) + b"\x00" * 36


def url_of(part: dict[str, object]) -> str:
    assert part["type"] == "image_url"
    image_url = part["image_url"]
    assert isinstance(image_url, dict)
    url = image_url["url"]
    assert isinstance(url, str)
    return url


def decode(url: str) -> tuple[str, bytes]:
    header, _, payload = url.partition(",")
    assert header.startswith("data:") and header.endswith(";base64")
    return header[len("data:") : -len(";base64")], base64.b64decode(payload)


def test_png_and_jpeg_files_become_data_urls(tmp_path: Path) -> None:
    png_path = tmp_path / "chart.png"
    png_path.write_bytes(tiny_png())
    jpeg_path = tmp_path / "photo.jpg"
    jpeg_path.write_bytes(JPEG)

    parts = image_content_parts([png_path, str(jpeg_path)])

    assert len(parts) == 2
    assert decode(url_of(parts[0])) == ("image/png", tiny_png())
    assert decode(url_of(parts[1])) == ("image/jpeg", JPEG)


def test_content_wins_over_a_misleading_extension(tmp_path: Path) -> None:
    path = tmp_path / "actually-png.jpg"
    path.write_bytes(tiny_png())
    assert decode(url_of(image_content_parts([path])[0]))[0] == "image/png"


def test_unrecognised_content_falls_back_to_the_extension(tmp_path: Path) -> None:
    path = tmp_path / "drawing.svg"
    path.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert decode(url_of(image_content_parts([path])[0]))[0] == "image/svg+xml"


def test_file_neither_sniffed_nor_an_image_extension_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello", encoding="utf-8")
    with pytest.raises(ImageInputError, match="not a recognised image"):
        image_content_parts([path])


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (tiny_png(), "image/png"),
        (JPEG, "image/jpeg"),
        (GIF, "image/gif"),
        (WEBP, "image/webp"),
        (BMP, "image/bmp"),
    ],
)
def test_bytes_are_sniffed(data: bytes, mime: str) -> None:
    assert sniff_image_mime(data) == mime
    assert decode(url_of(image_content_parts([data])[0])) == (mime, data)


@pytest.mark.parametrize(
    "data", [b"", b"plain text", b"BM but not a bitmap header", b"RIFF\x00\x00\x00\x00WAVE"]
)
def test_unknown_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(UnsupportedInputError, match="not a recognised format"):
        image_content_parts([data])


def test_oversize_bytes_are_refused() -> None:
    with pytest.raises(ImageInputError, match="image limit"):
        image_content_parts([b"\x89PNG\r\n\x1a\n" + b"\x00" * MAX_IMAGE_BYTES])


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/cat.png",
        "http://example.com/cat",
        "HTTPS://EXAMPLE.COM/A.PNG",
        "data:image/png;base64,iVBORw0KGgo=",
    ],
)
def test_urls_pass_through_unchanged(url: str) -> None:
    assert image_content_parts([url]) == [{"type": "image_url", "image_url": {"url": url}}]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("data:text/html;base64,PGI+", "image/\\* media type"),
        ("ftp://example.com/cat.png", "unsupported image URL scheme"),
        ("file:///tmp/cat.png", "unsupported image URL scheme"),
    ],
)
def test_unsupported_strings_are_refused(value: str, problem: str) -> None:
    with pytest.raises(ImageInputError, match=problem):
        image_content_parts([value])


def test_missing_file_is_a_typed_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "nope.png"
    with pytest.raises(ImageNotFoundError) as caught:
        image_content_parts([str(missing)])
    error = caught.value
    assert isinstance(error, FileNotFoundError)
    assert isinstance(error, UnsupportedInputError)
    assert error.filename == str(missing)


def test_directory_and_empty_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ImageInputError, match="not a regular file"):
        image_content_parts([tmp_path])
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageInputError, match="empty"):
        image_content_parts([empty])


def test_wrong_item_type_is_refused() -> None:
    with pytest.raises(ImageInputError, match="not int"):
        image_content_parts([42])  # type: ignore[list-item]


def test_a_single_image_is_accepted_without_a_list() -> None:
    url = "https://example.com/cat.png"
    assert image_content_parts(url) == image_content_parts([url])
    assert len(image_content_parts(JPEG)) == 1


def test_user_message_with_images_puts_text_first(tmp_path: Path) -> None:
    path = tmp_path / "chart.png"
    path.write_bytes(tiny_png())
    message = user_message_with_images("What is in these?", [path, "https://example.com/x.jpg"])
    assert message["role"] == "user"
    content = message["content"]
    assert content[0] == {"type": "text", "text": "What is in these?"}
    assert decode(url_of(content[1]))[0] == "image/png"
    assert url_of(content[2]) == "https://example.com/x.jpg"
    assert len(content) == 3


def test_no_images_gives_a_text_only_content_list() -> None:
    assert user_message_with_images("hi", []) == {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
    }
