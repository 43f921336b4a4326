"""Who may decide workflow gates: the engine's governance rules for request headers."""

from __future__ import annotations

from svc.workflows.requester import requester_from, requester_from_headers


def test_requesters_follow_the_engine_governance_rules() -> None:
    assert requester_from(None, None).kind == "human"
    assert requester_from(None, "Control_Panel").kind == "human"
    assert requester_from("agent-1", "control_panel").kind == "agent"
    assert requester_from(None, "tool_call").kind == "agent"
    assert requester_from(None, "agent_team").kind == "agent"
    assert requester_from(None, "nightly-cron").kind == "system"


def test_the_agent_header_is_trimmed_and_wins() -> None:
    requester = requester_from_headers(
        {"x-svc-agent-id": " a7 ", "x-svc-request-source": "tool_call"}
    )
    assert requester.to_wire() == {"kind": "agent", "actor_id": "a7", "source": "tool_call"}
