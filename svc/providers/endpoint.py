"""Where an HTTP provider lives and what every HTTP provider shares."""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import httpx

from ..logs import is_secret_name, register_secret
from .transport import RetryPolicy


@attrs.frozen
class Endpoint:
    """One configured provider: its id, base URL, key and defaults."""

    id: str
    base_url: str
    api_key: str | None = attrs.field(default=None, repr=False)
    default_model: str | None = None
    supports_vision: bool = True
    headers: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    """Extra request headers (``providers.<id>.headers``); may carry credentials."""
    params: Mapping[str, str] = attrs.field(factory=dict)
    """Extra query parameters (Azure's ``api-version``)."""


def join_url(base_url: str, path: str, params: Mapping[str, str] | None = None) -> str:
    """``base_url`` + ``/path``, keeping any query the base URL already has."""
    url = httpx.URL(base_url)
    url = url.copy_with(path=url.path.rstrip("/") + "/" + path.lstrip("/"))
    for name, value in (params or {}).items():
        if name not in url.params:
            url = url.copy_add_param(name, value)
    return str(url)


class HttpProvider:
    """Shared state of the HTTP providers.

    (The :class:`~svc.providers.types.Provider` attributes.)
    """

    def __init__(
        self, endpoint: Endpoint, http: httpx.AsyncClient, *, retry: RetryPolicy | None = None
    ) -> None:
        self.endpoint = endpoint
        self.http = http
        self.retry = retry or RetryPolicy()
        self.id = endpoint.id
        self.default_model = endpoint.default_model
        self.supports_vision = endpoint.supports_vision
        # Keys must never reach a log line, even via an upstream echo.
        register_secret(endpoint.api_key)
        for name, value in endpoint.headers.items():
            if is_secret_name(name):
                register_secret(value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, base_url={self.endpoint.base_url!r})"
