"""Does a new plan duplicate one already applied? (``overlap_analysis``)

Two layers: a *canonical* match (same steps in substance and same trigger: the
same workflow again) and a *semantic* match (goals that share most of their
words). A canonical match with the same connectors suggests ``reuse``; a
semantic one asks the operator to confirm (``merge`` when the trigger matches,
else ``fork``); no match is ``new``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .plan_package import canonical_json, digest

SIMILARITY_THRESHOLD = 0.85
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "my",
        "our",
        "me",
        "it",
        "every",
        "each",
        "then",
        "into",
        "from",
        "by",
        "at",
        "is",
        "be",
    }
)


def canonical_hash(package: Mapping[str, Any]) -> str:
    steps = sorted(
        (str(s.get("kind", "")), " ".join(str(s.get("objective", "")).lower().split()))
        for r in package.get("routine_graph") or ()
        if isinstance(r, Mapping)
        for s in r.get("steps") or ()
        if isinstance(s, Mapping)
    )
    return digest({"steps": steps, "trigger": package.get("trigger")})


def goal_words(package: Mapping[str, Any]) -> set[str]:
    mission = package.get("mission")
    if not isinstance(mission, Mapping):
        mission = {}
    return {w for w in _WORD.findall(str(mission.get("goal") or "").lower()) if w not in _STOP}


def similarity(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _connectors(package: Mapping[str, Any]) -> str:
    return canonical_json(
        sorted(
            str(b.get("binding_id"))
            for b in package.get("connector_bindings") or ()
            if isinstance(b, Mapping)
        )
    )


def analyze_overlap(
    candidate: Mapping[str, Any], priors: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    priors = [p for p in priors if p.get("plan_id") != candidate.get("plan_id")]
    wanted = canonical_hash(candidate)
    for prior in priors:
        if canonical_hash(prior) == wanted:
            reuse = _connectors(prior) == _connectors(candidate)
            return {
                "matched_plan_id": prior.get("plan_id"),
                "matched_plan_revision": prior.get("plan_revision"),
                "match_layer": "canonical",
                "similarity_score": 1.0,
                "decision": "reuse" if reuse else "fork",
                "requires_user_confirmation": False,
                "reason": "an applied plan has the same steps and trigger"
                + ("" if reuse else ", with different connectors"),
            }
    words = goal_words(candidate)
    best: tuple[float, Mapping[str, Any]] | None = None
    for prior in priors:
        score = similarity(words, goal_words(prior))
        if best is None or score > best[0]:
            best = (score, prior)
    if best is not None and best[0] >= SIMILARITY_THRESHOLD:
        score, prior = best
        same_trigger = prior.get("trigger") == candidate.get("trigger")
        return {
            "matched_plan_id": prior.get("plan_id"),
            "matched_plan_revision": prior.get("plan_revision"),
            "match_layer": "semantic",
            "similarity_score": round(score, 4),
            "decision": "merge" if same_trigger else "fork",
            "requires_user_confirmation": True,
            "reason": (
                "the goal closely matches an applied plan; "
                "confirm before creating another automation"
            ),
        }
    return {
        "matched_plan_id": None,
        "matched_plan_revision": None,
        "match_layer": None,
        "similarity_score": None,
        "decision": "new",
        "requires_user_confirmation": False,
        "reason": "no applied plan overlaps this one",
    }


OVERLAP_DECISIONS = ("reuse", "merge", "fork", "new")

__all__ = [
    "OVERLAP_DECISIONS",
    "SIMILARITY_THRESHOLD",
    "analyze_overlap",
    "canonical_hash",
    "similarity",
]
