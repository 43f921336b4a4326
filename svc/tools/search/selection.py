"""Pick the search backend the settings ask for."""

from __future__ import annotations

from ...logs import register_secret
from ..types import ToolFailed
from .backend import SearchBackend
from .brave import DEFAULT_BASE_URL as BRAVE_DEFAULT_URL
from .brave import BraveSearch
from .config import (
    BRAVE_KEY_ENVS,
    BRAVE_URL_ENVS,
    EXA_KEY_ENVS,
    EXA_URL_ENVS,
    SEARXNG_ENGINES_ENVS,
    SEARXNG_URL_ENVS,
    SearchConfig,
)
from .exa import DEFAULT_BASE_URL as EXA_DEFAULT_URL
from .exa import ExaSearch
from .hosted import HostedSearch
from .searxng import SearxngSearch

BACKENDS = ("auto", "hosted", "brave", "exa", "searxng", "none", "disabled")
# ``svc`` is the engine's own name for its hosted service.
_ALIASES = {"svc": "hosted"}

NOT_CONFIGURED = (
    "web search is not configured: set SVC_SEARCH_URL (hosted), SVC_BRAVE_SEARCH_API_KEY, "
    "SVC_EXA_API_KEY or SVC_SEARXNG_URL"
)


def select_backend(config: SearchConfig) -> SearchBackend:
    """The backend for ``config``; :class:`ToolFailed` when it cannot be used."""
    name = _ALIASES.get(config.backend, config.backend)
    if name in ("none", "disabled"):
        raise ToolFailed("web search is disabled (SVC_SEARCH_BACKEND=none)", backend=name)
    if name == "auto":
        if config.url:
            return HostedSearch(_operator_url(config.url, "SVC_SEARCH_URL", name))
        backend = _brave(config) or _exa(config) or _searxng(config)
        if backend is None:
            raise ToolFailed(NOT_CONFIGURED, backend="auto")
        return backend
    if name == "hosted":
        if not config.url:
            raise ToolFailed(
                "web search is not configured: the hosted backend needs SVC_SEARCH_URL",
                backend=name,
            )
        return HostedSearch(_operator_url(config.url, "SVC_SEARCH_URL", name))
    if name == "brave":
        return _brave(config) or _missing(name, BRAVE_KEY_ENVS)
    if name == "exa":
        return _exa(config) or _missing(name, EXA_KEY_ENVS)
    if name == "searxng":
        return _searxng(config) or _missing(name, SEARXNG_URL_ENVS)
    raise ToolFailed(
        f"unknown search backend `{config.backend}`; use one of {', '.join(BACKENDS)}",
        backend=config.backend,
    )


def _brave(config: SearchConfig) -> BraveSearch | None:
    key = config.env(BRAVE_KEY_ENVS)
    if key is None:
        return None
    register_secret(key)  # so a log line can never carry it
    url = config.env(BRAVE_URL_ENVS)
    base_url = _operator_url(url, "SVC_BRAVE_SEARCH_URL", "brave") if url else BRAVE_DEFAULT_URL
    return BraveSearch(api_key=key, base_url=base_url)


def _exa(config: SearchConfig) -> ExaSearch | None:
    key = config.env(EXA_KEY_ENVS)
    if key is None:
        return None
    register_secret(key)
    url = config.env(EXA_URL_ENVS)
    base_url = _operator_url(url, "SVC_EXA_SEARCH_URL", "exa") if url else EXA_DEFAULT_URL
    return ExaSearch(api_key=key, base_url=base_url)


def _searxng(config: SearchConfig) -> SearxngSearch | None:
    url = config.env(SEARXNG_URL_ENVS)
    if not url:
        return None
    base_url = _operator_url(url, "SVC_SEARXNG_URL", "searxng")
    return SearxngSearch(base_url=base_url, engines=config.env(SEARXNG_ENGINES_ENVS))


def _operator_url(url: str, variable: str, backend: str) -> str:
    """A search service the operator configured may be local (a SearXNG next to the
    engine), but its URL must be http(s) without credentials: the guard's operator rule."""
    from ...net.guard import UrlRefused, check_operator_url

    try:
        return check_operator_url(url, field=variable)
    except UrlRefused as exc:
        raise ToolFailed(exc.message, backend=backend, field=variable) from None


def _missing(name: str, envs: tuple[str, ...]) -> SearchBackend:
    wanted = " or ".join(e for e in envs if not e.startswith("AGENT_"))
    raise ToolFailed(f"web search backend `{name}` is not configured: set {wanted}", backend=name)


__all__ = ["BACKENDS", "NOT_CONFIGURED", "select_backend"]
