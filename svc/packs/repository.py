"""The ``packs_installed`` table: one row per installed pack."""

from __future__ import annotations

from typing import Any

import attrs

from ..store import Store, Tx, dumps, loads

_COLUMNS = "pack_id, name, version, manifest, source, install_path, installed_at_ms, updated_at_ms"


@attrs.frozen
class InstalledPack:
    pack_id: str
    name: str
    version: str
    manifest: dict[str, Any]
    source: dict[str, Any]
    install_path: str
    installed_at_ms: int
    updated_at_ms: int

    def to_wire(self) -> dict[str, Any]:
        return {
            "pack_id": self.pack_id,
            "id": self.pack_id,
            "name": self.name,
            "version": self.version,
            "description": self.manifest.get("description"),
            "manifest": self.manifest,
            "source": self.source,
            "install_path": self.install_path,
            "installed_at_ms": self.installed_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }


def _row(row: Any) -> InstalledPack:
    pack_id, name, version, manifest, source, path, installed, updated = row
    return InstalledPack(
        pack_id, name, version, loads(manifest), loads(source), path, installed, updated
    )


def _all(tx: Tx) -> list[InstalledPack]:
    rows = tx.execute(f"SELECT {_COLUMNS} FROM packs_installed ORDER BY name, pack_id")
    return [_row(r) for r in rows]


def _find(tx: Tx, selector: str) -> InstalledPack | None:
    row = tx.execute(
        f"SELECT {_COLUMNS} FROM packs_installed WHERE pack_id = ? OR name = ? "
        "ORDER BY CASE WHEN pack_id = ? THEN 0 ELSE 1 END, pack_id LIMIT 1",
        (selector, selector, selector),
    ).fetchone()
    return _row(row) if row else None


def _put(tx: Tx, pack: InstalledPack) -> None:
    tx.execute(
        f"INSERT INTO packs_installed ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (pack_id) DO UPDATE SET name = excluded.name, version = excluded.version, "
        "manifest = excluded.manifest, source = excluded.source, "
        "install_path = excluded.install_path, updated_at_ms = excluded.updated_at_ms",
        (
            pack.pack_id,
            pack.name,
            pack.version,
            dumps(pack.manifest),
            dumps(pack.source),
            pack.install_path,
            pack.installed_at_ms,
            pack.updated_at_ms,
        ),
    )


def _delete(tx: Tx, pack_id: str) -> None:
    tx.execute("DELETE FROM packs_installed WHERE pack_id = ?", (pack_id,))


class PackRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def all(self) -> list[InstalledPack]:
        return await self._store.read(_all)

    async def find(self, selector: str) -> InstalledPack | None:
        """The pack with this id, else the first with this name."""
        return await self._store.read(_find, selector)

    async def put(self, pack: InstalledPack) -> None:
        await self._store.write(_put, pack)

    async def delete(self, pack_id: str) -> None:
        await self._store.write(_delete, pack_id)


__all__ = ["InstalledPack", "PackRepository"]
