"""Skills: SKILL.md documents in workspace and user roots."""

from ..records import extras as x
from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_skills": op("List installed skills", query=("location",), returns=x.SKILLS),
    "skill_templates": op(
        "List the skill templates shipped with the engine", returns=x.SKILL_TEMPLATES
    ),
    "import_skill": op(
        "Import skills from content or a path",
        body=ANY_BODY,
        body_required=True,
        returns=x.SKILL_IMPORT,
    ),
    "preview_skill_import": op(
        "Preview a skill import (writes nothing)",
        body=ANY_BODY,
        body_required=True,
        returns=x.SKILL_IMPORT,
    ),
    "get_skill": op("Read one skill with its content", returns=x.SKILL),
}
