"""Identity settings as the engine serves them (``GET``/``PATCH /config/identity``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..errors import SvcError

if TYPE_CHECKING:
    from ..engine import Engine
    from .resolve import Identity

# Imported on first use: start-up only builds the service; resolving, listing presets
# and patching wait for a request (docs/architecture.md, "Start-up budget").


class IdentityService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = trio.Lock()

    def current(self) -> Identity:
        from .resolve import resolve_identity

        return resolve_identity(self.engine.settings)

    def body(self) -> dict[str, Any]:
        from .presets import PRESETS

        return {"identity": self.current().to_wire(), "presets": [p.to_wire() for p in PRESETS]}

    async def patch(self, raw: Any) -> dict[str, Any]:
        """Validate, write into the project config layer, reload settings; returns the new body."""
        from ..project_config import project_config_path, read_project_file, write_json_atomically
        from .patch import apply_patch, parse_patch

        patch = parse_patch(raw)
        # One writer at a time: each patch reads the file the previous one wrote.
        async with self._lock:
            path = project_config_path(self.engine.settings)
            before = await trio.to_thread.run_sync(read_project_file, path)
            existed = path.exists()
            await trio.to_thread.run_sync(write_json_atomically, path, apply_patch(before, patch))
            try:
                await self.engine.reload_settings()
            except SvcError:
                # The new file is fine but the reload failed (another layer is
                # broken): put the old file back so nothing changed at all.
                if existed:
                    await trio.to_thread.run_sync(write_json_atomically, path, before)
                else:
                    path.unlink(missing_ok=True)
                raise
        identity = self.current()
        self.engine.events.publish(
            "config.identity.updated",
            {
                "name": identity.name,
                "preset": identity.personality_for()[0],
                "agents": sorted(identity.data["personality"]["per_agent"]),
            },
        )
        return self.body()


__all__ = ["IdentityService"]
