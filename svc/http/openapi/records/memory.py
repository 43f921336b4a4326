"""Records of memory: stored records, searches, promotion, imports, audit, context nodes."""

from __future__ import annotations

from ..registry import Record
from .common import (
    ANY,
    ARR,
    BOOL,
    INT,
    NULL_INT,
    NULL_STR,
    NUM,
    OBJ,
    STR,
    STRS,
    array_of,
    obj,
    of,
)

MEMORY_RECORD = Record(
    "MemoryRecord",
    obj(
        {
            "id": STR,
            "tier": STR,
            "kind": STR,
            "source_type": STR,
            "classification": STR,
            "content": STR,
            "text": STR,
            "tags": STRS,
            "user_id": STR,
            "run_id": NULL_STR,
            "session_id": NULL_STR,
            "project_id": NULL_STR,
            "partition_key": STR,
            "visibility": STR,
            "demoted": BOOL,
            "artifact_refs": ARR,
            "linkage": obj({"source_key": NULL_STR, "chunk_index": NULL_INT}),
            "governance": OBJ,
            "metadata": OBJ,
            "provenance": OBJ,
            "created_at_ms": INT,
            "updated_at_ms": INT,
        }
    ),
)
MEMORY_HIT = Record(
    "MemoryHit",
    {
        "allOf": [of(MEMORY_RECORD), obj({"score": NUM, "bm25": NUM})],
    },
)
MEMORY_LIST = Record(
    "MemoryList",
    obj(
        {
            "items": array_of(MEMORY_RECORD),
            "count": INT,
            "total": INT,
            "offset": INT,
            "limit": INT,
        }
    ),
)
MEMORY_STORED = Record(
    "MemoryStored",
    obj(
        {
            "ok": BOOL,
            "id": STR,
            "stored": BOOL,
            "tier": STR,
            "partition_key": STR,
            "audit_id": NULL_STR,
            "memory": of(MEMORY_RECORD),
        }
    ),
)
MEMORY_SEARCH = Record(
    "MemorySearch",
    obj(
        {
            "results": array_of(MEMORY_HIT),
            "count": INT,
            "query": STR,
            "scopes_used": STRS,
            "blocked_scopes": STRS,
            "audit_id": NULL_STR,
        },
        {"blocked_reason": STR},
    ),
)
MEMORY_PROMOTED = Record(
    "MemoryPromoted",
    obj(
        {"promoted": BOOL, "to_tier": STR, "scrub_report": obj({"status": STR})},
        {"new_memory_id": STR, "audit_id": NULL_STR, "memory": of(MEMORY_RECORD)},
    ),
)
MEMORY_CHANGED = Record("MemoryChanged", obj({"ok": BOOL, "id": STR, "audit_id": STR}))
MEMORY_AUDIT_ENTRY = Record(
    "MemoryAuditEntry",
    obj(
        {
            "id": STR,
            "audit_id": STR,
            "action": STR,
            "memory_id": NULL_STR,
            "run_id": NULL_STR,
            "tier": NULL_STR,
            "actor": NULL_STR,
            "detail": OBJ,
            "created_at_ms": INT,
        }
    ),
)
MEMORY_AUDIT = Record(
    "MemoryAudit",
    obj(
        {
            "events": array_of(MEMORY_AUDIT_ENTRY),
            "entries": array_of(MEMORY_AUDIT_ENTRY),
            "count": INT,
        }
    ),
)
MEMORY_IMPORT = Record(
    "MemoryImport",
    obj(
        {
            "ok": BOOL,
            "source": obj({"kind": STR, "path": STR}),
            "path": STR,
            "format": STR,
            "tier": STR,
            "project_id": NULL_STR,
            "session_id": NULL_STR,
            "source_binding_id": NULL_STR,
            "sync_deletes": BOOL,
            "discovered_files": INT,
            "files_processed": INT,
            "indexed_files": INT,
            "skipped_files": INT,
            "deleted_files": INT,
            "chunks_created": INT,
            "errors": INT,
            "error_details": array_of(OBJ),
        }
    ),
)
CONTEXT_NODE = Record("ContextNode", obj({"ok": BOOL, "uri": STR, "node": OBJ, "node_id": STR}))
CONTEXT_TREE = Record("ContextTree", obj({"ok": BOOL, "uri": STR, "max_depth": INT, "root": OBJ}))
CONTEXT_LAYERS = Record(
    "ContextLayers",
    obj(
        {
            "ok": BOOL,
            "node_id": STR,
            "uri": STR,
            "layers": obj({"L0": ANY, "L1": ANY, "L2": ANY}),
            "abstract": ANY,
            "overview": ANY,
            "record_count": INT,
        }
    ),
)
CONTEXT_DISTILLED = Record(
    "ContextDistilled",
    obj(
        {
            "ok": BOOL,
            "session_id": STR,
            "distilled": INT,
            "stored": INT,
            "skipped": ANY,
            "memory_ids": STRS,
            "memories": array_of(OBJ),
        }
    ),
)

RECORDS = (
    MEMORY_RECORD,
    MEMORY_HIT,
    MEMORY_LIST,
    MEMORY_STORED,
    MEMORY_SEARCH,
    MEMORY_PROMOTED,
    MEMORY_CHANGED,
    MEMORY_AUDIT_ENTRY,
    MEMORY_AUDIT,
    MEMORY_IMPORT,
    CONTEXT_NODE,
    CONTEXT_TREE,
    CONTEXT_LAYERS,
    CONTEXT_DISTILLED,
)
