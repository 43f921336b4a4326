"""How the channels domain plugs into the engine (see :mod:`svc.component`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from supervisors import ChildSpec, Restart

from ..component import Component
from ..errors import SvcError

if TYPE_CHECKING:
    from ..engine import Engine
    from ..sessions import Session
    from .ratelimit import ChannelRateLimited
    from .service import ChannelService


class ChannelsUnavailable(SvcError):
    """Channels are not part of this engine"""

    code = "CHANNELS_UNAVAILABLE"
    status = 503


class ChannelsComponent(Component):
    """The channel listeners' supervisor runs under ``services``."""

    name = "channels"

    def __init__(self) -> None:
        self.service: ChannelService | None = None

    async def setup(self, engine: Engine) -> None:
        from .service import ChannelService

        service = ChannelService(engine)
        self.service = service
        engine.on_settings_changed(service.settings_changed)

    def children(self, engine: Engine) -> list[ChildSpec]:
        assert self.service is not None
        # Permanent: the supervisor of the listeners lives as long as the engine;
        # each listener reconnects by itself, so only a bug restarts this child.
        return [ChildSpec(id="channels", start=self.service.run, restart=Restart.PERMANENT)]


def channels_of(engine: Engine) -> ChannelService:
    """The engine's channels service (503 if the component is not part of this engine)."""
    for component in engine.components:
        if isinstance(component, ChannelsComponent) and component.service is not None:
            return component.service
    raise ChannelsUnavailable()


def prompt_refusal(engine: Engine, session: Session) -> ChannelRateLimited | None:
    """For ``prompt_sync``: the 429 a channel session's user gets past the per-user limit."""
    for component in engine.components:
        if isinstance(component, ChannelsComponent) and component.service is not None:
            return component.service.admit_prompt(session)
    return None


__all__ = ["ChannelsComponent", "ChannelsUnavailable", "channels_of", "prompt_refusal"]
