"""Authorization challenges: detection in payloads and the per-tool cooldown ledger."""

from __future__ import annotations

from svc.mcp.auth import (
    DEFAULT_MESSAGE,
    AuthLedger,
    challenge_id,
    find_challenge,
    pending_text,
    required_text,
)

URL = "https://auth.example.test/authorize?x=1"


def test_a_url_in_structured_content_is_a_challenge() -> None:
    result = {
        "content": [{"type": "text", "text": "Grant access. Authorize here: " + URL}],
        "structuredContent": {"authorization_url": URL, "message": "Grant access."},
    }
    challenge = find_challenge("Gmail_Send", result, now_ms=5)
    assert challenge is not None
    assert (challenge.authorization_url, challenge.message, challenge.requested_at_ms) == (
        URL,
        "Grant access.",
        5,
    )
    assert (
        challenge.challenge_id == challenge_id("Gmail_Send", URL)
        and len(challenge.challenge_id) == 16
    )


def test_a_url_deep_in_a_json_rpc_error_is_a_challenge() -> None:
    error = {
        "code": -32001,
        "message": "Authorization required",
        "data": {"auth": {"authorizationUrl": URL}},
    }
    challenge = find_challenge("Drive_List", error, now_ms=0, failed=True)
    assert challenge is not None and challenge.authorization_url == URL
    assert challenge.message == "Authorization required"


def test_message_is_cut_at_authorize_here_and_bounded() -> None:
    text = "Please connect\nyour account. Authorize here: " + URL
    challenge = find_challenge("t", {"authorization_url": URL, "text": text}, now_ms=0)
    assert challenge is not None and challenge.message == "Please connect your account."
    long = find_challenge("t", {"auth_url": URL, "message": "x" * 400}, now_ms=0)
    assert long is not None and long.message == "x" * 280 + "..."
    bare = find_challenge("t", {"auth_url": URL}, now_ms=0)
    assert bare is not None and bare.message == DEFAULT_MESSAGE


def test_a_url_in_error_text_about_authorization_counts_only_for_failures() -> None:
    text = {"content": [{"type": "text", "text": f"OAuth consent needed: {URL}."}], "isError": True}
    assert find_challenge("t", text, now_ms=0, failed=True).authorization_url == URL  # type: ignore[union-attr]
    assert find_challenge("t", text, now_ms=0, failed=False) is None


def test_ordinary_results_are_not_challenges() -> None:
    assert (
        find_challenge(
            "t", {"content": [{"type": "text", "text": "see https://example.org"}]}, now_ms=0
        )
        is None
    )
    assert (
        find_challenge("t", {"structuredContent": {"authorization_url": "not a url"}}, now_ms=0)
        is None
    )


def test_the_ledger_blocks_a_challenged_tool_for_the_cooldown_only() -> None:
    ledger = AuthLedger(15_000)
    challenge = find_challenge("Gmail_Send", {"auth_url": URL}, now_ms=1_000)
    assert challenge is not None
    ledger.challenged(challenge, 1_000)
    assert ledger.remaining_ms("gmail_send", 1_000) == 15_000
    assert ledger.remaining_ms("Gmail_Send", 11_000) == 5_000
    assert ledger.remaining_ms("Other_Tool", 11_000) is None
    assert ledger.remaining_ms("Gmail_Send", 16_000) is None
    # A re-probe restarts the cooldown; a repeated challenge keeps its first sighting.
    assert ledger.probe("Gmail_Send", 16_000)
    assert ledger.remaining_ms("Gmail_Send", 17_000) == 14_000
    again = ledger.challenged(challenge, 20_000)
    assert (again.first_seen_ms, again.last_probe_ms) == (1_000, 20_000)
    assert ledger.cleared("GMAIL_SEND") and ledger.remaining_ms("Gmail_Send", 20_001) is None


def test_texts_handed_to_the_model() -> None:
    challenge = find_challenge("t", {"auth_url": URL, "message": "Connect Gmail."}, now_ms=0)
    assert challenge is not None
    assert required_text("mcp.gw.t", challenge) == (
        "Authorization required for `mcp.gw.t`.\nConnect Gmail.\n\nAuthorize here: " + URL
    )
    ledger = AuthLedger(15_000)
    entry = ledger.challenged(challenge, 0)
    assert pending_text("mcp.gw.t", entry, 11_200).endswith(
        "Authorize here: " + URL + "\nRetry after 12s."
    )
