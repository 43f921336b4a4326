"""Enterprise ingestion benchmark (a plain script, not collected by pytest).

    .venv/bin/python tests/benchmarks/bench_enterprise_ingest.py [--files 5000] [--kb 4]

Builds a folder of ``--files`` Markdown files of ``--kb`` KB each (5,000 x 4 KB =
20 MB; headings and paragraphs of English-like text, one file in 500 carrying a
planted credential), then, in the same run:

  (a) ``svc-engine memory import --path <folder> --tier project --project-id bench``
      in a fresh state directory: the command's wall time, process start included;
  (b) a ``local_directory`` source binding of the same folder on a running engine
      (HTTP on loopback): the wall time of ``POST
      /enterprise/source-bindings/{id}/import`` (scan for secrets, quarantine,
      import at project tier with the data class, job records, progress events).

Target (from the issue): (b) <= 1.5 x (a).
"""

from __future__ import annotations

import argparse
import pathlib
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "from",
    "at",
    "or",
    "an",
    "which",
    "ledger",
    "forecast",
    "budget",
    "quarter",
    "revenue",
    "margin",
    "deploy",
    "release",
    "incident",
    "runbook",
    "service",
    "latency",
    "cache",
    "replica",
    "schema",
    "migration",
    "rollback",
    "review",
    "approval",
    "vendor",
    "contract",
    "audit",
]
SECRET = "legacy deploy key: api_key=sk-live-abcdefghijklmnop1234\n"


def build_folder(root: pathlib.Path, files: int, kb: int, seed: int = 16) -> int:
    rng = random.Random(seed)
    total = 0
    for index in range(files):
        folder = root / f"team-{index % 50:02d}"
        folder.mkdir(exist_ok=True)
        parts = [f"# Note {index}\n\n"]
        size = len(parts[0])
        while size < kb * 1024:
            if rng.random() < 0.1:
                line = f"\n## Section {size}\n\n"
            else:
                line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))) + ".\n"
            parts.append(line)
            size += len(line)
        if index % 500 == 7:
            parts.append(SECRET)
        text = "".join(parts)
        (folder / f"note-{index:05d}.md").write_text(text)
        total += len(text.encode())
    return total


def cli_import(folder: pathlib.Path, state: pathlib.Path) -> float:
    exe = pathlib.Path(sys.executable).with_name("svc-engine")
    started = time.perf_counter()
    subprocess.run(
        [
            str(exe),
            "memory",
            "import",
            "--path",
            str(folder),
            "--tier",
            "project",
            "--project-id",
            "bench",
            "--state-dir",
            str(state),
            "--json",
        ],
        check=True,
        capture_output=True,
        env={"HOME": str(state), "PATH": "/usr/bin:/bin"},
    )
    return time.perf_counter() - started


async def binding_import(folder: pathlib.Path, tmp: pathlib.Path) -> tuple[float, dict]:
    settings = svc.Settings.load(
        {
            "state_dir": tmp / "engine-state",
            "workspace": tmp,
            "port": 0,
            "global_config": tmp / "none.json",
            "memory_exchanges": False,
            "enterprise": {"local_directory": {"allowed_roots": [str(folder)]}},
        },
        environ={"HOME": str(tmp)},
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=600) as client,
    ):
        await client.post(
            "/enterprise/connectors", json={"connector_id": "bench", "provider": "local_directory"}
        )
        saved = await client.post(
            "/enterprise/source-bindings",
            json={
                "binding_id": "bench",
                "connector_id": "bench",
                "source_type": "local_directory",
                "native_source_id": str(folder),
                "resource_ref": {
                    "resource_kind": "directory",
                    "resource_id": "bench",
                    "project_id": "bench",
                },
                "data_class": "internal",
            },
        )
        saved.raise_for_status()
        started = time.perf_counter()
        reply = await client.post("/enterprise/source-bindings/bench/import", json={})
        elapsed = time.perf_counter() - started
        reply.raise_for_status()
        return elapsed, reply.json()["job"]["counts"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--kb", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as raw:
        tmp = pathlib.Path(raw)
        folder = tmp / "corpus"
        folder.mkdir()
        total = build_folder(folder, args.files, args.kb)
        print(f"corpus: {args.files} files, {total / 1e6:.1f} MB")
        cli = cli_import(folder, tmp / "cli-state")
        print(f"(a) svc-engine memory import:         {cli:7.2f} s")
        ours, counts = trio.run(binding_import, folder, tmp)
        print(f"(b) local_directory binding import:   {ours:7.2f} s  {counts}")
        ratio = ours / cli
        print(f"ratio (b)/(a): {ratio:.2f} (target <= 1.5) {'OK' if ratio <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
