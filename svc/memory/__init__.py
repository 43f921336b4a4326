"""Memory: tiered records with bm25-ranked full-text search, imports, and exchange memory.

* :class:`MemoryService` (``engine.memory``): put, search, promote, demote,
  page, delete and import, in the governed and the simple request shapes;
* :class:`MemoryStore`: the repositories (records with their
  :class:`SearchIndex`, audit, state, exchanges, imports), usable without an
  engine, as the CLI import does;
* :class:`Importer`: directory and openclaw imports with change detection;
* :class:`ExchangeRecorder`: the compact memory of completed runs;
* the ``memory_*`` tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .chunking import MAX_TOKENS as MAX_TOKENS
    from .chunking import OVERLAP_TOKENS as OVERLAP_TOKENS
    from .chunking import Chunk as Chunk
    from .chunking import chunk_text as chunk_text
    from .chunking import count_tokens as count_tokens
    from .component import MemoryComponent as MemoryComponent
    from .exchanges import ExchangeRecorder as ExchangeRecorder
    from .exchanges import channel_tags as channel_tags
    from .exchanges import clip as clip
    from .exchanges import compact_exchange as compact_exchange
    from .factory import build_record as build_record
    from .factory import new_audit as new_audit
    from .factory import normalize_tags as normalize_tags
    from .governance import DEFAULT_CAPABILITY as DEFAULT_CAPABILITY
    from .governance import Capability as Capability
    from .governance import MemoryCapabilityExpired as MemoryCapabilityExpired
    from .governance import MemoryConflict as MemoryConflict
    from .governance import MemoryForbidden as MemoryForbidden
    from .governance import MemoryNotFound as MemoryNotFound
    from .governance import MemoryPermissions as MemoryPermissions
    from .governance import Partition as Partition
    from .governance import TierNotStorageBacked as TierNotStorageBacked
    from .import_plan import FORMATS as FORMATS
    from .import_plan import ImportProgress as ImportProgress
    from .import_plan import ImportRequest as ImportRequest
    from .import_plan import ImportSummary as ImportSummary
    from .import_plan import MemoryImportFailed as MemoryImportFailed
    from .import_plan import discover as discover
    from .import_plan import import_key as import_key
    from .importer import Importer as Importer
    from .query import score_from_bm25 as score_from_bm25
    from .query import terms as terms
    from .record_repository import RecordRepository as RecordRepository
    from .records import AuditEntry as AuditEntry
    from .records import MemoryRecord as MemoryRecord
    from .records import MemoryScope as MemoryScope
    from .records import NewRecord as NewRecord
    from .records import ScopeClause as ScopeClause
    from .records import SearchHit as SearchHit
    from .requests import DemoteRequest as DemoteRequest
    from .requests import GovernedPromoteRequest as GovernedPromoteRequest
    from .requests import GovernedPutRequest as GovernedPutRequest
    from .requests import GovernedSearchRequest as GovernedSearchRequest
    from .requests import ImportBody as ImportBody
    from .requests import PromoteRequest as PromoteRequest
    from .requests import PutRequest as PutRequest
    from .requests import SearchRequest as SearchRequest
    from .requests import parse_demote as parse_demote
    from .requests import parse_import as parse_import
    from .requests import parse_promote as parse_promote
    from .requests import parse_put as parse_put
    from .requests import parse_search as parse_search
    from .scrub import ScrubReport as ScrubReport
    from .scrub import scrub_text as scrub_text
    from .search_index_repository import SearchIndex as SearchIndex
    from .service import TOPIC as TOPIC
    from .service import MemoryService as MemoryService
    from .store import MemoryStore as MemoryStore
    from .tiers import TIERS as TIERS
    from .tiers import Tier as Tier
    from .tools import memory_tools as memory_tools
    from .tools import register_memory_tools as register_memory_tools

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
            "channel_tags",
            "clip",
            "compact_exchange",
        ],
        ".factory": [
            "build_record",
            "new_audit",
            "normalize_tags",
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
        ".import_plan": [
            "FORMATS",
            "ImportProgress",
            "ImportRequest",
            "ImportSummary",
            "MemoryImportFailed",
            "discover",
            "import_key",
        ],
        ".importer": [
            "Importer",
        ],
        ".query": [
            "score_from_bm25",
            "terms",
        ],
        ".record_repository": [
            "RecordRepository",
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
        ".search_index_repository": [
            "SearchIndex",
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
