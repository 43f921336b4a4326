"""Skills: SKILL.md documents in workspace and user roots."""

from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_skills": op("List installed skills", query=("location",)),
    "skill_templates": op("List the skill templates shipped with the engine"),
    "import_skill": op("Import skills from content or a path", body=ANY_BODY, body_required=True),
    "preview_skill_import": op(
        "Preview a skill import (writes nothing)", body=ANY_BODY, body_required=True
    ),
    "get_skill": op("Read one skill with its content"),
}
