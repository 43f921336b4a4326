"""A replica in a process of its own, for tests that kill it: ``python -m`` this module.

It serves the core engine (no later domains) on the store ``SVC_STORE_URL``
names, prints ``listening on <url>`` once ready, and runs until killed.
"""

from __future__ import annotations

import sys

import trio

import svc


async def main() -> None:
    settings = svc.Settings.load({"port": 0})
    async with svc.open_engine(settings, serve_http=True, components=[]) as engine:
        print(f"listening on {engine.url}", file=sys.stderr, flush=True)
        await trio.sleep_forever()


if __name__ == "__main__":
    trio.run(main)
