"""The eleven browser tools (``browser_status`` always; the others when the browser is
runnable), each holding the browser service it was registered with.

A tool never raises for a browser failure: the result's output is the message and
its metadata ``{ok: false, code, message}``. Success outputs are pretty-printed JSON.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import SvcError
from ..tools import Tool, ToolCapabilities, ToolContext, ToolResult
from .errors import BrowserError

if TYPE_CHECKING:
    from .actions import BrowserActions
    from .service import BrowserService

EXTRACT_INLINE_BYTES = 24_000

_SESSION = {"session_id": {"type": "string"}}
_TIMEOUT = {"timeout_ms": {"type": "integer", "minimum": 250, "maximum": 120_000}}
_CONDITION = {
    "type": "object",
    "description": "{kind: selector|text|url|navigation|network_idle, value}",
    "properties": {"kind": {"type": "string"}, "value": {"type": "string"}},
}
_TARGET = {"element_id": {"type": "string"}, "selector": {"type": "string"}}


def _schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(required)}


def failure(message: str, code: str, **extra: Any) -> ToolResult:
    return ToolResult(message, {"ok": False, "code": code, "message": message, **extra})


def success(payload: Mapping[str, Any], **metadata: Any) -> ToolResult:
    return ToolResult(json.dumps(payload, indent=2), {"ok": True, **metadata})


class BrowserTool(Tool):
    capabilities = ToolCapabilities(network_access=True)
    bounds_itself = True
    """Every browser call has its own deadline (page loads, waits)."""

    def __init__(self, service: BrowserService) -> None:
        self.service = service

    @property
    def actions(self) -> BrowserActions:
        from .actions import BrowserActions

        return BrowserActions(self.service)

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return await self.run(args, ctx)
        except SvcError as exc:
            code = exc.code if isinstance(exc, BrowserError) else "invalid_arguments"
            self.service.record_error(exc.message)
            return failure(exc.message, code)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


def _text(args: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
    value = args.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if required:
        raise BrowserError(f"invalid_arguments: `{key}` is required", code="invalid_arguments")
    return None


def _session_id(args: Mapping[str, Any]) -> str:
    return _text(args, "session_id") or ""


def _only(args: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: args[k] for k in keys if args.get(k) is not None}


def _with_wait_for(params: dict[str, Any]) -> dict[str, Any]:
    """``wait_for`` in the shapes ``browser_wait`` accepts (``type`` for ``kind``, ...)."""
    wait_for = params.get("wait_for")
    if isinstance(wait_for, Mapping):
        from .wait_args import condition_of

        condition = condition_of(wait_for)
        if condition is None:
            params.pop("wait_for")
        else:
            params["wait_for"] = condition
    return params


class BrowserStatusTool(BrowserTool):
    name = "browser_status"
    description = "Is browser automation runnable here? Readiness, blocking issues and hints."
    capabilities = ToolCapabilities()

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        status = await self.service.status()
        return success(
            status.to_wire(),
            enabled=status.enabled,
            runnable=status.runnable,
            sidecar_found=bool(status.sidecar.get("found")),
            browser_found=bool(status.browser.get("found")),
        )


class BrowserOpen(BrowserTool):
    name = "browser_open"
    description = (
        "Open a URL in a new headless browser session; returns its session_id for the other "
        "browser tools. Only hosts on the browser allowlist can be opened."
    )
    input_schema = _schema(
        {
            "url": {"type": "string"},
            "profile_id": {"type": "string"},
            "headless": {"type": "boolean"},
            "viewport": {
                "type": "object",
                "properties": {
                    "width": {"type": "integer", "minimum": 1, "maximum": 10_000},
                    "height": {"type": "integer", "minimum": 1, "maximum": 10_000},
                },
            },
            "wait_until": {"type": "string", "enum": ["navigation", "network_idle"]},
        },
        ("url",),
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        url = _text(args, "url") or ""
        status = await self.service.status()
        if not status.runnable:
            return ToolResult(
                json.dumps(status.to_wire(), indent=2),
                {
                    "ok": False,
                    "code": "browser_not_runnable",
                    "runnable": False,
                    "enabled": status.enabled,
                },
            )
        options = _only(args, "profile_id", "headless", "viewport", "wait_until")
        result = await self.actions.open(ctx.session_id, url, options)
        return success(
            result,
            session_id=result["session_id"],
            url=result.get("final_url"),
            headless=result.get("headless"),
        )


class BrowserNavigate(BrowserTool):
    name = "browser_navigate"
    description = "Load another URL in a browser session."
    input_schema = _schema(
        {
            **_SESSION,
            "url": {"type": "string"},
            "wait_until": {"type": "string", "enum": ["navigation", "network_idle"]},
        },
        ("session_id", "url"),
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        session_id = _session_id(args)
        result = await self.actions.navigate(
            ctx.session_id,
            session_id,
            _text(args, "url") or "",
            _text(args, "wait_until", required=False),
        )
        return success(result, session_id=session_id, url=result.get("final_url"))


class BrowserSnapshot(BrowserTool):
    name = "browser_snapshot"
    description = (
        "The page's interactive elements (links, buttons, fields), each with an element_id "
        "that stays the same across snapshots; optionally a screenshot."
    )
    input_schema = _schema(
        {
            **_SESSION,
            "max_elements": {"type": "integer", "minimum": 1, "maximum": 200},
            "include_screenshot": {"type": "boolean"},
        },
        ("session_id",),
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .artifacts import write_artifact

        session_id = _session_id(args)
        params = _only(args, "max_elements", "include_screenshot")
        result = await self.actions.read(ctx.session_id, session_id, "browser.snapshot", params)
        encoded = result.pop("screenshot_base64", None)
        result["screenshot_artifact"] = None
        if encoded:
            from .actions import decode_png

            artifact = await write_artifact(
                self.service.engine.state_dir / "browser-artifacts",
                decode_png({"data": encoded}, "data"),
                ext="png",
                kind="screenshot",
                now_ms=self.service.now_ms(),
                label="browser snapshot",
            )
            await self._link(ctx, artifact)
            result["screenshot_artifact"] = artifact
        return success(
            result,
            session_id=session_id,
            url=result.get("url"),
            element_count=len(result.get("elements") or ()),
        )

    async def _link(self, ctx: ToolContext, artifact: Mapping[str, Any]) -> None:
        from .artifacts import link_to_routine_run

        await link_to_routine_run(self.service.engine, ctx.session_id, artifact)


class _Action(BrowserTool):
    method: str

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        session_id = _session_id(args)
        params = await self.params(args)
        secret = params["text"] if self.name == "browser_type" and args.get("secret_ref") else None
        result = await self.actions.act(
            ctx.session_id, session_id, self.method, params, secret=secret
        )
        return success(result, **self.metadata(result, args))

    async def params(self, args: Mapping[str, Any]) -> dict[str, Any]:
        return _with_wait_for(_only(args, "element_id", "selector", "wait_for", "timeout_ms"))

    def metadata(self, result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "session_id": result.get("session_id"),
            "success": bool(result.get("success")),
            "url": result.get("final_url"),
        }


class BrowserClick(_Action):
    name = "browser_click"
    method = "browser.click"
    description = (
        "Click an element (element_id from a snapshot, or a CSS selector); `wait_for` then "
        "waits for a condition (selector, text, url, navigation, network_idle)."
    )
    input_schema = _schema(
        {**_SESSION, **_TARGET, "wait_for": _CONDITION, **_TIMEOUT}, ("session_id",)
    )


class BrowserType(_Action):
    name = "browser_type"
    method = "browser.type"
    description = (
        "Type text into a field (element_id or selector). `secret_ref` names an environment "
        "variable whose value is typed instead; it never appears in results. `submit` submits "
        "the field's form; `wait_for` then waits for a condition."
    )
    input_schema = _schema(
        {
            **_SESSION,
            **_TARGET,
            "text": {"type": "string"},
            "secret_ref": {"type": "string"},
            "replace": {"type": "boolean"},
            "submit": {"type": "boolean"},
            "wait_for": _CONDITION,
            **_TIMEOUT,
        },
        ("session_id",),
    )

    async def params(self, args: Mapping[str, Any]) -> dict[str, Any]:
        params = _with_wait_for(
            _only(args, "element_id", "selector", "replace", "submit", "wait_for", "timeout_ms")
        )
        params["text"] = self._text(args)
        return params

    def _text(self, args: Mapping[str, Any]) -> str:
        name = _text(args, "secret_ref", required=False)
        if name is None:
            text = args.get("text")
            if not isinstance(text, str) or not text:
                raise BrowserError(
                    "invalid_arguments: browser_type requires either `text` or `secret_ref`",
                    code="invalid_arguments",
                )
            return text
        environ = self.service.engine.settings.environ
        value = environ.get(name) if name in environ else os.environ.get(name)
        if value is None:
            raise BrowserError(
                f"secret_ref_missing: secret_ref `{name}` is not set in the environment",
                code="secret_ref_missing",
            )
        if not value:
            raise BrowserError(
                f"secret_ref_empty: secret_ref `{name}` resolved to an empty value",
                code="secret_ref_empty",
            )
        from ..logs import register_secret

        # Logs redact it from now on, wherever it might appear.
        register_secret(value)
        return value

    def metadata(self, result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
        return {**super().metadata(result, args), "used_secret_ref": bool(args.get("secret_ref"))}


class BrowserPress(_Action):
    name = "browser_press"
    method = "browser.press"
    description = (
        "Press a key (Enter, Tab, Escape, ArrowDown, a character...) in the focused element; "
        "`wait_for` then waits for a condition."
    )
    input_schema = _schema(
        {**_SESSION, "key": {"type": "string"}, "wait_for": _CONDITION, **_TIMEOUT},
        ("session_id", "key"),
    )

    async def params(self, args: Mapping[str, Any]) -> dict[str, Any]:
        return _with_wait_for(_only(args, "key", "wait_for", "timeout_ms"))


class BrowserWait(_Action):
    name = "browser_wait"
    method = "browser.wait"
    description = (
        "Wait until a condition holds: {kind: selector|text|url|navigation|network_idle, "
        "value}. network_idle means no request in flight for 500 ms."
    )
    input_schema = _schema({**_SESSION, "condition": _CONDITION, **_TIMEOUT}, ("session_id",))

    def prepare_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        from .wait_args import canonical_wait_args

        return canonical_wait_args(args)

    async def params(self, args: Mapping[str, Any]) -> dict[str, Any]:
        condition = args.get("condition")
        if not isinstance(condition, Mapping) or not condition.get("kind"):
            raise BrowserError(
                "invalid_arguments: browser_wait requires condition.kind",
                code="invalid_arguments",
            )
        return _only(args, "condition", "timeout_ms")


class BrowserExtract(BrowserTool):
    name = "browser_extract"
    description = (
        "The page's content as visible_text, markdown or html. Content over 24,000 bytes is "
        "stored as an artifact (its path is returned instead)."
    )
    input_schema = _schema(
        {
            **_SESSION,
            "format": {"type": "string", "enum": ["visible_text", "text", "markdown", "html"]},
            "max_bytes": {"type": "integer", "minimum": 1024, "maximum": 2_000_000},
        },
        ("session_id", "format"),
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .artifacts import EXTENSIONS, link_to_routine_run, write_artifact

        session_id = _session_id(args)
        params = _only(args, "format", "max_bytes")
        result = await self.actions.read(ctx.session_id, session_id, "browser.extract", params)
        content = result.get("content") or ""
        data = content.encode()
        result["artifact"] = None
        if len(data) > EXTRACT_INLINE_BYTES:
            fmt = result.get("format") or "visible_text"
            artifact = await write_artifact(
                self.service.engine.state_dir / "browser-artifacts",
                data,
                ext=EXTENSIONS.get(fmt, "txt"),
                kind="extract",
                now_ms=self.service.now_ms(),
                metadata={"format": fmt, "bytes": len(data), "truncated": result.get("truncated")},
            )
            await link_to_routine_run(self.service.engine, ctx.session_id, artifact)
            result["content"] = None
            result["artifact"] = artifact
        return success(
            result,
            session_id=session_id,
            format=result.get("format"),
            artifact=result["artifact"] is not None,
        )


class BrowserScreenshot(BrowserTool):
    name = "browser_screenshot"
    description = "A PNG screenshot of the page (or the full page), stored as an artifact."
    input_schema = _schema(
        {**_SESSION, "full_page": {"type": "boolean"}, "label": {"type": "string"}},
        ("session_id",),
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        from .actions import decode_png
        from .artifacts import link_to_routine_run, write_artifact

        session_id = _session_id(args)
        params = _only(args, "full_page", "label")
        result = await self.actions.read(ctx.session_id, session_id, "browser.screenshot", params)
        png = decode_png(result, "data_base64")
        artifact = await write_artifact(
            self.service.engine.state_dir / "browser-artifacts",
            png,
            ext="png",
            kind="screenshot",
            now_ms=self.service.now_ms(),
            label=_text(args, "label", required=False),
            metadata={"mime_type": "image/png", "bytes": len(png)},
        )
        await link_to_routine_run(self.service.engine, ctx.session_id, artifact)
        payload = {
            "session_id": session_id,
            "artifact": artifact,
            "summary": f"Saved screenshot artifact ({len(png)} bytes).",
        }
        return success(payload, session_id=session_id, artifact_id=artifact["artifact_id"])


class BrowserClose(BrowserTool):
    name = "browser_close"
    description = "Close a browser session (its browser process ends)."
    input_schema = _schema(_SESSION, ("session_id",))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        session_id = _session_id(args)
        result = await self.actions.close(ctx.session_id, session_id)
        return success(result, session_id=session_id, closed=result["closed"])


RUNNABLE_TOOLS: tuple[type[BrowserTool], ...] = (
    BrowserOpen,
    BrowserNavigate,
    BrowserSnapshot,
    BrowserClick,
    BrowserType,
    BrowserPress,
    BrowserWait,
    BrowserExtract,
    BrowserScreenshot,
    BrowserClose,
)
