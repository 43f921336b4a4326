"""``svc-browser`` and ``svc-engine browser status | doctor | install``, as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import trio

import svc

SIDECAR = str(Path(sys.executable).parent / "svc-browser")


async def run_sidecar(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(120):
        return await trio.run_process(
            [SIDECAR, *args], env=env, capture_stdout=True, capture_stderr=True, check=False
        )


def _browser_env(tmp_path: Path, cli_env: dict[str, str]) -> dict[str, str]:
    return {
        **cli_env,
        "SVC_BROWSER_ENABLED": "true",
        "SVC_BROWSER_ALLOW_NO_SANDBOX": "true",
        "SVC_BROWSER_USER_DATA_ROOT": str(tmp_path / "profiles"),
    }


async def test_sidecar_version_and_doctor_json(tmp_path: Path, cli_env: dict[str, str]) -> None:
    version = await run_sidecar("--version", env=cli_env)
    assert version.stdout.decode().strip() == f"svc-browser {svc.__version__}"
    doctor = await run_sidecar("doctor", "--json", env=_browser_env(tmp_path, cli_env))
    assert doctor.returncode == 0, doctor.stderr
    status = json.loads(doctor.stdout)
    assert status["runnable"] is True, status
    assert status["sidecar"]["found"] is True and status["browser"]["found"] is True
    assert status["blocking_issues"] == []
    text = await run_sidecar(
        "doctor", "--executable-path", "/nowhere/chrome", env=_browser_env(tmp_path, cli_env)
    )
    assert "browser_not_found" in text.stdout.decode()
    refused = await run_sidecar("serve", "--transport", "tcp", env=cli_env)
    assert refused.returncode != 0 and "unsupported transport" in refused.stderr.decode()


async def test_sidecar_serves_json_rpc_on_stdio(cli_env: dict[str, str]) -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "browser.version", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "browser.ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "browser.nope", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "browser.snapshot", "params": {"session_id": "x"}},
        {"jsonrpc": "2.0", "id": 5, "method": "browser.close", "params": {"session_id": "x"}},
    ]
    stdin = b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"{oops\n"
    process = await trio.lowlevel.open_process(
        [SIDECAR, "serve", "--transport", "stdio"],
        env=cli_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    received = b""
    with trio.fail_after(120):
        await process.stdin.send_all(stdin)
        while received.count(b"\n") < len(lines) + 1:
            received += await process.stdout.receive_some(65536)
        # End of stdin is the end of the sidecar.
        await process.stdin.aclose()
        assert await process.wait() == 0
    replies = {r["id"]: r for r in map(json.loads, received.decode().splitlines())}
    assert replies[1]["result"] == {"protocol_version": "1", "sidecar_version": svc.__version__}
    assert replies[2]["result"] == {"ok": True}
    assert replies[3]["error"]["code"] == 500 and "unknown method" in replies[3]["error"]["message"]
    assert replies[4]["error"]["code"] == 404
    assert replies[4]["error"]["data"] == {"protocol_version": "1"}
    assert replies[5]["result"] == {"session_id": "x", "closed": False}
    assert replies[None]["error"]["code"] == -32700


async def test_engine_browser_doctor_and_install(
    run_cli: Callable, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    env = _browser_env(tmp_path, cli_env)
    doctor = await run_cli("browser", "doctor", "--json", env=env)
    assert doctor.returncode == 0, doctor.stderr
    status = json.loads(doctor.stdout)
    assert status["runnable"] is True, status
    assert status["sidecar"]["version"] == f"svc-browser {svc.__version__}"

    state = tmp_path / "other-state"
    install = await run_cli("browser", "install", "--json", "--state-dir", str(state), env=env)
    assert install.returncode == 0, install.stderr
    body = json.loads(install.stdout)
    assert body["installed_path"] == str(state / "binaries" / "svc-browser")
    assert os.access(body["installed_path"], os.X_OK)
    assert body["status"]["sidecar"]["path"] == body["installed_path"]

    nowhere = {**env, "SVC_BROWSER_SIDECAR": "/nowhere/svc-browser"}
    text = await run_cli("browser", "doctor", env=nowhere)
    assert "browser_sidecar_not_found" in text.stdout.decode()


async def test_engine_browser_status_asks_the_running_engine(
    served: Callable, run_cli: Callable
) -> None:
    server = await served()
    result = await run_cli("browser", "status", "--port", str(server.port))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["enabled"] is False
    down = await run_cli("browser", "status", "--port", "9")
    assert down.returncode != 0 and "cannot reach" in down.stderr.decode()


async def test_engine_browser_status_sends_the_token(served: Callable, run_cli: Callable) -> None:
    token = "tk_browser_status_0123456789abcdef"
    server = await served(env={"SVC_API_TOKEN": token})
    refused = await run_cli("browser", "status", "--port", str(server.port), env={})
    assert refused.returncode != 0 and "401" in refused.stderr.decode()
    result = await run_cli("browser", "status", "--port", str(server.port), "--token", token)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["enabled"] is False
