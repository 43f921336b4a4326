"""A skill document: ``SKILL.md``, a ``---`` front matter (``name``, ``description``,
optionally ``version``) followed by the instructions in Markdown."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import attrs

from ..errors import ValidationFailed

MAX_SKILL_BYTES = 256 * 1024
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class SkillsError(ValidationFailed):
    """The skill request cannot be carried out."""

    code = "SKILLS_ERROR"


@attrs.frozen
class SkillDocument:
    name: str
    description: str
    version: str | None
    body: str
    text: str
    meta: dict[str, Any] = attrs.field(factory=dict)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def parse_skill(text: str, *, source: str = "content") -> SkillDocument:
    """The document in ``text``; SkillsError naming what is missing otherwise."""
    if len(text.encode("utf-8")) > MAX_SKILL_BYTES:
        raise SkillsError(f"{source}: a skill is at most {MAX_SKILL_BYTES} bytes", field=source)
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillsError(f"{source}: a skill must open with a `---` front matter", field=source)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise SkillsError(f"{source}: the front matter is not closed by `---`", field=source)
    # PyYAML is imported on first use: reading skills is rare, the import is not cheap.
    import yaml

    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        raise SkillsError(f"{source}: the front matter is not YAML ({exc})", field=source) from None
    if not isinstance(meta, dict):
        raise SkillsError(f"{source}: the front matter must be a mapping", field=source)
    fields: dict[str, str] = {}
    for key in ("name", "description"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            raise SkillsError(f"{source}: the front matter must give `{key}`", field=source)
        fields[key] = value.strip()
    version = meta.get("version")
    return SkillDocument(
        name=fields["name"],
        description=fields["description"],
        version=str(version) if version is not None else None,
        body="\n".join(lines[end + 1 :]).strip("\n"),
        text=text,
        meta={str(k): v for k, v in meta.items()},
    )


def skill_id(name: str, *, namespace: str | None = None) -> str:
    """The directory name a skill is stored under: its name, made path-safe."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.") or "skill"
    if namespace:
        ns = re.sub(r"[^A-Za-z0-9._-]+", "-", namespace.strip()).strip("-.")
        if ns:
            slug = f"{ns}-{slug}"
    return slug[:128]


def is_skill_id(value: str) -> bool:
    return bool(_ID.match(value)) and ".." not in value


__all__ = [
    "MAX_SKILL_BYTES",
    "SkillDocument",
    "SkillsError",
    "is_skill_id",
    "parse_skill",
    "skill_id",
]
