"""The engine's identity configuration."""

from ..registry import ANY_BODY, OBJECT, op

OPERATIONS = {
    "get_identity": op("The identity configuration", returns=OBJECT),
    "patch_identity": op(
        "Change the identity configuration", body=ANY_BODY, body_required=True, returns=OBJECT
    ),
}
