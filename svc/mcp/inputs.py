"""The bodies of ``POST /mcp`` and ``PATCH /mcp/{name}``, and registering header secrets."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..convert import aliases
from ..logs import register_secret


@attrs.frozen
class ConnectorInput:
    """The body of ``POST /mcp`` (SPEC 2.1)."""

    name: str
    transport: str
    enabled: bool = True
    headers: dict[str, str] = attrs.field(factory=dict)
    allowed_tools: list[str] | None = aliases("allowedTools", default=None)


@attrs.frozen
class ConnectorPatch:
    """The body of ``PATCH /mcp/{name}``."""

    enabled: bool | None = None
    allowed_tools: list[str] | None = aliases("allowedTools", default=None)
    clear_allowed_tools: bool = aliases("clearAllowedTools", default=False)


def register_header_secrets(headers: Mapping[str, str]) -> None:
    for value in headers.values():
        register_secret(value)
        if " " in value:
            register_secret(value.split(" ", 1)[1])


__all__ = ["ConnectorInput", "ConnectorPatch", "register_header_secrets"]
