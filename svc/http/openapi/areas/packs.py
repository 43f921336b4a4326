"""Packs: bundles of skills with a manifest."""

from ..records import extras as x
from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_packs": op("List installed packs", returns=x.PACKS),
    "install_pack": op(
        "Install a pack from a local path",
        body=ANY_BODY,
        body_required=True,
        returns=x.PACK_INSTALLED,
    ),
    "install_pack_from_attachment": op(
        "Install a pack from a stored channel attachment",
        body=ANY_BODY,
        body_required=True,
        returns=x.PACK_INSTALLED,
    ),
    "uninstall_pack": op(
        "Uninstall a pack", body=ANY_BODY, body_required=True, returns=x.PACK_UNINSTALLED
    ),
    "export_pack": op(
        "Export an installed pack to a zip",
        body=ANY_BODY,
        body_required=True,
        returns=x.PACK_EXPORTED,
    ),
    "detect_pack": op(
        "Say whether a path holds a pack",
        body=ANY_BODY,
        body_required=True,
        returns=x.PACK_DETECTED,
    ),
    "inspect_pack": op("Inspect an installed pack", returns=x.PACK_INSPECTED),
    "pack_updates": op("Compare an installed pack with its source", returns=x.PACK_UPDATES),
    "update_pack": op("Update a pack from its source", body=ANY_BODY, returns=x.PACK_UPDATED),
}
