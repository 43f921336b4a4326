"""Failure-pattern memory (reference §1.7 step 2, §1.10.2, §1.10.5).

An approved draft (and later its triage summary) is remembered as a failure pattern of
its repo: its fingerprint, canonical markers (the specific title, the first excerpt
line), symptoms (further excerpt lines), a summary and linked issue numbers. A later
admin report or runtime failure matching a pattern is a known failure: it is
suppressed instead of becoming another draft.

Scoring is the reference's: the same fingerprint +100, each canonical marker contained
in the lower-cased report text +10, each symptom +4, the summary contained +2; any
score above zero is a match, the best three are returned. Markers are chosen to be
specific (generated titles such as "Failure detected in job.failed" are not markers),
so one approved failure does not silence every other failure of the same event.
Everything here is built from drafts, which passed intake redaction: a pattern never
holds a secret. Pure functions; storing is ``failure_pattern_repository``'s job.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .records import Draft

MAX_MATCHES = 3
MIN_MARKER = 8
"""Shorter strings are too generic to say two failures are the same."""
MAX_SYMPTOMS = 5
GENERATED_TITLES = ("failure detected in ", "failure report")


@attrs.frozen
class PatternProbe:
    """What a report is matched with: its repo, fingerprint and lower-cased text."""

    repo: str
    fingerprint: str
    haystack: str


def probe(fields: Mapping[str, Any]) -> PatternProbe:
    """The probe of prepared report fields (``intake.prepare``)."""
    parts = [
        fields.get("fingerprint") or "",
        fields.get("title") or "",
        fields.get("detail") or "",
        *(fields.get("excerpt") or []),
    ]
    return PatternProbe(
        repo=str(fields.get("repo") or ""),
        fingerprint=str(fields.get("fingerprint") or ""),
        haystack="\n".join(str(p) for p in parts).lower(),
    )


def excerpt_lines(detail: str | None) -> list[str]:
    """The excerpt block of a draft's detail (``excerpt:`` then lines indented two spaces)."""
    lines = (detail or "").splitlines()
    if "excerpt:" not in lines:
        return []
    out = []
    for line in lines[lines.index("excerpt:") + 1 :]:
        if not line.startswith("  "):
            break
        out.append(line.strip())
    return [line for line in out if line]


def _specific(text: str | None) -> str | None:
    value = (text or "").strip().lower()
    if len(value) < MIN_MARKER or value.startswith(GENERATED_TITLES):
        return None
    return value[:300]


def _summary(draft: Draft) -> str:
    triage = draft.get("triage_summary") or {}
    for key in ("suggested_title", "what_happened"):
        value = triage.get(key) if isinstance(triage, Mapping) else None
        if isinstance(value, str) and value.strip():
            return value.strip().splitlines()[0][:300]
    return (draft.text("title") or "")[:300]


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(v for v in values if v not in (None, "")))


def pattern_of(draft: Draft, existing: Mapping[str, Any] | None, now_ms: int) -> dict[str, Any]:
    """The pattern ``draft`` teaches, merged into the stored one of its repo and fingerprint."""
    lines = excerpt_lines(draft.text("detail"))
    markers = [_specific(draft.text("title")), _specific(lines[0] if lines else None)]
    symptoms = [_specific(line) for line in lines[1 : 1 + MAX_SYMPTOMS]]
    issue = draft.get("issue_number") or draft.get("matched_issue_number")
    old = dict(existing or {})
    recurrence = max(int(old.get("recurrence_count") or 0), int(draft.get("occurrence_count", 1)))
    return {
        "pattern_id": old.get("pattern_id") or f"failure-pattern-{uuid.uuid4().hex}",
        "repo": draft.repo,
        "fingerprint": draft.fingerprint,
        "summary": _summary(draft),
        "canonical_markers": _unique([*old.get("canonical_markers", []), *markers])[:10],
        "symptoms": _unique([*old.get("symptoms", []), *symptoms])[:10],
        "recurrence_count": recurrence,
        "linked_issue_numbers": _unique([*old.get("linked_issue_numbers", []), issue]),
        "draft_ids": _unique([*old.get("draft_ids", []), draft.draft_id])[-20:],
        "risk_level": draft.get("risk_level"),
        "created_at_ms": old.get("created_at_ms") or now_ms,
        "updated_at_ms": now_ms,
    }


def score(pattern: Mapping[str, Any], probe: PatternProbe) -> dict[str, Any] | None:
    """The match of ``pattern`` with the probe, or ``None`` when it scores nothing."""
    points, reasons = 0, []
    if probe.fingerprint and pattern.get("fingerprint") == probe.fingerprint:
        points += 100
        reasons.append("fingerprint")
    for marker in pattern.get("canonical_markers") or []:
        if marker and marker in probe.haystack:
            points += 10
            reasons.append(f"marker:{marker[:80]}")
    for symptom in pattern.get("symptoms") or []:
        if symptom and symptom in probe.haystack:
            points += 4
            reasons.append(f"symptom:{symptom[:80]}")
    summary = str(pattern.get("summary") or "").lower()
    if summary and summary in probe.haystack:
        points += 2
        reasons.append("summary")
    if points <= 0:
        return None
    return {
        "pattern_id": pattern.get("pattern_id"),
        "fingerprint": pattern.get("fingerprint"),
        "repo": pattern.get("repo"),
        "summary": pattern.get("summary"),
        "score": points,
        "match_reasons": reasons,
        "recurrence_count": int(pattern.get("recurrence_count") or 1),
        "linked_issue_numbers": list(pattern.get("linked_issue_numbers") or []),
        "draft_ids": list(pattern.get("draft_ids") or []),
        "updated_at_ms": pattern.get("updated_at_ms"),
    }


def best_matches(
    patterns: Iterable[Mapping[str, Any]], probe: PatternProbe
) -> list[dict[str, Any]]:
    scored = [m for m in (score(p, probe) for p in patterns) if m is not None]
    scored.sort(key=lambda m: (-m["score"], -(m["updated_at_ms"] or 0)))
    return scored[:MAX_MATCHES]


def duplicate_summary(matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "reason": "duplicate_failure_pattern",
        "match_count": len(matches),
        "max_recurrence_count": max((m["recurrence_count"] for m in matches), default=1),
        "linked_issue_numbers": _unique(n for m in matches for n in m["linked_issue_numbers"]),
        "best_match": dict(matches[0]) if matches else None,
        "matches": [dict(m) for m in matches],
    }
