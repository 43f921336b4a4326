"""Loopback web pages for the browser tests: real HTTP that real Chromium loads.

``open_pages()`` serves them on ``127.0.0.1:<port>``; a redirect leads to the same
server under the name ``localhost``, which the tests' allowlist (``127.0.0.1``) refuses.
``slow_gate`` holds ``/slow`` (and pages that fetch it) until the test sets it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import attrs
import trio

from tests.fakes.web_server import Reply, Request, WebServer, html, open_web_server, redirect

HOME = """<!doctype html><html><head><title>Home page</title></head><body>
<h1>Welcome</h1>
<p id="status">Not clicked</p>
<button id="change" onclick="document.getElementById('status').textContent='Clicked!'">
Change</button>
<a href="/next">Next page</a>
<div style="display:none"><button id="hidden">Hidden</button></div>
</body></html>"""

NEXT = "<!doctype html><title>Next page</title><body><p>You reached the next page.</p></body>"

FORM = """<!doctype html><html><head><title>Search</title></head><body>
<form action="/result" method="get">
<input id="q" name="q" placeholder="Search terms">
<button type="submit">Go</button>
</form></body></html>"""

KEYS = """<!doctype html><title>Keys</title><body>
<input id="field" autofocus>
<p id="last">none</p>
<script>
document.getElementById('field').addEventListener('keydown',
  (e) => { document.getElementById('last').textContent = 'key:' + e.key; });
</script></body>"""

DELAYED = """<!doctype html><title>Delayed</title><body><p>Loading</p>
<script>
setTimeout(() => {
  const el = document.createElement('div');
  el.id = 'late';
  el.textContent = 'Ready now';
  document.body.appendChild(el);
  history.pushState({}, '', '/delayed?done=1');
}, 200);
</script></body>"""

FETCHING = """<!doctype html><title>Fetching</title><body><p id="out">waiting</p>
<script>
fetch('/slow').then((r) => r.text()).then((t) => {
  document.getElementById('out').textContent = t;
});
</script></body>"""


def large_page() -> str:
    rows = "\n".join(
        f"<p>Paragraph {i}: {'lorem ipsum dolor sit amet ' * 4}</p>" for i in range(400)
    )
    return f"<!doctype html><title>Large</title><body><h1>Large page</h1>{rows}</body>"


@attrs.define
class Pages:
    server: WebServer
    slow_gate: trio.Event = attrs.field(factory=trio.Event)
    open_gate: trio.Event | None = None
    """When set up by a test, ``/gated`` waits for it (and says when it was asked)."""
    gated_asked: trio.Event = attrs.field(factory=trio.Event)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def port(self) -> int:
        return int(self.server.url.rsplit(":", 1)[1])


@asynccontextmanager
async def open_pages() -> AsyncIterator[Pages]:
    async with open_web_server() as server:
        pages = Pages(server)

        async def slow(request: Request) -> Reply:
            await pages.slow_gate.wait()
            return Reply(200, b"slow done", (("content-type", "text/plain"),))

        async def gated(request: Request) -> Reply:
            pages.gated_asked.set()
            if pages.open_gate is not None:
                await pages.open_gate.wait()
            return html("<!doctype html><title>Gated</title><body>gated</body>")

        def result(request: Request) -> Reply:
            query = request.param("q") or ""
            return html(f"<!doctype html><title>Result</title><body>You searched: {query}</body>")

        server.routes.update(
            {
                "/": html(HOME),
                "/next": html(NEXT),
                "/form": html(FORM),
                "/result": result,
                "/keys": html(KEYS),
                "/delayed": html(DELAYED),
                "/fetching": html(FETCHING),
                "/slow": slow,
                "/large": html(large_page()),
                "/gated": gated,
                "/redirect-out": redirect(f"http://localhost:{pages.port}/next"),
                "/favicon.ico": Reply(404, b""),
            }
        )
        yield pages
