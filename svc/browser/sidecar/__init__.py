"""The browser sidecar ``svc-browser``: Chromium over the DevTools protocol, served to the
engine as newline-delimited JSON-RPC 2.0 on stdio (protocol ``"1"``).

A Trio program of its own process: :mod:`.main` (the command line), :mod:`.server` (the
JSON-RPC loop), :mod:`.methods` (the thirteen methods), :mod:`.session` and :mod:`.launch`
(one Chromium per session, killed with its helpers whatever ends the session),
:mod:`.cdp` (the protocol over trio-websocket), :mod:`.page` (what a page can do).
"""
