"""What start-up imports of ours, and which of it start-up never runs.

    /tmp/venv/bin/python tests/benchmarks/startup_imports.py [--all] [--package svc.goals]

Opens the engine (HTTP served) on a fresh state directory the way ``svc-engine
serve`` does, then lists every module of ours that was imported, with its own
import time (``-X importtime``, so figures are inflated a little) and whether
any of its code ran during start-up. A module imported at start-up whose code
never ran is a candidate for loading on first use (see docs/architecture.md,
"Start-up budget"). Not a benchmark with a target: a tool for keeping start-up
lean.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OURS = ("svc", "cli", "actors", "supervisors")

# Runs in a child interpreter started with -X importtime.
CHILD = r"""
import gc, json, sys, pathlib
gc.disable()
import trio
import cli.commands
import svc
ran = set()

def profile(frame, event, arg):
    # Functions only (CO_OPTIMIZED): module and class bodies run by importing.
    if event == "call" and frame.f_code.co_flags & 1:
        ran.add(frame.f_code.co_filename)

async def main():
    state = pathlib.Path(sys.argv[1])
    settings = svc.Settings.load({"state_dir": state / "state", "workspace": state, "port": 0,
                                  "global_config": state / "none.json"}, environ={})
    sys.setprofile(profile)
    async with svc.open_engine(settings, serve_http=True):
        sys.setprofile(None)

trio.run(main)
ours = {name: getattr(module, "__file__", None) in ran for name, module in list(sys.modules.items())
        if name.split(".")[0] in ("svc", "cli", "actors", "supervisors")}
print(json.dumps(ours))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--all", action="store_true", help="list modules whose code ran, too")
    parser.add_argument("--package", default="", help="only modules under this package")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", CHILD, tmp],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    ran: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    own: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _, name = line.split(":", 1)[1].split("|")
            own[name.strip()] = int(self_us)
    rows = sorted(
        ((own.get(name, 0), name, ran[name]) for name in ran if name.startswith(args.package)),
        reverse=True,
    )
    idle = [row for row in rows if not row[2]]
    print(
        f"{len(rows)} modules of ours imported at start-up, {len(idle)} of them ran no code; "
        f"own import time {sum(r[0] for r in rows) / 1000:.1f} ms, of which idle modules "
        f"{sum(r[0] for r in idle) / 1000:.1f} ms"
    )
    for self_us, name, used in rows if args.all else idle:
        print(f"{self_us / 1000:7.1f} ms  {'ran ' if used else 'idle'}  {name}")


if __name__ == "__main__":
    main()
