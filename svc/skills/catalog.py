"""Where skills live and how they are found.

A skill is ``<root>/<id>/SKILL.md``. Roots, in lookup order (the first root
holding an id wins, as agent-team skill hashing looks them up):

* ``workspace``: ``<workspace>/.svc/skill``, ``<workspace>/.svc/skills``;
* ``user``: ``~/.svc/skills``, ``~/.agents/skills``, then the engine's global
  root ``<state_dir>/skills`` (where imports to ``user`` go), then the
  ``skills/`` directory of every installed pack (``<state_dir>/packs/installed``).

Templates (``builtin``) ship with the engine and are not installed skills.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from .document import SkillDocument, SkillsError, is_skill_id, parse_skill

LOCATIONS = ("workspace", "user")
TEMPLATES_DIR = Path(__file__).parent / "templates"


@attrs.frozen
class SkillRoot:
    location: str
    path: Path
    pack: str | None = None


@attrs.frozen
class Skill:
    id: str
    location: str
    path: Path
    document: SkillDocument
    pack: str | None = None

    def to_wire(self, *, content: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "id": self.id,
            "name": self.document.name,
            "description": self.document.description,
            "version": self.document.version,
            "location": self.location,
            "path": str(self.path),
            "hash": "sha256:" + self.document.sha256,
            "pack": self.pack,
        }
        if content:
            wire["content"] = self.document.text
            wire["body"] = self.document.body
            wire["metadata"] = self.document.meta
        return wire


def global_root(state_dir: Path) -> Path:
    return state_dir / "skills"


def packs_dir(state_dir: Path) -> Path:
    return state_dir / "packs" / "installed"


def skill_roots(workspace: Path, state_dir: Path, home: Path | None) -> list[SkillRoot]:
    roots = [
        SkillRoot("workspace", workspace / ".svc" / "skill"),
        SkillRoot("workspace", workspace / ".svc" / "skills"),
    ]
    if home is not None:
        roots += [
            SkillRoot("user", home / ".svc" / "skills"),
            SkillRoot("user", home / ".agents" / "skills"),
        ]
    roots.append(SkillRoot("user", global_root(state_dir)))
    installed = packs_dir(state_dir)
    if installed.is_dir():
        for pack in sorted(installed.iterdir()):
            if (pack / "skills").is_dir():
                roots.append(SkillRoot("user", pack / "skills", pack=pack.name))
    return roots


def read_skill(root: SkillRoot, skill_id: str) -> Skill | None:
    path = root.path / skill_id / "SKILL.md"
    try:
        text = path.read_text(encoding="utf-8")
        document = parse_skill(text, source=str(path))
    except (OSError, UnicodeDecodeError, SkillsError):
        return None
    return Skill(skill_id, root.location, path, document, root.pack)


def list_skills(roots: list[SkillRoot], *, location: str | None = None) -> list[Skill]:
    """Every readable skill, the first of each id in lookup order."""
    seen: set[str] = set()
    found: list[Skill] = []
    for root in roots:
        try:
            entries = sorted(p.name for p in root.path.iterdir() if p.is_dir())
        except OSError:
            continue
        for name in entries:
            if name in seen:
                continue
            skill = read_skill(root, name)
            if skill is None:
                continue
            seen.add(name)
            if location is None or skill.location == location:
                found.append(skill)
    return found


def find_skill(roots: list[SkillRoot], name: str) -> Skill | None:
    """The skill with this id (first root holding it), else the first whose name matches."""
    if is_skill_id(name):
        for root in roots:
            skill = read_skill(root, name)
            if skill is not None:
                return skill
    for skill in list_skills(roots):
        if skill.document.name == name:
            return skill
    return None


def templates() -> list[Skill]:
    root = SkillRoot("builtin", TEMPLATES_DIR)
    return list_skills([root])


__all__ = [
    "LOCATIONS",
    "Skill",
    "SkillRoot",
    "find_skill",
    "global_root",
    "list_skills",
    "packs_dir",
    "read_skill",
    "skill_roots",
    "templates",
]
