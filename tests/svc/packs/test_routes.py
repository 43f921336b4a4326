"""Packs over HTTP: detect, install, list, inspect, updates, export, uninstall."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx

import svc


def make_pack(root: Path, *, version: str = "1.0.0", name: str = "ops-pack") -> Path:
    skill = root / "skills" / "deploy"
    skill.mkdir(parents=True)
    (root / "pack.yaml").write_text(f"name: {name}\nversion: {version}\ndescription: ops\n")
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: deploys\n---\nsteps\n")
    (root / "workflows").mkdir()
    (root / "workflows" / "nightly.yaml").write_text("name: nightly\n")
    return root


def zip_pack(source: Path, output: Path, *, prefix: str = "") -> Path:
    with zipfile.ZipFile(output, "w") as z:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                z.write(path, prefix + path.relative_to(source).as_posix())
    return output


async def test_detect_tells_a_pack_from_anything_else(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    archive = zip_pack(make_pack(tmp_path / "src"), tmp_path / "p.zip", prefix="ops-pack/")
    found = (await client.post("/packs/detect", json={"path": str(archive)})).json()
    assert found["is_pack"] is True and found["name"] == "ops-pack"
    assert found["version"] == "1.0.0" and found["kind"] == "zip"
    assert found["contents"]["skills"][0]["id"] == "deploy"
    assert found["contents"]["workflows"] == ["workflows/nightly.yaml"]
    (tmp_path / "plain").mkdir()
    plain = (await client.post("/packs/detect", json={"path": str(tmp_path / "plain")})).json()
    assert plain["is_pack"] is False and "pack.yaml" in plain["reason"]


async def test_install_makes_its_skills_available_and_uninstall_removes_them(
    client: httpx.AsyncClient, engine: svc.Engine, tmp_path: Path
) -> None:
    archive = zip_pack(make_pack(tmp_path / "src"), tmp_path / "p.zip")
    installed = await client.post(
        "/packs/install", json={"path": str(archive), "source": {"kind": "local"}}
    )
    assert installed.status_code == 200
    pack = installed.json()["pack"]
    assert pack["pack_id"] == "ops-pack" and pack["source"]["kind"] == "local"
    listed = (await client.get("/packs")).json()
    assert listed["count"] == 1 and listed["packs"][0]["version"] == "1.0.0"
    skill = (await client.get("/skills/deploy")).json()
    assert skill["pack"] == "ops-pack"
    inspected = (await client.get("/packs/ops-pack")).json()
    assert inspected["state"] == "installed" and inspected["contents"]["skills"]
    removed = await client.post("/packs/uninstall", json={"name": "ops-pack"})
    assert removed.json()["uninstalled"] is True
    assert (await client.get("/skills/deploy")).status_code == 404
    assert not (engine.state_dir / "packs" / "installed" / "ops-pack").exists()
    assert (await client.get("/packs/ops-pack")).json()["code"] == "PACK_NOT_FOUND"


async def test_updates_compare_with_the_local_source(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    source = make_pack(tmp_path / "src")
    await client.post("/packs/install", json={"path": str(source)})
    none = (await client.get("/packs/ops-pack/updates")).json()
    assert none["update_available"] is False and none["available_version"] == "1.0.0"
    (source / "pack.yaml").write_text("name: ops-pack\nversion: 1.10.0\n")
    newer = (await client.get("/packs/ops-pack/updates")).json()
    assert newer["update_available"] is True and newer["available_version"] == "1.10.0"
    wrong = await client.post("/packs/ops-pack/update", json={"target_version": "9.9.9"})
    assert wrong.status_code == 409 and wrong.json()["code"] == "PACK_VERSION_UNAVAILABLE"
    updated = (await client.post("/packs/ops-pack/update", json={})).json()
    assert updated["updated"] is True and updated["from_version"] == "1.0.0"
    assert (await client.get("/packs/ops-pack")).json()["pack"]["version"] == "1.10.0"
    again = (await client.post("/packs/ops-pack/update", json={})).json()
    assert again["updated"] is False


async def test_export_writes_a_zip_under_the_state_dir(
    client: httpx.AsyncClient, engine: svc.Engine, tmp_path: Path
) -> None:
    await client.post("/packs/install", json={"path": str(make_pack(tmp_path / "src"))})
    exported = (await client.post("/packs/export", json={"pack_id": "ops-pack"})).json()
    path = Path(exported["path"])
    assert path.parent == engine.state_dir / "packs" / "exports" and exported["bytes"] > 0
    with zipfile.ZipFile(path) as z:
        assert "pack.yaml" in z.namelist() and "skills/deploy/SKILL.md" in z.namelist()
    # The export is itself an installable pack.
    detected = (await client.post("/packs/detect", json={"path": str(path)})).json()
    assert detected["is_pack"] is True
    outside = await client.post(
        "/packs/export", json={"pack_id": "ops-pack", "output_path": "/etc/x.zip"}
    )
    assert outside.status_code == 400 and outside.json()["field"] == "output_path"
    wrong_version = await client.post("/packs/export", json={"pack_id": "ops-pack", "version": "2"})
    assert wrong_version.status_code == 404


async def test_install_from_an_attachment_reads_only_stored_uploads(
    client: httpx.AsyncClient, engine: svc.Engine, tmp_path: Path
) -> None:
    uploads = engine.state_dir / "channel_uploads" / "telegram" / "42"
    uploads.mkdir(parents=True)
    zip_pack(make_pack(tmp_path / "src"), uploads / "pack.zip")
    installed = await client.post(
        "/packs/install_from_attachment",
        json={
            "attachment_id": "att-1",
            "path": "channel_uploads/telegram/42/pack.zip",
            "connector": "telegram",
            "channel_id": "42",
        },
    )
    source = installed.json()["pack"]["source"]
    assert source["kind"] == "attachment" and source["attachment_id"] == "att-1"
    outside = await client.post(
        "/packs/install_from_attachment",
        json={"attachment_id": "att-2", "path": str(tmp_path / "src")},
    )
    assert outside.status_code == 400 and outside.json()["field"] == "path"


async def test_invalid_packs_are_400(client: httpx.AsyncClient, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pack.yaml").write_text("name: x\n")
    no_version = await client.post("/packs/install", json={"path": str(bad)})
    assert no_version.status_code == 400 and no_version.json()["code"] == "PACK_INVALID"
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("pack.yaml", "name: e\nversion: 1\n")
        z.writestr("../../escape.txt", "x")
    refused = await client.post("/packs/install", json={"path": str(evil)})
    assert refused.status_code == 400 and not (tmp_path.parent / "escape.txt").exists()
    url = await client.post("/packs/install", json={"url": "https://example.com/p.zip"})
    assert url.status_code == 400 and url.json()["code"] == "PACK_URL_UNSUPPORTED"
    assert (await client.post("/packs/install", json={})).json()["field"] == "path"
