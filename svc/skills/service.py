"""Skills as clients see them: list, get, import (and its preview), templates.

File work runs in a worker thread: a skill tree or an archive may take a moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import trio

from ..errors import NotFound
from . import catalog, importer
from .document import SkillsError


class SkillNotFound(NotFound):
    """No skill has this name."""

    code = "SKILL_NOT_FOUND"


def _text(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise SkillsError(f"`{name}` must be a string", field=name)
    return value


class SkillService:
    def __init__(self, *, workspace: Path, state_dir: Path, home: Path | None) -> None:
        self.workspace = workspace
        self.state_dir = state_dir
        self.home = home

    def roots(self) -> list[catalog.SkillRoot]:
        return catalog.skill_roots(self.workspace, self.state_dir, self.home)

    def root_for(self, location: str) -> Path:
        if location == "workspace":
            return self.workspace / ".svc" / "skills"
        return catalog.global_root(self.state_dir)

    async def list_skills(self, *, location: str | None = None) -> list[catalog.Skill]:
        if location is not None and location not in (*catalog.LOCATIONS, "builtin"):
            raise SkillsError(
                "`location` must be `workspace`, `user` or `builtin`", field="location"
            )
        if location == "builtin":
            return await trio.to_thread.run_sync(catalog.templates)
        return await trio.to_thread.run_sync(
            partial(catalog.list_skills, self.roots(), location=location)
        )

    async def get(self, name: str) -> catalog.Skill:
        found = await trio.to_thread.run_sync(catalog.find_skill, self.roots(), name)
        if found is None:
            found = await trio.to_thread.run_sync(catalog.find_skill, self.template_roots(), name)
        if found is None:
            raise SkillNotFound(f"no skill named `{name}`", name=name)
        return found

    def template_roots(self) -> list[catalog.SkillRoot]:
        return [catalog.SkillRoot("builtin", catalog.TEMPLATES_DIR)]

    async def templates(self) -> list[catalog.Skill]:
        return await trio.to_thread.run_sync(catalog.templates)

    async def import_skills(self, body: Mapping[str, Any], *, dry_run: bool) -> dict[str, Any]:
        location = _text(body, "location") or "user"
        if location not in catalog.LOCATIONS:
            raise SkillsError("`location` must be `workspace` or `user`", field="location")
        content = _text(body, "content")
        source = _text(body, "file_or_path") or _text(body, "path")
        if (content is None) == (source is None):
            raise SkillsError("give exactly one of `content` and `file_or_path`", field="content")
        policy = _text(body, "conflict_policy") or "skip"
        if policy not in importer.POLICIES:
            raise SkillsError(
                f"`conflict_policy` must be one of {', '.join(importer.POLICIES)}",
                field="conflict_policy",
            )
        namespace = _text(body, "namespace")
        path = None
        if source is not None:
            path = Path(source).expanduser()
            if not path.is_absolute():
                path = self.workspace / path
        root = self.root_for(location)

        def run() -> list[importer.Planned]:
            try:
                found = importer.candidates(content=content, path=path)
            except OSError as exc:
                # An unreadable or impossible path (too long, a loop) is the caller's input.
                raise SkillsError(f"file_or_path: {exc.strerror}", field="file_or_path") from None
            planned = importer.plan(found, root, namespace=namespace, policy=policy)
            if not dry_run:
                importer.write(planned)
            return planned

        planned = await trio.to_thread.run_sync(run)
        written = [p for p in planned if p.action != "skip"]
        return {
            "ok": True,
            "dry_run": dry_run,
            "location": location,
            "root": str(root),
            "conflict_policy": policy,
            # A preview counts what the import would write (``dry_run`` says none was).
            "imported": len(written),
            "skipped": len(planned) - len(written),
            "items": [p.to_wire() for p in planned],
        }


__all__ = ["SkillNotFound", "SkillService"]
