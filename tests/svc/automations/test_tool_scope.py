"""A v2 node's tools: tool policy, MCP policy, wildcards and the expansion of generic patterns."""

from __future__ import annotations

from svc.automations.v2 import expand, node_scope, run_allowed_tools

REGISTRY = [
    "read",
    "write",
    "bash",
    "webfetch",
    "mcp.github.create_issue",
    "mcp.github.delete_repo",
    "mcp.slack.post",
    "mcp.jira.search",
]


def agent(
    allow: list[str],
    deny: list[str] | None = None,
    servers: list[str] | None = None,
    tools: list[str] | None = None,
) -> dict:
    mcp: dict = {"allowed_servers": servers or []}
    if tools is not None:
        mcp["allowed_tools"] = tools
    return {
        "agent_id": "a",
        "tool_policy": {"allowlist": allow, "denylist": deny or []},
        "mcp_policy": mcp,
    }


def test_server_wildcards_imply_their_servers() -> None:
    scope = node_scope(agent(["read", "mcp.github.*"], deny=["mcp.github.delete_repo"]), {})
    assert scope.allow == ("read", "mcp.github.*") and scope.servers == ("github",)
    assert scope.deny == ("mcp.github.delete_repo",)


def test_allowed_servers_without_tools_allow_the_whole_server() -> None:
    scope = node_scope(agent(["read"], servers=["slack"]), {})
    assert scope.allow == ("read", "mcp.slack.*") and scope.servers == ("slack",)


def test_allowed_tools_narrow_the_servers() -> None:
    scope = node_scope(
        agent(["read"], servers=["github"], tools=["create_issue", "mcp.jira.search"]), {}
    )
    assert scope.allow == ("read", "mcp.github.create_issue", "mcp.jira.search")


def test_a_generic_pattern_never_reaches_other_servers() -> None:
    scope = node_scope(agent(["*"], deny=["bash"], servers=["github"]), {})
    allowed = expand(scope, REGISTRY)
    assert "mcp.slack.post" not in allowed and "mcp.jira.search" not in allowed
    assert {
        "read",
        "write",
        "webfetch",
        "mcp.github.create_issue",
        "mcp.github.delete_repo",
    } <= set(allowed)
    assert scope.deny == ("bash",)
    assert expand(node_scope(agent(["mcp.*"]), {}), REGISTRY) == ()


def test_a_node_policy_replaces_its_agents() -> None:
    node = {"tool_policy": {"allowlist": ["write"], "denylist": []}}
    assert node_scope(agent(["read", "bash"]), node).allow == ("write",)


def test_run_allowed_tools_is_the_union_of_the_nodes() -> None:
    spec = {
        "agents": [
            agent(["read"]) | {"agent_id": "r"},
            agent(["write"], servers=["slack"]) | {"agent_id": "w"},
        ],
        "flow": {"nodes": [{"node_id": "1", "agent_id": "r"}, {"node_id": "2", "agent_id": "w"}]},
    }
    assert run_allowed_tools(spec) == ("mcp.slack.*", "read", "write")
