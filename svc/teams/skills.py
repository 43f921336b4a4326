"""``skillHash``: one digest over the skills a template declares.

For each skill entry, in order: a ``path`` entry is the file
``<workspace>/<path>`` and contributes ``path:<path>:<sha256 of its bytes>``;
an ``id`` entry is the first ``<root>/<id>/SKILL.md`` found among the skill
roots in the skills catalog's lookup order (svc/skills/catalog.py: the
workspace's ``.svc/skill`` and ``.svc/skills``, the user's ``~/.svc/skills``
and ``~/.agents/skills``, then the engine's ``<state_dir>/skills`` and the
``skills/`` of every installed pack), which must open with a front
matter naming the skill and describing it, and contributes
``id:<id>:<sha256 of its text>``. Entries with neither are ignored. The rows
are sorted and fed, each followed by a newline, into one SHA-256; the result
is ``sha256:<hex>`` (a template without skills hashes the empty input).

Each entry is first checked against the policy's skill sources (``any``,
``project_only``: relative paths only, no ids; ``allowlist``: listed ids and
paths only) and afterwards against its pinned hash, if one is pinned.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .errors import SpawnDenied
from .policy import SkillSources
from .schema import SkillRef

EMPTY_SKILL_HASH = "sha256:" + hashlib.sha256(b"").hexdigest()

MISSING = "spawn_required_skill_missing"
SOURCE_DENIED = "spawn_skill_source_denied"
HASH_MISMATCH = "spawn_skill_hash_mismatch"


def skill_roots(workspace: Path, home: Path | None, state_dir: Path | None = None) -> list[Path]:
    # One lookup order for the whole engine: the skills catalog owns it.
    from svc.skills.catalog import skill_roots as catalog_roots

    return [root.path for root in catalog_roots(workspace, state_dir, home)]


def compute_skill_hash(
    skills: list[SkillRef],
    sources: SkillSources,
    *,
    workspace: Path,
    home: Path | None,
    state_dir: Path | None = None,
) -> str:
    """The template's ``skillHash``; SpawnDenied with the matching code when a skill fails."""
    rows: list[str] = []
    for skill in skills:
        if skill.path:
            _check_source(skill, sources)
            digest = _file_digest(workspace, skill.path)
            _check_pin(skill, sources, digest)
            rows.append(f"path:{skill.path}:{digest}")
        elif skill.id:
            _check_source(skill, sources)
            digest = _skill_digest(skill.id, skill_roots(workspace, home, state_dir))
            _check_pin(skill, sources, digest)
            rows.append(f"id:{skill.id}:{digest}")
    hasher = hashlib.sha256()
    for row in sorted(rows):
        hasher.update(row.encode("utf-8") + b"\n")
    return "sha256:" + hasher.hexdigest()


def _check_source(skill: SkillRef, sources: SkillSources) -> None:
    if sources.mode == "any":
        return
    if sources.mode == "project_only":
        if not skill.path:
            raise SpawnDenied(
                SOURCE_DENIED,
                "skill source denied: project_only forbids skill IDs",
                skill=skill.to_wire(),
            )
        if Path(skill.path).is_absolute():
            raise SpawnDenied(
                SOURCE_DENIED,
                "skill source denied: project_only requires a relative path",
                skill=skill.to_wire(),
            )
        return
    listed = (skill.id is not None and skill.id in sources.allowlist_ids) or (
        skill.path is not None and skill.path in sources.allowlist_paths
    )
    if not listed:
        raise SpawnDenied(
            SOURCE_DENIED, "skill source denied: not present in allowlist", skill=skill.to_wire()
        )


def _check_pin(skill: SkillRef, sources: SkillSources, digest: str) -> None:
    expected = None
    if skill.id is not None:
        expected = sources.pinned_hashes.get(f"id:{skill.id}")
    if expected is None and skill.path is not None:
        expected = sources.pinned_hashes.get(f"path:{skill.path}")
    if expected is None:
        return
    if expected.strip().lower().removeprefix("sha256:") != digest:
        raise SpawnDenied(
            HASH_MISMATCH, "pinned hash mismatch for skill reference", skill=skill.to_wire()
        )


def _file_digest(workspace: Path, relative: str) -> str:
    try:
        data = (workspace / relative).read_bytes()
    except OSError:
        raise SpawnDenied(
            MISSING, f"missing required skill path {relative}", skill={"path": relative}
        ) from None
    return hashlib.sha256(data).hexdigest()


def _skill_digest(skill_id: str, roots: list[Path]) -> str:
    # An id names a directory under a root; it must not climb out of it.
    if (
        not skill_id.strip()
        or any(part in ("", ".", "..") for part in skill_id.split("/"))
        or "\\" in skill_id
    ):
        raise SpawnDenied(MISSING, f"missing required skill id {skill_id}", skill={"id": skill_id})
    for root in roots:
        path = root / skill_id / "SKILL.md"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if is_skill_document(text):
            return hashlib.sha256(text.encode("utf-8")).hexdigest()
    raise SpawnDenied(MISSING, f"missing required skill id {skill_id}", skill={"id": skill_id})


def is_skill_document(text: str) -> bool:
    """True when ``text`` opens with a ``---`` front matter giving ``name`` and ``description``."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return False
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return False
    # PyYAML is imported on first use: the files are read only when a team is
    # configured, and the import is a noticeable share of engine start-up.
    import yaml

    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return False
    return (
        isinstance(meta, dict)
        and isinstance(meta.get("name"), str)
        and bool(meta["name"].strip())
        and isinstance(meta.get("description"), str)
        and bool(meta["description"].strip())
    )


__all__ = ["EMPTY_SKILL_HASH", "compute_skill_hash", "is_skill_document", "skill_roots"]
