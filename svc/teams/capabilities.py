"""Runtime capability enforcement for an instance's runs.

The template's tool allow and deny lists shape the run's registry view (the
model never sees a disallowed tool). Everything that depends on a call's
arguments is this gate, passed to the run as ``RunRequest.gates``; the
dispatcher asks it before the permission rules, on every call (``batch``
sub-calls included). Checks, in order:

1. the deny list, then the allow list (the view already applies them; the gate
   repeats them so it is correct on its own);
2. network tools (``websearch``, ``webfetch``, ``webfetch_html``, browser
   actions): refused unless ``net_scopes.enabled``; with ``allow_hosts`` set,
   ``websearch`` is refused and a URL argument must be on an allowed host (or a
   subdomain of one);
3. shell commands that run ``git push``: refused without ``git_caps.push``;
   with ``push_requires_approval`` (template or policy) the permission rules for
   ``git_push`` decide, and ``ask`` becomes a pending permission request (listed
   in ``toolApprovals``) that the call waits for; ``git commit`` needs
   ``git_caps.commit``;
4. file tools: every path they touch (``path``, ``filePath``, ``cwd``, the
   literal prefix of a glob pattern; the workspace root when none is given)
   must lie under one of the read (``read``, ``glob``, ``grep`` ...) or write
   (``write``, ``edit``, ``apply_patch``) scopes; no scopes, no access;
5. the ``auth`` tool: the secret alias must be in ``secrets_scopes``.

A refusal is reported through ``on_denied`` (the service publishes
``agent_team.capability.denied``) and fails the call with the reason.
"""

from __future__ import annotations

import inspect
import re
import shlex
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..tools import matches_any
from .templates import Capabilities, normalize_tool_name

NETWORK_TOOLS = frozenset({"websearch", "webfetch", "webfetch_html"})
SHELL_TOOLS = frozenset({"bash", "shell"})
READ_TOOLS = frozenset({"read", "glob", "grep", "codesearch", "lsp", "ls", "list"})
WRITE_TOOLS = frozenset({"write", "edit", "apply_patch", "multiedit"})
PATH_ARGS = ("path", "filePath", "file_path", "cwd")
URL_ARGS = ("url", "uri", "link")
SECRET_ARGS = ("id", "provider", "providerID")

_GLOB_CHARS = re.compile(r"[*?\[{]")
_SEGMENT_BREAK = re.compile(r"&&|\|\||[;|&\n]")
# git options that take a separate argument (so that argument is not the subcommand)
_GIT_OPTION_ARGS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})

Approver = Callable[[str, Mapping[str, Any]], Awaitable[str | None]]
"""``await approve(command, args)`` → None if the push may run, else the refusal reason."""

DenialHook = Callable[[str, str], Awaitable[None] | None]
"""``on_denied(tool, reason)``: told of every refusal (awaited when it returns an awaitable)."""


def is_network_tool(tool: str) -> bool:
    return tool in NETWORK_TOOLS or (tool.startswith("browser_") and tool != "browser_status")


def git_subcommands(command: str) -> list[str]:
    """The git subcommands a shell command line runs (``git -C x push`` → ``["push"]``)."""
    found: list[str] = []
    for segment in _SEGMENT_BREAK.split(command):
        try:
            tokens = shlex.split(segment)
        except ValueError:
            tokens = segment.split()
        for index, token in enumerate(tokens):
            if token.rsplit("/", 1)[-1] != "git":
                continue
            rest = tokens[index + 1 :]
            skip = False
            for word in rest:
                if skip:
                    skip = False
                    continue
                if word in _GIT_OPTION_ARGS:
                    skip = True
                    continue
                if word.startswith("-"):
                    continue
                found.append(word)
                break
            break
    return found


