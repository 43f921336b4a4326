"""What a tool is, what it gets when it runs, and what it returns.

Every tool, built-in or remote (``mcp.<server>.<tool>``), is a :class:`Tool`
instance in the engine's :class:`~svc.tools.ToolRegistry`. The agent loop, the
``POST /tool/execute`` route and the CLI all run tools the same way: through the
registry, with a :class:`ToolContext` describing who is asking and where.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from ..errors import SvcError

if TYPE_CHECKING:
    import httpx

    from ..settings import Settings

Source = Literal["session", "http", "cli", "automation", "internal"]


@attrs.frozen
class ToolResult:
    output: str
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ToolCapabilities:
    reads_workspace: bool = False
    writes_workspace: bool = False
    network_access: bool = False
    destructive: bool = False
    effects: tuple[str, ...] = ()


class ToolFailed(SvcError):
    """The tool could not do what was asked."""

    code = "TOOL_EXECUTION_FAILED"
    status = 400


class ToolNotFound(SvcError):
    """Unknown tool."""

    code = "TOOL_NOT_FOUND"
    status = 404


class ToolDenied(SvcError):
    """The tool call is not allowed here."""

    code = "TOOL_DISPATCH_DENIED"
    status = 403


@attrs.define
class ToolContext:
    """Everything a running tool may need; tools use only what they need."""

    workspace: Path
    """The root file tools are confined to."""
    source: Source = "internal"
    cwd: Path | None = None
    session_id: str | None = None
    run_id: str | None = None
    message_id: str | None = None
    call_id: str | None = None
    project_id: str | None = None
    agent_id: str | None = None
    interactive: bool = False
    """True inside a session run, where a human can answer questions and approvals."""
    http: httpx.AsyncClient | None = None
    """The engine's shared outbound client, if the tool runs inside an engine. Tools get
    narrow capabilities like this one, never the engine: a tool that needs a domain
    service is built with it (see ``svc.goals.tools``)."""
    settings: Settings | None = None
    """The engine's settings when the tool runs inside an engine (search backends)."""
    invoke: Callable[[str, Mapping[str, Any]], Awaitable[ToolResult]] | None = None
    """Run another tool through the same policy gates (used by ``batch``)."""
    ask_question: Callable[[list[dict[str, Any]]], Awaitable[list[list[str]]]] | None = None
    """Ask the user and wait for the answer (session runs only)."""
    set_todos: Callable[[list[dict[str, Any]]], Awaitable[None]] | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)

    @property
    def effective_cwd(self) -> Path:
        return self.cwd or self.workspace


class Tool(ABC):
    """Base class of every tool.

    ``permission`` is the name permission rules match (defaults to ``name``);
    ``aliases`` are other names the model or a client may call it by.
    """

    # Class attributes for built-ins; remote tools (MCP) set them per instance.
    name: str
    description: str
    input_schema: Mapping[str, Any] = {"type": "object", "properties": {}}
    aliases: tuple[str, ...] = ()
    capabilities: ToolCapabilities = ToolCapabilities()
    bounds_itself: bool = False
    """True for tools with their own deadline (bash's ``timeout_ms``, a question's
    wait): the dispatcher's generic execution timeout does not cut them short."""

    @property
    def permission(self) -> str:
        return self.name

    def prepare_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """Adjust the caller's arguments before they are checked against ``input_schema``.

        The default keeps them as they are; remote (MCP) tools rename keys that
        drifted from their schema (``listId`` -> ``list_id``).
        """
        return args

    def schema(self) -> dict[str, Any]:
        """The ``GET /tool`` entry."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
        }

    @abstractmethod
    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the tool. Raise :class:`ToolFailed` (or a ValidationFailed) on bad input."""
