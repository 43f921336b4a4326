"""Search terms, scope tokens and the relevance score, whatever index answers the search.

Query text is split the way the index tokenizer (unicode61) splits documents:
runs of letters and digits. A record matching more of the terms, and rarer
ones, ranks higher. Common English function words are dropped when the query
has other terms: they match almost every record, add nothing to the ranking,
and make the search slow.

Scopes. Each record's ``scope`` column holds a token for its tier, one for
where in that tier it lives (its project or its session, hashed into a plain
token) and one when it is demoted. A search ANDs its terms with the tokens of
its scope, so the index itself returns only records the caller may see.

Scores are Okapi BM25 (k1 = 1.2, b = 0.75) over content and tags (tags count
half), with the idf ``ln(1 + (N - n + 0.5) / (n + 0.5))``: always positive,
unlike SQLite's built-in ``bm25()``, which clamps to nearly zero every term
found in more than half of the records and so reports almost nothing for a
small memory. The raw value is reported as ``bm25``; ``score = bm25 / (1 +
bm25)`` maps it into (0, 1), strictly increasing, so a better match always
scores higher. Results are ordered by score. The index backend computes the
raw value (:mod:`svc.memory.search_index_repository`).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import ScopeClause

MAX_TERMS = 32
"""Terms kept from a query (a pasted paragraph still searches quickly)."""

_TERM = re.compile(r"[^\W_]+", re.UNICODE)

STOPWORDS = frozenset(
    (
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    )
)


def terms(text: str) -> list[str]:
    """The distinct search terms of ``text``, lower-cased, in order."""
    seen: dict[str, None] = {}
    for match in _TERM.finditer(text.lower()):
        seen.setdefault(match.group(0), None)
    found = list(seen)
    meaningful = [t for t in found if t not in STOPWORDS]
    return (meaningful or found)[:MAX_TERMS]


def score_from_bm25(raw: float) -> float:
    """The (0, 1) score for a BM25 value (see the module docstring)."""
    raw = max(0.0, raw)
    return raw / (1.0 + raw)


# ---------------------------------------------------------------------- scope tokens
# One token per (tier, id) pair, so each scope clause is a single short
# posting list: the index intersects the search terms with a few hundred
# entries, not with every record of a tier. The leading digit keeps them
# apart from anything a person would type.
DEMOTED_TOKEN = "0xdemoted"


def _hashed(prefix: str, value: str) -> str:
    return prefix + hashlib.blake2b(value.encode("utf-8"), digest_size=8).hexdigest()


def scope_text(
    *,
    tier: str,
    project_id: str | None,
    session_id: str | None,
    run_id: str | None,
    demoted: bool,
) -> str:
    """The ``scope`` column of a record."""
    tokens = [f"0t{tier}"]
    if tier == "project" and project_id:
        tokens.append(_hashed("0p", project_id))
    elif tier == "session" and session_id:
        tokens.append(_hashed("0s", session_id))
    elif tier == "session" and run_id:
        tokens.append(_hashed("0r", run_id))
    if demoted:
        tokens.append(DEMOTED_TOKEN)
    return " ".join(tokens)


def scope_tokens(clauses: Iterable[ScopeClause]) -> list[str]:
    """The tokens a scope's clauses stand for (a record matches a scope when its
    ``scope`` column holds one of them); empty when the scope can see nothing."""
    tokens: list[str] = []
    for c in clauses:
        if c.tier == "global" or c.whole_tier:
            tokens.append(f"0t{c.tier}")
        elif c.tier == "project":
            tokens.append(_hashed("0p", c.project_id or ""))
        elif c.session_id is not None:
            tokens.append(_hashed("0s", c.session_id))
        else:
            tokens.append(_hashed("0r", c.run_id or ""))
    return tokens


# ---------------------------------------------------------------------- BM25
K1 = 1.2
B = 0.75
COLUMN_WEIGHTS = (1.0, 0.5)
"""content, tags; the scope column never counts."""


def idf(rows: int, containing: int) -> float:
    return math.log(1.0 + (rows - containing + 0.5) / (containing + 0.5))


__all__ = [
    "COLUMN_WEIGHTS",
    "DEMOTED_TOKEN",
    "K1",
    "MAX_TERMS",
    "STOPWORDS",
    "B",
    "idf",
    "scope_text",
    "scope_tokens",
    "score_from_bm25",
    "terms",
]
