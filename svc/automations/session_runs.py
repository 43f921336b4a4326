"""An automation step as a session run: one session, one prompt, the step's tools only.

Both routine runs and v2 nodes execute this way. The allowlist goes into the
:class:`~svc.sessions.RunRequest`, so the registry view the run serialises for
the model holds only the allowed tools; an empty allowlist means no tools at
all. The tools named exactly in the allowlist are pre-approved for the session
(an unattended run has nobody to answer a permission prompt), except shell
tools, which still need a human's approval or a standing rule.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from supervisors import BudgetScope

from ..sessions import CreateSession, Run, RunRequest, ToolGate

if TYPE_CHECKING:
    from ..engine import Engine

SHELL_TOOLS = frozenset({"bash", "shell"})

OnSession = Callable[[str, str], Awaitable[None]]
"""Called with ``(session_id, session_run_id)`` once the run has started."""


@attrs.frozen
class StepRequest:
    title: str
    prompt: str
    system: str | None
    provider_id: str
    model_id: str
    allow: tuple[str, ...]
    """The tool allowlist; empty means the step gets no tools."""
    deny: tuple[str, ...] = ()
    directory: Path | None = None
    source_kind: str = "automation"
    source_metadata: Mapping[str, Any] = attrs.field(factory=dict)
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    budget: BudgetScope | None = attrs.field(default=None, eq=False)
    gates: tuple[ToolGate, ...] = attrs.field(default=(), eq=False)
    timeout_ms: int | None = None
    max_steps: int | None = None
    agent_id: str | None = None


@attrs.frozen
class StepResult:
    session_id: str
    run: Run
    text: str


async def run_step(
    engine: Engine, step: StepRequest, *, on_session: OnSession | None = None
) -> StepResult:
    """Create the session, start the run, wait for its end; cancelling the caller cancels it."""
    session = await engine.sessions.create(
        CreateSession(
            title=step.title,
            directory=str(step.directory) if step.directory else None,
            provider_id=step.provider_id,
            model_id=step.model_id,
            source_kind=step.source_kind,
            source_metadata=dict(step.source_metadata),
        )
    )
    no_tools = not step.allow
    engine.permissions.grant_session(session.id, preapproved(engine, step.allow))
    request = RunRequest(
        parts=({"type": "text", "text": step.prompt},),
        provider_id=step.provider_id,
        model_id=step.model_id,
        tool_mode="none" if no_tools else "auto",
        tool_allowlist=None if no_tools else step.allow,
        tool_denylist=("*",) if no_tools else step.deny,
        system=step.system,
        source="automation",
        budget=step.budget,
        gates=step.gates,
        timeout_ms=step.timeout_ms,
        max_steps=step.max_steps,
        metadata=dict(step.metadata),
        agent_id=step.agent_id,
    )
    try:
        started = await engine.sessions.prompt(session.id, request)
        if on_session is not None:
            await on_session(session.id, started.run.id)
        run = await engine.sessions.wait(started)
        text = await engine.sessions.reply_text(run)
    finally:
        engine.permissions.revoke_session(session.id)
    return StepResult(session.id, run, text)


def preapproved(engine: Engine, allow: Sequence[str]) -> list[str]:
    """Permission names of the exactly named, non-shell tools of ``allow``."""
    names = []
    for pattern in allow:
        if "*" in pattern:
            continue
        tool = engine.tools.get(pattern)
        permission = tool.permission if tool is not None else pattern
        if permission not in SHELL_TOOLS:
            names.append(permission)
    return names


__all__ = ["SHELL_TOOLS", "StepRequest", "StepResult", "preapproved", "run_step"]
