"""Errors of the sidecar, each with its JSON-RPC error code.

Messages start with a snake_case code and a colon where the engine should see a
code (``host_not_allowed: ...``, ``browser_not_found: ...``); the engine reads
the code from that prefix.
"""

from __future__ import annotations


class SidecarError(Exception):
    rpc_code = 500

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else type(self).__name__


class SessionNotFound(SidecarError):
    rpc_code = 404

    def __init__(self, session_id: str) -> None:
        super().__init__(f"session `{session_id}` not found")


class SelectorNotFound(SidecarError):
    rpc_code = 422

    def __init__(self, selector: str) -> None:
        super().__init__(f"selector `{selector}` not found")


class InvalidParams(SidecarError):
    rpc_code = -32602