def host_allowed(url: str, allow_hosts: list[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if not host:
        return False
    for allowed in allow_hosts:
        allowed = allowed.strip().lower().rstrip(".")
        if allowed and (host == allowed or host.endswith("." + allowed)):
            return True
    return False


class CapabilityGate:
    """A ``RunRequest.gates`` entry enforcing one instance's capabilities (module docstring)."""

    def __init__(
        self,
        capabilities: Capabilities,
        *,
        workspace: Path,
        push_requires_approval: bool,
        approve_push: Approver,
        on_denied: DenialHook,
    ) -> None:
        self.capabilities = capabilities
        self.workspace = workspace.resolve()
        self.push_requires_approval = (
            push_requires_approval or capabilities.git_caps.push_requires_approval
        )
        self._approve_push = approve_push
        self._on_denied = on_denied

    async def __call__(self, tool: str, args: Mapping[str, Any]) -> str | None:
        reason = await self.check(tool, args)
        if reason is not None:
            reported = self._on_denied(tool, reason)
            if inspect.isawaitable(reported):
                await reported
        return reason

    async def check(self, tool: str, args: Mapping[str, Any]) -> str | None:
        name = normalize_tool_name(tool)
        caps = self.capabilities
        if matches_any(caps.deny_patterns, name):
            return f"tool `{tool}` denied by agent capability policy"
        allow = caps.allow_patterns
        if allow and not matches_any(allow, name):
            return f"tool `{tool}` not in agent allowlist"
        if is_network_tool(name):
            return self._network(name, args)
        if name in SHELL_TOOLS:
            return await self._shell(args)
        if name in READ_TOOLS:
            return self._files("read", caps.fs_scopes.read, name, args)
        if name in WRITE_TOOLS:
            return self._files("write", caps.fs_scopes.write, name, args)
        if name == "auth":
            return self._secret(args)
        return None

    # ------------------------------------------------------------------ checks
    def _network(self, name: str, args: Mapping[str, Any]) -> str | None:
        net = self.capabilities.net_scopes
        if not net.enabled:
            return "network disabled for this agent instance"
        hosts = [h for h in net.allow_hosts if h.strip()]
        if not hosts:
            return None
        if name == "websearch":
            return "websearch is not allowed when the agent's network is limited to allow_hosts"
        for key in URL_ARGS:
            url = args.get(key)
            if isinstance(url, str) and url.strip() and not host_allowed(url, hosts):
                return f"host of `{url}` is not in the agent's allow_hosts"
        return None

    async def _shell(self, args: Mapping[str, Any]) -> str | None:
        command = args.get("command")
        if not isinstance(command, str):
            return None
        subcommands = git_subcommands(command)
        git = self.capabilities.git_caps
        if "commit" in subcommands and not git.commit:
            return "git commit denied by agent capability policy"
        if "push" in subcommands:
            if not git.push:
                return "git push denied by agent capability policy"
            if self.push_requires_approval:
                return await self._approve_push(command, args)
        return None

    def _files(
        self, kind: str, scopes: list[str], name: str, args: Mapping[str, Any]
    ) -> str | None:
        candidates = [v for k in PATH_ARGS if isinstance(v := args.get(k), str) and v.strip()]
        if name == "glob" and isinstance(args.get("pattern"), str):
            candidates.append(_GLOB_CHARS.split(args["pattern"], 1)[0] or ".")
        if not candidates:
            candidates = ["."]  # a path-less call works on the whole workspace
        if not [s for s in scopes if s.strip()]:
            return f"fs {kind} access blocked: no scopes configured"
        roots = [self._resolve(s) for s in scopes if s.strip()]
        for candidate in candidates:
            target = self._resolve(candidate)
            if not any(target == root or target.is_relative_to(root) for root in roots):
                return f"fs {kind} access to `{candidate}` is outside the agent's {kind} scopes"
        return None

    def _secret(self, args: Mapping[str, Any]) -> str | None:
        scopes = [s for s in self.capabilities.secrets_scopes if s.strip()]
        if not scopes:
            return "secret access blocked: no secrets_scopes configured"
        alias = next(
            (v for k in SECRET_ARGS if isinstance(v := args.get(k), str) and v.strip()), None
        )
        if alias is None or alias not in scopes:
            return f"secret `{alias}` is not in the agent's secrets_scopes"
        return None

    def _resolve(self, path: str) -> Path:
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.workspace / candidate
        return candidate.resolve()


__all__ = ["CapabilityGate", "git_subcommands", "host_allowed", "is_network_tool"]
