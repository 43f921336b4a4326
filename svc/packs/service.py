"""Packs: detect, install (from a path or a channel attachment), inspect, list,
uninstall, export, and updates from the local source a pack was installed from.

An installed pack lives in ``<state_dir>/packs/installed/<pack_id>/``; its
``skills/`` directory is a skill root (``svc.skills``), so its skills are listed
and used as soon as it is installed and gone when it is uninstalled. Exports go
to ``<state_dir>/packs/exports/``. File work runs in a worker thread.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..errors import Conflict, NotFound, ValidationFailed
from . import source as files
from .manifest import PackContents, PackInvalid, is_newer, read_pack
from .repository import InstalledPack, PackRepository

if TYPE_CHECKING:
    from ..clock import Clock
    from ..store import Store

UPLOADS_DIR = "channel_uploads"


class PackNotFound(NotFound):
    """No installed pack has this id or name."""

    code = "PACK_NOT_FOUND"


class PackBusy(Conflict):
    """Another change to this pack is in progress."""

    code = "PACK_BUSY"


class PackVersionUnavailable(Conflict):
    """The pack's source does not offer the version asked for."""

    code = "PACK_VERSION_UNAVAILABLE"


def _check_path(raw: str, field: str) -> str:
    if "\x00" in raw or len(raw) > 4096 or any(len(p.encode()) > 255 for p in raw.split("/")):
        raise ValidationFailed(f"`{field}` is not a usable path", field=field)
    return raw


