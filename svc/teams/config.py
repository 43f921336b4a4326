"""The workspace's team configuration: the spawn policy plus the templates, loaded together.

Files are re-read when they change (their names, sizes and modification times
are compared on each use), so an edited policy applies to the next spawn
without a restart. Reading and parsing run on a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import trio

if TYPE_CHECKING:
    from .policy import SpawnPolicy
    from .schema import Role
    from .templates import AgentTemplate

# The policy and template parsers are imported by the first load: start-up builds the
# loader but reads no file (docs/architecture.md, "Start-up budget").

POLICY_FILE = Path(".svc") / "agent-team" / "spawn-policy.yaml"
TEMPLATES_DIR = Path(".svc") / "agent-team" / "templates"


@attrs.frozen
class TeamConfig:
    workspace: Path
    policy: SpawnPolicy | None
    """None when the workspace has no policy file."""
    templates: dict[str, AgentTemplate]
    files: dict[str, Path]
    """The file each template was read from."""

    @property
    def policy_path(self) -> Path:
        return self.workspace / POLICY_FILE

    @property
    def templates_dir(self) -> Path:
        return self.workspace / TEMPLATES_DIR

    def template(self, template_id: str | None, role: Role) -> AgentTemplate | None:
        """``template_id``'s template; without an id, the first template (by id) of ``role``."""
        if template_id:
            return self.templates.get(template_id)
        for tid in sorted(self.templates):
            if self.templates[tid].role == role:
                return self.templates[tid]
        return None

    def file_for(self, template_id: str) -> Path:
        """Where ``template_id`` lives, or where a new template of that id is written."""
        from .templates import template_filename

        return self.files.get(template_id) or self.templates_dir / template_filename(template_id)


Signature = tuple[tuple[str, int, int], ...]


def _signature(workspace: Path) -> Signature:
    from .templates import template_files

    paths = [workspace / POLICY_FILE, *template_files(workspace / TEMPLATES_DIR)]
    found = []
    for path in paths:
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def load_team_config(workspace: Path) -> TeamConfig:
    """Read the policy and every template; the first invalid file raises TeamConfigInvalid."""
    from .policy import load_policy
    from .templates import load_template_file, template_files

    policy = load_policy(workspace / POLICY_FILE)
    templates: dict[str, AgentTemplate] = {}
    files: dict[str, Path] = {}
    for path in template_files(workspace / TEMPLATES_DIR):
        template = load_template_file(path)
        templates[template.template_id] = template
        files[template.template_id] = path
    return TeamConfig(workspace=workspace, policy=policy, templates=templates, files=files)


class TeamConfigLoader:
    """Loads the configuration of the engine's workspace, caching it until a file changes."""

    def __init__(self, workspace: Callable[[], Path]) -> None:
        self._workspace = workspace
        self._cached: tuple[Path, Signature, TeamConfig] | None = None

    async def load(self) -> TeamConfig:
        """The current configuration; raises TeamConfigInvalid naming the file (and line)."""
        return await trio.to_thread.run_sync(self.load_sync)

    def load_sync(self) -> TeamConfig:
        from .errors import TeamConfigInvalid

        workspace = self._workspace()
        signature = _signature(workspace)
        cached = self._cached
        if cached is not None and cached[0] == workspace and cached[1] == signature:
            return cached[2]
        try:
            config = load_team_config(workspace)
        except TeamConfigInvalid:
            self._cached = None
            raise
        self._cached = (workspace, signature, config)
        return config

    def invalidate(self) -> None:
        self._cached = None


__all__ = ["POLICY_FILE", "TEMPLATES_DIR", "TeamConfig", "TeamConfigLoader", "load_team_config"]
