"""skillHash: the digest, the skill roots, source policies and pinned hashes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from svc.teams import EMPTY_SKILL_HASH, SkillRef, SkillSources, SpawnDenied, compute_skill_hash

SKILL = "---\nname: python-editing\ndescription: Edit Python carefully.\n---\n\nUse small diffs.\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def digest(rows: list[str]) -> str:
    h = hashlib.sha256()
    for row in sorted(rows):
        h.update(row.encode() + b"\n")
    return "sha256:" + h.hexdigest()


def write_skill(root: Path, name: str, text: str = SKILL) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_skills_hash_the_empty_input(workspace: Path, home: Path) -> None:
    assert (
        compute_skill_hash([], SkillSources(), workspace=workspace, home=home) == EMPTY_SKILL_HASH
    )
    assert "sha256:" + hashlib.sha256(b"").hexdigest() == EMPTY_SKILL_HASH
    assert (
        compute_skill_hash([SkillRef()], SkillSources(), workspace=workspace, home=home)
        == EMPTY_SKILL_HASH
    )


def test_rows_are_sorted_and_each_ends_with_a_newline(workspace: Path, home: Path) -> None:
    (workspace / "notes").mkdir()
    (workspace / "notes" / "style.md").write_bytes(b"tabs\r\n")
    write_skill(workspace / ".svc" / "skills", "python-editing")
    skills = [SkillRef(path="notes/style.md"), SkillRef(id="python-editing")]
    file_hex = hashlib.sha256(b"tabs\r\n").hexdigest()
    skill_hex = hashlib.sha256(SKILL.encode()).hexdigest()
    expected = digest([f"path:notes/style.md:{file_hex}", f"id:python-editing:{skill_hex}"])
    assert compute_skill_hash(skills, SkillSources(), workspace=workspace, home=home) == expected
    assert (
        compute_skill_hash(list(reversed(skills)), SkillSources(), workspace=workspace, home=home)
        == expected
    )


def test_skill_ids_are_found_in_order_of_the_roots(workspace: Path, home: Path) -> None:
    write_skill(home / ".agents" / "skills", "lint", SKILL.replace("python-editing", "lint"))
    found = compute_skill_hash(
        [SkillRef(id="lint")], SkillSources(), workspace=workspace, home=home
    )
    workspace_copy = write_skill(
        workspace / ".svc" / "skill", "lint", SKILL.replace("python-editing", "lint") + "x"
    )
    nearer = compute_skill_hash(
        [SkillRef(id="lint")], SkillSources(), workspace=workspace, home=home
    )
    assert nearer != found
    assert nearer == digest([f"id:lint:{hashlib.sha256(workspace_copy.read_bytes()).hexdigest()}"])


@pytest.mark.parametrize("text", ["no front matter", "---\nname: x\n---\n", "---\nname: [\n---\n"])
def test_a_skill_file_without_name_and_description_is_missing(
    workspace: Path, home: Path, text: str
) -> None:
    write_skill(workspace / ".svc" / "skills", "bad", text)
    with pytest.raises(SpawnDenied) as caught:
        compute_skill_hash([SkillRef(id="bad")], SkillSources(), workspace=workspace, home=home)
    assert caught.value.code == "spawn_required_skill_missing"


def test_skill_ids_cannot_climb_out_of_the_roots(workspace: Path, home: Path) -> None:
    write_skill(workspace, "escape")
    with pytest.raises(SpawnDenied):
        compute_skill_hash(
            [SkillRef(id="../../escape")], SkillSources(), workspace=workspace, home=home
        )


def test_source_policies(workspace: Path, home: Path) -> None:
    (workspace / "a.md").write_text("a")
    write_skill(workspace / ".svc" / "skills", "python-editing")
    project_only = SkillSources(mode="project_only")
    with pytest.raises(SpawnDenied) as caught:
        compute_skill_hash(
            [SkillRef(id="python-editing")], project_only, workspace=workspace, home=home
        )
    assert caught.value.code == "spawn_skill_source_denied"
    assert "project_only forbids skill IDs" in caught.value.message
    with pytest.raises(SpawnDenied):
        compute_skill_hash(
            [SkillRef(path=str(workspace / "a.md"))], project_only, workspace=workspace, home=home
        )
    assert compute_skill_hash([SkillRef(path="a.md")], project_only, workspace=workspace, home=home)

    allowlist = SkillSources(mode="allowlist", allowlist_ids=["python-editing"])
    assert compute_skill_hash(
        [SkillRef(id="python-editing")], allowlist, workspace=workspace, home=home
    )
    with pytest.raises(SpawnDenied) as caught:
        compute_skill_hash([SkillRef(path="a.md")], allowlist, workspace=workspace, home=home)
    assert caught.value.message == "skill source denied: not present in allowlist"


def test_pinned_hashes(workspace: Path, home: Path) -> None:
    (workspace / "a.md").write_text("a")
    good = hashlib.sha256(b"a").hexdigest()
    for pin in (good, f"sha256:{good}", f"SHA256:{good.upper()}"):
        sources = SkillSources(pinned_hashes={"path:a.md": pin})
        assert compute_skill_hash([SkillRef(path="a.md")], sources, workspace=workspace, home=home)
    with pytest.raises(SpawnDenied) as caught:
        compute_skill_hash(
            [SkillRef(path="a.md")],
            SkillSources(pinned_hashes={"path:a.md": "sha256:00"}),
            workspace=workspace,
            home=home,
        )
    assert caught.value.code == "spawn_skill_hash_mismatch"
