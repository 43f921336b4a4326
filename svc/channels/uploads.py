"""Files sent to the bot: fetched through the outbound guard with a size cap, stored
under ``channel_uploads/``.

A platform names where its files are (Discord sends each attachment's URL in the
message): :func:`file_policy` says which of those addresses are fetched.

Stored as ``<state_dir>/channel_uploads/<channel>/<conversation>/<name>``, so
``GET /global/storage/files`` lists them. Names are sanitized (no path
separators, no leading dots, a safe character set) and never overwrite an
earlier upload.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Sequence
from pathlib import Path

import httpx
import trio

from ..errors import PayloadTooLarge
from ..net import UrlPolicy, guarded_stream, parse_ip
from .platform import Upload

UPLOADS_DIR = "channel_uploads"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class UploadTooLarge(PayloadTooLarge):
    """The file is larger than this channel accepts"""

    code = "CHANNEL_UPLOAD_TOO_LARGE"


def sanitize(name: str, *, default: str = "file", max_chars: int = 100) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("_", base).lstrip("._-")[:max_chars]
    return cleaned or default


def file_policy(api_base_url: str | None, file_hosts: Sequence[str]) -> UrlPolicy:
    """Where a platform's files may be fetched from: its own file hosts, over https at
    public addresses; and when the operator set the channel's API base (a local
    gateway, a proxy, a test server), that base's host too, with its scheme, at any
    address (the operator's own service, as for every operator URL)."""
    if api_base_url is None:
        return UrlPolicy(allowed_hosts=tuple(file_hosts))
    base = httpx.URL(api_base_url)
    ip = parse_ip(base.host)  # the guard compares IP literals in their canonical form
    return UrlPolicy(
        allow_http=base.scheme == "http",
        allow_private=True,
        allowed_hosts=(str(ip) if ip is not None else base.host.lower(), *file_hosts),
    )


async def fetch_capped(
    http: httpx.AsyncClient, url: str, *, max_bytes: int, policy: UrlPolicy
) -> bytes:
    """The body at ``url`` (checked by ``policy``; :class:`svc.net.UrlRefused` when
    refused, nothing sent), refused as soon as it passes ``max_bytes``."""
    async with guarded_stream(http, "GET", url, policy, timeout=60.0) as response:
        response.raise_for_status()
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise UploadTooLarge(limitBytes=max_bytes)
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > max_bytes:
                raise UploadTooLarge(limitBytes=max_bytes)
    return bytes(data)


async def store_upload(
    state_dir: Path,
    channel: str,
    conversation: str,
    filename: str,
    data: bytes,
    *,
    mime: str | None = None,
) -> Upload:
    folder = state_dir / UPLOADS_DIR / channel / sanitize(conversation, default="conversation")
    name = sanitize(filename)

    def write() -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        stem, dot, suffix = name.rpartition(".")
        if not dot:
            stem, suffix = name, ""
        for attempt in range(1000):
            candidate = name if attempt == 0 else f"{stem}-{attempt}{dot}{suffix}"
            path = folder / candidate
            try:
                with path.open("xb") as handle:  # exclusive: never overwrite an upload
                    handle.write(data)
                return path
            except FileExistsError:
                continue
        raise FileExistsError(f"too many uploads named {name}")

    path = await trio.to_thread.run_sync(write)
    guessed = mime or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return Upload(path=str(path), filename=path.name, mime=guessed, size=len(data))


__all__ = [
    "UPLOADS_DIR",
    "UploadTooLarge",
    "fetch_capped",
    "file_policy",
    "sanitize",
    "store_upload",
]
