"""Layered configuration (pydantic-settings).

Layers, highest priority first:

1. explicit overrides (CLI flags such as ``--port`` or ``--provider``);
2. the environment: ``AGENT_<NAME>`` (canonical) or ``SVC_<NAME>`` for engine
   settings, plus each provider's standard API-key variable;
3. ``managed_config.json`` (next to the project config, or ``SVC_MANAGED_CONFIG``);
4. the project config ``.svc/config.json`` in the workspace (or ``--config``);
5. the global config (``AGENT_GLOBAL_CONFIG``/``SVC_GLOBAL_CONFIG``, else
   ``$XDG_CONFIG_HOME/svc/config.json``).

Layers are deep-merged, so a project file can set one provider's model while the
global file holds another provider. Config files are JSON objects using the
field names below (``default_provider``, ``providers.<id>.default_model`` ...).

Tests never touch ``os.environ``: :meth:`Settings.load` takes the environment as
a mapping.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .errors import ConfigError
from .logs import REDACTED, is_secret_name, register_secret
from .providers.catalog import BY_ID, PLACEHOLDER_KEYS, PROVIDERS, model_env_names

ENV_PREFIXES = ("AGENT_", "SVC_")


def _env(name: str, **kwargs: Any) -> Any:
    """Field metadata: the variable suffix read as ``AGENT_<name>`` or ``SVC_<name>``."""
    extra = kwargs.pop("json_schema_extra", {}) or {}
    extra["env"] = name
    return Field(json_schema_extra=extra, **kwargs)


class ProviderConfig(BaseModel):
    """One ``providers.<id>`` entry."""

    model_config = ConfigDict(extra="allow")

    api_key: SecretStr | None = None
    url: str | None = None
    default_model: str | None = None

    @field_validator("url")
    @classmethod
    def _operator_url(cls, value: str | None) -> str | None:
        """A model server the operator runs: http(s), no credentials in the URL (a key
        goes in ``api_key``); local servers are normal (the shared guard's operator rule)."""
        if value is None or not value.strip():
            return None
        from .net.guard import UrlRefused, check_operator_url

        try:
            return check_operator_url(value)
        except UrlRefused as exc:
            raise ValueError(exc.message) from None


class BrowserViewport(BaseModel):
    width: int = Field(default=1280, ge=1, le=10_000)
    height: int = Field(default=800, ge=1, le=10_000)


class BrowserSettings(BaseModel):
    """The ``browser`` block (``SVC_BROWSER_*`` variables; see docs/browser.md)."""

    model_config = ConfigDict(extra="ignore")

    enabled: bool = False
    sidecar_path: str | None = None
    executable_path: str | None = None
    user_data_root: str | None = None
    headless_default: bool = True
    allow_no_sandbox: bool = False
    """Chromium's sandbox cannot run as root in a container; this must then be true."""
    allowed_hosts: list[str] = Field(default_factory=list)
    """Hosts (and their subdomains) sessions may visit; empty denies every URL."""
    max_sessions: int = Field(default=2, ge=1, le=1_000)
    """Browser sessions open at once across the engine."""
    idle_timeout_ms: int = Field(default=600_000, ge=1_000)
    """A session unused this long is closed (its browser ends)."""
    default_viewport: BrowserViewport = Field(default_factory=BrowserViewport)

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value


# SVC_BROWSER_<suffix> (or AGENT_BROWSER_<suffix>) -> field of the browser block.
_BROWSER_ENV = {
    "ENABLED": "enabled",
    "SIDECAR": "sidecar_path",
    "EXECUTABLE": "executable_path",
    "USER_DATA_ROOT": "user_data_root",
    "HEADLESS": "headless_default",
    "ALLOW_NO_SANDBOX": "allow_no_sandbox",
    "ALLOWED_HOSTS": "allowed_hosts",
    "MAX_SESSIONS": "max_sessions",
    "IDLE_TIMEOUT_MS": "idle_timeout_ms",
}
_BROWSER_BOOLS = {"enabled", "headless_default", "allow_no_sandbox"}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _browser_env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """Browser variables; bool-like values other than 1/true/yes/on/0/false/no/off, blank
    values and an allowlist that parses to nothing are ignored (as in the reference)."""
    block: dict[str, Any] = {}
    for suffix, field in _BROWSER_ENV.items():
        raw = next(
            (
                env[p + "BROWSER_" + suffix]
                for p in ENV_PREFIXES
                if env.get(p + "BROWSER_" + suffix)
            ),
            None,
        )
        if raw is None or not raw.strip():
            continue
        if field in _BROWSER_BOOLS:
            lowered = raw.strip().lower()
            if lowered in _TRUE or lowered in _FALSE:
                block[field] = lowered in _TRUE
        elif field == "allowed_hosts":
            hosts = [item.strip() for item in raw.split(",") if item.strip()]
            if hosts:
                block[field] = hosts
        else:
            block[field] = raw.strip()
    return block


class LocalDirectorySettings(BaseModel):
    """``enterprise.local_directory``: the ``local_directory`` connector provider."""

    allowed_roots: list[Path] = Field(default_factory=list)
    """Absolute folders a ``local_directory`` source binding may read (symlinks resolved);
    empty: the provider can ingest nothing."""

    @field_validator("allowed_roots")
    @classmethod
    def _absolute(cls, value: list[Path]) -> list[Path]:
        for root in value:
            if not root.is_absolute():
                raise ValueError(f"`{root}` is not an absolute path")
        return value


class EnterpriseSettings(BaseModel):
    """``enterprise``: onboarding, connectors and source bindings."""

    local_directory: LocalDirectorySettings = Field(default_factory=LocalDirectorySettings)
    trust_tenant_headers: bool = False
    """Take the tenant and a verified principal from ``x-svc-org-id``, ``x-svc-workspace-id``,
    ``x-svc-deployment-id``, ``x-svc-actor-id`` and ``x-svc-actor-roles`` (a trusted proxy in
    front of the engine, and tests); otherwise every request is tenant ``local/local``."""


class Settings(BaseSettings):
    """Everything the engine reads from its configuration layers."""

    model_config = SettingsConfigDict(extra="allow", validate_default=True)

    _environ: dict[str, str] = PrivateAttr(default_factory=dict)
    _overrides: dict[str, Any] = PrivateAttr(default_factory=dict)
    _layers: dict[str, dict[str, Any]] = PrivateAttr(default_factory=dict)

    # --- where things live
    state_dir: Path | None = _env("STATE_DIR", default=None)
    workspace: Path | None = _env("WORKSPACE", default=None)
    workspace_roots: list[Path] = _env("WORKSPACE_ROOTS", default_factory=list)
    """When set: session directories and memory import paths must lie inside one of these
    (symlinks resolved). Unset: any directory (a local single-user engine)."""
    config_path: Path | None = _env("CONFIG", default=None)
    """Project config file; default ``<workspace>/.svc/config.json``."""
    managed_config: Path | None = _env("MANAGED_CONFIG", default=None)
    global_config: Path | None = _env("GLOBAL_CONFIG", default=None)
    store_url: str | None = _env("STORE_URL", default=None)
    """Where state lives: None for SQLite in the state dir; ``postgresql://...`` for a
    database several replicas share (docs/operations.md)."""

    # --- replicas sharing a PostgreSQL store (svc/cluster)
    replica_url: str | None = _env("REPLICA_URL", default=None)
    """This replica's internal URL, as the other replicas reach it (forwarded requests);
    default: the URL it serves on."""
    cluster_lease_ms: int = _env("CLUSTER_LEASE_MS", default=10_000, ge=500, le=600_000)
    """How long a replica's leases (and its place among the live replicas) outlast its
    last renewal: a replica that dies loses its entities after at most this long."""

    # --- HTTP
    host: str = _env("ENGINE_HOST", default="127.0.0.1")
    port: int = _env("ENGINE_PORT", default=39731, ge=0, le=65535)
    api_token: SecretStr | None = _env("API_TOKEN", default=None)
    allowed_hosts: list[str] = _env("ALLOWED_HOSTS", default_factory=list)
    """Host names answered besides loopback ones and the bound host (without a token)."""
    allowed_origins: list[str] = _env("ALLOWED_ORIGINS", default_factory=list)
    """Web page origins (``https://app.example``) allowed to call the engine from a browser."""
    web_ui: bool = _env("WEB_UI", default=False)
    web_ui_prefix: str = _env("WEB_UI_PREFIX", default="/admin")

    # --- the control panel (`svc-engine panel`, docs/webui.md)
    control_panel_host: str = _env("CONTROL_PANEL_HOST", default="127.0.0.1")
    control_panel_port: int = _env("CONTROL_PANEL_PORT", default=39732, ge=0, le=65535)
    control_panel_token: SecretStr | None = _env("CONTROL_PANEL_TOKEN", default=None)
    """The panel's own access token; without one the panel binds loopback only."""
    control_panel_engine_token: SecretStr | None = _env("CONTROL_PANEL_ENGINE_TOKEN", default=None)
    """The engine token the panel adds to what it forwards (else ``api_token``)."""
    control_panel_auto_start_engine: bool = _env("CONTROL_PANEL_AUTO_START_ENGINE", default=False)
    engine_url: str = _env("ENGINE_URL", default="http://127.0.0.1:39731")
    shared_engine_mode: bool = _env("SHARED_ENGINE_MODE", default=True)
    """Reuse (or start) the engine on the default port; off: the panel starts a private one."""
    log_level: str = _env("LOG_LEVEL", default="info")

    # --- models
    default_provider: str | None = _env("DEFAULT_PROVIDER", default=None)
    default_model: str | None = _env("DEFAULT_MODEL", default=None)
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    token_cost_per_1k_usd: float = _env("TOKEN_COST_PER_1K_USD", default=0.0, ge=0)
    protocol_title: str | None = _env("PROTOCOL_TITLE", default=None)

    # --- identity
    bot_name: str | None = _env("BOT_NAME", default=None)
    persona: str | None = _env("PERSONA", default=None)
    identity: dict[str, Any] = Field(default_factory=dict)

    # --- runs
    run_timeout_ms: int = _env("RUN_TIMEOUT_MS", default=600_000, ge=1)
    max_tool_iterations: int = _env("MAX_TOOL_ITERATIONS", default=25, ge=1, le=1000)
    tool_exec_timeout_ms: int = _env("TOOL_EXEC_TIMEOUT_MS", default=300_000, ge=1)
    permission_wait_timeout_ms: int = _env("PERMISSION_WAIT_TIMEOUT_MS", default=120_000, ge=1)
    question_wait_timeout_ms: int = _env("QUESTION_WAIT_TIMEOUT_MS", default=300_000, ge=1)
    apply_default_permission_rules: bool = _env("APPLY_DEFAULT_PERMISSION_RULES", default=True)

    # --- limits (docs/configuration.md, "Limits")
    shutdown_grace_ms: int = _env("SHUTDOWN_GRACE_MS", default=5_000, ge=0, le=600_000)
    """On SIGTERM, how long requests still running may take to finish (idle connections
    are closed at once, open SSE streams end at once)."""
    max_body_bytes: int = _env("MAX_BODY_BYTES", default=1024 * 1024, ge=1024)
    """Largest request body of a route not listed in svc/http/body_limits.py (413
    PAYLOAD_TOO_LARGE past it, refused before it is read)."""
    max_prompt_body_bytes: int = _env("MAX_PROMPT_BODY_BYTES", default=32 * 1024 * 1024, ge=1024)
    """Largest body of a prompt or message route (files travel inline as data URLs)."""
    max_import_body_bytes: int = _env("MAX_IMPORT_BODY_BYTES", default=32 * 1024 * 1024, ge=1024)
    """Largest body of a bulk import route (plans, scenario packs, memory, sources)."""
    max_concurrent_runs: int = _env("MAX_CONCURRENT_RUNS", default=64, ge=1, le=100_000)
    """Session runs executing at once across the engine (429 RUN_LIMIT_REACHED past it)."""
    max_sse_streams_per_client: int = _env(
        "MAX_SSE_STREAMS_PER_CLIENT", default=128, ge=1, le=100_000
    )
    """Event streams one client address may hold open (429 STREAM_LIMIT_REACHED past it)."""
    event_subscriber_buffer: int = _env("EVENT_SUBSCRIBER_BUFFER", default=256, ge=8, le=65_536)
    """Event batches buffered per stream; a stream that falls further behind is cut off
    (the client resumes from its cursor)."""
    tool_output_max_chars: int = _env(
        "TOOL_OUTPUT_MAX_CHARS", default=64_000, ge=1_000, le=10_000_000
    )
    """Characters of one tool result kept in the transcript (the rest is cut, with a note)."""
    heap_trim_interval_s: float = _env("HEAP_TRIM_INTERVAL_S", default=60.0, ge=0, le=86_400)
    """How often freed heap memory is given back to the system (glibc's ``malloc_trim``;
    svc/heap.py); 0 never."""

    # --- metrics
    metrics_enabled: bool = _env("METRICS_ENABLED", default=False)
    """Serve ``GET /metrics`` (Prometheus text format, behind the API token)."""

    # --- tools
    search_backend: str = _env("SEARCH_BACKEND", default="auto")
    search_url: str | None = _env("SEARCH_URL", default=None)
    search_timeout_ms: int = _env("SEARCH_TIMEOUT_MS", default=10_000, ge=100)
    webfetch_allow_private: bool = _env("WEBFETCH_ALLOW_PRIVATE", default=False)
    """Let ``webfetch`` reach loopback and private networks (refused by default: a model
    chooses the URL, and the engine itself listens on loopback)."""

    # --- subsystems configured by their own blocks
    browser: BrowserSettings = Field(default_factory=BrowserSettings)
    channels: dict[str, Any] = Field(default_factory=dict)

    # --- automations
    automation_scheduler_enabled: bool = _env("AUTOMATION_SCHEDULER_ENABLED", default=True)
    automation_max_concurrent_runs: int = _env(
        "AUTOMATION_MAX_CONCURRENT_RUNS", default=4, ge=1, le=100_000
    )
    """Routine (v1) runs executing at once; a routine's own runs always run one at a time."""
    automation_v2_max_concurrent_runs: int = _env(
        "AUTOMATION_V2_MAX_CONCURRENT_RUNS", default=8, ge=1, le=10_000
    )
    automation_misfire_grace_ms: int = _env("AUTOMATION_MISFIRE_GRACE_MS", default=60_000, ge=0)
    """A single due fire later than this counts as missed (its misfire policy applies)."""
    agent_automation_creation_enabled: bool = _env(
        "AGENT_AUTOMATION_CREATION_ENABLED", default=True
    )
    agent_automation_creation_daily_limit: int = _env(
        "AGENT_AUTOMATION_CREATION_DAILY_LIMIT", default=10, ge=0
    )
    agent_automation_active_cap: int = _env("AGENT_AUTOMATION_ACTIVE_CAP", default=50, ge=0)
    agent_automation_depth_limit: int = _env("AGENT_AUTOMATION_DEPTH_LIMIT", default=3, ge=1)
    agent_automation_creation_review_threshold: int = _env(
        "AGENT_AUTOMATION_CREATION_REVIEW_THRESHOLD", default=5, ge=0
    )
    """Agent creations allowed since the last human review (0: no review needed)."""
    agent_automation_weekly_spend_cap_usd: float | None = _env(
        "AGENT_AUTOMATION_WEEKLY_SPEND_CAP_USD", default=None, ge=0
    )

    # --- workflows
    workflow_max_concurrent_runs: int = _env(
        "WORKFLOW_MAX_CONCURRENT_RUNS", default=8, ge=1, le=10_000
    )
    """Workflow runs executing at once; more wait as ``queued``."""
    workflow_gate_ttl_ms: int = _env("WORKFLOW_GATE_TTL_MS", default=900_000, ge=1_000)
    """How long a workflow approval gate waits for a decision before the run is cancelled."""
    workflow_planner_timeout_ms: int = _env(
        "WORKFLOW_PLANNER_TIMEOUT_MS", default=120_000, ge=1_000
    )
    workflow_planner_max_steps: int = _env("WORKFLOW_PLANNER_MAX_STEPS", default=8, ge=1, le=64)
    """Steps a planner-drafted plan may have; larger plans are authored by hand or imported."""

    # --- memory
    memory_exchanges: bool = _env("MEMORY_EXCHANGES", default=True)
    """Keep a compact, searchable record of every completed user/assistant exchange."""
    memory_exchange_chars: int = _env("MEMORY_EXCHANGE_CHARS", default=600, ge=80, le=8_000)
    """Characters kept of each side of an exchange record."""

    # --- mcp
    mcp_call_timeout_ms: int = _env("MCP_CALL_TIMEOUT_MS", default=120_000, ge=1)
    """Bound on one ``tools/call`` to an MCP server (the connector's own deadline)."""
    mcp_connect_timeout_ms: int = _env("MCP_CONNECT_TIMEOUT_MS", default=20_000, ge=1)
    """Bound on one discovery: ``initialize`` plus every ``tools/list`` page."""
    mcp_auth_cooldown_ms: int = _env("MCP_AUTH_COOLDOWN_MS", default=15_000, ge=0)
    """A tool that met an authorization challenge is answered locally for this long."""
    mcp_startup_attempts: int = _env("MCP_STARTUP_ATTEMPTS", default=6, ge=1, le=100)
    mcp_startup_backoff_ms: int = _env("MCP_STARTUP_BACKOFF_MS", default=2_000, ge=0)
    """Start-up connects wait 0, 1, 2 ... times this between attempts."""
    mcp_catalog_path: Path | None = _env("MCP_CATALOG_PATH", default=None)
    """A catalog file replacing the packaged one (same JSON shape)."""
    mcp_capability_ttl_ms: int = _env("MCP_CAPABILITY_TTL_MS", default=72 * 3_600_000, ge=1)
    """How long a capability request stays open unless it names its own expiry."""

    # --- goals
    goal_event_retention: int = _env("GOAL_EVENT_RETENTION", default=10_000, ge=1)
    """Durable events kept per goal; older ones are pruned (their cursors answer 410 in
    projections)."""
    goals_trust_tenant_headers: bool = _env("GOALS_TRUST_TENANT_HEADERS", default=False)
    """Trust ``x-svc-org-id``/``x-svc-workspace-id``/``x-svc-actor-*`` headers (test and
    trusted-proxy mode)."""

    # --- enterprise
    enterprise: EnterpriseSettings = Field(default_factory=EnterpriseSettings)

    @field_validator("workspace_roots", mode="before")
    @classmethod
    def _path_list(cls, value: Any) -> Any:
        # The environment gives one string, separated like PATH (or by commas).
        if isinstance(value, str):
            parts = value.replace(",", os.pathsep).split(os.pathsep)
            return [item.strip() for item in parts if item.strip()]
        return value

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        # The environment gives one string; config files may give either form.
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    # ------------------------------------------------------------------ loading
    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Settings are only built through load(), which passes explicit layers in
        # init kwargs; the process environment is read there, never implicitly.
        return (init_settings,)

    @classmethod
    def load(
        cls,
        overrides: Mapping[str, Any] | None = None,
        *,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        """Read every layer and merge it. ``environ`` defaults to ``os.environ``."""
        env = dict(os.environ if environ is None else environ)
        overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
        env_layer = env_layer_from(env)
        paths = _layer_paths({**env_layer, **overrides}, env)
        layers = [
            _read_json_layer(paths["global"], "global"),
            _read_json_layer(paths["project"], "project"),
            _read_json_layer(paths["managed"], "managed"),
            env_layer,
            _cli_overrides(overrides),
        ]
        merged: dict[str, Any] = {}
        for layer in layers:
            merged = deep_merge(merged, layer)
        merged.setdefault("config_path", paths["project"])
        merged.setdefault("managed_config", paths["managed"])
        merged.setdefault("global_config", paths["global"])
        try:
            settings = cls(**merged)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(
                f"invalid configuration at `{where}`: {first['msg']}", field=where
            ) from None
        settings._environ = env
        settings._overrides = dict(overrides)
        settings._layers = dict(
            zip(("global", "project", "managed", "env", "cli"), layers, strict=True)
        )
        settings._register_secrets()
        return settings

    def reload(self) -> Settings:
        """Re-read every layer from disk with the same environment and overrides."""
        return type(self).load(self._overrides, environ=self._environ)

    def _register_secrets(self) -> None:
        for secret in (self.api_token, self.control_panel_token, self.control_panel_engine_token):
            if secret is not None:
                register_secret(secret.get_secret_value())
        for provider in self.providers.values():
            if provider.api_key is not None:
                register_secret(provider.api_key.get_secret_value())

    # ------------------------------------------------------------------ derived
    @property
    def environ(self) -> Mapping[str, str]:
        return self._environ

    @property
    def resolved_workspace(self) -> Path:
        return (self.workspace or Path.cwd()).expanduser().resolve()

    @property
    def resolved_state_dir(self) -> Path:
        if self.state_dir is not None:
            return self.state_dir.expanduser().resolve()
        data_home = self.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return (Path(data_home) / "svc-engine").resolve()

    @property
    def token(self) -> str | None:
        return self.api_token.get_secret_value() if self.api_token else None

    def layer(self, name: str) -> dict[str, Any]:
        return dict(self._layers.get(name, {}))

    def redacted_providers(self) -> dict[str, Any]:
        """The ``GET /config/providers`` body: every secret-looking field redacted."""
        providers = {}
        for pid, cfg in sorted(self.providers.items()):
            raw = cfg.model_dump(mode="python", exclude_none=True)
            providers[pid] = {k: _redact_value(k, v) for k, v in raw.items()}
        return {"providers": providers, "default": self.default_provider}


def _redact_value(key: str, value: Any) -> Any:
    if isinstance(value, SecretStr) or is_secret_name(key) or _looks_secret(key):
        return REDACTED
    if isinstance(value, dict):
        return {k: _redact_value(str(k), v) for k, v in value.items()}
    return value


def _looks_secret(key: str) -> bool:
    squashed = "".join(ch for ch in key.lower() if ch.isalnum())
    return squashed in {"auth", "oauth"} or any(
        word in squashed
        for word in (
            "token",
            "secret",
            "password",
            "credential",
            "apikey",
            "privatekey",
            "header",
            "cookie",
        )
    )


# ---------------------------------------------------------------------- layers
def env_layer_from(env: Mapping[str, str]) -> dict[str, Any]:
    """Build the environment layer: engine variables plus provider key variables."""
    layer: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        suffix = _env_suffix(field)
        if suffix is None:
            continue
        for prefix in ENV_PREFIXES:  # canonical AGENT_ first
            value = env.get(prefix + suffix)
            if value is not None and value != "":
                layer[name] = value
                break
    providers: dict[str, dict[str, Any]] = {}
    for info in PROVIDERS:
        key = next(
            (env[k] for k in info.key_envs if env.get(k, "").strip() not in PLACEHOLDER_KEYS), None
        )
        url = env.get(info.url_env) if info.url_env else None
        if key is None and not url:
            continue
        entry: dict[str, Any] = {}
        if key is not None:
            entry["api_key"] = key.strip()
        if url:
            entry["url"] = url
        model = next((env[m] for m in model_env_names(info) if env.get(m)), None)
        if model:
            entry["default_model"] = model
        providers[info.id] = entry
    if providers:
        layer["providers"] = providers
    if browser := _browser_env_layer(env):
        layer["browser"] = browser
    return layer


def _env_suffix(field: FieldInfo) -> str | None:
    extra = field.json_schema_extra
    return extra.get("env") if isinstance(extra, dict) else None  # type: ignore[return-value]


def _cli_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """CLI flags: ``provider``/``model``/``api_key`` land in that provider's entry."""
    layer = {k: v for k, v in overrides.items() if k not in {"provider", "model", "api_key"}}
    provider = overrides.get("provider")
    if provider:
        provider = str(provider).strip().lower()
        layer["default_provider"] = provider
        entry: dict[str, Any] = {}
        if overrides.get("model"):
            entry["default_model"] = overrides["model"]
        if overrides.get("api_key"):
            entry["api_key"] = overrides["api_key"]
        if entry:
            layer["providers"] = {provider: entry}
    elif overrides.get("model"):
        layer["default_model"] = overrides["model"]
    return layer


def _layer_paths(early: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Path]:
    workspace = Path(early.get("workspace") or Path.cwd()).expanduser()
    project = Path(early.get("config_path") or workspace / ".svc" / "config.json").expanduser()
    managed = Path(
        early.get("managed_config") or project.parent / "managed_config.json"
    ).expanduser()
    if early.get("global_config"):
        global_path = Path(early["global_config"]).expanduser()
    else:
        config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        global_path = Path(config_home) / "svc" / "config.json"
    return {"project": project, "managed": managed, "global": global_path}


def _read_json_layer(path: Path, name: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {name} config {path}: {exc.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{name} config {path} is not valid JSON "
            f"(line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name} config {path} must be a JSON object")
    # A local model server entry is "configured" by its URL alone.
    for pid, entry in list((data.get("providers") or {}).items()):
        if entry is None:
            data["providers"].pop(pid)
    return data


def deep_merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``overlay`` over ``base``; nested dicts merge, ``None`` overlay values are ignored."""
    result = dict(base)
    for key, value in overlay.items():
        if value is None:
            continue
        if isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = value
    return result


def known_provider(provider_id: str) -> bool:
    return provider_id in BY_ID


__all__ = ["BrowserSettings", "ProviderConfig", "Settings", "deep_merge", "env_layer_from"]
