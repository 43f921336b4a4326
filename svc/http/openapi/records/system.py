"""Records of the engine-wide areas: configuration, storage, identity, tools, browser,
this document and run event logs."""

from __future__ import annotations

from ..registry import Record
from .common import (
    BOOL,
    INT,
    NULL_INT,
    NULL_STR,
    OBJ,
    STR,
    STRS,
    array_of,
    map_of,
    obj,
    of,
)

OK = Record("Ok", obj({"ok": BOOL}))

STORAGE_FILE = Record(
    "StorageFile",
    obj({"path": STR, "relative_to_base": STR, "size_bytes": INT, "modified_at_ms": INT}),
)
STORAGE_FILES = Record(
    "StorageFiles",
    obj(
        {
            "root": STR,
            "base": STR,
            "count": INT,
            "limit": INT,
            "truncated": BOOL,
            "files": array_of(STORAGE_FILE),
        }
    ),
)

STORAGE_REPAIR = Record(
    "StorageRepair",
    obj(
        {
            "status": STR,
            "ok": BOOL,
            "force": BOOL,
            "integrity": obj({"status": STR}),
            "orphans": OBJ,
            "removed": OBJ,
            "marker_updated": BOOL,
            "sessions_merged": INT,
            "messages_recovered": INT,
            "parts_recovered": INT,
            "legacy_counts": OBJ,
            "imported_counts": OBJ,
            "store": STR,
        }
    ),
)

_WORKTREE_ACTION = obj({"path": STR}, {"branch": NULL_STR, "via": STR, "code": STR})
WORKTREE_CLEANUP = Record(
    "WorktreeCleanup",
    obj(
        {
            "ok": BOOL,
            "dry_run": BOOL,
            "repo_root": STR,
            "managed_root": STR,
            "tracked_paths": STRS,
            "active_paths": STRS,
            "stale_paths": array_of(obj({"path": STR, "branch": NULL_STR})),
            "cleaned_worktrees": array_of(_WORKTREE_ACTION),
            "orphan_dirs": STRS,
            "orphan_dirs_removed": array_of(_WORKTREE_ACTION),
            "failures": array_of(_WORKTREE_ACTION),
        }
    ),
)

_PERSONALITY = obj({"preset": NULL_STR, "custom_instructions": NULL_STR})
IDENTITY = Record(
    "IdentityConfig",
    obj(
        {
            "identity": obj(
                {
                    "bot": obj(
                        {"canonical_name": STR, "avatar_url": NULL_STR, "aliases": map_of(STR)}
                    ),
                    "personality": obj(
                        {
                            "default": obj({"preset": STR, "custom_instructions": NULL_STR}),
                            "per_agent": map_of(_PERSONALITY),
                        }
                    ),
                }
            ),
            "presets": array_of(obj({"id": STR, "label": STR, "description": STR})),
        }
    ),
)

TOOL = Record("Tool", obj({"name": STR, "description": STR, "input_schema": OBJ}))
TOOLS = Record("Tools", array_of(TOOL))
TOOL_IDS = Record("ToolIds", STRS)
TOOL_RESULT = Record("ToolResult", obj({"output": STR, "metadata": OBJ}))

_FOUND = obj({"found": BOOL}, {"path": STR, "version": STR, "channel": STR})
BROWSER_STATUS = Record(
    "BrowserStatus",
    obj(
        {
            "enabled": BOOL,
            "runnable": BOOL,
            "headless_default": BOOL,
            "sidecar": _FOUND,
            "browser": _FOUND,
            "blocking_issues": array_of(obj({"code": STR, "message": STR})),
            "recommendations": STRS,
            "install_hints": STRS,
        },
        {"last_checked_at_ms": INT, "last_error": STR},
    ),
)
BROWSER_INSTALL = Record(
    "BrowserInstall",
    obj(
        {
            "version": STR,
            "asset_name": STR,
            "installed_path": STR,
            "downloaded_bytes": INT,
            "status": of(BROWSER_STATUS),
        }
    ),
)
BROWSER_SMOKE_TEST = Record(
    "BrowserSmokeTest",
    obj(
        {
            "ok": BOOL,
            "status": of(BROWSER_STATUS),
            "url": STR,
            "final_url": NULL_STR,
            "title": NULL_STR,
            "load_state": NULL_STR,
            "element_count": INT,
            "excerpt": STR,
            "closed": BOOL,
        }
    ),
)

OPENAPI_DOCUMENT = Record(
    "OpenApiDocument",
    obj({"openapi": STR, "info": OBJ, "paths": OBJ, "components": OBJ}),
)

RUN_EVENT = Record(
    "RunEvent",
    obj(
        {
            "event_id": STR,
            "seq": INT,
            "schema_version": INT,
            "occurred_at_ms": INT,
            "event_type": STR,
            "payload": OBJ,
        },
        {"session_id": STR, "run_id": STR},
    ),
)
RUN_EVENTS = Record("RunEvents", array_of(RUN_EVENT))
RUN_EVENTS_PAGE = Record(
    "RunEventsPage",
    obj(
        {
            "run_id": STR,
            "events": array_of(RUN_EVENT),
            "count": INT,
            "first_seq": NULL_INT,
            "last_seq": NULL_INT,
            "limit": NULL_INT,
            "tail": NULL_INT,
            "sequence_scope": STR,
        }
    ),
)

RECORDS = (
    OK,
    STORAGE_FILE,
    STORAGE_FILES,
    STORAGE_REPAIR,
    WORKTREE_CLEANUP,
    IDENTITY,
    TOOL,
    TOOLS,
    TOOL_IDS,
    TOOL_RESULT,
    BROWSER_STATUS,
    BROWSER_INSTALL,
    BROWSER_SMOKE_TEST,
    OPENAPI_DOCUMENT,
    RUN_EVENT,
    RUN_EVENTS,
    RUN_EVENTS_PAGE,
)
