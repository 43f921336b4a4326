"""Failure-pattern memory: an approved failure suppresses later reports of it (§1.7 step 2)."""

from __future__ import annotations

from typing import Any

import httpx

from svc.incidents.failure_patterns import PatternProbe, excerpt_lines, score

from .support import configure, report


def failing_export(title: str = "Nightly export failed", **extra: Any) -> dict[str, Any]:
    return report(
        title,
        risk_level="high",
        excerpt=["ERROR export: upstream rejected the batch", "retry budget exhausted after 3"],
        **extra,
    )


async def post_report(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/incident-monitor/report", json={"report": body})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def test_an_approved_failure_suppresses_later_reports_of_it(
    client: httpx.AsyncClient,
) -> None:
    await configure(client, require_approval_for_new_issues=True)
    first = await post_report(client, failing_export())
    assert first["duplicate_summary"]["match_count"] == 0
    draft_id = first["draft"]["draft_id"]
    # before approval a repeat is a second occurrence of the same draft, not suppressed
    again = await post_report(client, failing_export())
    assert again["draft"]["occurrence_count"] == 2
    approved = await client.post(f"/incident-monitor/drafts/{draft_id}/approve", json={})
    assert approved.status_code == 200, approved.text
    memory = approved.json()["failure_pattern_memory"]
    assert memory["fingerprint"] == first["draft"]["fingerprint"]
    assert memory["recurrence_count"] == 2
    assert "nightly export failed" in memory["canonical_markers"]

    repeat = await post_report(client, failing_export())
    assert repeat["suppressed"] is True
    assert repeat["reason"] == "duplicate_failure_pattern"
    assert "draft" not in repeat
    summary = repeat["duplicate_summary"]
    assert summary["match_count"] == 1
    assert summary["max_recurrence_count"] == 2
    assert summary["best_match"]["fingerprint"] == first["draft"]["fingerprint"]
    assert summary["best_match"]["score"] >= 100
    assert repeat["duplicate_matches"][0]["pattern_id"] == memory["pattern_id"]
    # nothing stored: still one draft, its count unchanged
    drafts = (await client.get("/incident-monitor/drafts")).json()["drafts"]
    assert [d["occurrence_count"] for d in drafts] == [2]

    # same title, different detail: another fingerprint, matched by its canonical marker
    reworded = await post_report(client, failing_export(detail="Export job exited 2"))
    assert reworded["suppressed"] is True
    best = reworded["duplicate_summary"]["best_match"]
    assert best["score"] < 100
    assert any(r.startswith("marker:") for r in best["match_reasons"])

    # another failure of the same event is not silenced by the event name alone
    other = await post_report(
        client, report("Invoice sync failed", excerpt=["ERROR sync: ledger locked"])
    )
    assert "suppressed" not in other
    assert other["draft"]["draft_id"] != draft_id


async def test_a_denied_draft_teaches_no_pattern(client: httpx.AsyncClient) -> None:
    await configure(client, require_approval_for_new_issues=True)
    first = await post_report(client, failing_export())
    draft_id = first["draft"]["draft_id"]
    denied = await client.post(f"/incident-monitor/drafts/{draft_id}/deny", json={})
    assert denied.status_code == 200
    repeat = await post_report(client, failing_export())
    assert "suppressed" not in repeat
    assert repeat["draft"]["draft_id"] == draft_id


def test_scoring_is_the_references() -> None:
    pattern = {
        "pattern_id": "p",
        "fingerprint": "abc",
        "canonical_markers": ["nightly export failed", "error export: upstream rejected"],
        "symptoms": ["retry budget exhausted"],
        "summary": "export",
        "recurrence_count": 3,
        "linked_issue_numbers": [12],
    }
    text = "nightly export failed\nerror export: upstream rejected\nretry budget exhausted"
    full = score(pattern, PatternProbe("acme/platform", "abc", text))
    assert full is not None and full["score"] == 100 + 10 + 10 + 4 + 2
    markers_only = score(pattern, PatternProbe("acme/platform", "zzz", "nightly export failed"))
    assert markers_only is not None and markers_only["score"] == 10 + 2
    assert score(pattern, PatternProbe("acme/platform", "zzz", "something else")) is None


def test_excerpt_lines_come_from_the_detail_block() -> None:
    detail = "source: cron\n\nExport job exited 1\n\nexcerpt:\n  line one\n  line two\n\nevidence"
    assert excerpt_lines(detail) == ["line one", "line two"]
    assert excerpt_lines("no excerpt here") == []
