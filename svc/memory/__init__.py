"""Memory: tiered records in SQLite with bm25-ranked full-text search, imports, and exchange memory.

* :class:`MemoryService` (``engine.memory``): put, search, promote, demote,
  list, delete and import, in the governed and the simple request shapes;
* :class:`MemoryStore`: the tables and the FTS5 index (usable without an
  engine, as the CLI import does);
* :class:`Importer`: directory and openclaw imports with change detection;
* :class:`ExchangeRecorder`: the compact memory of completed runs;
* the ``memory_*`` tools.
"""

from __future__ import annotations

from ..lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".chunking": [
            "MAX_TOKENS",
            "OVERLAP_TOKENS",
            "Chunk",
            "chunk_text",
            "count_tokens",
        ],
        ".component": [
            "MemoryComponent",
        ],
        ".exchanges": [
            "ExchangeRecorder",
            "clip",
            "compact_exchange",
        ],
        ".governance": [
            "DEFAULT_CAPABILITY",
            "Capability",
            "MemoryCapabilityExpired",
            "MemoryConflict",
            "MemoryForbidden",
            "MemoryNotFound",
            "MemoryPermissions",
            "Partition",
            "TierNotStorageBacked",
        ],
        ".importer": [
            "FORMATS",
            "Importer",
            "ImportProgress",
            "ImportRequest",
            "ImportSummary",
            "MemoryImportFailed",
            "discover",
            "import_key",
        ],
        ".query": [
            "score_from_bm25",
            "terms",
        ],
        ".records": [
            "AuditEntry",
            "MemoryRecord",
            "MemoryScope",
            "NewRecord",
            "ScopeClause",
            "SearchHit",
        ],
        ".requests": [
            "DemoteRequest",
            "GovernedPromoteRequest",
            "GovernedPutRequest",
            "GovernedSearchRequest",
            "ImportBody",
            "PromoteRequest",
            "PutRequest",
            "SearchRequest",
            "parse_demote",
            "parse_import",
            "parse_promote",
            "parse_put",
            "parse_search",
        ],
        ".scrub": [
            "ScrubReport",
            "scrub_text",
        ],
        ".service": [
            "TOPIC",
            "MemoryService",
        ],
        ".store": [
            "MemoryStore",
        ],
        ".tiers": [
            "TIERS",
            "Tier",
        ],
        ".tools": [
            "memory_tools",
            "register_memory_tools",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
