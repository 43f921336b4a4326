"""The OpenAPI 3.1 document of every route (built on first request; see build.py)."""

from .build import UndescribedRoute, build_document, openapi_path, operation_key

__all__ = ["UndescribedRoute", "build_document", "openapi_path", "operation_key"]
