"""Packs: bundles of skills (and workflow files) with a manifest, installed from a
local path or a channel attachment, exported to a zip, updated from their source."""

from .manifest import MANIFEST_NAMES, PackContents, PackInvalid, is_newer, read_pack
from .repository import InstalledPack, PackRepository
from .service import PackBusy, PackNotFound, PackService, PackVersionUnavailable

__all__ = [
    "MANIFEST_NAMES",
    "InstalledPack",
    "PackBusy",
    "PackContents",
    "PackInvalid",
    "PackNotFound",
    "PackRepository",
    "PackService",
    "PackVersionUnavailable",
    "is_newer",
    "read_pack",
]
