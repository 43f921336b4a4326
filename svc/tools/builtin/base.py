"""What every built-in tool shares: argument validation and workspace paths."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..paths import resolve_cwd, resolve_in_workspace, workspace_relative
from ..schema import validate_args
from ..types import Tool, ToolContext, ToolResult


class BuiltinTool(Tool):
    """A tool whose arguments are checked against its ``input_schema`` before it runs."""

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if isinstance(args, Mapping):
            # The engine may add context keys (``__workspace_root``, ``__session_id`` ...)
            # to the recorded args; they are not the caller's and are never validated.
            args = {
                k: v for k, v in args.items() if not (isinstance(k, str) and k.startswith("__"))
            }
        return await self.run(validate_args(self.input_schema, args), ctx)

    @abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run with validated arguments."""


def workspace_path(
    ctx: ToolContext, path: str, *, must_exist: bool = False, field: str = "args.path"
) -> Path:
    """``path`` resolved against the call's working directory, confined to its workspace."""
    return resolve_in_workspace(
        ctx.workspace, path, cwd=ctx.cwd, must_exist=must_exist, field=field
    )


def working_directory(ctx: ToolContext) -> Path:
    """The call's real working directory (inside the workspace)."""
    return resolve_cwd(ctx.workspace, ctx.cwd)


def workspace_root(ctx: ToolContext) -> Path:
    return resolve_cwd(ctx.workspace, None)


def shown(ctx: ToolContext, path: Path) -> str:
    """How a path appears in outputs and metadata: relative to the workspace."""
    return workspace_relative(ctx.workspace, path)


__all__ = ["BuiltinTool", "shown", "working_directory", "workspace_path", "workspace_root"]
