"""Fixtures for the tool tests: a workspace, a tool context, and settings for the engine slot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from svc import Settings
from svc.tools import ToolContext


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace)


@pytest.fixture
def engine_with(make_settings: Callable[..., Settings]) -> Callable[..., Any]:
    """A stand-in for the engine slot of a ToolContext: real Settings (with an explicit env)."""

    def make(env: dict[str, str] | None = None, **overrides: Any) -> Any:
        return SimpleNamespace(settings=make_settings(env, **overrides))

    return make
