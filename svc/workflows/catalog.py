"""The loaded workflow definitions: read from their files, kept fresh, hook overrides applied.

:class:`WorkflowCatalog` holds the registry the definition files describe. It reloads when a
file was added, changed or removed (a cheap fingerprint of paths, mtimes and sizes is taken
before each load), applies the hook on/off overrides persisted in the store, and hands every
newly installed registry to ``on_install`` (the hook dispatcher re-indexes from it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from .definitions import ValidationMessage, WorkflowHook, WorkflowRegistry, WorkflowSpec
from .errors import WorkflowHookNotFound, WorkflowNotFound
from .loading import LoadSource, load_registry, source_files
from .repository import WorkflowRepository
from .run_events import TOPIC
from .simulation import Simulation, simulate

if TYPE_CHECKING:
    from ..engine import Engine

# The registry validation and the automation preview are imported on first use: start-up
# validates nothing (docs/architecture.md, "Start-up budget").


class WorkflowCatalog:
    def __init__(
        self,
        engine: Engine,
        repo: WorkflowRepository,
        *,
        on_install: Callable[[WorkflowRegistry], None],
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.on_install = on_install
        self.registry = WorkflowRegistry()
        self.load_messages: tuple[ValidationMessage, ...] = ()
        self._overrides: dict[str, bool] = {}
        self._fingerprint: list[tuple[str, int, int]] | None = None
        self._reload_lock = trio.Lock()

    def sources(self) -> list[LoadSource]:
        return [
            LoadSource(
                self.engine.state_dir / "builtin_workflows", "built_in", top_level_files=True
            ),
            LoadSource(self.engine.workspace / ".svc", "workspace"),
        ]

    async def load(self) -> None:
        """At start-up: hook overrides from the store, then every definition file."""
        self._overrides = await self.repo.hook_overrides()
        await self.reload(announce=False)

    async def reload(self, *, announce: bool = True) -> tuple[ValidationMessage, ...]:
        async with self._reload_lock:
            sources = self.sources()
            # The fingerprint is taken first: an edit racing the load only
            # causes one more reload later, never a missed one.
            fingerprint = await trio.to_thread.run_sync(source_files, sources)
            result = await trio.to_thread.run_sync(load_registry, sources)
            self._fingerprint = fingerprint
            self.load_messages = result.messages
            self._install(result.registry.with_hook_overrides(self._overrides))
        if announce:
            self.engine.events.publish(
                "workflow.registry.reloaded",
                {
                    "workflowCount": len(self.registry.workflows),
                    "hookCount": len(self.registry.hooks),
                    "errorCount": sum(1 for m in self.load_messages if m.severity == "error"),
                },
                topic=TOPIC,
            )
        return self.load_messages

    async def ensure_fresh(self) -> None:
        """Reload when a definition file was added, changed or removed since the last load."""
        current = await trio.to_thread.run_sync(source_files, self.sources())
        if current != self._fingerprint:
            await self.reload()

    def _install(self, registry: WorkflowRegistry) -> None:
        self.registry = registry
        self.on_install(registry)

    async def list_workflows(self) -> list[WorkflowSpec]:
        await self.ensure_fresh()
        return self.registry.sorted_workflows()

    async def get_workflow(self, workflow_id: str) -> WorkflowSpec:
        await self.ensure_fresh()
        spec = self.registry.workflows.get(workflow_id)
        if spec is None:
            raise WorkflowNotFound(f"workflow `{workflow_id}` not found", workflowID=workflow_id)
        return spec

    def automation_preview(self, spec: WorkflowSpec) -> dict[str, Any]:
        from .automation_spec import workflow_automation_preview

        return workflow_automation_preview(spec, workspace_root=str(self.engine.workspace))

    async def validate(self, *, reload: bool = True) -> list[ValidationMessage]:
        from .validation import validate_registry

        if reload:
            await self.reload()
        return [*self.load_messages, *validate_registry(self.registry, self.engine.tools)]

    async def simulate(self, event_type: str) -> Simulation:
        await self.ensure_fresh()
        return simulate(self.registry, event_type)

    async def hooks(self, workflow_id: str | None = None) -> list[WorkflowHook]:
        await self.ensure_fresh()
        return self.registry.hooks_for(workflow_id)

    async def set_hook_enabled(self, binding_id: str, enabled: bool) -> WorkflowHook:
        await self.ensure_fresh()
        if self.registry.hook(binding_id) is None:
            raise WorkflowHookNotFound(
                f"workflow hook `{binding_id}` not found", bindingID=binding_id
            )
        await self.repo.set_hook_override(binding_id, enabled, now_ms=self.engine.clock.now_ms())
        self._overrides[binding_id] = enabled
        self._install(self.registry.with_hook_overrides(self._overrides))
        hook = self.registry.hook(binding_id)
        assert hook is not None
        self.engine.events.publish(
            "workflow.hook.updated",
            {"bindingID": binding_id, "workflowID": hook.workflow_id, "enabled": enabled},
            topic=TOPIC,
        )
        return hook


__all__ = ["WorkflowCatalog"]
