"""Packs: bundles of skills with a manifest."""

from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_packs": op("List installed packs"),
    "install_pack": op("Install a pack from a local path", body=ANY_BODY, body_required=True),
    "install_pack_from_attachment": op(
        "Install a pack from a stored channel attachment", body=ANY_BODY, body_required=True
    ),
    "uninstall_pack": op("Uninstall a pack", body=ANY_BODY, body_required=True),
    "export_pack": op("Export an installed pack to a zip", body=ANY_BODY, body_required=True),
    "detect_pack": op("Say whether a path holds a pack", body=ANY_BODY, body_required=True),
    "inspect_pack": op("Inspect an installed pack"),
    "pack_updates": op("Compare an installed pack with its source"),
    "update_pack": op("Update a pack from its source", body=ANY_BODY),
}
