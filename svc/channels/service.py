"""The channels service: configuration, listeners under their supervisor, status.

``run`` is the supervised child the component hands the engine: a dynamic
supervisor (``channels``) with one child per enabled channel, each a
:class:`~svc.channels.listener.ChannelListener` that keeps its platform
connection and reconnects with backoff. A changed configuration (``PUT`` or
``DELETE /channels/{name}``, ``/admin/reload-config``) restarts exactly the
listeners whose block changed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import trio

from supervisors import ChildSpec, DynamicSupervisor, Restart, open_dynamic_supervisor

from ..errors import ValidationFailed
from ..logs import register_secret
from .ratelimit import ChannelRateLimited, RateLimiter, channel_user_of
from .repository import ChannelRepository

# The chat logic, the configuration records and the adapters are imported on first
# use: an engine without channels configured runs none of it (docs/architecture.md,
# "Start-up budget").
if TYPE_CHECKING:
    from ..engine import Engine
    from ..sessions import Session
    from ..settings import Settings
    from .chats import ChannelChats
    from .config import ChannelConfig
    from .context import ChannelContext
    from .listener import ChannelListener

CHANNELS = ("telegram", "discord", "slack")

log = logging.getLogger("svc.channels")


def listener_class(name: str) -> type[ChannelListener]:
    # Imported on first use: an engine without channels loads no adapter.
    if name == "telegram":
        from .telegram import TelegramListener

        return TelegramListener
    if name == "discord":
        from .discord import DiscordListener

        return DiscordListener
    from .slack import SlackListener

    return SlackListener


class ChannelService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = ChannelRepository(engine.store)
        self.limiter = RateLimiter()
        self._context: ChannelContext | None = None
        self.listeners: dict[str, ChannelListener] = {}
        self._applied: dict[str, ChannelConfig | None] = dict.fromkeys(CHANNELS)
        self._supervisor: DynamicSupervisor | None = None
        self._apply_lock = trio.Lock()
        self._write_lock = trio.Lock()
        self._register_secrets(engine.settings)

    @property
    def context(self) -> ChannelContext:
        """What the adapters share (built by the first listener or status request)."""
        if self._context is None:
            from .chats import ChannelChats
            from .context import ChannelContext

            engine = self.engine
            self._context = ChannelContext(
                http=engine.http,
                chats=ChannelChats(engine, self.repo, self.limiter),
                repo=self.repo,
                clock=engine.clock,
                state_dir=lambda: engine.state_dir,
            )
        return self._context

    @property
    def chats(self) -> ChannelChats:
        return self.context.chats

    # ------------------------------------------------------------------ configuration
    def configs(self) -> dict[str, ChannelConfig | None]:
        from .config import configs_from

        return configs_from(self.engine.settings.channels)

    def config(self, name: str) -> ChannelConfig | None:
        from .config import channel_name

        return self.configs()[channel_name(name)]

    @staticmethod
    def _register_secrets(settings: Settings) -> None:
        for block in (settings.channels or {}).values():
            if isinstance(block, dict):
                for field in ("bot_token", "signing_secret"):
                    value = block.get(field)
                    if isinstance(value, str):
                        register_secret(value)

    def settings_changed(self, settings: Settings) -> None:
        """After a reload: restart the listeners whose configuration changed."""
        self._register_secrets(settings)
        self.engine.spawn_background(self.apply)

    async def configure(self, name: str, raw: Any) -> dict[str, Any]:
        """``PUT /channels/{name}``: validate, keep the stored secrets an empty field leaves out,
        write the project layer, restart that listener."""
        from .config import channel_name, parse_config, to_block

        name = channel_name(name)
        if not isinstance(raw, dict):
            raise ValidationFailed("the body must be a JSON object", field="$")
        config = parse_config(raw)
        stored = self.config(name)
        if not config.bot_token and stored is not None:
            config = _evolve(config, bot_token=stored.bot_token)
        if not config.signing_secret and stored is not None:
            config = _evolve(config, signing_secret=stored.signing_secret)
        if not config.bot_token:
            raise ValidationFailed("`bot_token` is required", field="bot_token")
        register_secret(config.bot_token)
        register_secret(config.signing_secret)
        await self._write(name, to_block(config))
        self.engine.events.publish("channels.updated", {"channel": name, "action": "configured"})
        return {"ok": True}

    async def remove(self, name: str) -> dict[str, Any]:
        from .config import channel_name

        name = channel_name(name)
        await self._write(name, None)
        await self.repo.forget_channel(name)
        self.limiter.forget(name)
        self.engine.events.publish("channels.updated", {"channel": name, "action": "deleted"})
        return {"ok": True}

    async def tool_preferences(self, name: str) -> dict[str, Any]:
        from ..convert import unstructure

        config = self.config(name)
        return unstructure(config.tool_preferences if config else _default().tool_preferences)

    async def set_tool_preferences(self, name: str, raw: Any) -> dict[str, Any]:
        from ..convert import structure
        from .config import ToolPreferences, channel_name, to_block

        name = channel_name(name)
        prefs = structure(ToolPreferences, raw)
        config = self.config(name)
        if config is None:
            raise ValidationFailed(f"configure {name} first", field="channel")
        await self._write(name, to_block(_evolve(config, tool_preferences=prefs)))
        return await self.tool_preferences(name)

    async def _write(self, name: str, block: dict[str, Any] | None) -> None:
        from ..project_config import project_config_path, read_project_file, write_json_atomically
        from .config_file import with_channel

        # One writer at a time: each change reads the file the previous one wrote.
        async with self._write_lock:
            path = project_config_path(self.engine.settings)
            before = await trio.to_thread.run_sync(read_project_file, path)
            existed = path.exists()
            after = with_channel(before, name, block)
            await trio.to_thread.run_sync(write_json_atomically, path, after)
            try:
                await self.engine.reload_settings()
            except Exception:
                # Another layer is broken: put the old file back so nothing changed.
                if existed:
                    await trio.to_thread.run_sync(write_json_atomically, path, before)
                else:
                    path.unlink(missing_ok=True)
                raise
        await self.apply()

    # ------------------------------------------------------------------ listeners
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The supervised child: the listeners' supervisor, started with the configured ones."""
        async with open_dynamic_supervisor(
            name="channels", max_restarts=10, max_seconds=60.0
        ) as supervisor:
            self._supervisor = supervisor
            self._applied = dict.fromkeys(CHANNELS)
            try:
                await self.apply()
                task_status.started()
                await trio.sleep_forever()
            finally:
                self._supervisor = None
                self.listeners.clear()

    async def apply(self) -> None:
        """Make the running listeners match the configuration (restart only what changed)."""
        async with self._apply_lock:
            supervisor = self._supervisor
            if supervisor is None or (not self.engine.settings.channels and not self.listeners):
                return
            for name, config in self.configs().items():
                wanted = (
                    config if config is not None and config.enabled and config.bot_token else None
                )
                if wanted == self._applied.get(name) and (wanted is None or name in self.listeners):
                    continue
                if name in self.listeners:
                    await supervisor.terminate_child(name)
                    del self.listeners[name]
                self._applied[name] = wanted
                if wanted is None:
                    continue
                listener = listener_class(name)(self.context, wanted)
                self.listeners[name] = listener
                await supervisor.start_child(
                    ChildSpec(id=name, start=listener.run, restart=Restart.PERMANENT)
                )

    async def verify(self, name: str) -> dict[str, Any]:
        from .config import channel_name

        name = channel_name(name)
        config = self.config(name)
        if config is None or not config.bot_token:
            raise ValidationFailed(f"{name} has no bot token configured", field="bot_token")
        from .listener import PlatformError

        listener = listener_class(name)(self.context, config)
        try:
            identity = await listener.verify()
        except PlatformError as error:
            return {"ok": False, "channel": name, "error": error.message, "code": error.code}
        except Exception as error:  # a network failure is a verification result, not a 500
            return {
                "ok": False,
                "channel": name,
                "error": self.context.scrub(str(error) or type(error).__name__),
                "code": "CHANNEL_CONNECTION_FAILED",
            }
        return {"ok": True, "channel": name, "identity": identity}

    # ------------------------------------------------------------------ status
    async def status(self) -> dict[str, Any]:
        from .listener import ListenerStatus

        body: dict[str, Any] = {}
        configs = self.configs()
        for name in CHANNELS:
            config = configs[name]
            enabled = config is not None and config.enabled and bool(config.bot_token)
            known = self._context.statuses.get(name) if self._context is not None else None
            status = known or ListenerStatus()
            listener = self.listeners.get(name)
            state = status.state if listener is not None else "stopped"
            body[name] = {
                "enabled": enabled,
                "connected": enabled and state == "running",
                "last_error": status.last_error,
                "active_sessions": await self.repo.conversation_count(name),
                "meta": {
                    "state": state,
                    "last_error_code": status.last_error_code,
                    "last_reconnect_at": status.last_reconnect_at,
                    "listener_start_count": status.listener_start_count,
                    "prompts_in_progress": (
                        self._context.chats.active_sessions(name) if self._context else 0
                    ),
                },
            }
        return body

    async def public_config(self) -> dict[str, Any]:
        from .config import UNCONFIGURED, public_view

        return {
            name: public_view(config) if config is not None else dict(UNCONFIGURED)
            for name, config in self.configs().items()
        }

    async def slack_event(
        self, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """``POST /channels/slack/events``: (status, body, headers) after the signature check."""
        from .slack import handle_slack_request

        listener = self.listeners.get("slack")
        return await handle_slack_request(
            self.config("slack"), listener, headers, body, clock=self.engine.clock
        )

    # ------------------------------------------------------------------ limits
    def admit_prompt(self, session: Session) -> ChannelRateLimited | None:
        """For ``prompt_sync``: the refusal when a channel session's user is over the limit."""
        who = channel_user_of(session.source_kind, session.source_metadata)
        if who is None:
            return None
        channel, user = who
        if not self.engine.settings.channels:
            from .config import ChannelConfig

            config = ChannelConfig()
        else:
            config = self.configs().get(channel) or _default()
        wait = self.limiter.admit(
            channel, user, limit=config.rate_limit_prompts, window_s=config.rate_limit_window_s
        )
        return ChannelRateLimited(wait) if wait is not None else None


def _default() -> ChannelConfig:
    from .config import ChannelConfig

    return ChannelConfig()


def _evolve(config: ChannelConfig, **changes: Any) -> ChannelConfig:
    import attrs

    return attrs.evolve(config, **changes)


__all__ = ["ChannelService", "listener_class"]
