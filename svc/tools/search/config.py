"""Where the search settings and keys come from.

Everything is read from the engine's settings and its environment mapping
(``Settings.environ``), never from ``os.environ``, so an embedder or a test
decides exactly what the tool can see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from ..types import ToolContext

DEFAULT_TIMEOUT_MS = 10_000

# AGENT_ is the canonical engine prefix, SVC_ the alternative, then the
# provider's own conventional name.
BRAVE_KEY_ENVS = ("AGENT_BRAVE_SEARCH_API_KEY", "SVC_BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_API_KEY")
BRAVE_URL_ENVS = ("AGENT_BRAVE_SEARCH_URL", "SVC_BRAVE_SEARCH_URL")
EXA_KEY_ENVS = ("AGENT_EXA_API_KEY", "SVC_EXA_API_KEY", "SVC_EXA_SEARCH_API_KEY", "EXA_API_KEY")
EXA_URL_ENVS = ("AGENT_EXA_SEARCH_URL", "SVC_EXA_SEARCH_URL")
SEARXNG_URL_ENVS = ("AGENT_SEARXNG_URL", "SVC_SEARXNG_URL")
SEARXNG_ENGINES_ENVS = ("AGENT_SEARXNG_ENGINES", "SVC_SEARXNG_ENGINES")


@attrs.frozen
class SearchConfig:
    backend: str = "auto"
    url: str | None = None
    """The hosted search endpoint (``search_url``)."""
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    environ: Mapping[str, str] = attrs.field(factory=dict, repr=False)

    def env(self, names: Sequence[str]) -> str | None:
        """The first non-blank value among ``names``."""
        for name in names:
            value = self.environ.get(name)
            if value is not None and value.strip():
                return value.strip()
        return None

    @classmethod
    def from_context(cls, ctx: ToolContext) -> SearchConfig:
        settings = ctx.settings
        if settings is None:
            return cls()
        return cls(
            backend=(settings.search_backend or "auto").strip().lower(),
            url=settings.search_url or None,
            timeout_ms=settings.search_timeout_ms,
            environ=settings.environ or {},
        )


__all__ = [
    "BRAVE_KEY_ENVS",
    "BRAVE_URL_ENVS",
    "DEFAULT_TIMEOUT_MS",
    "EXA_KEY_ENVS",
    "EXA_URL_ENVS",
    "SEARXNG_ENGINES_ENVS",
    "SEARXNG_URL_ENVS",
    "SearchConfig",
]