def _text(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValidationFailed(f"`{name}` must be a string", field=name)
    return value


class PackService:
    def __init__(self, store: Store, clock: Clock, *, state_dir: Path, workspace: Path) -> None:
        self._repo = PackRepository(store)
        self._clock = clock
        self.state_dir = state_dir
        self.workspace = workspace

    @property
    def installed_dir(self) -> Path:
        return self.state_dir / "packs" / "installed"

    @property
    def exports_dir(self) -> Path:
        return self.state_dir / "packs" / "exports"

    def _user_path(self, raw: str, field: str) -> Path:
        path = Path(_check_path(raw, field)).expanduser()
        if not path.is_absolute():
            path = self.workspace / path
        return path

    async def _read(self, path: Path) -> tuple[PackContents, Path]:
        """The pack at ``path`` and the scratch directory to remove afterwards."""
        scratch = self.state_dir / "packs" / "tmp" / uuid.uuid4().hex
        try:
            try:
                directory = await trio.to_thread.run_sync(files.unpack, path, scratch)
                contents = await trio.to_thread.run_sync(read_pack, directory)
            except OSError as exc:
                # An unreadable or impossible path (too long, a loop) is the caller's input.
                raise PackInvalid(f"cannot read `{path}`: {exc.strerror}", field="path") from None
        except BaseException:
            await trio.to_thread.run_sync(partial(shutil.rmtree, scratch, ignore_errors=True))
            raise
        return contents, scratch

    async def detect(self, body: Mapping[str, Any]) -> dict[str, Any]:
        raw = _text(body, "path")
        if raw is None:
            raise ValidationFailed("`path` is required", field="path")
        path = self._user_path(raw, "path")
        try:
            contents, scratch = await self._read(path)
        except PackInvalid as exc:
            return {"ok": True, "is_pack": False, "path": str(path), "reason": exc.message}
        await trio.to_thread.run_sync(partial(shutil.rmtree, scratch, ignore_errors=True))
        installed = await self._repo.find(contents.pack_id)
        return {
            "ok": True,
            "is_pack": True,
            "path": str(path),
            "kind": "directory" if path.is_dir() else "zip",
            **contents.summary(),
            "installed_version": installed.version if installed else None,
        }

    async def install(self, body: Mapping[str, Any]) -> dict[str, Any]:
        source = body.get("source")
        if source is not None and not isinstance(source, Mapping):
            raise ValidationFailed("`source` must be an object", field="source")
        raw = _text(body, "path") or (_text(source, "path") if source else None)
        url = _text(body, "url") or (_text(source, "url") if source else None)
        if raw is None and url is not None:
            if not url.startswith("file://"):
                raise ValidationFailed(
                    "packs install from a local path (or a file:// URL); download the pack "
                    "first, or send it as a channel attachment",
                    field="url",
                    code="PACK_URL_UNSUPPORTED",
                )
            raw = url.removeprefix("file://")
        if raw is None:
            raise ValidationFailed("`path` is required", field="path")
        path = self._user_path(raw, "path")
        origin = {**(dict(source) if source else {}), "kind": "local", "path": str(path)}
        return await self._install(path, origin)

    async def install_from_attachment(self, body: Mapping[str, Any]) -> dict[str, Any]:
        attachment_id = _text(body, "attachment_id")
        if attachment_id is None:
            raise ValidationFailed("`attachment_id` is required", field="attachment_id")
        raw = _text(body, "path")
        if raw is None:
            raise ValidationFailed("`path` is required", field="path")
        uploads = (self.state_dir / UPLOADS_DIR).resolve()
        path = Path(_check_path(raw, "path"))
        if not path.is_absolute():
            path = self.state_dir / path
            if not path.exists():
                path = uploads / raw
        resolved = path.resolve()
        # Attachments are files the channels stored; nothing else is reachable this way.
        if uploads != resolved and uploads not in resolved.parents:
            raise ValidationFailed(
                f"`path` must name a stored attachment under `{UPLOADS_DIR}/`", field="path"
            )
        origin: dict[str, Any] = {"kind": "attachment", "path": str(resolved)}
        for name in ("attachment_id", "connector", "channel_id", "sender_id"):
            if body.get(name) is not None:
                origin[name] = _text(body, name)
        return await self._install(resolved, origin)

    async def _install(self, path: Path, origin: dict[str, Any]) -> dict[str, Any]:
        contents, scratch = await self._read(path)
        try:
            previous = await self._repo.find(contents.pack_id)
            target = self.installed_dir / contents.pack_id
            try:
                await trio.to_thread.run_sync(files.copy_tree, contents.root, target)
            except OSError as exc:
                raise PackBusy(
                    f"could not install `{contents.pack_id}` ({exc}); another install may be "
                    "in progress",
                    pack_id=contents.pack_id,
                ) from None
        finally:
            await trio.to_thread.run_sync(partial(shutil.rmtree, scratch, ignore_errors=True))
        now = self._clock.now_ms()
        pack = InstalledPack(
            pack_id=contents.pack_id,
            name=contents.name,
            version=contents.version,
            manifest=contents.manifest,
            source=origin,
            install_path=str(target),
            installed_at_ms=previous.installed_at_ms if previous else now,
            updated_at_ms=now,
        )
        await self._repo.put(pack)
        return {
            "ok": True,
            "installed": True,
            "pack": pack.to_wire(),
            "previous_version": previous.version if previous else None,
            "contents": {"skills": contents.skills, "workflows": contents.workflows},
        }

    async def find(self, selector: str) -> InstalledPack:
        pack = await self._repo.find(selector)
        if pack is None:
            raise PackNotFound(f"no installed pack `{selector}`", selector=selector)
        return pack

    async def _selected(self, body: Mapping[str, Any]) -> InstalledPack:
        selector = _text(body, "pack_id") or _text(body, "name")
        if selector is None:
            raise ValidationFailed("give `pack_id` or `name`", field="pack_id")
        pack = await self.find(selector)
        version = _text(body, "version")
        if version is not None and version != pack.version:
            raise PackNotFound(
                f"`{selector}` is installed at version {pack.version}, not {version}",
                selector=selector,
                installed_version=pack.version,
            )
        return pack

    async def packs(self) -> list[InstalledPack]:
        return await self._repo.all()

    async def inspect(self, selector: str) -> dict[str, Any]:
        pack = await self.find(selector)
        path = Path(pack.install_path)
        try:
            contents = await trio.to_thread.run_sync(read_pack, path)
            found: dict[str, Any] = {"skills": contents.skills, "workflows": contents.workflows}
            state = "installed"
        except (PackInvalid, OSError) as exc:
            found, state = {"skills": [], "workflows": []}, f"damaged: {exc}"
        return {"pack": pack.to_wire(), "contents": found, "state": state}

    async def uninstall(self, body: Mapping[str, Any]) -> dict[str, Any]:
        pack = await self._selected(body)
        await self._repo.delete(pack.pack_id)
        target = self.installed_dir / pack.pack_id
        await trio.to_thread.run_sync(partial(shutil.rmtree, target, ignore_errors=True))
        return {"ok": True, "uninstalled": True, "pack": pack.to_wire()}

    async def export(self, body: Mapping[str, Any]) -> dict[str, Any]:
        pack = await self._selected(body)
        raw = _text(body, "output_path")
        output = self.exports_dir / f"{pack.pack_id}-{pack.version}.zip"
        if raw is not None:
            output = Path(_check_path(raw, "output_path")).expanduser()
            if not output.is_absolute():
                output = self.exports_dir / output
            allowed = (self.state_dir.resolve(), self.workspace.resolve())
            resolved = output.resolve()
            if not any(root == resolved or root in resolved.parents for root in allowed):
                raise ValidationFailed(
                    "`output_path` must be under the engine's state directory or the workspace",
                    field="output_path",
                )
            if resolved.suffix.lower() != ".zip":
                raise ValidationFailed("`output_path` must end in `.zip`", field="output_path")
            output = resolved
        try:
            size, digest = await trio.to_thread.run_sync(
                files.export_zip, Path(pack.install_path), output
            )
        except OSError as exc:
            raise ValidationFailed(
                f"cannot write `{output}`: {exc.strerror}", field="output_path"
            ) from None
        return {
            "ok": True,
            "pack": pack.to_wire(),
            "path": str(output),
            "output_path": str(output),
            "bytes": size,
            "sha256": digest,
        }

    async def updates(self, selector: str) -> dict[str, Any]:
        pack = await self.find(selector)
        available, reason = await self._source_version(pack)
        return {
            "ok": True,
            "pack_id": pack.pack_id,
            "name": pack.name,
            "current_version": pack.version,
            "available_version": available,
            "update_available": available is not None and is_newer(available, pack.version),
            "source": pack.source,
            "reason": reason,
        }

    async def _source_version(self, pack: InstalledPack) -> tuple[str | None, str | None]:
        raw = pack.source.get("path")
        if not isinstance(raw, str):
            return None, "the pack's source is not a local path"
        try:
            contents, scratch = await self._read(Path(raw))
        except PackInvalid as exc:
            return None, f"the source is unavailable: {exc.message}"
        await trio.to_thread.run_sync(partial(shutil.rmtree, scratch, ignore_errors=True))
        if contents.pack_id != pack.pack_id:
            return None, f"the source now holds pack `{contents.pack_id}`"
        return contents.version, None

    async def update(self, selector: str, body: Mapping[str, Any]) -> dict[str, Any]:
        pack = await self.find(selector)
        wanted = _text(body, "target_version")
        available, reason = await self._source_version(pack)
        if available is None:
            raise PackVersionUnavailable(reason or "no version available", pack_id=pack.pack_id)
        if wanted is not None and wanted != available:
            raise PackVersionUnavailable(
                f"the source offers version {available}, not {wanted}",
                pack_id=pack.pack_id,
                available_version=available,
            )
        if wanted is None and not is_newer(available, pack.version):
            return {
                "ok": True,
                "updated": False,
                "from_version": pack.version,
                "to_version": pack.version,
                "reason": "already at the newest version of its source",
                "pack": pack.to_wire(),
            }
        result = await self._install(Path(str(pack.source["path"])), dict(pack.source))
        return {
            "ok": True,
            "updated": True,
            "from_version": pack.version,
            "to_version": available,
            "pack": result["pack"],
        }


__all__ = ["PackBusy", "PackNotFound", "PackService", "PackVersionUnavailable"]
