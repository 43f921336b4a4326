"""The agent's memory tools: ``memory_store``, ``memory_search``, ``memory_list``,
``memory_delete``.

Inside a session run a tool sees the run's own memory only: its session's
tier, its project's tier (when the session has a project) and the global
tier. Callers outside a session (the operator through ``POST /tool/execute``
or the CLI) may name a ``session_id`` or ``project_id``; with neither they
see every record. Searching and listing are allowed by the default
permission rules; storing and deleting ask first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..tools import Tool, ToolCapabilities, ToolContext, ToolFailed, ToolRegistry, ToolResult
from .exchanges import clip
from .service import MemoryService
from .tiers import TIERS, Tier, as_tier

# The record shapes and the argument checks (svc.memory.requests) are imported on first use:
# start-up registers the tools but never runs one (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import MemoryRecord, MemoryScope, SearchHit

_SCOPE_PROPERTIES: dict[str, Any] = {
    "session_id": {
        "type": "string",
        "description": "Only outside a session run: whose session memory to use.",
    },
    "project_id": {
        "type": "string",
        "description": "Only outside a session run: whose project memory to use.",
    },
}
_TAGS = {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 32}
_TIER = {"type": "string", "enum": list(TIERS)}


def _tier(name: Any, *, field: str) -> Tier:
    """A tier argument (the schema already allows only tiers; this is for the type)."""
    tier = as_tier(name) if isinstance(name, str) else None
    if tier is None:
        raise ToolFailed(f"`{field}` must be one of {', '.join(TIERS)}", field=field)
    return tier


class MemoryTool(Tool):
    """Shared plumbing: who is asking decides which memory is visible."""

    capabilities = ToolCapabilities(effects=("memory",))

    def __init__(self, memory: MemoryService) -> None:
        self.memory = memory

    async def ids(self, args: Mapping[str, Any], ctx: ToolContext) -> tuple[str | None, str | None]:
        """The session and project this call speaks for."""
        asked_session, asked_project = args.get("session_id"), args.get("project_id")
        if ctx.source == "session":
            if asked_session not in (None, ctx.session_id) or asked_project not in (
                None,
                ctx.project_id,
            ):
                raise ToolFailed(
                    "a run can only use its own session's and project's memory", field="session_id"
                )
            session_id, project_id = ctx.session_id, ctx.project_id
        else:
            session_id, project_id = asked_session, asked_project
        if session_id and not project_id:
            project_id = await self.memory.project_of_session(session_id)
        return session_id, project_id

    async def scope(
        self, args: Mapping[str, Any], ctx: ToolContext, tiers: list[str] | None = None
    ) -> MemoryScope:
        from .records import MemoryScope, ScopeClause

        session_id, project_id = await self.ids(args, ctx)
        wanted = tuple(_tier(t, field="args.tiers") for t in tiers) if tiers else TIERS
        if ctx.source != "session" and not session_id and not project_id:
            return MemoryScope(tuple(ScopeClause(t) for t in wanted))
        return MemoryScope.for_context(session_id=session_id, project_id=project_id, tiers=wanted)


class MemoryStoreTool(MemoryTool):
    name = "memory_store"
    description = (
        "Remember a fact, decision or preference for later runs. `tier` says who will see it: "
        "`session` (this session only), `project` (every session of this project; the default "
        "when the session has a project) or `global` (every session; the default otherwise). "
        "Keep each memory short and self-contained."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "description": "What to remember."},
            "content": {"type": "string", "description": "Alias of text."},
            "tags": _TAGS,
            "tier": _TIER,
            "kind": {"type": "string", "enum": ["note", "fact", "solution_capsule", "preference"]},
            **_SCOPE_PROPERTIES,
        },
        "additionalProperties": False,
    }

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .records import NewRecord
        from .requests import check_content, check_tags

        text = check_content(args.get("text") or args.get("content"), field="args.text")
        session_id, project_id = await self.ids(args, ctx)
        tier = _tier(args.get("tier") or ("project" if project_id else "global"), field="args.tier")
        if tier == "session" and not session_id:
            raise ToolFailed("tier `session` needs a session", field="tier")
        if tier == "project" and not project_id:
            raise ToolFailed("tier `project` needs a project: this session has none", field="tier")
        record = await self.memory.store_record(
            NewRecord(
                content=text,
                tier=tier,
                project_id=project_id if tier != "global" else None,
                session_id=session_id if tier == "session" else None,
                run_id=ctx.run_id,
                kind=args.get("kind") or "note",
                source_type="agent",
                tags=check_tags(list(args.get("tags") or []), field="args.tags"),
                metadata={"agent_id": ctx.agent_id} if ctx.agent_id else {},
            ),
            action="put",
            actor=ctx.agent_id or "agent",
        )
        return ToolResult(
            f"Stored memory {record.id} in the {record.tier} tier.",
            {"id": record.id, "tier": record.tier, "memory": record.to_wire()},
        )


class MemorySearchTool(MemoryTool):
    name = "memory_search"
    description = (
        "Search remembered notes, imported documents and earlier conversations (best matches "
        "first, with a relevance score between 0 and 1). Use it before asking the user something "
        "they may have told you."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "Words to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Default 8."},
            "tags": _TAGS,
            "tiers": {"type": "array", "items": _TIER, "description": "Restrict to these tiers."},
            **_SCOPE_PROPERTIES,
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .requests import check_content, check_tags

        query = check_content(args.get("query"), field="args.query")
        scope = await self.scope(args, ctx, args.get("tiers"))
        hits = await self.memory.find(
            query,
            scope,
            tags=check_tags(list(args.get("tags") or []), field="args.tags"),
            limit=int(args.get("limit") or 8),
        )
        if not hits:
            return ToolResult(f"No memories match {query!r}.", {"results": [], "count": 0})
        lines = [f"{len(hits)} memories match {query!r}:"]
        lines.extend(_line(i, h.record, h) for i, h in enumerate(hits, 1))
        return ToolResult(
            "\n".join(lines), {"results": [h.to_wire() for h in hits], "count": len(hits)}
        )


class MemoryListTool(MemoryTool):
    name = "memory_list"
    description = "List remembered items, newest first, optionally narrowed by tier, tags or words."
    input_schema = {
        "type": "object",
        "properties": {
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Default 20.",
            },
            "offset": {"type": "integer", "minimum": 0},
            "tier": _TIER,
            "tags": _TAGS,
            "query": {"type": "string", "description": "Only items containing these words."},
            **_SCOPE_PROPERTIES,
        },
        "additionalProperties": False,
    }

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .requests import check_tags

        scope = await self.scope(args, ctx, [args["tier"]] if args.get("tier") else None)
        limit, offset = int(args.get("limit") or 20), int(args.get("offset") or 0)
        items, total = await self.memory.page(
            scope,
            text=args.get("query") or None,
            tags=check_tags(list(args.get("tags") or []), field="args.tags"),
            limit=limit,
            offset=offset,
        )
        if not items:
            return ToolResult("No memories.", {"items": [], "count": 0, "total": total})
        lines = [f"{len(items)} of {total} memories (newest first):"]
        lines.extend(_line(offset + i, r, None) for i, r in enumerate(items, 1))
        return ToolResult(
            "\n".join(lines),
            {"items": [r.to_wire() for r in items], "count": len(items), "total": total},
        )


class MemoryDeleteTool(MemoryTool):
    name = "memory_delete"
    description = "Forget one remembered item by its id (from memory_search or memory_list)."
    input_schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "minLength": 1}, **_SCOPE_PROPERTIES},
        "required": ["id"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(destructive=True, effects=("memory",))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        scope = await self.scope(args, ctx)
        result = await self.memory.delete(str(args["id"]), scope, actor=ctx.agent_id or ctx.source)
        return ToolResult(f"Deleted memory {result['id']}.", result)


def _line(number: int, record: MemoryRecord, hit: SearchHit | None) -> str:
    score = f" score={hit.score:.3f}" if hit is not None else ""
    tags = f" tags={','.join(record.tags)}" if record.tags else ""
    where = record.metadata.get("path")
    origin = f" from {where}" if isinstance(where, str) else ""
    return (
        f"{number}. [{record.tier}/{record.kind}] id={record.id}{score}{tags}{origin}\n"
        f"   {clip(record.content, 400)}"
    )


def memory_tools(memory: MemoryService) -> list[Tool]:
    return [
        MemoryStoreTool(memory),
        MemorySearchTool(memory),
        MemoryListTool(memory),
        MemoryDeleteTool(memory),
    ]


def register_memory_tools(registry: ToolRegistry, memory: MemoryService) -> None:
    for tool in memory_tools(memory):
        registry.register(tool, replace=True)


__all__ = [
    "MemoryDeleteTool",
    "MemoryListTool",
    "MemorySearchTool",
    "MemoryStoreTool",
    "memory_tools",
    "register_memory_tools",
]
