"""A bare quart-trio app with only a health route, served like the engine serves.

Used by bench_health.py as the baseline; prints ``listening on <url>`` to stderr.
"""

from __future__ import annotations

import logging
import sys

import hypercorn.config
import hypercorn.trio
import trio
from quart_trio import QuartTrio

app = QuartTrio("bare", static_folder=None)


@app.route("/global/health", methods=["GET", "HEAD"])
async def health() -> dict[str, object]:
    return {"healthy": True, "ready": True, "version": "0"}


async def main() -> None:
    config = hypercorn.config.Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.keep_alive_timeout = 75
    config.graceful_timeout = 5.0

    class Started:
        def started(self, binds: list[str]) -> None:
            print(f"listening on {binds[0]}", file=sys.stderr, flush=True)

    await hypercorn.trio.serve(app, config, task_status=Started())  # type: ignore[arg-type]


if __name__ == "__main__":
    trio.run(main)
