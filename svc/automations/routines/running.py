"""Executing one queued routine run: its entrypoint under a budget, then its settlement.

A routine's runs execute one after another: :mod:`.runs` queues them on the
routine's lane, and the lane's one job calls :meth:`RoutineExecution._execute`
for each in turn, inside a slot of the pool's limiter.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from supervisors import BudgetScope

from .definitions import RoutineDefinitions
from .state import DETAIL_LIMIT

if TYPE_CHECKING:
    from ..routing import ModelChoice
    from .execution import EntrypointResult
    from .records import RoutineRun


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.automations")


class RoutineExecution(RoutineDefinitions):
    async def _execute(self, run_id: str) -> None:
        """Run one queued run (called by its routine's lane, so never two of a routine at once)."""
        async with self.pool.limiter:
            run = self._live.get(run_id)
            if run is None or run.status != "queued":
                return  # paused, or handled while it waited for its turn
            await self._execute_locked(run)

    async def _execute_locked(self, run: RoutineRun) -> None:
        from .execution import EntrypointResult, RunContext

        run_id = run.run_id
        now = self.now_ms()
        run = attrs.evolve(
            run, status="running", started_at_ms=now, updated_at_ms=now, finished_at_ms=None
        )
        await self.store(run)
        self.publish(
            "run.step",
            run,
            step="started",
            phase="do",
            triggerType=run.trigger_type,
            startedAtMs=now,
        )
        budget = BudgetScope(name=f"routine-run/{run_id}")
        self._budgets[run_id] = budget
        result: EntrypointResult | None = None

        async def on_session(session_id: str, session_run_id: str) -> None:
            current = self._live.get(run_id, run)
            await self.store(
                attrs.evolve(
                    current,
                    latest_session_id=session_id,
                    session_ids=(*current.session_ids, session_id),
                    updated_at_ms=self.now_ms(),
                )
            )

        async def on_model(choice: ModelChoice) -> None:
            current = self._live.get(run_id, run)
            await self.store(
                attrs.evolve(current, model=choice.to_wire(), updated_at_ms=self.now_ms())
            )
            self.publish(
                "routine.run.model_selected",
                current,
                providerID=choice.provider_id,
                modelID=choice.model_id,
                source=choice.source,
                phase="do",
            )

        try:
            with budget:
                result = await self.handler_for(run.entrypoint)(
                    RunContext(self.engine, run, budget, on_session, on_model)
                )
        except Exception:
            log.exception("routine run %s failed unexpectedly", run_id)
            result = EntrypointResult("failed", detail="internal error while running the routine")
        finally:
            self._budgets.pop(run_id, None)
        current = self._live.get(run_id)
        if current is None or current.status == "paused":
            return  # paused meanwhile: it stays paused until resumed
        await self._settle(current, result)

    async def _settle(self, run: RoutineRun, result: EntrypointResult | None) -> None:
        from .execution import EntrypointResult

        now = self.now_ms()
        if result is None:
            result = EntrypointResult("cancelled", detail="the run was cancelled")
        if result.usage is not None:
            cost_rate = self.engine.settings.token_cost_per_1k_usd
            usage = result.usage
            run = attrs.evolve(
                run,
                prompt_tokens=run.prompt_tokens + usage.prompt_tokens,
                completion_tokens=run.completion_tokens + usage.completion_tokens,
                total_tokens=run.total_tokens + usage.total_tokens,
                estimated_cost_usd=round(
                    run.estimated_cost_usd
                    + (usage.cost_usd or usage.total_tokens * cost_rate / 1000),
                    8,
                ),
            )
        if result.status == "completed":
            artifacts, refused = self._target_artifacts(run)
            detail = "routine run completed"
            if refused:
                detail += "; refused output targets: " + "; ".join(refused)
            run = attrs.evolve(
                run,
                status="completed",
                finished_at_ms=now,
                updated_at_ms=now,
                detail=detail[:DETAIL_LIMIT],
                artifacts=(*run.artifacts, *artifacts),
            )
            await self.store(run)
            for artifact in artifacts:
                self.publish("run.step", run, step="artifact_added", phase="do", artifact=artifact)
            self.publish(
                "run.completed",
                run,
                status="completed",
                sessionID=result.session_id,
                finishedAtMs=now,
                totalTokens=run.total_tokens,
                artifactCount=len(run.artifacts),
            )
            return
        status = "cancelled" if result.status == "cancelled" else "failed"
        detail = (result.detail or f"routine run {status}")[:DETAIL_LIMIT]
        run = attrs.evolve(run, status=status, finished_at_ms=now, updated_at_ms=now, detail=detail)
        await self.store(run)
        self.publish(
            "run.failed",
            run,
            status=status,
            reason=detail,
            sessionID=result.session_id,
            finishedAtMs=now,
        )

    def _target_artifacts(self, run: RoutineRun) -> tuple[list[dict[str, Any]], list[str]]:
        """One artifact per output target still inside the workspace; the refused ones' reasons."""
        from ..targets import confined

        artifacts, refused = [], []
        workspace = self.engine.workspace
        for target, path, why in confined(run.output_targets, workspace):
            if path is None:
                refused.append(f"{target}: {why}")
                continue
            artifacts.append(
                self._artifact(
                    target,
                    "output_target",
                    "configured output target",
                    {
                        "source": "routine.output_targets",
                        "runID": run.run_id,
                        "routineID": run.routine_id,
                        "path": str(path.relative_to(workspace.resolve())),
                        "exists": path.is_file(),
                    },
                )
            )
        return artifacts, refused

    def _artifact(
        self, uri: str, kind: str, label: str | None, metadata: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        artifact: dict[str, Any] = {
            "artifact_id": f"artifact-{uuid.uuid4()}",
            "uri": uri,
            "kind": kind,
            "created_at_ms": self.now_ms(),
        }
        if label is not None:
            artifact["label"] = label
        if metadata is not None:
            artifact["metadata"] = dict(metadata)
        return artifact


__all__ = ["RoutineExecution"]
