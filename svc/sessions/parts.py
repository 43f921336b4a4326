"""Message parts from clients: validation, and what the model gets from them.

A part is ``{type: text, text}`` or ``{type: file, mime, filename, url}`` where
``url`` is an http(s) URL, a ``data:`` URL, a ``file://`` URL or a local path.
Local files must live inside the session workspace (symlinks included); http(s) URLs
pass the outbound-URL guard (:mod:`svc.net`).
Images reach vision-capable providers as image content; other files become a
short text line (and, for text files, their content).
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..errors import ValidationFailed
from ..providers.types import Image

MAX_INLINE_IMAGE_BYTES = 20 * 1024 * 1024
MAX_INLINE_TEXT_BYTES = 200 * 1024


class FileOutsideWorkspace(ValidationFailed):
    """The file is outside the session workspace."""

    code = "FILE_OUTSIDE_WORKSPACE"


def validate_parts(
    raw: Any, *, workspace: Path, field: str = "parts"
) -> tuple[dict[str, Any], ...]:
    """Check and normalise client parts; errors name the part (``parts[1].url``)."""
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise ValidationFailed(f"`{field}` must be an array of parts", field=field)
    parts = []
    for index, part in enumerate(raw):
        where = f"{field}[{index}]"
        if not isinstance(part, Mapping):
            raise ValidationFailed(f"`{where}` must be an object", field=where)
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise ValidationFailed(f"`{where}.text` must be a string", field=f"{where}.text")
            parts.append({"type": "text", "text": text})
        elif kind == "file":
            url = part.get("url")
            if not isinstance(url, str) or not url.strip():
                raise ValidationFailed(
                    f"`{where}.url` must be a non-empty string", field=f"{where}.url"
                )
            for key in ("mime", "filename"):
                if part.get(key) is not None and not isinstance(part.get(key), str):
                    raise ValidationFailed(
                        f"`{where}.{key}` must be a string", field=f"{where}.{key}"
                    )
            url = url.strip()
            if urlparse(url).scheme in ("http", "https"):
                _check_remote_url(url, f"{where}.url")
            local = local_path(url)
            if local is not None:
                _check_local_file(local, workspace, f"{where}.url")
            mime = (
                part.get("mime")
                or mimetypes.guess_type(part.get("filename") or url)[0]
                or "application/octet-stream"
            )
            file_part = {"type": "file", "mime": mime, "url": url}
            if part.get("filename"):
                file_part["filename"] = part["filename"]
            parts.append(file_part)
        else:
            raise ValidationFailed(
                f"`{where}.type` must be `text` or `file`, got {kind!r}", field=f"{where}.type"
            )
    return tuple(parts)


def local_path(url: str) -> Path | None:
    """The local path a ``file://`` URL or plain path names; None for http(s)/data URLs."""
    parsed = urlparse(url)
    if parsed.scheme in ("http", "https", "data"):
        return None
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme and len(parsed.scheme) > 1:
        raise ValidationFailed(f"unsupported URL scheme `{parsed.scheme}`", field="url")
    return Path(url)


def _check_remote_url(url: str, where: str) -> None:
    """A file part given as a URL passes the outbound-URL guard's checks of names and
    IP literals: the engine does not fetch it, but the model server does, and a local
    one fetches from this host's network (so no loopback, private or metadata address,
    and no credentials in the URL). Names are not resolved here: the fetcher resolves."""
    from ..net import UrlPolicy, UrlRefused, check_url_form

    try:
        check_url_form(url, UrlPolicy(allow_http=True, resolve=False))
    except UrlRefused as exc:
        raise exc.for_field(where) from None


def _check_local_file(path: Path, workspace: Path, where: str) -> Path:
    root = workspace.resolve()
    candidate = path if path.is_absolute() else root / path
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise FileOutsideWorkspace(
            f"`{where}`: {path} is outside the session workspace {root}", field=where
        )
    if not resolved.is_file():
        raise ValidationFailed(f"`{where}`: no such file {path}", field=where)
    return resolved


def text_of(parts: Sequence[Mapping[str, Any]]) -> str:
    """Plain text of the parts (file parts as a bracketed line), joined by newlines."""
    lines = []
    for part in parts:
        if part.get("type") == "text":
            lines.append(part.get("text", ""))
        elif part.get("type") == "file":
            lines.append(
                f"[file mime={part.get('mime')} name={part.get('filename') or 'unknown'} "
                f"url={part.get('url')}]"
            )
    return "\n".join(lines)


def model_content(
    parts: Sequence[Mapping[str, Any]], *, workspace: Path, vision: bool
) -> tuple[str, tuple[Image, ...]]:
    """The text and images the model receives for these parts."""
    texts: list[str] = []
    images: list[Image] = []
    for part in parts:
        if part.get("type") == "text":
            texts.append(part.get("text", ""))
            continue
        if part.get("type") != "file":
            continue
        url, mime = str(part.get("url", "")), str(part.get("mime", ""))
        label = f"[file mime={mime} name={part.get('filename') or 'unknown'} url={url}]"
        if mime.startswith("image/") and vision:
            image = _image(url, mime, workspace)
            if image is not None:
                images.append(image)
                continue
        texts.append(label)
        local = local_path(url)
        if local is not None and (
            mime.startswith("text/") or mime in ("application/json", "application/xml")
        ):
            content = _read_text(local, workspace)
            if content is not None:
                texts.append(content)
    return "\n".join(texts), tuple(images)


def _image(url: str, mime: str, workspace: Path) -> Image | None:
    local = local_path(url)
    if local is None:
        return Image(url=url, mime=mime)
    try:
        path = _check_local_file(local, workspace, "url")
        data = path.read_bytes()
    except (OSError, ValidationFailed):
        return None
    if len(data) > MAX_INLINE_IMAGE_BYTES:
        return None
    return Image(url=f"data:{mime};base64,{base64.b64encode(data).decode()}", mime=mime)


def _read_text(local: Path, workspace: Path) -> str | None:
    try:
        path = _check_local_file(local, workspace, "url")
        with path.open("rb") as handle:
            data = handle.read(MAX_INLINE_TEXT_BYTES + 1)
    except (OSError, ValidationFailed):
        return None
    text = data[:MAX_INLINE_TEXT_BYTES].decode("utf-8", errors="replace")
    return text + ("\n[truncated]" if len(data) > MAX_INLINE_TEXT_BYTES else "")
