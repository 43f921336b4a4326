"""Memory: tiered records in SQLite with bm25-ranked full-text search, imports, and exchange memory.

* :class:`MemoryService` (``engine.memory``): put, search, promote, demote,
  list, delete and import, in the governed and the simple request shapes;
* :class:`MemoryStore`: the tables and the FTS5 index (usable without an
  engine, as the CLI import does);
* :class:`Importer`: directory and openclaw imports with change detection;
* :class:`ExchangeRecorder`: the compact memory of completed runs;
* the ``memory_*`` tools.
"""

from .chunking import MAX_TOKENS, OVERLAP_TOKENS, Chunk, chunk_text, count_tokens
from .component import MemoryComponent
from .exchanges import ExchangeRecorder, clip, compact_exchange
from .governance import (
    DEFAULT_CAPABILITY,
    Capability,
    MemoryCapabilityExpired,
    MemoryConflict,
    MemoryForbidden,
    MemoryNotFound,
    MemoryPermissions,
    Partition,
    TierNotStorageBacked,
)
from .importer import (
    FORMATS,
    Importer,
    ImportProgress,
    ImportRequest,
    ImportSummary,
    MemoryImportFailed,
    discover,
    import_key,
)
from .query import score_from_bm25, terms
from .records import (
    TIERS,
    AuditEntry,
    MemoryRecord,
    MemoryScope,
    NewRecord,
    ScopeClause,
    SearchHit,
    Tier,
)
from .requests import (
    DemoteRequest,
    GovernedPromoteRequest,
    GovernedPutRequest,
    GovernedSearchRequest,
    ImportBody,
    PromoteRequest,
    PutRequest,
    SearchRequest,
    parse_demote,
    parse_import,
    parse_promote,
    parse_put,
    parse_search,
)
from .scrub import ScrubReport, scrub_text
from .service import TOPIC, MemoryService
from .store import MemoryStore
from .tools import memory_tools, register_memory_tools

__all__ = [
    "DEFAULT_CAPABILITY",
    "FORMATS",
    "MAX_TOKENS",
    "OVERLAP_TOKENS",
    "TIERS",
    "TOPIC",
    "AuditEntry",
    "Capability",
    "Chunk",
    "DemoteRequest",
    "ExchangeRecorder",
    "GovernedPromoteRequest",
    "GovernedPutRequest",
    "GovernedSearchRequest",
    "ImportBody",
    "ImportProgress",
    "ImportRequest",
    "ImportSummary",
    "Importer",
    "MemoryCapabilityExpired",
    "MemoryComponent",
    "MemoryConflict",
    "MemoryForbidden",
    "MemoryImportFailed",
    "MemoryNotFound",
    "MemoryPermissions",
    "MemoryRecord",
    "MemoryScope",
    "MemoryService",
    "MemoryStore",
    "NewRecord",
    "Partition",
    "PromoteRequest",
    "PutRequest",
    "ScopeClause",
    "ScrubReport",
    "SearchHit",
    "SearchRequest",
    "Tier",
    "TierNotStorageBacked",
    "chunk_text",
    "clip",
    "compact_exchange",
    "count_tokens",
    "discover",
    "import_key",
    "memory_tools",
    "parse_demote",
    "parse_import",
    "parse_promote",
    "parse_put",
    "parse_search",
    "register_memory_tools",
    "score_from_bm25",
    "scrub_text",
    "terms",
]
