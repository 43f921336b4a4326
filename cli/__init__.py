"""The ``svc-engine`` command line (asyncclick on trio)."""

from .main import cli, main

__all__ = ["cli", "main"]
