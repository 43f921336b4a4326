"""Skills over HTTP: list, get, import with preview, templates, in the client's shapes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx

import svc


def skill(name: str, description: str = "does a thing", version: str = "1.0.0") -> str:
    return f"---\nname: {name}\ndescription: {description}\nversion: {version}\n---\n\n# {name}\n"


def put_skill(root: Path, ident: str, text: str) -> Path:
    path = root / ident / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def test_lists_workspace_and_user_skills_first_root_winning(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    put_skill(workspace / ".svc" / "skills", "tester", skill("tester", "workspace copy"))
    put_skill(engine.state_dir / "skills", "tester", skill("tester", "global copy"))
    put_skill(engine.state_dir / "skills", "writer", skill("writer"))
    put_skill(workspace / ".svc" / "skills", "broken", "no front matter")
    body = (await client.get("/skills")).json()
    by_name = {s["name"]: s for s in body["skills"]}
    assert body["count"] == 2 and set(by_name) == {"tester", "writer"}
    assert by_name["tester"]["location"] == "workspace"
    assert by_name["tester"]["description"] == "workspace copy"
    assert by_name["writer"]["location"] == "user" and by_name["writer"]["version"] == "1.0.0"
    user = (await client.get("/skills", params={"location": "user"})).json()
    assert [s["name"] for s in user["skills"]] == ["writer"]
    bad = await client.get("/skills", params={"location": "moon"})
    assert bad.status_code == 400 and bad.json()["code"] == "SKILLS_ERROR"


async def test_get_returns_the_document(client: httpx.AsyncClient, workspace: Path) -> None:
    put_skill(workspace / ".svc" / "skills", "tester", skill("Test Runner"))
    by_id = (await client.get("/skills/tester")).json()
    assert by_id["name"] == "Test Runner" and by_id["content"].startswith("---")
    assert by_id["hash"].startswith("sha256:")
    by_name = await client.get("/skills/Test Runner")
    assert by_name.status_code == 200 and by_name.json()["id"] == "tester"
    missing = await client.get("/skills/nope")
    assert missing.status_code == 404 and missing.json()["code"] == "SKILL_NOT_FOUND"


async def test_preview_writes_nothing_and_import_writes(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    body = {"location": "user", "content": skill("Daily Report")}
    preview = (await client.post("/skills/import/preview", json=body)).json()
    assert preview["ok"] is True and preview["dry_run"] is True and preview["imported"] == 1
    assert preview["items"][0]["action"] == "create"
    assert not (engine.state_dir / "skills").exists()
    imported = (await client.post("/skills/import", json=body)).json()
    assert imported["ok"] is True and imported["imported"] == 1
    assert (engine.state_dir / "skills" / "Daily-Report" / "SKILL.md").is_file()
    assert (await client.get("/skills/Daily Report")).json()["location"] == "user"


async def test_conflict_policies(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    first = {"location": "user", "content": skill("dup", "one")}
    await client.post("/skills/import", json=first)
    second = {"location": "user", "content": skill("dup", "two")}
    skipped = (await client.post("/skills/import", json=second)).json()
    assert skipped["imported"] == 0 and skipped["skipped"] == 1
    failed = await client.post("/skills/import", json={**second, "conflict_policy": "fail"})
    assert failed.status_code == 409 and failed.json()["code"] == "SKILLS_CONFLICT"
    renamed = await client.post("/skills/import", json={**second, "conflict_policy": "rename"})
    assert renamed.json()["items"][0]["id"] == "dup-2"
    await client.post("/skills/import", json={**second, "conflict_policy": "overwrite"})
    assert (await client.get("/skills/dup")).json()["description"] == "two"
    spaced = {**second, "namespace": "team", "conflict_policy": "fail"}
    assert (await client.post("/skills/import", json=spaced)).json()["items"][0]["id"] == "team-dup"


async def test_import_from_a_directory_tree_and_a_zip(
    client: httpx.AsyncClient, workspace: Path, tmp_path: Path
) -> None:
    tree = tmp_path / "bundle"
    put_skill(tree, "alpha", skill("alpha"))
    (tree / "alpha" / "scripts").mkdir()
    (tree / "alpha" / "scripts" / "run.sh").write_text("echo hi\n")
    put_skill(tree / "nested", "beta", skill("beta"))
    result = await client.post(
        "/skills/import", json={"location": "workspace", "file_or_path": str(tree)}
    )
    assert result.json()["imported"] == 2
    assert (workspace / ".svc" / "skills" / "alpha" / "scripts" / "run.sh").is_file()
    archive = tmp_path / "skills.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("gamma/SKILL.md", skill("gamma"))
        z.writestr("gamma/notes.md", "notes")
        z.writestr("../evil/SKILL.md", skill("evil"))
    zipped = (
        await client.post("/skills/import", json={"location": "user", "file_or_path": str(archive)})
    ).json()
    assert [i["id"] for i in zipped["items"]] == ["gamma"]
    assert (await client.get("/skills/gamma")).status_code == 200


async def test_invalid_imports_are_400_naming_the_problem(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    no_name = await client.post(
        "/skills/import", json={"location": "user", "content": "---\ndescription: x\n---\n"}
    )
    assert no_name.status_code == 400 and "name" in no_name.json()["error"]
    both = await client.post("/skills/import", json={"location": "user"})
    assert both.status_code == 400
    builtin = await client.post("/skills/import", json={"location": "builtin", "content": "x"})
    assert builtin.status_code == 400 and builtin.json()["field"] == "location"
    missing = await client.post(
        "/skills/import", json={"location": "user", "file_or_path": str(tmp_path / "nope")}
    )
    assert missing.status_code == 400 and missing.json()["field"] == "file_or_path"


async def test_templates_ship_with_the_engine(client: httpx.AsyncClient) -> None:
    body = (await client.get("/skills/templates")).json()
    assert body["count"] >= 3
    names = {t["name"] for t in body["templates"]}
    assert "code-review" in names
    template = body["templates"][0]
    assert template["description"] and template["content"].startswith("---")
    builtin = (await client.get("/skills", params={"location": "builtin"})).json()
    assert builtin["count"] == body["count"]
