"""Skills: ``SKILL.md`` documents in workspace and user roots, their import
(with a preview that writes nothing), and the templates shipped with the engine."""

from .catalog import LOCATIONS, Skill, SkillRoot, find_skill, list_skills, skill_roots
from .document import SkillDocument, SkillsError, parse_skill, skill_id
from .importer import POLICIES, SkillsConflict
from .service import SkillNotFound, SkillService

__all__ = [
    "LOCATIONS",
    "POLICIES",
    "Skill",
    "SkillDocument",
    "SkillNotFound",
    "SkillRoot",
    "SkillService",
    "SkillsConflict",
    "SkillsError",
    "find_skill",
    "list_skills",
    "parse_skill",
    "skill_id",
    "skill_roots",
]
