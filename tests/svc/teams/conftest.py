"""Fixtures for agent-team tests: policy and template files in the test workspace."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import svc
from svc.teams import TeamsComponent


def _write(path: Path, content: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def write_policy(workspace: Path) -> Callable[[str | dict[str, Any]], Path]:
    """Write ``.svc/agent-team/spawn-policy.yaml`` (YAML text or a mapping)."""

    def write(content: str | dict[str, Any]) -> Path:
        return _write(workspace / ".svc" / "agent-team" / "spawn-policy.yaml", content)

    return write


@pytest.fixture
def write_template(workspace: Path) -> Callable[..., Path]:
    """Write ``.svc/agent-team/templates/<name>`` (YAML text or a mapping)."""

    def write(content: str | dict[str, Any], name: str | None = None) -> Path:
        if name is None:
            assert isinstance(content, dict)
            name = f"{content['templateID']}.yaml"
        return _write(workspace / ".svc" / "agent-team" / "templates" / name, content)

    return write


OPEN_POLICY: dict[str, Any] = {
    "enabled": True,
    "spawn_edges": {
        "orchestrator": {"behavior": "allow", "can_spawn": ["worker", "tester", "reviewer"]}
    },
}
"""A policy that lets anything spawn (no parent role: edges are not checked)."""

WORKER: dict[str, Any] = {
    "templateID": "worker-basic",
    "role": "worker",
    "display_name": "Worker",
    "capabilities": {
        "tool_allowlist": ["read", "glob", "write", "bash"],
        "fs_scopes": {"read": ["."], "write": ["."]},
    },
}


@pytest.fixture
async def engine(settings: svc.Settings) -> AsyncIterator[svc.Engine]:
    """A real engine with the teams component alone (other domains play no part here)."""
    async with svc.open_engine(settings, serve_http=True, components=[TeamsComponent()]) as eng:
        yield eng
