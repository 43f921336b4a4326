"""Provider administration over HTTP: the catalog, defaults, and API keys.

* ``catalog`` is ``GET /provider``: every known provider with its models, which are
  connected (configured, plus the built-in ``local``) and the default in effect.
* ``patch_config`` is ``PATCH /config``: a patch merged into the project configuration
  layer (svc/project_config.py), which is then reloaded, so the next run uses it. A
  secret-looking key is refused: keys go through ``PUT /auth/{id}``.
* ``set_api_key`` is ``PUT /auth/{id}``: the key is written to the project layer's
  file (created private to its owner, 0600, like channel tokens) and the settings are
  reloaded, so later runs use it without a restart. It is registered as a secret (never
  logged) and never appears in any reply or event.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from actors import SerialByKey

from ..errors import SvcError, ValidationFailed
from ..logs import is_secret_name, register_secret
from .catalog import BY_ID, LOCAL_MODEL_ID, LOCAL_PROVIDER_ID, PROVIDERS

if TYPE_CHECKING:
    from ..engine import Engine

# One writer of a project file at a time: each change reads the file the last one wrote.
_writes = SerialByKey()

_SECRET_WORDS = ("token", "secret", "password", "credential", "apikey", "privatekey", "cookie")


class ConfigSecretRejected(SvcError):
    """A secret in a configuration patch."""

    code = "CONFIG_SECRET_REJECTED"
    status = 400


def _secret_key(key: str) -> bool:
    squashed = "".join(ch for ch in key.lower() if ch.isalnum())
    return is_secret_name(key) or any(word in squashed for word in _SECRET_WORDS)


def _find_secret(value: Any, path: str = "") -> str | None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            if _secret_key(str(key)):
                return where
            found = _find_secret(inner, where)
            if found:
                return found
    return None


def deep_merge(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """``patch`` over ``base``; a ``null`` in the patch removes the key."""
    merged = dict(base)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class ProviderAdmin:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ reads
    def catalog(self) -> dict[str, Any]:
        settings = self.engine.settings
        registry = self.engine.providers
        entries: list[dict[str, Any]] = []
        for info in PROVIDERS:
            config = settings.providers.get(info.id)
            models = {info.default_model: {"name": info.default_model}}
            if config is not None and config.default_model:
                models[config.default_model] = {"name": config.default_model}
            entries.append(
                {
                    "id": info.id,
                    "name": info.name,
                    "models": models,
                    "catalog_source": "builtin",
                    "catalog_status": "ok",
                    "catalog_message": None,
                    "configured": registry.is_configured(info.id),
                    "needsKey": info.needs_key,
                }
            )
        for pid, config in sorted(settings.providers.items()):
            if pid in BY_ID or pid == LOCAL_PROVIDER_ID:
                continue
            model = config.default_model
            entries.append(
                {
                    "id": pid,
                    "name": pid,
                    "models": {model: {"name": model}} if model else {},
                    "catalog_source": "config",
                    "catalog_status": "ok",
                    "catalog_message": None,
                    "configured": registry.is_configured(pid),
                    "needsKey": False,
                }
            )
        entries.append(
            {
                "id": LOCAL_PROVIDER_ID,
                "name": "Local echo (offline)",
                "models": {LOCAL_MODEL_ID: {"name": LOCAL_MODEL_ID}},
                "catalog_source": "builtin",
                "catalog_status": "ok",
                "catalog_message": None,
                "configured": True,
                "needsKey": False,
            }
        )
        route = registry.default_route()
        return {
            "all": entries,
            "connected": [*registry.configured_ids(), LOCAL_PROVIDER_ID],
            "default": route.provider,
            "effective": route.to_wire(),
        }

    def auth_status(self) -> dict[str, Any]:
        """Which providers have a key, and where it comes from; never the key."""
        settings = self.engine.settings
        project = settings.layer("project").get("providers") or {}
        env = settings.layer("env").get("providers") or {}
        cli = settings.layer("cli").get("providers") or {}
        status: dict[str, Any] = {}
        ids = [info.id for info in PROVIDERS] + sorted(
            pid for pid in settings.providers if pid not in BY_ID and pid != LOCAL_PROVIDER_ID
        )
        for pid in ids:
            config = settings.providers.get(pid)
            has_key = config is not None and config.api_key is not None
            source = None
            for name, layer in (("cli", cli), ("env", env), ("project", project)):
                if isinstance(layer.get(pid), Mapping) and layer[pid].get("api_key"):
                    source = name
                    break
            if has_key and source is None:
                source = "config"
            info = BY_ID.get(pid)
            status[pid] = {
                "id": pid,
                "hasKey": has_key,
                "has_key": has_key,
                "source": source,
                "configured": self.engine.providers.is_configured(pid),
                "needsKey": info.needs_key if info else False,
            }
        return {"providers": status, **status}

    # ------------------------------------------------------------------ writes
    async def patch_config(self, patch: Mapping[str, Any]) -> dict[str, Any]:
        secret = _find_secret(patch)
        if secret:
            raise ConfigSecretRejected(
                f"`{secret}` looks like a secret; configuration patches carry none",
                field=secret,
                hint="Use PUT /auth/{provider} or environment variables.",
            )
        default = patch.get("default_provider")
        if default is not None and not isinstance(default, str):
            raise ValidationFailed("`default_provider` must be a string", field="default_provider")
        await self._write(lambda before: deep_merge(before, patch))
        self.engine.events.publish("config.updated", {"keys": sorted(patch)})
        settings = self.engine.settings
        return {
            "ok": True,
            "effective": {
                "default_provider": settings.default_provider,
                **settings.redacted_providers(),
                "route": self.engine.providers.default_route().to_wire(),
            },
        }

    async def set_api_key(self, provider_id: str, api_key: str) -> dict[str, Any]:
        provider_id = provider_id.strip()
        if not provider_id or provider_id == LOCAL_PROVIDER_ID:
            raise ValidationFailed("a provider id other than `local` is required", field="id")
        if provider_id not in BY_ID and provider_id not in self.engine.settings.providers:
            raise ValidationFailed(
                f"unknown provider `{provider_id}`: configure its `url` first", field="id"
            )
        register_secret(api_key)  # before anything could log it
        key_patch = {"providers": {provider_id: {"api_key": api_key}}}
        await self._write(lambda before: deep_merge(before, key_patch))
        self.engine.events.publish("provider.auth.updated", {"providerID": provider_id})
        return self._key_reply(provider_id)

    async def delete_api_key(self, provider_id: str) -> dict[str, Any]:
        def remove(before: dict[str, Any]) -> dict[str, Any]:
            providers = dict(before.get("providers") or {})
            entry = dict(providers.get(provider_id) or {})
            entry.pop("api_key", None)
            if entry:
                providers[provider_id] = entry
            else:
                providers.pop(provider_id, None)
            return {**before, "providers": providers}

        await self._write(remove)
        self.engine.events.publish("provider.auth.removed", {"providerID": provider_id})
        return self._key_reply(provider_id)

    def _key_reply(self, provider_id: str) -> dict[str, Any]:
        status = self.auth_status()["providers"].get(provider_id, {})
        return {
            "ok": True,
            "id": provider_id,
            "backend": "file",
            "hasKey": bool(status.get("hasKey")),
            # A key in the environment (or a CLI flag) outranks the project file.
            "shadowedBy": status.get("source") if status.get("source") in ("env", "cli") else None,
        }

    async def _write(self, change: Any) -> None:
        from ..project_config import project_config_path, read_project_file, write_json_atomically

        path: Path = project_config_path(self.engine.settings)
        async with _writes.turn(str(path)):
            before = await trio.to_thread.run_sync(read_project_file, path)
            existed = path.exists()
            await trio.to_thread.run_sync(write_json_atomically, path, change(before))
            try:
                await self.engine.reload_settings()
            except SvcError:
                # The new file does not load: put the old one back so nothing changed.
                if existed:
                    await trio.to_thread.run_sync(write_json_atomically, path, before)
                else:
                    path.unlink(missing_ok=True)
                await self.engine.reload_settings()
                raise


__all__ = ["ConfigSecretRejected", "ProviderAdmin", "deep_merge"]
