"""Skills over HTTP: list, templates, import and its preview, get one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from quart import Blueprint

from ..request import engine, object_body, query_str

if TYPE_CHECKING:
    from ...skills import SkillService

bp = Blueprint("skills", __name__)


def service() -> SkillService:
    # Imported on first use: start-up mounts the routes but reads no skill.
    from ...skills import SkillService

    eng = engine()
    home = eng.settings.environ.get("HOME")
    return SkillService(
        workspace=eng.workspace, state_dir=eng.state_dir, home=Path(home) if home else None
    )


@bp.get("/skills")
async def list_skills() -> Any:
    skills = await service().list_skills(location=query_str("location"))
    return {"skills": [s.to_wire() for s in skills], "count": len(skills)}


@bp.get("/skills/templates")
async def skill_templates() -> Any:
    found = await service().templates()
    templates = [{**s.to_wire(content=True), "template_id": s.id} for s in found]
    return {"templates": templates, "count": len(templates)}


@bp.post("/skills/import")
async def import_skill() -> Any:
    return await service().import_skills(await object_body(), dry_run=False)


@bp.post("/skills/import/preview")
async def preview_skill_import() -> Any:
    return await service().import_skills(await object_body(), dry_run=True)


@bp.get("/skills/<path:name>")
async def get_skill(name: str) -> Any:
    return (await service().get(name)).to_wire(content=True)
