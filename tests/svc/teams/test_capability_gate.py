"""The capability gate's checks, call by call."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from svc.convert import structure
from svc.teams import Capabilities, CapabilityGate, git_subcommands, host_allowed


class Recorder:
    """Collects what the gate reports and answers push approvals with a fixed verdict."""

    def __init__(self, verdict: str | None = None) -> None:
        self.verdict = verdict
        self.denied: list[tuple[str, str]] = []
        self.pushes: list[str] = []

    def on_denied(self, tool: str, reason: str) -> None:
        self.denied.append((tool, reason))

    async def approve(self, command: str, args: Mapping[str, Any]) -> str | None:
        self.pushes.append(command)
        return self.verdict


def gate(
    workspace: Path,
    recorder: Recorder,
    *,
    push_requires_approval: bool = False,
    **capabilities: Any,
) -> CapabilityGate:
    return CapabilityGate(
        structure(Capabilities, capabilities),
        workspace=workspace,
        push_requires_approval=push_requires_approval,
        approve_push=recorder.approve,
        on_denied=recorder.on_denied,
    )


async def test_deny_list_wins_and_names_compare_normalised(workspace: Path) -> None:
    recorder = Recorder()
    check = gate(
        workspace,
        recorder,
        tool_allowlist=["Web-Fetch", "mcp.docs.*"],
        tool_denylist=["mcp.docs.delete"],
        net_scopes={"enabled": True},
    )
    assert await check("webfetch_html", {}) == "tool `webfetch_html` not in agent allowlist"
    assert await check("web_fetch", {"url": "https://x.test"}) is None
    assert await check("mcp.docs.search", {}) is None
    assert (
        await check("mcp.docs.delete", {})
        == "tool `mcp.docs.delete` denied by agent capability policy"
    )
    assert recorder.denied == [
        ("webfetch_html", "tool `webfetch_html` not in agent allowlist"),
        ("mcp.docs.delete", "tool `mcp.docs.delete` denied by agent capability policy"),
    ]


async def test_network_hosts(workspace: Path) -> None:
    recorder = Recorder()
    off = gate(workspace, recorder)
    assert await off("websearch", {"query": "x"}) == "network disabled for this agent instance"
    assert (
        await off("browser_open", {"url": "https://a.test"})
        == "network disabled for this agent instance"
    )
    assert await off("browser_status", {}) is None
    limited = gate(
        workspace, recorder, net_scopes={"enabled": True, "allow_hosts": ["example.com"]}
    )
    assert await limited("webfetch", {"url": "https://docs.example.com/a"}) is None
    assert await limited("webfetch", {"url": "https://example.com.evil.test/"}) is not None
    assert (
        await limited("browser_navigate", {"uri": "http://other.test"})
        == "host of `http://other.test` is not in the agent's allow_hosts"
    )
    assert await limited("browser_click", {"selector": "#go"}) is None
    assert "websearch is not allowed" in (await limited("websearch", {"query": "x"}) or "")
    open_net = gate(workspace, recorder, net_scopes={"enabled": True})
    assert await open_net("websearch", {"query": "x"}) is None


@pytest.mark.parametrize(
    ("command", "subcommands"),
    [
        ("git push origin main", ["push"]),
        ("git -C repo -c user.name=x push", ["push"]),
        ("cd repo && /usr/bin/git commit -m 'a push'", ["commit"]),
        ("git status; git push --force | tee log", ["status", "push"]),
        ("echo 'no git here'", []),
        ("GIT_DIR=x git --git-dir .git log", ["log"]),
    ],
)
def test_git_subcommands(command: str, subcommands: list[str]) -> None:
    assert git_subcommands(command) == subcommands


async def test_git_caps(workspace: Path) -> None:
    recorder = Recorder(verdict="nope")
    no_push = gate(workspace, recorder, git_caps={"commit": True})
    assert (
        await no_push("bash", {"command": "git push"})
        == "git push denied by agent capability policy"
    )
    assert await no_push("bash", {"command": "git commit -am x"}) is None
    free = gate(workspace, recorder, git_caps={"push": True})
    assert await free("bash", {"command": "git push"}) is None and recorder.pushes == []
    asked = gate(workspace, recorder, git_caps={"push": True}, push_requires_approval=True)
    assert await asked("bash", {"command": "git push origin"}) == "nope"
    assert recorder.pushes == ["git push origin"]
    recorder.verdict = None
    assert await asked("bash", {"command": "git push origin"}) is None


async def test_file_scopes(workspace: Path) -> None:
    (workspace / "src").mkdir()
    recorder = Recorder()
    check = gate(
        workspace,
        recorder,
        fs_scopes={"read": ["src", str(workspace / "docs")], "write": ["src/out"]},
    )
    assert await check("read", {"path": "src/a.py"}) is None
    assert await check("read", {"path": str(workspace / "docs" / "x.md")}) is None
    assert await check("read", {"path": "src/../setup.py"}) is not None
    assert (
        await check("grep", {"pattern": "x"})
        == "fs read access to `.` is outside the agent's read scopes"
    )
    assert await check("grep", {"pattern": "x", "path": "src"}) is None
    assert await check("glob", {"pattern": "src/**/*.py"}) is None
    assert await check("glob", {"pattern": "**/*.py"}) is not None
    assert await check("write", {"path": "src/out/a.txt"}) is None
    assert (
        await check("edit", {"path": "src/a.py"})
        == "fs write access to `src/a.py` is outside the agent's write scopes"
    )
    none = gate(workspace, recorder)
    assert (
        await none("read", {"path": "src/a.py"}) == "fs read access blocked: no scopes configured"
    )


async def test_secret_scopes(workspace: Path) -> None:
    recorder = Recorder()
    assert (
        await gate(workspace, recorder)("auth", {"id": "github"})
        == "secret access blocked: no secrets_scopes configured"
    )
    scoped = gate(workspace, recorder, secrets_scopes=["github"])
    assert await scoped("auth", {"providerID": "github"}) is None
    assert (
        await scoped("auth", {"id": "slack"})
        == "secret `slack` is not in the agent's secrets_scopes"
    )


def test_host_matching() -> None:
    assert host_allowed("https://API.Example.com:8443/x", ["example.com"])
    assert not host_allowed("https://badexample.com/", ["example.com"])
    assert not host_allowed("not a url", ["example.com"])
