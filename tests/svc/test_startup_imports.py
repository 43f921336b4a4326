"""Start-up imports only what start-up runs (docs/architecture.md, "Start-up budget").

A child interpreter opens the engine, HTTP served, on a fresh state directory
(as ``svc-engine serve`` does) and reports what it imported. Each module named
here was once imported at start-up without running; a change that imports one
again at start-up fails here instead of slowly eroding start-up time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, pathlib, sys
import trio
import svc

async def main():
    state = pathlib.Path(sys.argv[1])
    settings = svc.Settings.load({"state_dir": state / "state", "workspace": state, "port": 0,
                                  "global_config": state / "none.json"}, environ={})
    async with svc.open_engine(settings, serve_http=True) as engine:
        assert engine.ready
    print(json.dumps(sorted(sys.modules)))

trio.run(main)
"""

# Third-party modules that only some engines need.
DEFERRED_LIBRARIES = [
    "mcp",  # the MCP SDK: the first connector session
    "croniter",  # the first cron schedule
    "pathspec",  # the first ignore file of a listing or an import
    "yaml",  # the first team or workflow file
    "markdownify",  # the first fetched HTML page
    "psycopg",  # a PostgreSQL store URL
    "psycopg_pool",
    "trio_websocket",  # only the browser sidecar (its own process) speaks DevTools
    "pytest",
    "trio.testing",  # (it imports pytest)
]

# Modules of ours whose code start-up does not run.
DEFERRED_MODULES = [
    # actors and their machinery: they spawn on a first request
    "svc.sessions.actor",
    "svc.sessions.run",
    "svc.sessions.model_turn",
    "svc.sessions.tool_calls",
    "svc.sessions.run_transcript",
    "svc.sessions.settlement",
    "svc.sessions.recovery",  # only when a crash left a run active
    "svc.sessions.context",
    "svc.goals.actor",
    "svc.goals.messages",
    "svc.goals.control",
    "svc.goals.actions",
    "svc.mcp.connector",
    "svc.mcp.client",
    "svc.teams.instance",
    "svc.teams.mission",
    # request parsers, specs and plans: the first request that carries one
    "svc.sessions.requests",
    "svc.goals.orchestration",
    "svc.goals.projection",
    "svc.goals.projection_graph",
    "svc.goals.projection_actions",
    "svc.goals.kernel",
    "svc.goals.completion",
    "svc.goals.handoff_decisions",
    "svc.goals.requests",
    "svc.goals.start",
    "svc.workflows.plans",
    "svc.workflows.plan_bodies",
    "svc.workflows.plan_normalization",
    "svc.workflows.plan_package",
    "svc.workflows.plan_package_validation",
    "svc.workflows.plan_package_replay",
    "svc.workflows.definition_parser",
    "svc.workflows.plan_import",
    "svc.workflows.materialize",
    "svc.automations.routines.bodies",
    "svc.memory.requests",
    "svc.mcp.capability",
    "svc.mcp.catalog",
    "svc.workflows.planner_service",
    "svc.workflows.plan_apply",
    "svc.workflows.planner_import",
    "svc.memory.importer",
    "svc.memory.import_plan",
    "svc.memory.import_repository",
    "svc.memory.import_runs",
    "svc.memory.writes",
    "svc.memory.searches",
    "svc.memory.promotion",
    # executors: the first run
    "svc.workflows.actions",
    "svc.workflows.action_performer",
    "svc.automations.routines.execution",
    "svc.automations.session_runs",
    "svc.automations.v2.executor",
    # records of rows a fresh store does not have
    "svc.sessions.records",
    "svc.goals.goal",
    "svc.mcp.records",
    "svc.teams.records",
    "svc.teams.templates",
    "svc.workflows.runs",
    "svc.automations.routines.records",
    "svc.automations.v2.records",
    "svc.memory.records",
    "svc.memory.governance",
    # model providers and tool implementations: the first model call or tool run
    "svc.providers.types",
    "svc.providers.openai_compat",
    "svc.providers.anthropic",
    "svc.providers.cohere",
    "svc.providers.transport",
    "svc.tools.search",
    "svc.tools.shell",
    "svc.tools.fetch",
    "svc.memory.scrub",
    "svc.identity.presets",
    # the browser: its sidecar actor, client and actions start with the first browser call
    "svc.browser.actor",
    "svc.browser.client",
    "svc.browser.sidecar_process",
    "svc.browser.actions",
    "svc.browser.artifacts",
    "svc.browser.wait_args",
    "svc.browser.sidecar.cdp",
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    state = tmp_path_factory.mktemp("startup")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(state)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", DEFERRED_LIBRARIES + DEFERRED_MODULES)
def test_start_up_does_not_import(imported: set[str], module: str) -> None:
    assert module not in imported


def test_the_child_did_start_an_engine(imported: set[str]) -> None:
    assert {"svc.engine", "svc.http.app", "hypercorn.trio"} <= imported
